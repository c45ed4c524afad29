// radix CLI — `radix bench`: generate keys, sort them with radix, verify every
// result against std::stable_sort under the radix order, and compare the time
// with std::sort on the same input in the same process.
#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <optional>
#include <thread>
#include <sstream>
#include <string>
#include <vector>

#include <radix/radix.hpp>

#include "args.hpp"
#include "commands.hpp"
#include "generate.hpp"
#include "keys.hpp"

#if RADIX_CLI_HAVE_TBB
#include <tbb/global_control.h>
#include <tbb/parallel_sort.h>
#endif

namespace radix_cli {

namespace {
const char* const bench_help_head =
    "Usage: radix bench [options]\n"
    "\n"
    "Generates N keys, sorts them with radix and reports how fast that was. The\n"
    "radix sort runs once untimed (warm-up), then --repeat timed runs whose median\n"
    "is reported; the input is restored before every run. std::sort sorts the same\n"
    "input in the same process for comparison. Every radix result is checked\n"
    "against std::stable_sort under the radix order; a wrong result exits with 1.\n"
    "\n"
    "What to sort:\n"
    "  -n, --count N          number of keys (default 2^24). Written as 16777216,\n"
    "                         16M (K, M, G, T = 2^10, 2^20, 2^30, 2^40), 2^24 or 1e6\n"
    "  -t, --type T           key type (default u32): u8 u16 u32 u64 u128 i8 i16 i32\n"
    "                         i64 i128 f16 bf16 f32 f64\n"
    "  -d, --dist D           how the keys are distributed (default uniform; below)\n"
    "      --seed S           random seed (default 1): the same seed gives the same keys\n"
    "      --op OP            keys     sort the keys in place (default)\n"
    "                         pairs    sort the keys and move a u32 value with each\n"
    "                         argsort  write the sorting permutation; keys untouched\n"
    "      --index u32|u64    index type of argsort (default u32)\n"
    "\n"
    "How to sort (the fields of radix::options):\n"
    "      --descending       descending order (still stable)\n"
    "      --float-order O    numeric (default): -0.0 == +0.0, NaNs last (first when\n"
    "                         descending); total: IEEE 754 totalOrder\n"
    "      --bits A:B         sort by bits [A, B) of the ordered key only (default:\n"
    "                         the whole key); e.g. -d bits:10 --bits 0:10\n"
    "      --digit-bits D     radix digit width, 1..16 (default 0: the engine chooses)\n"
    "      --threads T        worker threads of the CPU engine (default 0: all)\n"
    "      --engine E         auto (default: CUDA when built and a GPU is present,\n"
    "                         otherwise CPU), cpu, cuda or opencl\n"
    "      --scratch S        keep (default): one radix::sorter keeps its scratch\n"
    "                         memory between runs; fresh: call radix::sort() and\n"
    "                         friends, as users do (their scratch comes from the\n"
    "                         process-wide cache, RADIX_SCRATCH_CACHE)\n"
    "\n"
    "Measurement:\n"
    "  -r, --repeat R         timed radix runs, median reported (default 5)\n"
    "      --baseline-repeat B  timed std::sort runs, median reported (default: R)\n"
    "      --no-baseline      do not run std::sort\n"
    "      --no-verify        do not check against std::stable_sort (for huge N)\n"
    "  -h, --help             this help\n"
    "\n"
    "Distributions (-d):\n";

const char* const bench_help_tail =
    "\n"
    "Output: time is the median wall-clock time of one sort call; Mkeys/s = N / time;\n"
    "GB/s = N x (key + value or index bytes) / time, each element counted once.\n"
    "std::sort runs on one thread and sorts by the whole key with operator<\n"
    "(b < a when descending; a NaN-aware comparison when the input has NaNs);\n"
    "for pairs it sorts (key, value) structs, for argsort an index array.\n"
    "radix uses all cores (or --threads); in builds with TBB, tbb::parallel_sort\n"
    "runs with the same comparison on the same number of threads, and the\n"
    "speed-up is given over both.\n"
    "\n"
    "Exit status: 0 ok, 1 a result was wrong, 2 bad option or value, 3 could not\n"
    "run (engine unavailable, out of memory).\n"
    "\n"
    "Examples:\n"
    "  radix bench                                  2^24 random u32 keys\n"
    "  radix bench -n 1M -t f32 --descending -r 11\n"
    "  radix bench -t u64 --op pairs -d zipf --threads 1\n"
    "  radix bench -d bits:10 --bits 0:10           10-bit keys, sort only those bits\n";

enum class op_kind { keys, pairs, argsort };

struct bench_config {
  std::uint64_t n = std::uint64_t(1) << 24;
  key_type type = key_type::u32;
  dist_spec dist{};
  std::uint64_t seed = 1;
  op_kind op = op_kind::keys;
  bool index64 = false;
  bool descending = false;
  radix::float_order floats = radix::float_order::numeric;
  std::optional<std::pair<int, int>> bits;
  int digit_bits = 0;
  unsigned threads = 0;
  radix::engine engine = radix::engine::automatic;
  bool fresh_scratch = false;
  int repeat = 5;
  int baseline_repeat = -1;  // -1: same as repeat
  bool baseline = true;
  bool verify = true;
};

const char* op_str(op_kind o) { return o == op_kind::keys ? "keys" : o == op_kind::pairs ? "pairs" : "argsort"; }

const char* engine_str(radix::engine e) {
  switch (e) {
    case radix::engine::automatic: return "auto";
    case radix::engine::cpu: return "cpu";
    case radix::engine::cuda: return "cuda";
    case radix::engine::opencl: return "opencl";
  }
  return "?";
}

bench_config parse_bench(const std::vector<std::string>& args) {
  bench_config c;
  const std::vector<option_spec> specs = {
      {"count", 'n', true, [&](const std::string& v) { c.n = parse_count(v); }},
      {"type", 't', true, [&](const std::string& v) { c.type = parse_key_type(v); }},
      {"dist", 'd', true, [&](const std::string& v) { c.dist = parse_distribution(v); }},
      {"seed", 0, true, [&](const std::string& v) { c.seed = parse_count(v); }},
      {"op", 0, true,
       [&](const std::string& v) {
         const auto s = parse_choice(v, {"keys", "pairs", "argsort"});
         c.op = s == "keys" ? op_kind::keys : s == "pairs" ? op_kind::pairs : op_kind::argsort;
       }},
      {"index", 0, true, [&](const std::string& v) { c.index64 = parse_choice(v, {"u32", "u64"}) == "u64"; }},
      {"descending", 0, false, [&](const std::string&) { c.descending = true; }},
      {"float-order", 0, true,
       [&](const std::string& v) {
         c.floats = parse_choice(v, {"numeric", "total"}) == "total" ? radix::float_order::total
                                                                    : radix::float_order::numeric;
       }},
      {"bits", 0, true, [&](const std::string& v) { c.bits = parse_bit_range(v, 128); }},
      {"digit-bits", 0, true,
       [&](const std::string& v) {
         try {
           c.digit_bits = int(parse_int(v, 0, 16));
         } catch (const usage_error&) {
           throw usage_error("must be 1..16, or 0 to let the engine choose");
         }
       }},
      {"threads", 0, true, [&](const std::string& v) { c.threads = unsigned(parse_int(v, 0, 1 << 16)); }},
      {"engine", 0, true,
       [&](const std::string& v) {
         const auto s = parse_choice(v, {"auto", "cpu", "cuda", "opencl"});
         c.engine = s == "cpu"    ? radix::engine::cpu
                    : s == "cuda" ? radix::engine::cuda
                    : s == "opencl" ? radix::engine::opencl
                                    : radix::engine::automatic;
       }},
      {"scratch", 0, true, [&](const std::string& v) { c.fresh_scratch = parse_choice(v, {"keep", "fresh"}) == "fresh"; }},
      {"repeat", 'r', true, [&](const std::string& v) { c.repeat = int(parse_int(v, 1, 1000000)); }},
      {"baseline-repeat", 0, true, [&](const std::string& v) { c.baseline_repeat = int(parse_int(v, 1, 1000000)); }},
      {"no-baseline", 0, false, [&](const std::string&) { c.baseline = false; }},
      {"no-verify", 0, false, [&](const std::string&) { c.verify = false; }},
  };
  parse_options(args, specs);

  // Checks that need the key type.
  const int w = key_type_bits(c.type);
  check_dist(c.dist, w);
  if (c.bits && c.bits->second > w)
    throw usage_error("--bits " + std::to_string(c.bits->first) + ":" + std::to_string(c.bits->second) +
                      ": END exceeds the " + std::to_string(w) + "-bit width of " + key_type_str(c.type));
  if (c.op == op_kind::argsort && !c.index64 && c.n > 0x100000000ull)
    throw usage_error("argsort of more than 2^32 keys needs --index u64");
  if (c.baseline_repeat < 0) c.baseline_repeat = c.repeat;
  return c;
}

using clock_type = std::chrono::steady_clock;

template <class F>
double time_ms(F&& f) {
  const auto t0 = clock_type::now();
  f();
  return std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
}

struct stats {
  double median = 0, min = 0, max = 0;
};

stats summarize(std::vector<double> t) {
  stats s;
  if (t.empty()) return s;
  std::sort(t.begin(), t.end());
  const std::size_t m = t.size() / 2;
  s.median = t.size() % 2 ? t[m] : (t[m - 1] + t[m]) / 2;
  s.min = t.front();
  s.max = t.back();
  return s;
}

template <class K>
std::string key_str(K k) {
  using B = key_bits<K>;
  std::ostringstream os;
  if constexpr (sizeof(K) > 8) {  // 128-bit: the bits only (iostreams print no __int128)
    char hex[48];
    const auto u = B::to(k);
    std::snprintf(hex, sizeof hex, "0x%016" PRIx64 "%016" PRIx64, std::uint64_t(u >> 64), std::uint64_t(u));
    return hex;
  } else if constexpr (B::is_float) {
    os.precision(9);
    if constexpr (sizeof(K) == 2)
      os << float(k);
    else
      os << k;
  } else if constexpr (B::kind == radix::key_kind::signed_int) {
    os << std::int64_t(k);
  } else {
    os << std::uint64_t(k);
  }
  char hex[32];
  std::snprintf(hex, sizeof hex, " (bits 0x%0*" PRIx64 ")", int(sizeof(K) * 2), std::uint64_t(B::to(k)));
  return os.str() + hex;
}

std::string rate_line(const char* label, std::uint64_t n, double elem_bytes, const stats& s, int runs,
                      const std::string& note_text) {
  const char* note = note_text.c_str();
  char buf[256];
  if (s.median > 0) {
    const double sec = s.median / 1e3;
    std::snprintf(buf, sizeof buf, "%-18s %10.3f ms  %9.1f Mkeys/s  %7.2f GB/s   median of %d (min %.3f, max %.3f ms)%s",
                  label, s.median, double(n) / sec / 1e6, double(n) * elem_bytes / sec / 1e9, runs, s.min, s.max,
                  note);
  } else {
    std::snprintf(buf, sizeof buf, "%-18s %10.3f ms  (too fast to rate)  median of %d%s", label, s.median, runs, note);
  }
  return buf;
}

// ---- the comparison sorts timed beside radix -----------------------------------------
// One template per operation, each sort passed as a function object: the
// peers' instantiations are this file's compile time (it was the build's
// longest step), so each exists once per key type and index width.

struct std_sort_fn {
  template <class It, class Less>
  void operator()(It first, It last, Less less) const { std::sort(first, last, less); }
};
#if RADIX_CLI_HAVE_TBB
struct tbb_sort_fn {
  template <class It, class Less>
  void operator()(It first, It last, Less less) const { tbb::parallel_sort(first, last, less); }
};
#endif

/// The peers' order: the whole key with operator<, reversed when descending;
/// NaN-aware (radix's numeric float order) where the input holds NaNs.
struct peer_order {
  bool descending = false;
  bool has_nan = false;
};

template <class K>
struct peer_less {
  peer_order o;
  bool operator()(K a, K b) const {
    if constexpr (key_bits<K>::is_float) {
      if (o.has_nan) {
        const auto oa = ordered_key(a, radix::float_order::numeric), ob = ordered_key(b, radix::float_order::numeric);
        return o.descending ? ob < oa : oa < ob;
      }
    }
    return o.descending ? b < a : a < b;
  }
};

/// Keys alone, sorted in `keys` (restored from `input` before every run). The
/// plain orders get comparators without run-time branches, as a user would write.
template <class K, class Sort>
std::vector<double> time_peer_keys(const std::vector<K>& input, std::vector<K>& keys, peer_order o, int runs) {
  std::vector<double> ms;
  for (int r = 0; r < runs; ++r) {
    std::copy(input.begin(), input.end(), keys.begin());
    if (o.has_nan)
      ms.push_back(time_ms([&] { Sort{}(keys.begin(), keys.end(), peer_less<K>{o}); }));
    else if (o.descending)
      ms.push_back(time_ms([&] { Sort{}(keys.begin(), keys.end(), [](K a, K b) { return b < a; }); }));
    else
      ms.push_back(time_ms([&] { Sort{}(keys.begin(), keys.end(), std::less<K>()); }));
  }
  return ms;
}

/// Pairs: (key, 32-bit value) structs sorted by key.
template <class K, class Sort>
std::vector<double> time_peer_pairs(const std::vector<K>& input, peer_order o, int runs) {
  struct kv {
    K key;
    std::uint32_t value;
  };
  const peer_less<K> less{o};
  std::vector<double> ms;
  for (int r = 0; r < runs; ++r) {
    std::vector<kv> items(input.size());
    for (std::size_t i = 0; i < input.size(); ++i) items[i] = {input[i], std::uint32_t(i)};
    ms.push_back(time_ms([&] {
      Sort{}(items.begin(), items.end(), [&](const kv& a, const kv& b) { return less(a.key, b.key); });
    }));
  }
  return ms;
}

/// Argsort: indices sorted by the keys they point at.
template <class K, class I, class Sort>
std::vector<double> time_peer_argsort(const std::vector<K>& input, std::vector<I>& indices, peer_order o, int runs) {
  const peer_less<K> less{o};
  const K* in = input.data();
  std::vector<double> ms;
  for (int r = 0; r < runs; ++r) {
    std::iota(indices.begin(), indices.end(), I(0));
    ms.push_back(time_ms([&] { Sort{}(indices.begin(), indices.end(), [&](I a, I b) { return less(in[a], in[b]); }); }));
  }
  return ms;
}

/// Argsort's indices, 32- or 64-bit as --index asks (a run-time choice, so
/// that the rest of bench_typed is compiled once per key type).
struct index_buffers {
  bool wide = false;
  std::vector<std::uint32_t> narrow;
  std::vector<std::uint64_t> wide64;
  void* data() { return wide ? static_cast<void*>(wide64.data()) : static_cast<void*>(narrow.data()); }
  std::uint64_t at(std::uint64_t i) const { return wide ? wide64[i] : narrow[i]; }
  bool operator==(const index_buffers&) const = default;
};

template <class K>
int bench_typed(const bench_config& c) {
  using B = key_bits<K>;
  const std::uint64_t n = c.n;
  const int width = B::width;
  const int begin_bit = c.bits ? c.bits->first : 0;
  const int end_bit = c.bits ? c.bits->second : width;

  radix::options opt;
  opt.direction = c.descending ? radix::order::descending : radix::order::ascending;
  opt.floats = c.floats;
  opt.begin_bit = begin_bit;
  opt.end_bit = c.bits ? end_bit : -1;
  opt.digit_bits = c.digit_bits;
  opt.use = c.engine;
  opt.threads = c.threads;

  // ---- input --------------------------------------------------------------------
  std::vector<K> input(n);
  const bool has_nan = generate_keys(input.data(), n, c.dist, c.seed);
  std::vector<K> keys(n);
  std::vector<std::uint32_t> values, values_init;
  index_buffers indices;
  indices.wide = c.op == op_kind::argsort && c.index64;
  const std::size_t index_bytes = indices.wide ? 8 : 4;
  if (c.op == op_kind::pairs) {
    values.resize(n);
    values_init.resize(n);
    for (std::uint64_t i = 0; i < n; ++i) values_init[i] = std::uint32_t(i);
  }
  if (c.op == op_kind::argsort) indices.wide ? indices.wide64.resize(n) : indices.narrow.resize(n);
  const double elem_bytes =
      double(sizeof(K)) + (c.op == op_kind::pairs ? 4.0 : c.op == op_kind::argsort ? double(index_bytes) : 0.0);

  radix::sort_request req;
  req.op = c.op == op_kind::keys ? radix::operation::keys
           : c.op == op_kind::pairs ? radix::operation::pairs
                                    : radix::operation::argsort;
  req.key = radix::key_desc_of<K>();
  req.n = n;
  req.keys = keys.data();
  req.values = values.data();
  req.value_bytes = c.op == op_kind::pairs ? sizeof(std::uint32_t) : 0;
  req.indices = indices.data();
  req.index_bytes = c.op == op_kind::argsort ? std::uint8_t(index_bytes) : 0;
  req.opts = opt;
  const std::size_t scratch = radix::workspace_bytes(req);  // also rejects bad options / engines

  const radix::engine resolved = c.engine == radix::engine::automatic ? radix::default_engine() : c.engine;
  std::string threads = c.threads ? std::to_string(c.threads) : std::to_string(hardware_threads()) + " (all)";
  std::printf("radix bench: %" PRIu64 " %s keys, %s, op %s%s, %s, bits %d:%d, digit bits %s\n", n,
              key_type_str(c.type), dist_str(c.dist).c_str(), op_str(c.op),
              c.op == op_kind::argsort ? (indices.wide ? " (u64 indices)" : " (u32 indices)") : "",
              c.descending ? "descending" : "ascending", begin_bit, end_bit,
              c.digit_bits ? std::to_string(c.digit_bits).c_str() : "auto");
  std::printf("             engine %s%s, threads %s, float order %s, seed %" PRIu64 ", data %s, scratch %s (%s)\n",
              engine_str(c.engine),
              c.engine == radix::engine::automatic ? (std::string(" = ") + engine_str(resolved)).c_str() : "",
              threads.c_str(), c.floats == radix::float_order::numeric ? "numeric" : "total", c.seed,
              format_bytes(double(n) * elem_bytes).c_str(), format_bytes(double(scratch)).c_str(),
              c.fresh_scratch ? "taken from the scratch cache in every run" : "kept by a radix::sorter");
  std::fflush(stdout);

  // ---- radix ----------------------------------------------------------------------
  radix::sorter sorter(opt);
  const auto restore = [&] {
    // (std::copy: memcpy must not get the null data() of an empty vector, n = 0)
    std::copy(input.begin(), input.end(), keys.begin());
    if (c.op == op_kind::pairs) std::copy(values_init.begin(), values_init.end(), values.begin());
  };
  const auto sort_once = [&] {
    std::span<K> k(keys);
    switch (c.op) {
      case op_kind::keys:
        if (c.fresh_scratch) radix::sort(k, opt);
        else sorter.sort(k);
        break;
      case op_kind::pairs:
        if (c.fresh_scratch) radix::sort_pairs(k, std::span<std::uint32_t>(values), opt);
        else sorter.sort_pairs(k, std::span<std::uint32_t>(values));
        break;
      case op_kind::argsort:
        if (indices.wide) {
          if (c.fresh_scratch) radix::argsort(std::span<const K>(keys), std::span<std::uint64_t>(indices.wide64), opt);
          else sorter.argsort(std::span<const K>(keys), std::span<std::uint64_t>(indices.wide64));
        } else {
          if (c.fresh_scratch) radix::argsort(std::span<const K>(keys), std::span<std::uint32_t>(indices.narrow), opt);
          else sorter.argsort(std::span<const K>(keys), std::span<std::uint32_t>(indices.narrow));
        }
        break;
    }
  };

  restore();
  sort_once();  // warm-up; its result is the one verified
  const std::vector<K> first_keys = keys;
  const std::vector<std::uint32_t> first_values = values;
  const index_buffers first_indices = indices;
  int inconsistent = 0;
  std::vector<double> radix_ms;
  for (int r = 0; r < c.repeat; ++r) {
    restore();
    radix_ms.push_back(time_ms(sort_once));
    // (an empty vector's data() may be null, which memcmp must not get even for 0 bytes)
    const auto equal = [](const auto& a, const auto& b) {
      return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(a[0])) == 0);
    };
    const bool same = equal(keys, first_keys) && equal(values, first_values) && indices == first_indices;
    if (!same) ++inconsistent;
  }
  const stats rs = summarize(radix_ms);
  std::printf("%s\n", rate_line("radix", n, elem_bytes, rs, c.repeat, "").c_str());
  std::fflush(stdout);

