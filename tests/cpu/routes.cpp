// The CPU engine's routes that only some inputs take: the hybrid route for
// skewed inputs (src/cpu/lsd_hybrid.hpp, choose_fine_window / hybrid_fine),
// the in-place route of keys alone (src/cpu/lsd_in_place.hpp),
// the counting write-out of keys that vary in a narrow window
// (src/cpu/lsd_scan.hpp, expand), and the scan's sorted check
// (sorted_prefix): inputs built to take them (or to just miss them), checked
// element by element against std::stable_sort on the ordered bits, and the
// route that ran read back from RADIX_TRACE, so that a change of routing
// cannot leave these tests passing without testing the route they are for.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <type_traits>
#include <string>
#include <vector>

#include "radix/radix.hpp"
#include "radix_test.hpp"

namespace {

constexpr std::size_t big_n = (std::size_t(1) << 21) + 3;  // 8 MiB of u32: hybrid route

/// Runs f with RADIX_TRACE=1 and returns what the engine printed to stderr.
template <class F>
std::string traced(F&& f) {
  ::setenv("RADIX_TRACE", "1", 1);
  ::testing::internal::CaptureStderr();
  f();
  std::string s = ::testing::internal::GetCapturedStderr();
  ::unsetenv("RADIX_TRACE");
  return s;
}

radix::options cpu_opts(radix::order dir = radix::order::ascending) {
  radix::options o;
  o.use = radix::engine::cpu;
  o.direction = dir;
  return o;
}

/// Keys, pairs (value = input index) and argsort of `keys`, each checked against
/// the stable oracle, and each required to have taken `route` (what the trace
/// prints; the fine route by default).
template <class K>
void check_all_ops(const std::vector<K>& keys, const radix::options& o, const std::string& what,
                   const std::string& route = "hybrid-fine") {
  SCOPED_TRACE(what + ", " + rt::describe(o) + ", base seed " + rt::hex(rt::base_seed()));
  const std::vector<std::uint32_t> perm = rt::oracle_perm(keys, o);
  std::vector<K> want(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) want[i] = keys[perm[i]];

  {  // keys
    rt::guarded g(keys.size(), sizeof(K));
    g.fill_from(keys.data());
    const std::string log = traced([&] { radix::sort(std::span<K>(g.as<K>(), keys.size()), o); });
    EXPECT_NE(log.find(route), std::string::npos) << "keys did not take " << route << ":\n" << log;
    EXPECT_TRUE(rt::same_bytes(g.data(), want.data(), sizeof(K), keys.size(), "keys"));
    EXPECT_TRUE(g.canaries_intact());
  }
  {  // pairs: the values show stability
    rt::guarded gk(keys.size(), sizeof(K)), gv(keys.size(), sizeof(std::uint32_t));
    gk.fill_from(keys.data());
    auto* v = gv.as<std::uint32_t>();
    for (std::size_t i = 0; i < keys.size(); ++i) v[i] = std::uint32_t(i);
    const std::string log = traced([&] {
      radix::sort_pairs(std::span<K>(gk.as<K>(), keys.size()), std::span<std::uint32_t>(v, keys.size()), o);
    });
    EXPECT_NE(log.find(route), std::string::npos) << "pairs did not take " << route << ":\n" << log;
    EXPECT_TRUE(rt::same_bytes(gk.data(), want.data(), sizeof(K), keys.size(), "pair keys"));
    EXPECT_TRUE(rt::same_bytes(v, perm.data(), sizeof(std::uint32_t), keys.size(), "pair values"));
    EXPECT_TRUE(gk.canaries_intact());
    EXPECT_TRUE(gv.canaries_intact());
  }
  {  // argsort
    rt::guarded gi(keys.size(), sizeof(std::uint32_t));
    const std::string log = traced([&] {
      radix::argsort(std::span<const K>(keys), std::span<std::uint32_t>(gi.as<std::uint32_t>(), keys.size()), o);
    });
    EXPECT_NE(log.find(route), std::string::npos) << "argsort did not take " << route << ":\n" << log;
    EXPECT_TRUE(rt::same_bytes(gi.data(), perm.data(), sizeof(std::uint32_t), keys.size(), "indices"));
    EXPECT_TRUE(gi.canaries_intact());
  }
}

/// Floats uniform in [-1, 1): half the keys share two exponents.
TEST(CpuFineRoute, FloatsInUnitInterval) {
  rt::rng r(rt::case_seed("fine/f32"));
  std::vector<float> k(big_n);
  for (auto& x : k) x = float(std::int32_t(r() >> 40) - (1 << 23)) / float(1 << 23);
  check_all_ops(k, cpu_opts(), "f32 in [-1, 1)");
  check_all_ops(k, cpu_opts(radix::order::descending), "f32 in [-1, 1)");
  radix::options ranged = cpu_opts();
  ranged.begin_bit = 7;
  ranged.end_bit = 30;
  check_all_ops(k, ranged, "f32 in [-1, 1), bits [7, 30)");
}

/// Floats in [0, 1) on a 24-bit grid, as random-number generators make
/// them, with a few zeros: the keys' top varying bit is two above what a
/// sample of them shows, and the coarse MSD digit would put half the keys in
/// one bucket (the fine window reaches the zeros' bits).
TEST(CpuFineRoute, FloatsFromZeroToOne) {
  rt::rng r(rt::case_seed("fine/f32-unit"));
  std::vector<float> k(big_n);
  for (auto& x : k) x = float(r() >> 40) / float(1 << 24);
  for (int i = 0; i < 5; ++i) k[r() % k.size()] = 0.0f;
  check_all_ops(k, cpu_opts(), "f32 in [0, 1)");
  check_all_ops(k, cpu_opts(radix::order::descending), "f32 in [0, 1)");
}

/// Doubles in [0, 1000) squared: exponents skewed, the sign bit constant (the
/// window's top is the sample's top varying bit, not the key's).
TEST(CpuFineRoute, DoublesSkewed) {
  rt::rng r(rt::case_seed("fine/f64"));
  std::vector<double> k(big_n / 2 + 1);
  for (auto& x : k) {
    const double u = double(r() >> 11) / double(std::uint64_t(1) << 53) * 1000.0;
    x = u * u;
  }
  check_all_ops(k, cpu_opts(), "f64 u^2");
}

/// 64-bit keys below 2^30 with a heavy value: the window lies far below the
/// key's top, and one bin holds 40% of the keys (more than a bucket may, so it
/// is split once more inside the bucket sort).
TEST(CpuFineRoute, ClusteredIntegers) {
  rt::rng r(rt::case_seed("fine/u64"));
  std::vector<std::uint64_t> k(big_n / 2 + 5);
  const std::uint64_t heavy = r() >> 34;
  for (auto& x : k) x = r.below(10) < 4 ? heavy + r.below(3) : r() >> 34;
  check_all_ops(k, cpu_opts(), "u64 < 2^30, 40% near one value");
  std::vector<std::uint32_t> k32(big_n);
  for (auto& x : k32) x = r.below(10) < 4 ? 0x12345678u : std::uint32_t(r());
  check_all_ops(k32, cpu_opts(radix::order::descending), "u32, 40% one value");
}

/// Floats with NaNs, -0.0 and infinities among the skewed bulk: the canonical
/// transform path of the scan and scatter, under both float orders.
TEST(CpuFineRoute, FloatsWithSpecials) {
  rt::rng r(rt::case_seed("fine/f32-specials"));
  std::vector<float> k(big_n);
  const float specials[] = {-0.0f, 0.0f, std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN(),
                            -std::numeric_limits<float>::quiet_NaN()};
  for (auto& x : k)
    x = r.below(100) == 0 ? specials[r.below(6)] : float(std::int32_t(r() >> 40) - (1 << 23)) / float(1 << 22);
  check_all_ops(k, cpu_opts(), "f32 with specials");
  radix::options total = cpu_opts(radix::order::descending);
  total.floats = radix::float_order::total;
  check_all_ops(k, total, "f32 with specials");
}

/// The route gives the same bytes on one thread as on all.
TEST(CpuFineRoute, OneThreadSameResult) {
  rt::rng r(rt::case_seed("fine/threads"));
  std::vector<float> k(big_n);
  for (auto& x : k) x = float(std::int32_t(r() >> 40) - (1 << 23)) / float(1 << 23);
  radix::options one = cpu_opts();
  one.threads = 1;
  check_all_ops(k, one, "f32 in [-1, 1), one thread");
}

}  // namespace

