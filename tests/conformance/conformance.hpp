// The engine-parameterised conformance fixture: every test runs once per engine
// (cpu, cuda, opencl) and per key type; unavailable engines are SKIPPED visibly.
#pragma once
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "radix_test.hpp"

namespace rt {

inline const char* engine_name(radix::engine e) {
  switch (e) {
    case radix::engine::automatic: return "automatic";
    case radix::engine::cpu: return "cpu";
    case radix::engine::cuda: return "cuda";
    case radix::engine::opencl: return "opencl";
  }
  return "?";
}

struct conf_param {
  radix::engine eng = radix::engine::cpu;
  kt key = kt::u32;
};
inline void PrintTo(const conf_param& p, std::ostream* os) { *os << engine_name(p.eng) << "/" << kt_name(p.key); }

/// Every conformance test derives from this: it skips (with a message) on an
/// engine that radix::engine_available() reports missing.
class engine_test : public ::testing::TestWithParam<conf_param> {
 protected:
  void SetUp() override {
    if (!radix::engine_available(eng()))
      GTEST_SKIP() << "engine " << engine_name(eng())
                   << " is not available here (radix::engine_available returned false): not tested";
  }
  radix::engine eng() const { return GetParam().eng; }
  kt key() const { return GetParam().key; }
  /// Options with the engine under test selected.
  radix::options opts() const {
    radix::options o;
    o.use = eng();
    return o;
  }
};

inline std::vector<conf_param> params_for(radix::engine e) {
  std::vector<conf_param> v;
  for (kt t : all_kts) v.push_back({e, t});
  return v;
}
inline std::string param_name(const ::testing::TestParamInfo<conf_param>& i) { return kt_name(i.param.key); }

/// Instantiates a conformance fixture for every engine: test names start with
/// the engine (cpu/..., cuda/..., opencl/...), which the ctest entries filter on.
#define RADIX_CONFORMANCE_FOR_ALL_ENGINES(Suite)                                                                \
  INSTANTIATE_TEST_SUITE_P(cpu, Suite, ::testing::ValuesIn(::rt::params_for(::radix::engine::cpu)),          \
                           ::rt::param_name);                                                                \
  INSTANTIATE_TEST_SUITE_P(cuda, Suite, ::testing::ValuesIn(::rt::params_for(::radix::engine::cuda)),        \
                           ::rt::param_name);                                                                \
  INSTANTIATE_TEST_SUITE_P(opencl, Suite, ::testing::ValuesIn(::rt::params_for(::radix::engine::opencl)),    \
                           ::rt::param_name)

/// The same for tests parameterised by the engine only.
class engine_only_test : public ::testing::TestWithParam<radix::engine> {
 protected:
  void SetUp() override {
    if (!radix::engine_available(eng()))
      GTEST_SKIP() << "engine " << engine_name(eng())
                   << " is not available here (radix::engine_available returned false): not tested";
  }
  radix::engine eng() const { return GetParam(); }
  radix::options opts() const {
    radix::options o;
    o.use = eng();
    return o;
  }
};

#define RADIX_CONFORMANCE_FOR_ALL_ENGINES_ONLY(Suite)                                         \
  INSTANTIATE_TEST_SUITE_P(cpu, Suite, ::testing::Values(::radix::engine::cpu));            \
  INSTANTIATE_TEST_SUITE_P(cuda, Suite, ::testing::Values(::radix::engine::cuda));          \
  INSTANTIATE_TEST_SUITE_P(opencl, Suite, ::testing::Values(::radix::engine::opencl))

// ---- the cases -----------------------------------------------------------------

struct sort_case {
  dist ds = dist::uniform;
  std::size_t n = 0;
  radix::options o{};
};

/// Sizes around the small-sort threshold (256, src/cpu/lsd.hpp) and small primes.
inline const std::vector<std::size_t>& small_sizes() {
  static const std::vector<std::size_t> s = {0, 1, 2, 3, 5, 7, 13, 31, 61, 127, 251, 255, 256, 257, 509, 1021};
  return s;
}
/// Thread-chunk boundaries of the CPU engine: one extra thread per 2^16 elements.
inline const std::vector<std::size_t>& boundary_sizes() {
  static const std::vector<std::size_t> s = {65535, 65536, 65537, 131071, 131072, 131073};
  return s;
}
inline constexpr std::size_t million_size = (std::size_t(1) << 20) + 1;  // > 10^6

/// Bit ranges [begin, end) worth testing on a key of `width` bits: full, low 10,
/// [3,17), empty (begin == end), the top bits (sign bit included), a middle range.
inline std::vector<std::pair<int, int>> bit_ranges(int width) {
  std::vector<std::pair<int, int>> r = {{0, -1},
                                        {0, std::min(10, width)},
                                        {3, std::min(17, width)},
                                        {5, 5},
                                        {0, 0},
                                        {width, width},
                                        {std::max(0, width - 9), width},
                                        {width - 1, width},
                                        {1, width - 1}};
  return r;
}

/// Options for a case: engine, direction, float order.
inline radix::options make_opts(radix::engine e, radix::order dir, radix::float_order f = radix::float_order::numeric) {
  radix::options o;
  o.use = e;
  o.direction = dir;
  o.floats = f;
  return o;
}

/// Small sizes x every distribution x both directions (x both float orders for floats).
inline std::vector<sort_case> small_cases(radix::engine e, radix::key_desc k) {
  std::vector<sort_case> v;
  const bool fl = k.kind == radix::key_kind::floating;
  for (std::size_t n : small_sizes())
    for (dist d : all_dists)
      for (auto dir : {radix::order::ascending, radix::order::descending})
        for (auto f : {radix::float_order::numeric, radix::float_order::total}) {
          if (!fl && f == radix::float_order::total && d != dist::uniform) continue;
          v.push_back({d, n, make_opts(e, dir, f)});
        }
  return v;
}

/// Thread-chunk boundary sizes. Full: uniform plus one other distribution, both
/// directions, at every size. Reduced (operations that cost more per element): one
/// case per size, rotating distribution, direction and float order.
inline std::vector<sort_case> boundary_cases(radix::engine e, radix::key_desc k, bool full = true) {
  std::vector<sort_case> v;
  const bool fl = k.kind == radix::key_kind::floating;
  const dist others[] = {dist::zipf, dist::nearly_sorted, dist::few_unique, dist::specials, dist::narrow,
                         dist::sorted};
  int i = 0;
  for (std::size_t n : boundary_sizes()) {
    const dist other = others[i % 6];
    if (full) {
      for (auto dir : {radix::order::ascending, radix::order::descending}) {
        v.push_back({dist::uniform, n, make_opts(e, dir)});
        v.push_back({other, n, make_opts(e, dir, fl && dir == radix::order::descending ? radix::float_order::total
                                                                                     : radix::float_order::numeric)});
      }
    } else {
      const auto dir = i % 2 ? radix::order::descending : radix::order::ascending;
      v.push_back({i % 3 == 0 ? dist::uniform : other, n,
                   make_opts(e, dir, fl && i % 4 == 3 ? radix::float_order::total : radix::float_order::numeric)});
    }
    ++i;
  }
  // Three threads' chunk boundaries (threads = 3 is honoured even on 2 cores).
  for (std::size_t n : {std::size_t(196607), std::size_t(196609)}) {
    if (!full && n == 196607) continue;
    auto o = make_opts(e, radix::order::ascending);
    o.threads = 3;
    v.push_back({dist::uniform, n, o});
  }
  return v;
}

/// Bit ranges x a few sizes and distributions x both directions (reduced: the
/// large size in one direction only).
inline std::vector<sort_case> range_cases(radix::engine e, radix::key_desc k, bool full = true) {
  std::vector<sort_case> v;
  for (auto [b, end] : bit_ranges(k.bits()))
    for (std::size_t n : {std::size_t(200), std::size_t(257), std::size_t(4099), std::size_t(65537)})
      for (dist d : {dist::uniform, dist::few_unique, dist::presorted_range, dist::specials})
        for (auto dir : {radix::order::ascending, radix::order::descending}) {
          if (n == 65537 && d != dist::uniform) continue;
          if (n == 65537 && !full && dir == radix::order::descending) continue;
          auto o = make_opts(e, dir);
          o.begin_bit = b;
          o.end_bit = end;
          v.push_back({d, n, o});
        }
  return v;
}

inline std::string case_text(const char* op, kt t, const sort_case& c, std::uint64_t seed) {
  std::ostringstream s;
  s << "op=" << op << " type=" << kt_name(t) << " n=" << c.n << " dist=" << dist_name(c.ds)
    << " options=" << describe(c.o) << " seed=" << hex(seed) << " (base seed " << hex(base_seed())
    << "; rerun with RADIX_TEST_SEED=" << hex(base_seed()) << ")";
  return s.str();
}

inline std::uint64_t seed_for(const char* op, kt t, const sort_case& c) {
  std::ostringstream s;
  // Not the engine: every engine sees the same inputs.
  const auto& o = c.o;
  s << op << '/' << kt_name(t) << '/' << c.n << '/' << dist_name(c.ds) << '/' << o.direction << '/' << o.floats
    << '/' << o.begin_bit << '/' << o.end_bit << '/' << o.digit_bits << '/' << o.threads;
  return case_seed(s.str());
}

}  // namespace rt