  // ---- std::sort --------------------------------------------------------------------
  if (c.baseline) {
    const peer_order order{c.descending, has_nan};
    // One comparison sort over the same input, timed like radix.
    const auto time_peer = [&](auto sort_fn) {
      using S = decltype(sort_fn);
      switch (c.op) {
        case op_kind::keys: return summarize(time_peer_keys<K, S>(input, keys, order, c.baseline_repeat));
        case op_kind::pairs: return summarize(time_peer_pairs<K, S>(input, order, c.baseline_repeat));
        case op_kind::argsort: break;
      }
      return summarize(indices.wide ? time_peer_argsort<K, std::uint64_t, S>(input, indices.wide64, order, c.baseline_repeat)
                                    : time_peer_argsort<K, std::uint32_t, S>(input, indices.narrow, order, c.baseline_repeat));
    };
    const char* nan_note = has_nan ? ", NaN-aware" : "";
    const stats bs = time_peer(std_sort_fn{});
    std::printf("%s\n", rate_line("std::sort", n, elem_bytes, bs, c.baseline_repeat, std::string(", 1 thread") + nan_note).c_str());
    // radix uses every core: say so, and put the strongest parallel sort built in beside it.
    const unsigned radix_threads = c.threads ? c.threads : std::max(1u, std::thread::hardware_concurrency());
#if RADIX_CLI_HAVE_TBB
    stats ps{};
    {
      tbb::global_control threads(tbb::global_control::max_allowed_parallelism, radix_threads);
      ps = time_peer(tbb_sort_fn{});
    }
    std::printf("%s\n", rate_line("tbb::parallel_sort", n, elem_bytes, ps, c.baseline_repeat,
                                  ", " + std::to_string(radix_threads) + " threads" + nan_note).c_str());
#endif
    if (rs.median > 0 && bs.median > 0) {
      std::printf("%-18s %10.2fx  over std::sort on 1 thread (radix on %u thread%s)\n", "speed-up", bs.median / rs.median,
                  radix_threads, radix_threads == 1 ? "" : "s");
#if RADIX_CLI_HAVE_TBB
      std::printf("%-18s %10.2fx  over tbb::parallel_sort on the same %u thread%s\n", "", ps.median / rs.median,
                  radix_threads, radix_threads == 1 ? "" : "s");
#else
      std::printf("%-18s %s\n", "", "(no parallel peer in this build: with TBB installed, tbb::parallel_sort runs beside it)");
#endif
    }
  }