// ---------------------------------------------------------------- expand

namespace {

/// Keys alone sorted with the trace on, checked against the oracle's order
/// `perm`; returns the engine's trace.
template <class K>
std::string keys_traced(const std::vector<K>& keys, const std::vector<std::uint32_t>& perm, const radix::options& o) {
  std::vector<K> want(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) want[i] = keys[perm[i]];
  rt::guarded g(keys.size(), sizeof(K));
  g.fill_from(keys.data());
  const std::string log = traced([&] { radix::sort(std::span<K>(g.as<K>(), keys.size()), o); });
  EXPECT_TRUE(rt::same_bytes(g.data(), want.data(), sizeof(K), keys.size(), "keys"));
  EXPECT_TRUE(g.canaries_intact());
  return log;
}

/// Keys alone, checked against the oracle; `expand`: whether the counting
/// write-out must (true) or must not (false) have run.
template <class K>
void check_expand(const std::vector<K>& keys, const radix::options& o, bool expand, const std::string& what) {
  SCOPED_TRACE(what + ", n=" + std::to_string(keys.size()) + ", " + rt::describe(o) + ", base seed " +
               rt::hex(rt::base_seed()));
  const std::string log = keys_traced(keys, rt::oracle_perm(keys, o), o);
  EXPECT_EQ(log.find("radix cpu expand") != std::string::npos, expand) << "route:\n" << log;
}

/// n keys `shared ^ (r << shift)` with r random below 2^bits.
template <class U>
std::vector<U> window_keys(std::size_t n, U shared, int shift, int bits, std::uint64_t seed) {
  std::vector<U> v(n);
  rt::rng r(seed);
  for (auto& x : v) x = U(shared ^ U((r() & ((std::uint64_t(1) << bits) - 1)) << shift));
  return v;
}

}  // namespace

