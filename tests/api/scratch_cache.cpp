// The process-wide scratch cache (src/api/scratch.cpp): buffers are reused,
// bounded, trimmed when idle, never shared by two live scratch objects, and
// the environment knob parses or says why not.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <random>
#include <thread>
#include <vector>

#include "api/scratch_cache.hpp"
#include "radix/radix.hpp"

namespace rd = radix::detail;
using namespace std::chrono_literals;

namespace {

constexpr std::size_t MiB = std::size_t(1) << 20;

/// Each test starts from an empty cache with a known limit and idle time.
struct ScratchCache : ::testing::Test {
  void SetUp() override {
    rd::scratch_cache_configure(64 * MiB, 10s);
    radix::release_scratch_cache();
  }
  void TearDown() override {
    rd::scratch_cache_configure(saved_, 2000ms);
    radix::release_scratch_cache();
  }
  std::size_t saved_ = rd::scratch_cache_limit();
};

}  // namespace

TEST(ScratchCacheSetting, Parses) {
  EXPECT_EQ(rd::parse_scratch_cache_limit("0"), 0u);
  EXPECT_EQ(rd::parse_scratch_cache_limit("100"), 100u);
  EXPECT_EQ(rd::parse_scratch_cache_limit("12K"), 12u << 10);
  EXPECT_EQ(rd::parse_scratch_cache_limit("512M"), 512u * MiB);
  EXPECT_EQ(rd::parse_scratch_cache_limit("2g"), std::size_t(2) << 30);
  for (const char* bad : {"", "M", "-1", " 5", "5X", "5MB", "99999999999999999999", "99999999999999G"})
    EXPECT_THROW(rd::parse_scratch_cache_limit(bad), radix::invalid_argument) << "'" << bad << "'";
}

TEST_F(ScratchCache, ABufferGivenBackIsTakenAgain) {
  std::byte* first = nullptr;
  {
    rd::scratch a(10 * MiB);
    first = a.data();
    first[0] = std::byte{1};
    first[10 * MiB - 1] = std::byte{2};
    EXPECT_EQ(rd::scratch_cache_held(), 0u);
  }
  EXPECT_GE(rd::scratch_cache_held(), 10 * MiB);
  {
    rd::scratch b(10 * MiB);
    EXPECT_EQ(b.data(), first);
    EXPECT_EQ(b.size(), 10 * MiB);
    EXPECT_EQ(rd::scratch_cache_held(), 0u);
  }
  {
    rd::scratch smaller(6 * MiB);  // within twice its size: reused
    EXPECT_EQ(smaller.data(), first);
  }
  {
    rd::scratch tiny(1 * MiB);  // below a huge page: malloc's, the cache keeps its buffer
    EXPECT_NE(tiny.data(), first);
    EXPECT_GE(rd::scratch_cache_held(), 10 * MiB);
  }
  EXPECT_GE(rd::scratch_cache_held(), 10 * MiB);  // the 1 MiB one was not kept
  EXPECT_LT(rd::scratch_cache_held(), 11 * MiB);
  {
    // nothing cached fits: the cache is emptied before the allocation, so
    // the cached buffer and the new one never coexist
    rd::scratch larger(30 * MiB);
    EXPECT_EQ(rd::scratch_cache_held(), 0u);
  }
  EXPECT_GE(rd::scratch_cache_held(), 30 * MiB);
}

TEST_F(ScratchCache, TwoLiveScratchesNeverShareABuffer) {
  { rd::scratch warm(8 * MiB); }
  rd::scratch a(8 * MiB), b(8 * MiB);
  EXPECT_NE(a.data(), b.data());
  EXPECT_TRUE(a.data() + a.size() <= b.data() || b.data() + b.size() <= a.data());
}

TEST_F(ScratchCache, StaysWithinItsLimit) {
  rd::scratch_cache_configure(16 * MiB, 10s);
  { rd::scratch big(20 * MiB); }  // larger than the limit: freed
  EXPECT_EQ(rd::scratch_cache_held(), 0u);
  {
    rd::scratch a(6 * MiB), b(6 * MiB), c(6 * MiB);
  }
  EXPECT_LE(rd::scratch_cache_held(), 16 * MiB);
  EXPECT_GE(rd::scratch_cache_held(), 12 * MiB);
  rd::scratch_cache_configure(0, 10s);  // off: empties it, keeps nothing
  EXPECT_EQ(rd::scratch_cache_held(), 0u);
  { rd::scratch d(6 * MiB); }
  EXPECT_EQ(rd::scratch_cache_held(), 0u);
}

TEST_F(ScratchCache, IdleBuffersAreFreed) {
  rd::scratch_cache_configure(64 * MiB, 50ms);
  { rd::scratch a(4 * MiB); }
  const auto until = std::chrono::steady_clock::now() + 5s;
  while (rd::scratch_cache_held() != 0 && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(10ms);
  EXPECT_EQ(rd::scratch_cache_held(), 0u);
}

TEST_F(ScratchCache, ConcurrentSortsThroughTheCacheAreRight) {
  const std::uint64_t seed = 20261126;
  std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
  radix::options o;
  o.use = radix::engine::cpu;
  o.threads = 1;
  auto job = [&](int t) {
    std::mt19937_64 rng(seed + t);
    for (int round = 0; round < 6; ++round) {
      std::vector<std::uint32_t> k(std::size_t(1) << (19 + round % 3));  // 2 to 8 MiB of scratch: cached
      for (auto& x : k) x = std::uint32_t(rng());
      std::vector<std::uint32_t> want = k;
      std::stable_sort(want.begin(), want.end());
      radix::sort(std::span<std::uint32_t>(k), o);
      EXPECT_EQ(k, want) << "thread " << t << " round " << round;
    }
  };
  std::thread a(job, 0), b(job, 1);
  a.join();
  b.join();
  EXPECT_GT(rd::scratch_cache_held(), 0u);  // the sorts gave their scratch back
}
