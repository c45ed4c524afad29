// Unit tests of the host's multi-threaded stable merge of sorted runs
// (src/core/radix/core/multiway_merge.hpp), against std::stable_sort of the
// runs laid end to end: every run count, empty runs, heavy ties, thread
// counts, and the sort's key orders.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "radix/core/multiway_merge.hpp"
#include "radix_test.hpp"

namespace {

using radix::core::compare_key;
using radix::core::make_compare_key;

template <class U>
void check(const std::vector<std::uint64_t>& lengths, int distinct, unsigned threads, const compare_key<U>& f,
           int key_bits, const std::string& what) {
  const std::uint64_t seed = rt::case_seed(what + std::to_string(lengths.size()) + "/" + std::to_string(threads));
  SCOPED_TRACE(what + " runs " + std::to_string(lengths.size()) + " threads " + std::to_string(threads) + " seed " +
               rt::hex(seed));
  rt::rng r(seed);
  std::vector<std::uint64_t> starts{0};
  std::vector<U> keys;
  std::vector<std::uint64_t> values;
  for (auto len : lengths) {
    std::vector<U> run(len);
    for (auto& x : run) x = distinct ? U(r.below(distinct) * 0x9E3779B97F4A7C15ull) : U(r());
    std::stable_sort(run.begin(), run.end(), [&](U a, U b) { return f(a) < f(b); });
    for (auto x : run) {
      values.push_back(keys.size());
      keys.push_back(x);
    }
    starts.push_back(keys.size());
  }
  std::vector<std::pair<U, std::uint64_t>> want;
  for (std::size_t i = 0; i < keys.size(); ++i) want.push_back({keys[i], values[i]});
  std::stable_sort(want.begin(), want.end(), [&](const auto& a, const auto& b) { return f(a.first) < f(b.first); });
  std::vector<U> out_keys(keys.size(), U(0xAB));
  std::vector<std::uint64_t> out_values(keys.size(), ~0ull);
  radix::core::merge_sorted_runs<U, std::uint64_t>(keys.data(), values.data(), starts, f, key_bits, out_keys.data(),
                                                   out_values.data(), threads);
  for (std::size_t i = 0; i < want.size(); ++i) {
    ASSERT_EQ(std::memcmp(&out_keys[i], &want[i].first, sizeof(U)), 0) << "key " << i;
    ASSERT_EQ(out_values[i], want[i].second) << "value " << i;
  }
  // Keys alone.
  std::vector<U> only(keys.size(), U(0xCD));
  radix::core::merge_sorted_runs<U, radix::core::no_value>(keys.data(), nullptr, starts, f, key_bits, only.data(),
                                                           nullptr, threads);
  for (std::size_t i = 0; i < want.size(); ++i) ASSERT_EQ(std::memcmp(&only[i], &want[i].first, sizeof(U)), 0) << i;
}

TEST(MultiwayMerge, EveryRunCountTieAndThreadCount) {
  const auto f = make_compare_key<std::uint32_t>(radix::key_desc_of<std::uint32_t>(), radix::order::ascending,
                                                 radix::float_order::numeric, 0, 32);
  for (unsigned threads : {1u, 2u, 3u, 8u})
    for (int distinct : {0, 1, 7})
      for (const auto& lengths : std::vector<std::vector<std::uint64_t>>{
               {}, {0}, {1}, {20000}, {5000, 0, 7000}, {0, 0}, {1, 1, 1, 1, 1, 1, 1, 1, 1}, {9000, 9000, 9000, 3},
               {30000, 1, 0, 12345, 4096}})
        check<std::uint32_t>(lengths, distinct, threads, f, 32, "u32 distinct " + std::to_string(distinct));
}

TEST(MultiwayMerge, TheSortsKeyOrders) {
  const auto desc = make_compare_key<std::uint64_t>(radix::key_desc_of<std::int64_t>(), radix::order::descending,
                                                    radix::float_order::numeric, 0, 64);
  check<std::uint64_t>({10000, 20000, 5000}, 0, 4, desc, 64, "i64 descending");
  check<std::uint64_t>({10000, 20000, 5000}, 50, 4, desc, 64, "i64 descending few");
  const auto range = make_compare_key<std::uint32_t>(radix::key_desc_of<std::uint32_t>(), radix::order::ascending,
                                                     radix::float_order::numeric, 8, 13);
  check<std::uint32_t>({10000, 20000, 5000}, 0, 4, range, 5, "u32 bits 8-13");
  const auto floats = make_compare_key<std::uint32_t>(radix::key_desc_of<float>(), radix::order::ascending,
                                                      radix::float_order::total, 0, 32);
  check<std::uint32_t>({10000, 20000, 5000}, 0, 4, floats, 32, "f32 total order");
}

}  // namespace