TEST(CpuExpandRoute, IntegersInAWindow) {
  const std::uint64_t seed = rt::base_seed() + 71;
  for (auto dir : {radix::order::ascending, radix::order::descending}) {
    const auto o = cpu_opts(dir);
    check_expand(window_keys<std::uint32_t>(big_n, 0xABCD0000u, 0, 10, seed), o, true, "u32, 10 low bits");
    check_expand(window_keys<std::uint32_t>(100003, 0x80000001u, 7, 12, seed + 1), o, true, "u32, bits 7-18");
    check_expand(window_keys<std::uint64_t>(70001, 0x0123456789ABCDEFull, 40, 16, seed + 2), o, true,
                 "u64, bits 40-55");
    check_expand(window_keys<std::uint16_t>(big_n, 0, 0, 16, seed + 3), o, true, "u16, every bit");
    check_expand(window_keys<std::uint8_t>(5000, 0, 0, 8, seed + 4), o, true, "u8, every bit");
    // negative integers only: their ordered bits differ in the low bits alone
    std::vector<std::int32_t> neg(65537);
    rt::rng r(seed + 5);
    for (auto& x : neg) x = -1 - std::int32_t(r.below(1000));
    check_expand(neg, o, true, "i32 in [-1000, -1]");
    // 17 bits vary: LSD passes
    check_expand(window_keys<std::uint32_t>(300007, 0, 3, 17, seed + 6), o, false, "u32, 17 bits");
    // fewer keys than the window has digits: LSD passes
    check_expand(window_keys<std::uint32_t>(1000, 0, 0, 12, seed + 7), o, false, "u32, 1000 keys, 12 bits");
  }
}

TEST(CpuExpandRoute, Floats) {
  const std::uint64_t seed = rt::base_seed() + 81;
  for (auto dir : {radix::order::ascending, radix::order::descending}) {
    auto o = cpu_opts(dir);
    // 1 + k 2^-23, k < 4096: one exponent, the low 12 mantissa bits vary
    std::vector<float> f(200003);
    rt::rng r(seed);
    for (auto& x : f) x = 1.0f + float(r.below(4096)) * 0x1p-23f;
    check_expand(f, o, true, "f32 in [1, 1 + 2^-11)");
    // a -0.0 among zeros and +0.0: numeric order folds them (equal keys, input order kept): LSD passes
    std::vector<float> z(70000, 0.0f);
    for (std::size_t i = 0; i < z.size(); i += 3) z[i] = -0.0f;
    check_expand(z, o, false, "f32 +-0, numeric order");
    // the same in IEEE totalOrder: nothing is folded, but -0 and +0 are
    // neighbours whose ordered bits differ in all 32 bits: LSD passes
    o.floats = radix::float_order::total;
    check_expand(z, o, false, "f32 +-0, totalOrder");
    // negative floats in totalOrder: one exponent, 12 mantissa bits
    for (auto& x : f) x = -x;
    check_expand(f, o, true, "f32 in (-1 - 2^-11, -1], totalOrder");
  }
}

