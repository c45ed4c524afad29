// The CPU engine's hybrid route for skewed inputs (src/cpu/lsd_hybrid.hpp,
// choose_fine_window / hybrid_fine): inputs built to take it, checked element
// by element against std::stable_sort on the ordered bits, and the route that
// ran read back from RADIX_TRACE, so that a change of routing cannot leave
// these tests passing without testing the route they are for.
#include <gtest/gtest.h>

#include <cstdlib>
#include <limits>
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
/// the stable oracle, and each required to have taken the fine route.
template <class K>
void check_all_ops(const std::vector<K>& keys, const radix::options& o, const std::string& what) {
  SCOPED_TRACE(what + ", " + rt::describe(o) + ", base seed " + rt::hex(rt::base_seed()));
  const std::vector<std::uint32_t> perm = rt::oracle_perm(keys, o);
  std::vector<K> want(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) want[i] = keys[perm[i]];

  {  // keys
    rt::guarded g(keys.size(), sizeof(K));
    g.fill_from(keys.data());
    const std::string log = traced([&] { radix::sort(std::span<K>(g.as<K>(), keys.size()), o); });
    EXPECT_NE(log.find("hybrid-fine"), std::string::npos) << "keys did not take the fine route:\n" << log;
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
    EXPECT_NE(log.find("hybrid-fine"), std::string::npos) << "pairs did not take the fine route:\n" << log;
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
    EXPECT_NE(log.find("hybrid-fine"), std::string::npos) << "argsort did not take the fine route:\n" << log;
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
