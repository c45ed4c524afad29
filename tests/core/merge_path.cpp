// Unit tests of the distributed sort's device logic on the CPU
// (src/core/radix/core/merge_path.hpp): the compared key, counting below a
// key, and the tile-by-tile stable merge exactly as the kernels run it
// (partition points, then every thread's steps), against std::stable_sort.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "radix/core/merge_path.hpp"
#include "radix_test.hpp"

namespace {

using radix::core::compare_key;
using radix::core::make_compare_key;

/// The kernels' shape (src/distributed/nccl_sort.cu), small and odd tiles too.
struct tile_shape {
  int threads, items;
};

/// merge_partition + merge_tiles, run on the CPU: returns the merged keys and
/// the values that followed them (each value is the element's position in a ++ b).
template <class U>
void merge_like_kernels(const std::vector<U>& a, const std::vector<U>& b, const compare_key<U>& f, tile_shape ts,
                        std::vector<U>& out, std::vector<std::uint64_t>& values) {
  const int tile = ts.threads * ts.items;
  const std::uint64_t total = a.size() + b.size();
  const std::uint64_t tiles = (total + tile - 1) / tile;
  std::vector<std::uint64_t> a_cut(tiles + 1);
  for (std::uint64_t t = 0; t <= tiles; ++t)
    a_cut[t] = radix::core::co_rank<U, std::uint64_t>(a.data(), a.size(), b.data(), b.size(),
                                                      std::min<std::uint64_t>(t * tile, total), f);
  out.assign(total, U(0));
  values.assign(total, ~0ull);
  std::vector<U> in(tile), merged(tile);
  std::vector<std::uint16_t> from(tile);
  for (std::uint64_t t = 0; t < tiles; ++t) {
    const std::uint64_t k0 = t * tile, k1 = std::min<std::uint64_t>(k0 + tile, total);
    const std::uint64_t a0 = a_cut[t], a1 = a_cut[t + 1], b0 = k0 - a0;
    const int la = int(a1 - a0), len = int(k1 - k0), lb = len - la;
    ASSERT_GE(lb, 0);
    for (int i = 0; i < len; ++i) in[i] = i < la ? a[a0 + i] : b[b0 + i - la];
    for (int th = 0; th < ts.threads; ++th)
      radix::core::merge_steps(in.data(), la, lb, th * ts.items, ts.items, f, merged.data(), from.data());
    for (int i = 0; i < len; ++i) {
      out[k0 + i] = merged[i];
      const int s = from[i];
      values[k0 + i] = s < la ? a0 + s : a.size() + b0 + (s - la);
    }
  }
}

template <class U>
void check_merge(const std::vector<U>& a_in, const std::vector<U>& b_in, const compare_key<U>& f, tile_shape ts,
                 const std::string& what) {
  SCOPED_TRACE(what + " threads " + std::to_string(ts.threads) + " items " + std::to_string(ts.items) + " |a| " +
               std::to_string(a_in.size()) + " |b| " + std::to_string(b_in.size()));
  auto by_f = [&](U x, U y) { return f(x) < f(y); };
  std::vector<U> a = a_in, b = b_in;
  std::stable_sort(a.begin(), a.end(), by_f);
  std::stable_sort(b.begin(), b.end(), by_f);
  // The oracle: a stable sort of a ++ b, positions riding along.
  std::vector<std::pair<U, std::uint64_t>> all;
  for (std::size_t i = 0; i < a.size(); ++i) all.push_back({a[i], i});
  for (std::size_t i = 0; i < b.size(); ++i) all.push_back({b[i], a.size() + i});
  std::stable_sort(all.begin(), all.end(), [&](const auto& x, const auto& y) { return f(x.first) < f(y.first); });
  std::vector<U> out;
  std::vector<std::uint64_t> values;
  merge_like_kernels(a, b, f, ts, out, values);
  ASSERT_EQ(out.size(), all.size());
  for (std::size_t i = 0; i < all.size(); ++i) {
    ASSERT_EQ(std::memcmp(&out[i], &all[i].first, sizeof(U)), 0) << "key " << i;
    ASSERT_EQ(values[i], all[i].second) << "value " << i;
  }
}

template <class U>
std::vector<U> random_keys(std::size_t n, std::uint64_t seed, int distinct) {
  rt::rng r(seed);
  std::vector<U> v(n);
  for (auto& x : v) x = distinct ? U(r.below(distinct) * 0x9E3779B97F4A7C15ull) : U(r());
  return v;
}

TEST(MergePath, StableMergeTileByTileAsTheKernelsRunIt) {
  const auto f32 = make_compare_key<std::uint32_t>(radix::key_desc_of<std::uint32_t>(), radix::order::ascending,
                                                   radix::float_order::numeric, 0, 32);
  for (tile_shape ts : {tile_shape{256, 8}, tile_shape{3, 5}, tile_shape{1, 1}, tile_shape{32, 7}})
    for (std::size_t na : {0, 1, 7, 2047, 2048, 2049, 5000})
      for (std::size_t nb : {0, 1, 2048, 3001})
        for (int distinct : {0, 1, 3, 100}) {
          const std::uint64_t seed = rt::case_seed("merge" + std::to_string(na) + "/" + std::to_string(nb));
          check_merge(random_keys<std::uint32_t>(na, seed, distinct), random_keys<std::uint32_t>(nb, seed + 1, distinct),
                      f32, ts, "u32 distinct " + std::to_string(distinct) + " seed " + rt::hex(seed));
        }
}

TEST(MergePath, OrdersAsTheSortDoes) {
  // Descending, a bit range, and floats with NaNs and both zeros: the merge
  // compares the key the passes sort by.
  const auto desc = make_compare_key<std::uint64_t>(radix::key_desc_of<std::uint64_t>(), radix::order::descending,
                                                    radix::float_order::numeric, 0, 64);
  const auto range = make_compare_key<std::uint32_t>(radix::key_desc_of<std::uint32_t>(), radix::order::ascending,
                                                     radix::float_order::numeric, 4, 12);
  const auto floats = make_compare_key<std::uint32_t>(radix::key_desc_of<float>(), radix::order::ascending,
                                                      radix::float_order::numeric, 0, 32);
  const auto signed_keys = make_compare_key<std::uint32_t>(radix::key_desc_of<std::int32_t>(), radix::order::ascending,
                                                           radix::float_order::numeric, 0, 32);
  check_merge(random_keys<std::uint64_t>(3000, 1, 50), random_keys<std::uint64_t>(4000, 2, 50), desc, {256, 8},
              "u64 descending");
  check_merge(random_keys<std::uint32_t>(3000, 3, 0), random_keys<std::uint32_t>(4000, 4, 0), range, {256, 8},
              "u32 bits 4-12");
  check_merge(random_keys<std::uint32_t>(3000, 5, 0), random_keys<std::uint32_t>(4000, 6, 0), signed_keys, {256, 8},
              "i32");
  std::vector<std::uint32_t> a, b;
  const float specials[] = {0.0f, -0.0f, 1.5f, -2.0f, __builtin_nanf(""), -__builtin_nanf(""), __builtin_inff()};
  rt::rng r(7);
  for (int i = 0; i < 5000; ++i) {
    std::uint32_t u;
    std::memcpy(&u, &specials[r.below(7)], 4);
    if ((u & 0x7F800000u) == 0x7F800000u && (u & 0x7FFFFFu)) u |= std::uint32_t(r.below(255));  // NaN payloads
    (i % 2 ? a : b).push_back(u);
  }
  check_merge(a, b, floats, {256, 8}, "f32 specials");
  // -0.0 and +0.0 compare equal; every NaN equal and after +inf.
  const float nz = -0.0f, pz = 0.0f, inf = __builtin_inff(), nan = -__builtin_nanf("");
  std::uint32_t unz, upz, uinf, unan;
  std::memcpy(&unz, &nz, 4);
  std::memcpy(&upz, &pz, 4);
  std::memcpy(&uinf, &inf, 4);
  std::memcpy(&unan, &nan, 4);
  EXPECT_EQ(floats(unz), floats(upz));
  EXPECT_LT(floats(uinf), floats(unan));
}

TEST(MergePath, CountBelowIsLowerAndUpperBound) {
  const auto f = make_compare_key<std::uint32_t>(radix::key_desc_of<std::uint32_t>(), radix::order::ascending,
                                                 radix::float_order::numeric, 0, 32);
  for (int distinct : {1, 5, 0}) {
    auto keys = random_keys<std::uint32_t>(1000, 11 + distinct, distinct);
    std::sort(keys.begin(), keys.end());
    std::vector<std::uint64_t> probes{0, ~0ull >> 32};
    for (int i = 0; i < 50; ++i) probes.push_back(keys[i * 17]);
    for (std::uint64_t c : probes) {
      const auto lo = radix::core::count_below<std::uint32_t, std::uint64_t>(keys.data(), keys.size(), f, c, false);
      const auto hi = radix::core::count_below<std::uint32_t, std::uint64_t>(keys.data(), keys.size(), f, c, true);
      EXPECT_EQ(lo, std::uint64_t(std::lower_bound(keys.begin(), keys.end(), c) - keys.begin()));
      EXPECT_EQ(hi, std::uint64_t(std::upper_bound(keys.begin(), keys.end(), c) - keys.begin()));
    }
  }
  EXPECT_EQ((radix::core::count_below<std::uint32_t, std::uint64_t>(nullptr, 0, f, 5, true)), 0u);
}

}  // namespace