TEST(CpuExpandRoute, BitRanges) {
  const std::uint64_t seed = rt::base_seed() + 91;
  auto o = cpu_opts();
  // bits 20-23 vary too but lie outside [0, 8): equal-ranked keys differ, so LSD passes keep their order
  auto keys = window_keys<std::uint32_t>(300007, 0, 0, 8, seed);
  rt::rng r(seed + 1);
  for (auto& k : keys) k ^= std::uint32_t(r() & 0xF) << 20;
  o.begin_bit = 0;
  o.end_bit = 8;
  check_expand(keys, o, false, "u32 sorted by bits 0-8, bits 20-23 varying");
  // only bits inside the range vary
  o.begin_bit = 4;
  o.end_bit = 20;
  check_expand(window_keys<std::uint32_t>(300007, 0x5000000Fu, 6, 12, seed + 2), o, true, "u32, range 4-20");
  // a digit width asked for: LSD passes
  auto d = cpu_opts();
  d.digit_bits = 4;
  check_expand(window_keys<std::uint32_t>(300007, 0, 0, 10, seed + 3), d, false, "u32, digit_bits 4");
}

// ---------------------------------------------------------------- the sorted check

namespace {

/// Keys alone, checked against the oracle (a -0.0 or a NaN shows in the bits
/// when the order is wrong or unstable).
template <class K>
void check_keys(const std::vector<K>& keys, const radix::options& o, const std::string& what) {
  SCOPED_TRACE(what + ", n=" + std::to_string(keys.size()) + ", " + rt::describe(o));
  const std::vector<std::uint32_t> perm = rt::oracle_perm(keys, o);
  std::vector<K> want(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) want[i] = keys[perm[i]];
  rt::guarded g(keys.size(), sizeof(K));
  g.fill_from(keys.data());
  radix::sort(std::span<K>(g.as<K>(), keys.size()), o);
  EXPECT_TRUE(rt::same_bytes(g.data(), want.data(), sizeof(K), keys.size(), "keys"));
  EXPECT_TRUE(g.canaries_intact());
}

}  // namespace

/// The scan reads each thread's chunk in blocks of 1024 keys until the first
/// descent (sorted_prefix), carrying the block's last key into the next: sorted
/// keys with one descent, or one -0.0 or NaN, at block boundaries and at the
/// boundary between the two threads' chunks.
TEST(CpuScan, OneDescentAtBlockBoundaries) {
  const std::size_t n = (std::size_t(1) << 17) + 3;  // two threads' chunks of at least 65536 keys
  radix::options o = cpu_opts();
  o.threads = 2;
  for (std::size_t chunk : {std::size_t(0), n / 2}) {
    for (std::size_t off : {0, 1, 1023, 1024, 1025, 2047, 2048, 4096, 5000}) {
      const std::size_t p = chunk + off;  // keys[p] < keys[p - 1]
      if (p == 0) continue;
      const std::string at = " at " + std::to_string(p);
      std::vector<std::uint32_t> u(n);
      for (std::size_t i = 0; i < n; ++i) u[i] = std::uint32_t(3 * i + 1);
      std::swap(u[p], u[p - 1]);
      check_keys(u, o, "u32, one descent" + at);
      std::vector<std::int64_t> s(n);
      for (std::size_t i = 0; i < n; ++i) s[i] = std::int64_t(i) - std::int64_t(n / 3);
      std::swap(s[p], s[p - 1]);
      check_keys(s, o, "i64, one descent" + at);
      std::vector<float> f(n);
      for (std::size_t i = 0; i < n; ++i) f[i] = float(std::int64_t(i) - std::int64_t(n / 2)) * 0.5f;
      for (auto fo : {radix::float_order::numeric, radix::float_order::total}) {
        radix::options of = o;
        of.floats = fo;
        std::vector<float> g = f;
        std::swap(g[p], g[p - 1]);
        check_keys(g, of, "f32, one descent" + at);
        g = f;
        g[p] = -0.0f;
        check_keys(g, of, "f32, a -0.0" + at);
        g = f;
        g[p] = std::numeric_limits<float>::quiet_NaN();
        check_keys(g, of, "f32, a NaN" + at);
      }
    }
  }
}