  // ---- verification -------------------------------------------------------------------
  if (inconsistent) {
    std::printf("verify     FAILED: %d of %d timed runs gave a different result from the first run\n", inconsistent,
                c.repeat);
    return exit_check_failed;
  }
  if (!c.verify) {
    std::printf("verify     skipped (--no-verify); the %d timed runs agreed with the first run\n", c.repeat);
    return exit_ok;
  }
  const sort_spec spec{c.descending, c.floats, begin_bit, end_bit};
  const std::vector<std::uint64_t> ref = reference_order(input.data(), n, spec);
  std::uint64_t wrong = 0, first_wrong = n;
  std::string detail;
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::uint64_t j = ref[i];
    bool ok = true;
    switch (c.op) {
      case op_kind::keys: ok = B::to(first_keys[i]) == B::to(input[j]); break;
      case op_kind::pairs:
        ok = B::to(first_keys[i]) == B::to(input[j]) && first_values[i] == std::uint32_t(j);
        break;
      case op_kind::argsort: ok = first_indices.at(i) == j; break;
    }
    if (!ok && wrong++ == 0) {
      first_wrong = i;
      switch (c.op) {
        case op_kind::keys:
          detail = "key " + key_str(first_keys[i]) + ", expected " + key_str(input[j]);
          break;
        case op_kind::pairs:
          detail = "key " + key_str(first_keys[i]) + " value " + std::to_string(first_values[i]) + ", expected key " +
                   key_str(input[j]) + " value " + std::to_string(std::uint32_t(j));
          break;
        case op_kind::argsort:
          detail = "index " + std::to_string(first_indices.at(i)) + ", expected " + std::to_string(j);
          break;
      }
    }
  }
  if (c.op == op_kind::argsort && n && std::memcmp(first_keys.data(), input.data(), n * sizeof(K)) != 0) {
    std::printf("verify     FAILED: argsort modified its input keys\n");
    return exit_check_failed;
  }
  if (wrong) {
    std::printf("verify     FAILED: %" PRIu64 " of %" PRIu64 " positions differ from std::stable_sort; first at %" PRIu64
                ": %s\n",
                wrong, n, first_wrong, detail.c_str());
    return exit_check_failed;
  }
  std::printf("verify     OK: all %d radix results equal std::stable_sort under the radix order\n", c.repeat + 1);
  return exit_ok;
}

}  // namespace

std::string bench_help() { return std::string(bench_help_head) + dist_help + bench_help_tail; }

int bench_command(const std::vector<std::string>& args) {
  const bench_config c = parse_bench(args);
  return visit_key_type(c.type, [&]<class K>(std::type_identity<K>) {
    return bench_typed<K>(c);
  });
}

}  // namespace radix_cli
