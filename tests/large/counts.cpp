// Label `large` (not in the default run; needs ~9 GiB and a few minutes): sorts
// 2^32 + 1000 uint8 keys, so element counts pass 2^32, and checks order and counts per value.
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include "radix_test.hpp"

namespace rt {
namespace {

/// Runs f(begin, end) over [0, n) split across the hardware threads.
template <class F>
void parallel_for(std::uint64_t n, F f) {
  const unsigned t = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> ts;
  for (unsigned i = 0; i < t; ++i) ts.emplace_back([&, i] { f(n * i / t, n * (i + 1) / t, i); });
  for (auto& x : ts) x.join();
}

using counts = std::array<std::uint64_t, 256>;

counts count_values(const std::uint8_t* k, std::uint64_t n) {
  const unsigned t = std::max(1u, std::thread::hardware_concurrency());
  std::vector<counts> part(t, counts{});
  parallel_for(n, [&](std::uint64_t b, std::uint64_t e, unsigned i) {
    counts c{};
    for (std::uint64_t j = b; j < e; ++j) ++c[k[j]];
    part[i] = c;
  });
  counts all{};
  for (const auto& c : part)
    for (int v = 0; v < 256; ++v) all[v] += c[v];
  return all;
}

TEST(Large, SortMoreThan2Pow32Uint8Keys) {
  const std::uint64_t n = (std::uint64_t(1) << 32) + 1000;
  const std::uint64_t seed = case_seed("large-u8");
  SCOPED_TRACE("n=" + std::to_string(n) + " seed=" + hex(seed) + " (base " + hex(base_seed()) + ")");
  std::unique_ptr<std::uint8_t[]> keys(new std::uint8_t[n]);
  // Skewed values (an 8-bit value from a 64-bit hash, with value 7 over-represented),
  // filled in parallel, deterministic per element block.
  parallel_for(n, [&](std::uint64_t b, std::uint64_t e, unsigned) {
    for (std::uint64_t j = b; j < e; ++j) {
      const std::uint64_t h = mix64(seed ^ (j >> 3));
      const std::uint8_t v = std::uint8_t(h >> (8 * (j & 7)));
      keys[j] = (v & 0xC0) == 0xC0 ? 7 : v;
    }
  });
  const counts before = count_values(keys.get(), n);
  radix::sort(std::span<std::uint8_t>(keys.get(), n));
  const counts after = count_values(keys.get(), n);
  EXPECT_EQ(before, after) << "counts per value changed";
  // Sorted: every value occupies exactly its run [start(v), start(v) + count(v)).
  std::uint64_t start = 0;
  std::array<std::uint64_t, 256> first{};
  for (int v = 0; v < 256; ++v) {
    first[v] = start;
    start += before[v];
  }
  ASSERT_EQ(start, n);
  std::atomic<std::uint64_t> misplaced{0};
  parallel_for(n, [&](std::uint64_t b, std::uint64_t e, unsigned) {
    std::uint64_t bad = 0;
    for (std::uint64_t j = b; j < e; ++j) {
      const std::uint8_t v = keys[j];
      bad += j < first[v] || j >= first[v] + before[v];
    }
    misplaced += bad;
  });
  EXPECT_EQ(misplaced.load(), 0u) << "keys outside their value's run";
  EXPECT_GT(before[7], before[8]) << "the skew of the input was lost";
}

}  // namespace
}  // namespace rt