namespace {

/// Sorts keys and pairs (value = input index: stability) of `keys`, each checked against the stable
/// oracle; returns the engine's trace of the keys' sort.
template <class K>
std::string sorted_traced(const std::vector<K>& keys, const radix::options& o, const std::string& what) {
  SCOPED_TRACE(what + ", n=" + std::to_string(keys.size()) + ", " + rt::describe(o) + ", base seed " +
               rt::hex(rt::base_seed()));
  const std::vector<std::uint32_t> perm = rt::oracle_perm(keys, o);
  const std::string log = keys_traced(keys, perm, o);
  std::vector<K> want(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) want[i] = keys[perm[i]];
  rt::guarded gk(keys.size(), sizeof(K)), gv(keys.size(), sizeof(std::uint32_t));
  gk.fill_from(keys.data());
  auto* v = gv.as<std::uint32_t>();
  for (std::size_t i = 0; i < keys.size(); ++i) v[i] = std::uint32_t(i);
  radix::sort_pairs(std::span<K>(gk.as<K>(), keys.size()), std::span<std::uint32_t>(v, keys.size()), o);
  EXPECT_TRUE(rt::same_bytes(gk.data(), want.data(), sizeof(K), keys.size(), "pair keys"));
  EXPECT_TRUE(rt::same_bytes(v, perm.data(), sizeof(std::uint32_t), keys.size(), "pair values"));
  EXPECT_TRUE(gk.canaries_intact() && gv.canaries_intact());
  return log;
}

}  // namespace

/// Keys whose top varying bit lies below the type's (integers under 2^20, or
/// a bit range that ends lower): the coarse route's MSD digit ends there, and
/// the scan's histogram window is put there, so the MSD pass needs no
/// counting read of its own.
TEST(CpuHybridRoute, MsdDigitBelowTheTypesTop) {
  rt::rng r(rt::case_seed("hybrid/below-top"));
  std::vector<std::uint32_t> u(big_n);
  for (auto& x : u) x = std::uint32_t(r() >> 44);  // below 2^20
  std::string log = sorted_traced(u, cpu_opts(), "u32 below 2^20");
  EXPECT_NE(log.find("radix cpu hybrid n="), std::string::npos) << "not the coarse hybrid route:\n" << log;
  EXPECT_NE(log.find("msd from scan"), std::string::npos) << "the MSD digit was counted again:\n" << log;
  log = sorted_traced(u, cpu_opts(radix::order::descending), "u32 below 2^20, descending");
  EXPECT_NE(log.find("msd from scan"), std::string::npos) << "descending: the MSD digit was counted again:\n" << log;
  std::vector<std::int64_t> s(big_n / 2);
  for (auto& x : s) x = std::int64_t(r() >> 24);  // [0, 2^40)
  log = sorted_traced(s, cpu_opts(), "i64 in [0, 2^40)");
  EXPECT_NE(log.find("msd from scan"), std::string::npos) << "i64: the MSD digit was counted again:\n" << log;
  radix::options ranged = cpu_opts();
  ranged.begin_bit = 3;
  ranged.end_bit = 26;
  for (auto& x : u) x = std::uint32_t(r() >> 32);
  log = sorted_traced(u, ranged, "u32, bits [3, 26)");
  EXPECT_NE(log.find("msd from scan"), std::string::npos) << "bit range: the MSD digit was counted again:\n" << log;
}

/// Floats of both signs whose top bits are uniform (random bit patterns): the
/// coarse route, whose buckets each hold keys of one sign and are sorted with
/// the one-XOR form of the transform (bucket_worker::take_codec). Numeric
/// order over finite keys, totalOrder with NaNs, descending, and a bit range
/// that keeps the sign bit.
TEST(CpuHybridRoute, FloatsOfBothSigns) {
  rt::rng r(rt::case_seed("hybrid/f32-signs"));
  std::vector<float> finite(big_n), any(big_n);
  for (std::size_t i = 0; i < big_n; ++i) {
    std::uint32_t b = std::uint32_t(r() >> 32);
    std::memcpy(&any[i], &b, sizeof b);
    if ((b & 0x7F800000u) == 0x7F800000u) b ^= 0x00800000u;  // no infinity or NaN
    if (b == 0x80000000u) b = 0;                            // no -0: the plain transform runs
    std::memcpy(&finite[i], &b, sizeof b);
  }
  const std::string coarse = "radix cpu hybrid n=";
  check_all_ops(finite, cpu_opts(), "finite f32, random bits", coarse);
  check_all_ops(finite, cpu_opts(radix::order::descending), "finite f32, random bits", coarse);
  radix::options total = cpu_opts();
  total.floats = radix::float_order::total;
  check_all_ops(any, total, "f32 random bits, totalOrder", coarse);
  total.direction = radix::order::descending;
  check_all_ops(any, total, "f32 random bits, totalOrder", coarse);
  radix::options ranged = cpu_opts();
  ranged.begin_bit = 9;
  check_all_ops(finite, ranged, "finite f32, bits [9, 32)", coarse);
  std::vector<double> d(big_n / 2);
  for (auto& x : d) {
    std::uint64_t b = r();
    if ((b & 0x7FF0000000000000ull) == 0x7FF0000000000000ull) b ^= 0x0010000000000000ull;
    if (b == 0x8000000000000000ull) b = 0;
    std::memcpy(&x, &b, sizeof b);
  }
  check_all_ops(d, cpu_opts(), "finite f64, random bits", coarse);
}

/// A few keys above every sampled one: the window misses the MSD digit, which
/// is then counted by a read of its own; the result is the same.
TEST(CpuHybridRoute, RareKeysAboveTheSample) {
  rt::rng r(rt::case_seed("hybrid/outliers"));
  std::vector<std::uint32_t> u(big_n);
  for (auto& x : u) x = std::uint32_t(r() >> 44);
  // at odd positions: the sampler (sorter::sample_size, 4096 keys) reads every (n / 4096)-th key, an even
  // stride here (512), so no sample sees them and the route asserted below runs
  for (int k = 0; k < 3; ++k) u[(r() % (big_n / 2)) * 2 + 1] = 0x80000000u | std::uint32_t(r() >> 40);
  const std::string log = sorted_traced(u, cpu_opts(), "u32 below 2^20 but three");
  EXPECT_NE(log.find("msd count"), std::string::npos) << "the route this test is for did not run:\n" << log;
}

// ---- The in-place route (src/cpu/lsd_in_place.hpp): keys alone whose equal
// keys are equal bits, asked for with memory_use::in_place. ----

/// Sorts `keys` in place and checks every element against the oracle, the
/// canaries around the buffer, and (from `traced_from` keys) that the
/// in-place route ran, not the hybrid or the plain passes.
template <class K>
void check_in_place(const std::vector<K>& keys, radix::options o, const std::string& what,
                    std::size_t traced_from = 4096) {
  o.memory = radix::memory_use::in_place;
  SCOPED_TRACE(what + ", n " + std::to_string(keys.size()) + ", " + rt::describe(o) + ", base seed " +
               rt::hex(rt::base_seed()));
  const std::vector<std::uint32_t> perm = rt::oracle_perm(keys, o);
  std::vector<K> want(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) want[i] = keys[perm[i]];
  rt::guarded g(keys.size(), sizeof(K));
  g.fill_from(keys.data());
  const std::string log = traced([&] { radix::sort(std::span<K>(g.as<K>(), keys.size()), o); });
  if (keys.size() >= traced_from) {
    EXPECT_NE(log.find("in-place"), std::string::npos) << "the in-place route did not run:\n" << log;
  }
  EXPECT_TRUE(rt::same_bytes(g.data(), want.data(), sizeof(K), keys.size(), "keys"));
  EXPECT_TRUE(g.canaries_intact());
}

/// Keys of every shape the distribution meets: random (full blocks in every
/// bucket), sizes around the block (512 bytes) and the stripes, few distinct
/// keys (buckets of equal keys), one cluster larger than a bucket may be (a
/// second distribution inside the bucket sort), a narrow window (the
/// distribution alone sorts), sorted and all-equal input (no distribution).
template <class K>
void in_place_shapes(const char* type, radix::options o) {
  rt::rng r(rt::case_seed(std::string("in-place/") + type));
  auto random_key = [&] {
    const std::uint64_t x = r();
    K k;
    std::memcpy(&k, &x, sizeof k);
    if constexpr (std::is_floating_point_v<K>)
      if (k != k && r.below(2)) k = K(r.below(1000));  // (NaNs kept, but fewer of them)
    return k;
  };
  // (below 256 keys the small-input sort runs; from there, two or more blocks)
  constexpr std::size_t block = 512 / sizeof(K);
  for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(2), std::size_t(256), 4 * block - 1,
                        4 * block + 1, 4097 * block / 16, std::size_t(70001), std::size_t(300007)}) {
    std::vector<K> k(n);
    for (auto& x : k) x = random_key();
    check_in_place(k, o, std::string(type) + " random", 256);
  }
  const std::size_t n = 300013;  // (several buckets of a cache share each)
  std::vector<K> k(n);
  const K few[4] = {random_key(), random_key(), random_key(), random_key()};
  for (auto& x : k) x = few[r.below(4)];
  check_in_place(k, o, std::string(type) + " four distinct keys");
  const K heavy = random_key();
  for (auto& x : k) x = r.below(10) < 7 ? heavy : random_key();
  check_in_place(k, o, std::string(type) + " 70% one key");
  std::vector<K> cluster(600005);  // 90% share their top 12 bits: one bucket of ~540K keys, over a cache share
  for (auto& x : cluster) {
    std::uint64_t bits;
    K v = random_key();
    std::memcpy(&bits, &v, sizeof v);
    if (r.below(10) < 9) {
      const int shift = int(sizeof(K)) * 8 - 12;
      bits = (bits & ((std::uint64_t(1) << shift) - 1)) | (std::uint64_t(0x5A5) << shift);
    }
    std::memcpy(&x, &bits, sizeof x);
  }
  check_in_place(cluster, o, std::string(type) + " one cluster of 90%");
  if constexpr (std::is_integral_v<K>) {
    for (auto& x : k) x = K(r.below(1u << 10) << 3);  // ten bits vary: the counting write-out, in place too
    check_in_place(k, o, std::string(type) + " ten bits", ~std::size_t(0));
    std::sort(k.begin(), k.end());
    check_in_place(k, o, std::string(type) + " sorted", ~std::size_t(0));
  }
  std::fill(k.begin(), k.end(), heavy);
  check_in_place(k, o, std::string(type) + " all equal", ~std::size_t(0));
}

TEST(CpuInPlaceRoute, Integers) {
  in_place_shapes<std::uint32_t>("u32", cpu_opts());
  in_place_shapes<std::int32_t>("i32", cpu_opts(radix::order::descending));
  in_place_shapes<std::uint64_t>("u64", cpu_opts(radix::order::descending));
  in_place_shapes<std::int64_t>("i64", cpu_opts());
}

TEST(CpuInPlaceRoute, FloatsInTotalOrder) {
  radix::options o = cpu_opts();
  o.floats = radix::float_order::total;
  in_place_shapes<float>("f32", o);
  o.direction = radix::order::descending;
  in_place_shapes<double>("f64", o);
}

TEST(CpuInPlaceRoute, OneThreadSameResult) {
  radix::options o = cpu_opts();
  o.threads = 1;
  in_place_shapes<std::uint32_t>("u32 one thread", o);
}

/// Seven threads on any machine (the pool runs their stripes' tasks in turn
/// where it has fewer workers): seven stripes of classified blocks, chains of
/// the permutation claimed from seven ranges.
TEST(CpuInPlaceRoute, SevenStripes) {
  radix::options o = cpu_opts();
  o.threads = 7;
  rt::rng r(rt::case_seed("in-place/seven"));
  std::vector<std::uint32_t> k(7 * (std::size_t(1) << 16) + 12345);
  for (auto& x : k) x = std::uint32_t(r());
  check_in_place(k, o, "u32, 7 threads");
  std::vector<std::uint64_t> k64(7 * (std::size_t(1) << 16) + 3);
  for (auto& x : k64) x = r.below(4) ? r() : 42;
  check_in_place(k64, o, "u64, 7 threads, a quarter one key");
}

/// The block slot that crosses the end of the keys belongs to a bucket that
/// is not the last: one thread, n = 139967 u32 keys (a 2-bit top digit: 50
/// keys of top bits 00, 139914 = 1093 blocks + 10 keys of 01, 3 of 10), so
/// bucket 01's last block overhangs bucket 10 and the end of the keys.
TEST(CpuInPlaceRoute, OverflowSlotOfAMiddleBucket) {
  radix::options o = cpu_opts();
  o.threads = 1;
  rt::rng r(rt::case_seed("in-place/overflow"));
  std::vector<std::uint32_t> k;
  for (int i = 0; i < 50; ++i) k.push_back(std::uint32_t(r()) >> 2);
  for (int i = 0; i < 139914; ++i) k.push_back((std::uint32_t(r()) >> 2) | 0x40000000u);
  for (int i = 0; i < 3; ++i) k.push_back((std::uint32_t(r()) >> 2) | 0x80000000u);
  for (std::size_t i = k.size() - 1; i > 0; --i) std::swap(k[i], k[r.below(i + 1)]);
  check_in_place(k, o, "u32, the overflow slot in bucket 01");
}

/// Where equal keys could differ in their bits, in_place is not taken: floats
/// in numeric order (-0.0 and +0.0, NaN payloads), a bit range, pairs. The
/// sort stays stable there (the pairs' values show it).
TEST(CpuInPlaceRoute, NotWhereStabilityShows) {
  rt::rng r(rt::case_seed("in-place/not"));
  radix::options o = cpu_opts();
  o.memory = radix::memory_use::in_place;
  std::vector<float> f(big_n / 4 + 1);
  for (auto& x : f) x = r.below(3) == 0 ? (r.below(2) ? -0.0f : 0.0f) : float(r.below(100));
  {
    const std::vector<std::uint32_t> perm = rt::oracle_perm(f, o);
    std::vector<float> got = f;
    const std::string log = traced([&] { radix::sort(std::span<float>(got), o); });
    EXPECT_EQ(log.find("in-place"), std::string::npos) << log;
    for (std::size_t i = 0; i < f.size(); ++i)
      ASSERT_EQ(std::bit_cast<std::uint32_t>(got[i]), std::bit_cast<std::uint32_t>(f[perm[i]])) << "at " << i;
  }
  std::vector<std::uint32_t> k(big_n / 4 + 1), v(k.size());
  for (auto& x : k) x = std::uint32_t(r.below(1000)) << 8 | std::uint32_t(r.below(256));
  radix::options ranged = o;
  ranged.begin_bit = 8;
  {
    const std::vector<std::uint32_t> perm = rt::oracle_perm(k, ranged);
    std::vector<std::uint32_t> got = k;
    const std::string log = traced([&] { radix::sort(std::span<std::uint32_t>(got), ranged); });
    EXPECT_EQ(log.find("in-place"), std::string::npos) << log;
    for (std::size_t i = 0; i < k.size(); ++i) ASSERT_EQ(got[i], k[perm[i]]) << "at " << i;
  }
  {
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = std::uint32_t(i);
    const std::vector<std::uint32_t> perm = rt::oracle_perm(k, o);
    std::vector<std::uint32_t> got = k;
    const std::string log = traced([&] { radix::sort_pairs(std::span<std::uint32_t>(got), std::span<std::uint32_t>(v), o); });
    EXPECT_EQ(log.find("in-place"), std::string::npos) << log;
    for (std::size_t i = 0; i < k.size(); ++i) ASSERT_EQ(v[i], perm[i]) << "at " << i;
  }
}

/// Keys and values at every kind of misalignment to the write-combining spans of
/// the out-of-cache passes (lsd_sorter.hpp, wc_put): an array that starts a few
/// elements into a cache line, or into a span, has a partial first span in every
/// bucket; the hybrid route's MSD pass and the plain route's passes (a digit
/// width asked for) both stream through them. Canary zones of 512 elements around
/// each array show that no span is written outside it.
template <class K, class V>
void check_misaligned(std::size_t n, std::size_t key_off, std::size_t val_off, int digit_bits, const char* what) {
  radix::options o = cpu_opts();
  o.digit_bits = digit_bits;
  rt::rng r(rt::case_seed(std::string("wc-span/") + what));
  std::vector<K> keys(n);
  for (auto& x : keys) x = K(r());
  SCOPED_TRACE(std::string(what) + ", key offset " + std::to_string(key_off) + ", value offset " +
               std::to_string(val_off) + ", digit_bits " + std::to_string(digit_bits) + ", base seed " +
               rt::hex(rt::base_seed()));
  const std::vector<std::uint32_t> perm = rt::oracle_perm(keys, o);
  std::vector<K> want(n);
  std::vector<V> want_v(n);
  for (std::size_t i = 0; i < n; ++i) want[i] = keys[perm[i]], want_v[i] = V(perm[i]);
  constexpr std::size_t pad = 512;  // canary elements after each array (and before it, beside the offset)
  rt::guarded gk(n, sizeof(K), key_off * sizeof(K), pad * sizeof(K));
  rt::guarded gv(n, sizeof(V), val_off * sizeof(V), pad * sizeof(V));
  gk.fill_from(keys.data());
  V* v = gv.as<V>();
  for (std::size_t i = 0; i < n; ++i) v[i] = V(i);
  radix::sort_pairs(std::span<K>(gk.as<K>(), n), std::span<V>(v, n), o);
  EXPECT_TRUE(rt::same_bytes(gk.data(), want.data(), sizeof(K), n, "keys"));
  EXPECT_TRUE(rt::same_bytes(v, want_v.data(), sizeof(V), n, "values"));
  EXPECT_TRUE(gk.canaries_intact());
  EXPECT_TRUE(gv.canaries_intact());
}

TEST(CpuWriteCombining, MisalignedKeysAndValues) {
  // 2^21 + 3 elements: more than the streaming threshold, so the passes write
  // through the spans; values of a width other than the keys' give the two
  // arrays different spans and skews.
  const std::size_t n = big_n;
  for (const int digit_bits : {0, 8}) {
    check_misaligned<std::uint32_t, std::uint32_t>(n, 1, 3, digit_bits, "u32/u32");
    check_misaligned<std::uint32_t, std::uint64_t>(n, 15, 17, digit_bits, "u32/u64");
    check_misaligned<std::uint64_t, std::uint16_t>(n, 7, 63, digit_bits, "u64/u16");
  }
  check_misaligned<std::uint32_t, std::uint8_t>(n, 63, 255, 11, "u32/u8");
}
