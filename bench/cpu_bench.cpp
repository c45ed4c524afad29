// radix_cpu_bench — the radix CPU engine against its peers, in one process,
// on the same input restored before every timed run.
//
// Protocol (bench/README.md): for each row, every implementation gets one
// warm-up run and then >= --repeat timed runs (more for tiny inputs); the
// input is copied back from a pristine copy before each run, outside the
// timed region; the median is reported. Every implementation's output is
// verified (after the warm-up and after the last run) and a wrong result is
// reported as INVALID instead of a time.
//
// This file is compiled with the project's ordinary flags (no -m/-march); the
// peers live in peers_*.cpp, built for AVX2 (see CMakeLists.txt).
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "peers.hpp"
#include "radix/sort.hpp"
#include "radix/sorter.hpp"

namespace rb = radix_bench;

namespace {

// ---------------------------------------------------------------------------
// Small utilities
// ---------------------------------------------------------------------------

std::string fmt(const char* f, ...) __attribute__((format(printf, 1, 2)));
std::string fmt(const char* f, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, f);
  std::vsnprintf(buf, sizeof buf, f, ap);
  va_end(ap);
  return buf;
}

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\r' || s.back() == '\t')) s.pop_back();
  std::size_t i = 0;
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  return s.substr(i);
}

std::string run_command(const std::string& cmd) {
  std::string out;
  if (FILE* p = popen(cmd.c_str(), "r")) {
    char buf[512];
    while (std::fgets(buf, sizeof buf, p)) out += buf;
    pclose(p);
  }
  return trim(out);
}

std::string read_file_line(const char* path) {
  std::ifstream f(path);
  std::string line;
  std::getline(f, line);
  return trim(line);
}

// ---------------------------------------------------------------------------
// numpy.sort, timed inside Python
// ---------------------------------------------------------------------------

/// The interpreter that runs NumPy ($RADIX_BENCH_PYTHON, else python3).
std::string python_command() {
  const char* p = std::getenv("RADIX_BENCH_PYTHON");
  return p && *p ? p : "python3";
}

/// One warm-up, then `reps` runs, each on a fresh copy of the keys with only
/// the sort (or stable argsort) timed; the last result goes to `dst`
/// (argsort: as u32 indices, converted after the timing); prints the times.
constexpr const char* numpy_script = R"PY(
import sys, time
import numpy as np
dtype, n, src, dst, reps, op = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], int(sys.argv[5]), sys.argv[6]
x = np.fromfile(src, dtype=dtype, count=n)
def once():
    y = x.copy()
    t = time.perf_counter()
    if op == "sort":
        y.sort()
        out = y
    else:
        out = np.argsort(y, kind="stable")
    return time.perf_counter() - t, out
once()
times = []
for _ in range(reps):
    t, out = once()
    times.append(t)
(out if op == "sort" else out.astype(np.uint32)).tofile(dst)
print(" ".join(repr(t) for t in times))
)PY";

/// NumPy where the interpreter imports it: its version and the script's path.
struct numpy_peer {
  std::string version;
  std::string script;
  std::string dir;  ///< where the inputs and outputs go (removed at exit)
};

struct splitmix64 {
  std::uint64_t s;
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
};

inline std::uint64_t mix64(std::uint64_t z) {
  z ^= z >> 33;
  z *= 0xFF51AFD7ED558CCDull;
  z ^= z >> 33;
  z *= 0xC4CEB9FE1A85EC53ull;
  z ^= z >> 33;
  return z;
}

/// Order-independent fingerprint of a multiset of 64-bit words.
struct fingerprint {
  std::uint64_t a = 0, b = 0;
  void add(std::uint64_t x) {
    a += mix64(x);
    b += mix64(x ^ 0x5851F42D4C957F2Dull) | 1;
  }
  bool operator==(const fingerprint&) const = default;
};

template <class T>
std::uint64_t bits_of(T x) {
  if constexpr (sizeof(T) == 4) {
    std::uint32_t u;
    std::memcpy(&u, &x, 4);
    return u;
  } else {
    std::uint64_t u;
    std::memcpy(&u, &x, 8);
    return u;
  }
}

/// An uninitialised array (no zero fill: the generators and memcpy write it).
template <class T>
struct buffer {
  std::unique_ptr<T[]> p;
  std::size_t n = 0;
  buffer() = default;
  explicit buffer(std::size_t count) : p(new T[count]), n(count) {}
  T* data() const { return p.get(); }
  std::size_t bytes() const { return n * sizeof(T); }
};

// ---------------------------------------------------------------------------
// Rows (cases) and their inputs
// ---------------------------------------------------------------------------

enum class kind { u32, u64, f32, pairs, argsort, presorted, low10 };

struct row_def {
  std::string id;   ///< e.g. "u32:26"; --rows matches substrings of it
  kind k;
  int log2n;        ///< nominal size (--quick subtracts 8)
  bool sweep = false;
};

const char* kind_title(kind k) {
  switch (k) {
    case kind::u32: return "u32 keys, uniform random 32-bit";
    case kind::u64: return "u64 keys, uniform random 64-bit";
    case kind::f32: return "f32 keys, uniform in [-1, 1) (24-bit grid, no NaN)";
    case kind::pairs: return "u32 keys + u32 values (value = input index), uniform random keys";
    case kind::argsort: return "argsort of u32 keys (u32 indices), uniform random keys";
    case kind::presorted: return "u32 keys, already sorted (random non-decreasing)";
    case kind::low10: return "u32 keys, only the 10 low bits random";
  }
  return "?";
}

/// Distinct random streams per input kind; the u32 sweep shares the u32 stream,
/// so sweep rows at 2^26 and 2^27 are exactly the u32:26 / u32:27 inputs.
std::uint64_t stream_of(kind k) {
  switch (k) {
    case kind::u32: return 1;
    case kind::u64: return 2;
    case kind::f32: return 3;
    case kind::pairs: return 4;
    case kind::argsort: return 5;
    case kind::presorted: return 6;
    case kind::low10: return 7;
  }
  return 0;
}

splitmix64 rng_for(std::uint64_t seed, kind k) { return splitmix64{seed ^ (stream_of(k) * 0xD1B54A32D192ED03ull)}; }

void gen_u32(std::uint32_t* a, std::size_t n, std::uint64_t seed, kind k) {
  auto r = rng_for(seed, k);
  if (k == kind::low10) {
    for (std::size_t i = 0; i < n; ++i) a[i] = std::uint32_t(r.next() >> 54);
  } else if (k == kind::presorted) {
    // Non-decreasing random values: gaps uniform in [0, g], g = (2^32-1)/n.
    const std::uint64_t g = 0xFFFFFFFFull / std::max<std::size_t>(n, 1);
    std::uint64_t x = 0;
    for (std::size_t i = 0; i < n; ++i) {
      x += r.next() % (g + 1);
      a[i] = std::uint32_t(x);
    }
  } else {
    for (std::size_t i = 0; i < n; ++i) a[i] = std::uint32_t(r.next() >> 32);
  }
}
void gen_u64(std::uint64_t* a, std::size_t n, std::uint64_t seed) {
  auto r = rng_for(seed, kind::u64);
  for (std::size_t i = 0; i < n; ++i) a[i] = r.next();
}
void gen_f32(float* a, std::size_t n, std::uint64_t seed) {
  auto r = rng_for(seed, kind::f32);
  for (std::size_t i = 0; i < n; ++i) {
    const std::int32_t v = std::int32_t(r.next() >> 40) - (1 << 23);  // [-2^23, 2^23)
    a[i] = float(v) * (1.0f / 8388608.0f);                             // exact
  }
}

// ---------------------------------------------------------------------------
// Verification (hand-written loops: this TU instantiates no std algorithm the
// AVX2 peer TUs instantiate)
// ---------------------------------------------------------------------------

template <class T>
fingerprint fp_keys(const T* a, std::size_t n) {
  fingerprint f;
  for (std::size_t i = 0; i < n; ++i) f.add(bits_of(a[i]));
  return f;
}

template <class T>
std::string check_keys(const T* a, std::size_t n, const fingerprint& want) {
  for (std::size_t i = 1; i < n; ++i)
    if (a[i] < a[i - 1]) return fmt("not sorted at index %zu", i);
  if (!(fp_keys(a, n) == want)) return "sorted, but not a permutation of the input (keys lost or changed)";
  return {};
}

std::string check_pairs_soa(const std::uint32_t* k, const std::uint32_t* v, std::size_t n, const fingerprint& want,
                            bool stable) {
  fingerprint f;
  for (std::size_t i = 0; i < n; ++i) {
    if (i > 0 && k[i] < k[i - 1]) return fmt("keys not sorted at index %zu", i);
    if (stable && i > 0 && k[i] == k[i - 1] && v[i] < v[i - 1])
      return fmt("not stable: equal keys out of input order at index %zu", i);
    f.add((std::uint64_t(k[i]) << 32) | v[i]);
  }
  if (!(f == want)) return "keys sorted, but (key, value) pairs were not kept together / lost";
  return {};
}

std::string check_pairs_aos(const rb::kv32* a, std::size_t n, const fingerprint& want, bool stable) {
  fingerprint f;
  for (std::size_t i = 0; i < n; ++i) {
    if (i > 0 && a[i].key < a[i - 1].key) return fmt("keys not sorted at index %zu", i);
    if (stable && i > 0 && a[i].key == a[i - 1].key && a[i].value < a[i - 1].value)
      return fmt("not stable: equal keys out of input order at index %zu", i);
    f.add((std::uint64_t(a[i].key) << 32) | a[i].value);
  }
  if (!(f == want)) return "keys sorted, but (key, value) pairs were not kept together / lost";
  return {};
}

std::string check_argsort(const std::uint32_t* keys, const std::uint32_t* idx, std::size_t n, bool stable) {
  std::vector<std::uint8_t> seen(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t j = idx[i];
    if (j >= n) return fmt("index out of range at %zu", i);
    if (seen[j]) return fmt("index %u appears twice (not a permutation)", j);
    seen[j] = 1;
    if (i > 0) {
      const std::uint32_t p = idx[i - 1];
      if (keys[j] < keys[p]) return fmt("keys[idx] not sorted at %zu", i);
      if (stable && keys[j] == keys[p] && j < p) return fmt("not stable: equal keys out of input order at %zu", i);
    }
  }
  return {};
}

// ---------------------------------------------------------------------------
// Contestants and measurements
// ---------------------------------------------------------------------------

struct result {
  std::string id, name, detail;
  bool is_radix = false;
  bool valid = false;
  std::string problem;  ///< INVALID / ERROR reason
  double median_s = 0, min_s = 0, max_s = 0;
  int runs = 0;
  long long peak_extra = -1;  ///< bytes the warm-up call added to the peak resident set (-1: not measured)
};

struct contestant {
  std::string id;      ///< "radix", "radix_sorter", or a peer id
  std::string name;
  std::string detail;
  bool is_radix = false;
  std::function<void()> restore;  ///< untimed: put the pristine input back
  std::function<void()> run;      ///< timed
  std::function<std::string()> verify;
  /// A peer that times itself in another process (numpy.sort): the whole
  /// measurement, instead of run().
  std::function<result()> external = nullptr;
};

struct row_result {
  row_def def;
  std::size_t n = 0;
  int log2n = 0;
  std::string title;
  std::string note;
  std::string load;  ///< /proc/loadavg when the row started (a shared machine disturbs timings)
  std::vector<result> rs;
  std::string reused_from;  ///< sweep rows that reuse a main row's figures

  const result* find(const std::string& id) const {
    for (auto& r : rs)
      if (r.id == id) return &r;
    return nullptr;
  }
  const result* fastest_peer() const {
    const result* best = nullptr;
    for (auto& r : rs)
      if (!r.is_radix && r.valid && (!best || r.median_s < best->median_s)) best = &r;
    return best;
  }
};

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void sort_small(std::vector<double>& v) {  // insertion sort: a handful of timings
  for (std::size_t i = 1; i < v.size(); ++i)
    for (std::size_t j = i; j > 0 && v[j] < v[j - 1]; --j) std::swap(v[j], v[j - 1]);
}

std::string fmt_ms(double s) {
  const double ms = s * 1e3;
  if (ms < 10) return fmt("%.3f", ms);
  if (ms < 100) return fmt("%.2f", ms);
  return fmt("%.1f", ms);
}

struct config {
  bool quick = false;
  int repeat = 5;
  std::uint64_t seed = 0x5EEDC0DE2026ull;
  std::string out;
  std::vector<std::string> row_patterns;
  std::vector<std::string> peer_patterns;
  bool vqsort_default = false;
  const numpy_peer* numpy = nullptr;  ///< numpy.sort runs where set
};

/// A field of /proc/self/status in kB ("VmRSS", "VmHWM"), or -1.
long long status_kb(const char* field) {
  std::ifstream f("/proc/self/status");
  std::string line;
  const std::string key = std::string(field) + ":";
  while (std::getline(f, line))
    if (line.rfind(key, 0) == 0) return std::atoll(line.c_str() + key.size());
  return -1;
}

/// The peak memory one call adds (Linux): the resident set's high-water mark
/// is reset through /proc/self/clear_refs ("5"), the resident set read, and
/// after the call the new high-water mark less it. Memory the call touches
/// counts, memory already resident that it reuses does not. -1 where the
/// kernel does not offer the reset.
struct peak_probe {
  long long rss_kb = -1;
  void start() {
    std::FILE* f = std::fopen("/proc/self/clear_refs", "w");
    const bool reset = f && std::fputs("5", f) >= 0;
    if (f) std::fclose(f);
    rss_kb = reset ? status_kb("VmRSS") : -1;
  }
  long long extra_bytes() const {
    if (rss_kb < 0) return -1;
    const long long hwm = status_kb("VmHWM");
    return hwm < 0 ? -1 : std::max(0LL, hwm - rss_kb) * 1024;
  }
};

std::string fmt_mib(long long bytes) { return bytes < 0 ? "n/a" : fmt("%.1f", double(bytes) / 1048576.0); }

/// A valid result's figures from its timed runs (seconds).
void set_times(result& r, std::vector<double> ts) {
  sort_small(ts);
  r.runs = int(ts.size());
  r.min_s = ts.front();
  r.max_s = ts.back();
  r.median_s = ts.size() % 2 ? ts[ts.size() / 2] : 0.5 * (ts[ts.size() / 2 - 1] + ts[ts.size() / 2]);
  r.valid = true;
}

/// A contestant's warm-up (its peak memory measured: radix::sort's cache
/// emptied first, so that the scratch it takes counts) and first check.
/// Returns the timed runs it gets (inputs under 20 ms get more), or 0 where it
/// failed (r.problem says why).
int warm_up(contestant& c, const config& cfg, result& r) {
  r.id = c.id;
  r.name = c.name;
  r.detail = c.detail;
  r.is_radix = c.is_radix;
  try {
    c.restore();
    if (c.is_radix) radix::release_scratch_cache();
    peak_probe probe;
    probe.start();
    const double t0 = now_s();
    c.run();
    const double warm = now_s() - t0;
    r.peak_extra = probe.extra_bytes();
    if (std::string e = c.verify(); !e.empty()) {
      r.problem = "INVALID: " + e;
      return 0;
    }
    int runs = cfg.repeat;
    if (warm < 0.02) runs = std::max(runs, int(std::min(200.0, std::ceil(0.25 / std::max(warm, 1e-6)))));
    return runs;
  } catch (const std::exception& e) {
    r.problem = std::string("ERROR: exception: ") + e.what();
    return 0;
  }
}

/// Every contestant of a row: warm-ups first, then the timed runs
/// interleaved (round i runs each contestant once, starting one further
/// along each round), so that a slow spell of a shared machine falls on all
/// of them rather than on whichever ran through it; each is checked after its
/// last run. Peers timed in another process (numpy.sort) run on their own.
std::vector<result> measure_all(std::vector<contestant>& cs, const config& cfg) {
  const std::size_t k = cs.size();
  std::vector<result> rs(k);
  std::vector<int> runs(k, 0);
  std::vector<std::vector<double>> ts(k);
  int most = 0;
  for (std::size_t j = 0; j < k; ++j) {
    if (cs[j].external) continue;
    runs[j] = warm_up(cs[j], cfg, rs[j]);
    most = std::max(most, runs[j]);
  }
  for (int i = 0; i < most; ++i)
    for (std::size_t q = 0; q < k; ++q) {
      const std::size_t j = (q + std::size_t(i)) % k;
      if (int(ts[j].size()) >= runs[j] || !rs[j].problem.empty()) continue;
      contestant& c = cs[j];
      try {
        c.restore();
        const double t0 = now_s();
        c.run();
        ts[j].push_back(now_s() - t0);
        if (int(ts[j].size()) == runs[j]) {
          if (std::string e = c.verify(); !e.empty()) rs[j].problem = "INVALID (after timed runs): " + e;
          else set_times(rs[j], ts[j]);
        }
      } catch (const std::exception& e) {
        rs[j].problem = std::string("ERROR: exception: ") + e.what();
      }
    }
  for (std::size_t j = 0; j < k; ++j)
    if (cs[j].external) rs[j] = cs[j].external();
  return rs;
}

std::string shell_quote(const std::string& s);

/// numpy.sort (or a stable numpy.argsort) of n keys of `dtype`, timed in
/// Python (numpy_script); its last result is read into `out` and checked.
result numpy_measure(const numpy_peer& np, const char* dtype, const void* keys, std::size_t key_bytes, void* out,
                     std::size_t out_bytes, std::size_t n, bool argsort, int reps,
                     const std::function<std::string()>& verify) {
  result r;
  r.id = "numpy_sort";
  r.name = argsort ? "numpy.argsort(kind=stable)" : "numpy.sort";
  r.detail = "NumPy " + np.version + ", one thread (x86-simd-sort inside where the CPU has AVX2 or AVX-512" +
             std::string(argsort ? "; int64 indices" : "") + "); only the sort of a fresh copy timed, inside Python";
  const std::string in = np.dir + "/in.bin", res = np.dir + "/out.bin";
  {
    std::ofstream f(in, std::ios::binary);
    f.write(static_cast<const char*>(keys), std::streamsize(n * key_bytes));
    if (!f) {
      r.problem = "ERROR: could not write " + in;
      return r;
    }
  }
  const std::string cmd = shell_quote(python_command()) + " " + shell_quote(np.script) + " " + dtype + " " +
                          std::to_string(n) + " " + shell_quote(in) + " " + shell_quote(res) + " " +
                          std::to_string(reps) + " " + (argsort ? "argsort" : "sort") + " 2>&1";
  const std::string printed = run_command(cmd);
  std::vector<double> ts;
  {
    std::istringstream is(printed);
    double t;
    while (is >> t) ts.push_back(t);
  }
  if (int(ts.size()) != reps) {
    r.problem = "ERROR: numpy: " + printed.substr(0, 300);
    return r;
  }
  {
    std::ifstream f(res, std::ios::binary);
    f.read(static_cast<char*>(out), std::streamsize(out_bytes));
    if (f.gcount() != std::streamsize(out_bytes)) {
      r.problem = "ERROR: numpy's result file is short";
      return r;
    }
  }
  std::remove(in.c_str());
  std::remove(res.c_str());
  if (std::string e = verify(); !e.empty()) {
    r.problem = "INVALID: " + e;
    return r;
  }
  set_times(r, ts);
  return r;
}

bool matches_any(const std::string& s, const std::vector<std::string>& pats) {
  for (auto& p : pats)
    if (s.find(p) != std::string::npos) return true;
  return false;
}

/// --rows / --peers semantics: patterns are substrings; a leading '-'
/// excludes. Only exclusions (or nothing): start from everything.
bool selected(const std::string& s, const std::vector<std::string>& pats) {
  std::vector<std::string> inc, exc;
  for (auto& p : pats) (p.size() > 1 && p[0] == '-' ? exc : inc).push_back(p[0] == '-' ? p.substr(1) : p);
  if (matches_any(s, exc)) return false;
  return inc.empty() || matches_any(s, inc);
}

radix::options cpu_opts() {
  radix::options o;
  o.use = radix::engine::cpu;
  o.threads = 0;  // all hardware threads
  return o;
}

// ---------------------------------------------------------------------------
// One row
// ---------------------------------------------------------------------------

void print_result_line(const row_result& rr, const result& r) {
  if (r.valid)
    std::printf("  %-8s %-34s %10s ms  %9.1f Mkeys/s  (min %s ms, %d runs; peak +%s MiB)\n", rr.def.id.c_str(),
                r.name.c_str(), fmt_ms(r.median_s).c_str(), double(rr.n) / r.median_s / 1e6, fmt_ms(r.min_s).c_str(),
                r.runs, fmt_mib(r.peak_extra).c_str());
  else
    std::printf("  %-8s %-34s %s\n", rr.def.id.c_str(), r.name.c_str(), r.problem.c_str());
  std::fflush(stdout);
}

template <class T>
void add_key_contestants(std::vector<contestant>& cs, T* work, const T* pristine, std::size_t n, const fingerprint& fp,
                         const std::vector<rb::peer>& peers, std::vector<std::unique_ptr<radix::sorter>>& sorters,
                         bool low10, const config& cfg) {
  auto restore = [=] { std::memcpy(work, pristine, n * sizeof(T)); };
  auto verify = [=] { return check_keys(work, n, fp); };
  auto add_radix = [&](const std::string& suffix, radix::options o) {
    const std::string id_suffix = suffix.empty() ? "" : "_endbit10";
    cs.push_back({"radix" + id_suffix, "radix::sort" + suffix, "CPU engine, all threads, one call (scratch from the process-wide cache)",
                  true, restore, [=] { radix::sort(std::span<T>(work, n), o); }, verify});
    sorters.push_back(std::make_unique<radix::sorter>(o));
    radix::sorter* s = sorters.back().get();
    cs.push_back({"radix_sorter" + id_suffix, "radix::sorter" + suffix,
                  "CPU engine, all threads, scratch kept between calls", true, restore,
                  [=] { s->sort(std::span<T>(work, n)); }, verify});
  };
  add_radix("", cpu_opts());
  {  // one thread, as the single-threaded peers run
    radix::options o = cpu_opts();
    o.threads = 1;
    cs.push_back({"radix_1t", "radix::sort (1 thread)", "CPU engine, one thread, one call", true, restore,
                  [=] { radix::sort(std::span<T>(work, n), o); }, verify});
  }
  if constexpr (std::is_integral_v<T>) {  // (floats in numeric order are never sorted in place)
    radix::options o = cpu_opts();
    o.memory = radix::memory_use::in_place;
    cs.push_back({"radix_inplace", "radix::sort (in place)",
                  "CPU engine, all threads, one call, memory_use::in_place (no key scratch)", true, restore,
                  [=] { radix::sort(std::span<T>(work, n), o); }, verify});
  }
  if (low10) {
    radix::options o = cpu_opts();
    o.end_bit = 10;
    add_radix(" end_bit=10", o);
  }
  for (auto& p : peers) {
    void (*fn)(T*, std::size_t) = nullptr;
    if constexpr (std::is_same_v<T, std::uint32_t>) fn = p.u32;
    if constexpr (std::is_same_v<T, std::uint64_t>) fn = p.u64;
    if constexpr (std::is_same_v<T, float>) fn = p.f32;
    if (!fn) continue;
    cs.push_back({p.id, p.name, p.detail, false, restore, [=] { fn(work, n); }, verify});
  }
  if (const numpy_peer* np = cfg.numpy) {
    const char* dtype = std::is_same_v<T, float> ? "float32" : sizeof(T) == 8 ? "uint64" : "uint32";
    const int reps = cfg.repeat;
    contestant c{"numpy_sort", "numpy.sort", "", false, restore, {}, verify};
    c.external = [=] {
      restore();
      return numpy_measure(*np, dtype, pristine, sizeof(T), work, n * sizeof(T), n, false, reps, verify);
    };
    cs.push_back(std::move(c));
  }
}

row_result run_row(const row_def& def, const config& cfg, const std::vector<rb::peer>& peers) {
  row_result rr;
  rr.def = def;
  rr.log2n = cfg.quick ? std::max(8, def.log2n - 8) : def.log2n;
  rr.n = std::size_t(1) << rr.log2n;
  rr.title = kind_title(def.k);
  const std::size_t n = rr.n;
  rr.load = read_file_line("/proc/loadavg");
  std::printf("\n== %s: %s, n = 2^%d = %zu (load average: %s)\n", def.id.c_str(), rr.title.c_str(), rr.log2n, n,
              rr.load.c_str());
  std::fflush(stdout);

  std::vector<contestant> cs;
  std::vector<std::unique_ptr<radix::sorter>> sorters;
  // Buffers live until the row is done.
  buffer<std::uint32_t> u32p, u32w, v32p, v32w, idx;
  buffer<std::uint64_t> u64p, u64w;
  buffer<float> f32p, f32w;
  buffer<rb::kv32> kvp, kvw;
  fingerprint fp;

  switch (def.k) {
    case kind::u32:
    case kind::presorted:
    case kind::low10: {
      u32p = buffer<std::uint32_t>(n);
      u32w = buffer<std::uint32_t>(n);
      gen_u32(u32p.data(), n, cfg.seed, def.k);
      fp = fp_keys(u32p.data(), n);
      add_key_contestants(cs, u32w.data(), u32p.data(), n, fp, peers, sorters, def.k == kind::low10, cfg);
      break;
    }
    case kind::u64: {
      u64p = buffer<std::uint64_t>(n);
      u64w = buffer<std::uint64_t>(n);
      gen_u64(u64p.data(), n, cfg.seed);
      fp = fp_keys(u64p.data(), n);
      add_key_contestants(cs, u64w.data(), u64p.data(), n, fp, peers, sorters, false, cfg);
      break;
    }
    case kind::f32: {
      f32p = buffer<float>(n);
      f32w = buffer<float>(n);
      gen_f32(f32p.data(), n, cfg.seed);
      fp = fp_keys(f32p.data(), n);
      add_key_contestants(cs, f32w.data(), f32p.data(), n, fp, peers, sorters, false, cfg);
      break;
    }
    case kind::pairs: {
      u32p = buffer<std::uint32_t>(n);
      u32w = buffer<std::uint32_t>(n);
      v32p = buffer<std::uint32_t>(n);
      v32w = buffer<std::uint32_t>(n);
      gen_u32(u32p.data(), n, cfg.seed, kind::pairs);
      for (std::size_t i = 0; i < n; ++i) v32p.data()[i] = std::uint32_t(i);
      for (std::size_t i = 0; i < n; ++i) fp.add((std::uint64_t(u32p.data()[i]) << 32) | v32p.data()[i]);
      std::uint32_t *kw = u32w.data(), *vw = v32w.data();
      const std::uint32_t *kp = u32p.data(), *vp = v32p.data();
      auto restore = [=] {
        std::memcpy(kw, kp, n * 4);
        std::memcpy(vw, vp, n * 4);
      };
      auto verify = [=] { return check_pairs_soa(kw, vw, n, fp, true); };
      const radix::options o = cpu_opts();
      cs.push_back({"radix", "radix::sort_pairs", "CPU engine, all threads, keys and values in 2 arrays", true, restore,
                    [=] { radix::sort_pairs(std::span<std::uint32_t>(kw, n), std::span<std::uint32_t>(vw, n), o); },
                    verify});
      sorters.push_back(std::make_unique<radix::sorter>(o));
      radix::sorter* s = sorters.back().get();
      cs.push_back({"radix_sorter", "radix::sorter.sort_pairs", "as above, scratch kept between calls", true, restore,
                    [=] { s->sort_pairs(std::span<std::uint32_t>(kw, n), std::span<std::uint32_t>(vw, n)); },
                    verify});
      // Peers: the same pairs as one array of {key, value} structs (packed
      // untimed; their natural layout).
      kvp = buffer<rb::kv32>(n);
      kvw = buffer<rb::kv32>(n);
      for (std::size_t i = 0; i < n; ++i) kvp.data()[i] = rb::kv32{vp[i], kp[i]};
      rb::kv32* aw = kvw.data();
      const rb::kv32* ap = kvp.data();
      for (auto& p : peers) {  // (peers of two arrays sort them as radix does)
        if (!p.pairs_soa) continue;
        auto fn = p.pairs_soa;
        const bool st = p.pairs_stable;
        cs.push_back({p.id, p.name, p.detail + ", keys and values in 2 arrays" + (st ? ", stable" : ", unstable"),
                      false, restore, [=] { fn(kw, vw, n); }, [=] { return check_pairs_soa(kw, vw, n, fp, st); }});
      }
      for (auto& p : peers) {
        if (!p.pairs) continue;
        auto fn = p.pairs;
        const bool st = p.pairs_stable;
        cs.push_back({p.id, p.name, p.detail + (st ? ", stable" : ", unstable"), false,
                      [=] { std::memcpy(aw, ap, n * sizeof(rb::kv32)); }, [=] { fn(aw, n); },
                      [=] { return check_pairs_aos(aw, n, fp, st); }});
      }
      rr.note = "radix (and x86-simd-sort's keyvalue_qsort) sort two arrays (keys, values); the other peers sort "
                "one array of 8-byte {key, value} structs (packing is not timed). Stability is checked for radix and "
                "std::stable_sort.";
      break;
    }
    case kind::argsort: {
      u32p = buffer<std::uint32_t>(n);
      u32w = buffer<std::uint32_t>(n);
      idx = buffer<std::uint32_t>(n);
      gen_u32(u32p.data(), n, cfg.seed, kind::argsort);
      std::uint32_t *kw = u32w.data(), *iw = idx.data();
      const std::uint32_t* kp = u32p.data();
      // The output is poisoned before every run so that a stale answer from
      // the previous contestant cannot pass verification.
      auto restore = [=] {
        std::memcpy(kw, kp, n * 4);
        std::memset(iw, 0xFF, n * 4);
      };
      const radix::options o = cpu_opts();
      auto verify_stable = [=] { return check_argsort(kw, iw, n, true); };
      cs.push_back({"radix", "radix::argsort", "CPU engine, all threads, u32 indices", true, restore,
                    [=] { radix::argsort(std::span<const std::uint32_t>(kw, n), std::span<std::uint32_t>(iw, n), o); },
                    verify_stable});
      sorters.push_back(std::make_unique<radix::sorter>(o));
      radix::sorter* s = sorters.back().get();
      cs.push_back({"radix_sorter", "radix::sorter.argsort", "as above, scratch kept between calls", true, restore,
                    [=] { s->argsort(std::span<const std::uint32_t>(kw, n), std::span<std::uint32_t>(iw, n)); },
                    verify_stable});
      for (auto& p : peers) {
        if (!p.argsort) continue;
        auto fn = p.argsort;
        const bool st = p.argsort_stable;
        cs.push_back({p.id, p.name, p.detail + "; " + p.argsort_method, false, restore, [=] { fn(kw, iw, n); },
                      [=] { return check_argsort(kw, iw, n, st); }});
      }
      if (const numpy_peer* np = cfg.numpy) {
        const int reps = cfg.repeat;
        contestant c{"numpy_sort", "numpy.argsort(kind=stable)", "", false, restore, {}, verify_stable};
        c.external = [=] {
          restore();
          return numpy_measure(*np, "uint32", kp, 4, iw, n * 4, n, true, reps, verify_stable);
        };
        cs.push_back(std::move(c));
      }
      rr.note = "Every argsort is checked to be the stable permutation. Peers other than std::stable_sort sort "
                "packed u64 (key << 32 | index) and unpack; packing, buffer and unpacking are timed.";
      break;
    }
  }

  for (result& r : measure_all(cs, cfg)) {
    print_result_line(rr, r);
    rr.rs.push_back(std::move(r));
  }
  return rr;
}

// ---------------------------------------------------------------------------
// Reporting
// ---------------------------------------------------------------------------

std::string ratio_str(double r) { return r >= 100 ? fmt("%.0fx", r) : r >= 10 ? fmt("%.1fx", r) : fmt("%.2fx", r); }

/// Markdown table for one row (also printed to the console).
std::string row_table(const row_result& rr) {
  std::ostringstream os;
  const result* ref = rr.find("radix");
  os << "| implementation | median ms | min ms | Mkeys/s | t / t(radix) | runs | peak extra MiB | notes |\n";
  os << "|---|---:|---:|---:|---:|---:|---:|---|\n";
  for (auto& r : rr.rs) {
    if (!r.valid) {
      os << "| " << r.name << " | — | — | — | — | — | — | **" << r.problem << "** (" << r.detail << ") |\n";
      continue;
    }
    std::string ratio = (ref && ref->valid) ? ratio_str(r.median_s / ref->median_s) : "—";
    os << "| " << (r.is_radix ? "**" + r.name + "**" : r.name) << " | " << fmt_ms(r.median_s) << " | "
       << fmt_ms(r.min_s) << " | " << fmt("%.1f", double(rr.n) / r.median_s / 1e6) << " | " << ratio << " | "
       << r.runs << " | " << fmt_mib(r.peak_extra) << " | " << r.detail << " |\n";
  }
  return os.str();
}

struct bar_line {
  std::string name;
  std::string figures;
  double ratio = NAN;
  double ratio_sorter = NAN;
  double threshold = 0;
  std::string verdict;  ///< PASS / FAIL / not measured
};

const row_result* find_row(const std::vector<row_result>& rows, const std::string& id) {
  for (auto& r : rows)
    if (r.def.id == id) return &r;
  return nullptr;
}

std::vector<bar_line> compute_bars(const std::vector<row_result>& rows) {
  std::vector<bar_line> bars;
  auto size_of = [&](const std::string& id, int nominal) {
    const row_result* r = find_row(rows, id);
    return r ? r->log2n : nominal;
  };
  auto finish = [](bar_line& b) {
    if (std::isnan(b.ratio)) b.verdict = "not measured";
    else b.verdict = b.ratio >= b.threshold ? "PASS" : "FAIL";
  };
  // radix vs a named peer (or the fastest peer when peer_id is empty).
  auto vs_peer = [&](const std::string& row_id, int nominal, const std::string& peer_id, const std::string& what,
                     double threshold, const std::string& radix_id = "radix") {
    bar_line b;
    b.threshold = threshold;
    const row_result* rr = find_row(rows, row_id);
    b.name = fmt("%s 2^%d: radix vs %s", row_id.substr(0, row_id.find(':')).c_str(), size_of(row_id, nominal),
                 what.c_str());
    if (!rr) {
      b.figures = "row not run";
      finish(b);
      return b;
    }
    const result* rad = rr->find(radix_id);
    const result* srt = radix_id == "radix" ? rr->find("radix_sorter") : nullptr;
    const result* p = peer_id.empty() ? rr->fastest_peer() : rr->find(peer_id);
    if (!rad || !rad->valid) {
      b.figures = "radix " + (rad ? rad->problem : std::string("not run"));
    } else if (!p || !p->valid) {
      b.figures = peer_id.empty() ? "no valid peer" : (p ? p->name + " " + p->problem : peer_id + " not run");
    } else {
      b.ratio = p->median_s / rad->median_s;
      if (srt && srt->valid) b.ratio_sorter = p->median_s / srt->median_s;
      b.figures = fmt("%s %s ms vs %s %s ms", rad->name.c_str(), fmt_ms(rad->median_s).c_str(), p->name.c_str(),
                      fmt_ms(p->median_s).c_str());
      if (peer_id.empty()) {
        std::vector<std::string> bad;
        for (auto& r : rr->rs)
          if (!r.is_radix && !r.valid) bad.push_back(r.name);
        if (!bad.empty()) {
          b.figures += " (excluded as INVALID/ERROR:";
          for (auto& s : bad) b.figures += " " + s + ";";
          b.figures.back() = ')';
        }
      }
    }
    finish(b);
    return b;
  };
  // The CPU speed issue's bars: radix::sort (one call, as users call it)
  // against the fastest peer that ran on each of its rows, presorted keys
  // >= 10x, and one thread on u32 2^27 against vqsort's default dispatch.
  for (const std::string id : {"u32:24", "u32:27", "u64:26", "f32:24", "pairs:24", "low10:24"})
    bars.push_back(vs_peer(id, std::atoi(id.c_str() + id.find(':') + 1), "", "fastest peer", 1.2));
  bars.push_back(vs_peer("presorted:24", 24, "", "fastest peer", 10));
  bars.push_back(vs_peer("u32:27", 27, "vqsort_default", "vqsort (default dispatch), radix on one thread", 1.0,
                         "radix_1t"));
  return bars;
}

std::string bars_table(const std::vector<bar_line>& bars) {
  std::ostringstream os;
  os << "| bar | figures (medians) | ratio (radix::sort) | ratio (radix::sorter) | needed | verdict |\n";
  os << "|---|---|---:|---:|---:|---|\n";
  for (auto& b : bars) {
    os << "| " << b.name << " | " << b.figures << " | " << (std::isnan(b.ratio) ? "—" : ratio_str(b.ratio)) << " | "
       << (std::isnan(b.ratio_sorter) ? "—" : ratio_str(b.ratio_sorter)) << " | >= " << fmt("%.1fx", b.threshold)
       << " | " << (b.verdict == "PASS" || b.verdict == "FAIL" ? "**" + b.verdict + "**" : b.verdict) << " |\n";
  }
  return os.str();
}

/// The size sweep as one table: Mkeys/s per implementation and size.
std::string sweep_table(const std::vector<row_result>& rows) {
  std::vector<const row_result*> sw;
  for (auto& r : rows)
    if (r.def.sweep) sw.push_back(&r);
  if (sw.empty()) return {};
  std::vector<std::pair<std::string, std::string>> cols;  // id, name
  for (auto* r : sw)
    for (auto& x : r->rs) {
      bool have = false;
      for (auto& c : cols) have |= c.first == x.id;
      if (!have) cols.emplace_back(x.id, x.name);
    }
  std::ostringstream os;
  os << "| n |";
  for (auto& c : cols) os << " " << c.second << " |";
  os << " radix::sort vs fastest peer |\n|---:|";
  for (std::size_t i = 0; i < cols.size(); ++i) os << "---:|";
  os << "---|\n";
  for (auto* r : sw) {
    os << "| 2^" << r->log2n << " |";
    for (auto& c : cols) {
      const result* x = r->find(c.first);
      if (!x) os << " — |";
      else if (!x->valid) os << " INVALID |";
      else os << " " << fmt("%.1f", double(r->n) / x->median_s / 1e6) << " |";
    }
    const result* rad = r->find("radix");
    const result* best = r->fastest_peer();
    if (rad && rad->valid && best)
      os << " " << ratio_str(best->median_s / rad->median_s) << " (" << best->name << ") |\n";
    else
      os << " — |\n";
  }
  os << "\nFigures are Mkeys/s (median run).";
  for (auto* r : sw)
    if (!r->reused_from.empty()) os << " 2^" << r->log2n << " reuses row " << r->reused_from << ".";
  os << "\n";
  return os.str();
}

std::string shell_quote(const std::string& s) {
  if (!s.empty() && s.find_first_of(" \t\n'\"\\$`*?[]{}()<>|&;!#~") == std::string::npos) return s;
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string cpu_model() {
  std::string m = run_command("lscpu 2>/dev/null | sed -n 's/^Model name:[[:space:]]*//p' | head -1");
  if (m.empty()) {
    std::ifstream f("/proc/cpuinfo");
    std::string line;
    while (std::getline(f, line))
      if (line.rfind("model name", 0) == 0) {
        m = trim(line.substr(line.find(':') + 1));
        break;
      }
  }
  return m.empty() ? "unknown" : m;
}

std::string mem_total() {
  std::ifstream f("/proc/meminfo");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("MemTotal:", 0) == 0) {
      const double kb = std::atof(line.c_str() + 9);
      return fmt("%.1f GiB", kb / 1024 / 1024);
    }
  return "unknown";
}

std::string library_commit() {
  std::string c = run_command(std::string("git -C ") + shell_quote(RADIX_BENCH_SOURCE_DIR) +
                              " rev-parse HEAD 2>/dev/null");
  if (c.empty()) return std::string(RADIX_BENCH_CONFIGURE_COMMIT) + " (at configure time)";
  std::string dirty = run_command(std::string("git -C ") + shell_quote(RADIX_BENCH_SOURCE_DIR) +
                                  " status --porcelain --untracked-files=no 2>/dev/null | head -1");
  return c + (dirty.empty() ? "" : " + uncommitted changes");
}

std::string now_string() {
  std::time_t t = std::time(nullptr);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S %Z", std::localtime(&t));
  return buf;
}

void usage() {
  std::puts(
      "radix_cpu_bench — the radix CPU engine against std::sort, std::stable_sort, TBB, Boost.Sort, vqsort,\n"
      "numpy.sort (in python3, or $RADIX_BENCH_PYTHON, where it imports NumPy)\n"
      "\n"
      "  --quick            small sizes (each row 2^8 times smaller), a smoke test\n"
      "  --rows LIST        comma-separated substrings of row ids to run; '-x' excludes x\n"
      "                     (e.g. --rows u32:26,pairs   --rows -sweep); see --list\n"
      "  --peers LIST       the same for peers (radix always runs), e.g. --peers -std_stable\n"
      "  --repeat N         timed runs per implementation after the warm-up (default 5, >= 1);\n"
      "                     inputs under ~20 ms get more runs (up to 200)\n"
      "  --seed S           input seed (default 0x5EEDC0DE2026)\n"
      "  --out FILE         also write a Markdown results file (suggested: bench/results/cpu-<date>.md)\n"
      "  --vqsort-default   also run vqsort with Highway's default dispatch (AVX-512 on AVX-512 CPUs)\n"
      "  --list             list rows and peers, then exit\n");
}

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> v;
  std::string cur;
  for (char c : s) {
    if (c == ',') {
      if (!cur.empty()) v.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) v.push_back(cur);
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  config cfg;
  bool list = false;
  std::string cmdline;
  for (int i = 0; i < argc; ++i) cmdline += (i ? " " : "") + shell_quote(argv[i]);
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--quick") cfg.quick = true;
    else if (a == "--rows") cfg.row_patterns = split_list(value());
    else if (a == "--peers") cfg.peer_patterns = split_list(value());
    else if (a == "--repeat") cfg.repeat = std::max(1, std::atoi(value().c_str()));
    else if (a == "--seed") cfg.seed = std::strtoull(value().c_str(), nullptr, 0);
    else if (a == "--out") cfg.out = value();
    else if (a == "--vqsort-default") cfg.vqsort_default = true;
    else if (a == "--list") list = true;
    else if (a == "--help" || a == "-h") {
      usage();
      return 0;
    } else {
      std::fprintf(stderr, "unknown argument %s\n", a.c_str());
      usage();
      return 2;
    }
  }

  // ---- peers --------------------------------------------------------------
  std::vector<std::string> peer_notes;
  std::vector<rb::peer> all_peers;
  bool avx2_ok = true;
#if RADIX_BENCH_PEER_NEEDS_AVX2 && (defined(__x86_64__) || defined(__i386__))
  avx2_ok = __builtin_cpu_supports("avx2");
#endif
  if (!avx2_ok) {
    peer_notes.push_back("std/TBB/Boost peers NOT run: they were built with " RADIX_BENCH_PEER_FLAGS_STR
                         " and this CPU lacks AVX2 (reconfigure with -DRADIX_BENCH_PEER_FLAGS=none)");
  } else {
    rb::add_std_peers(all_peers);
#ifdef RADIX_BENCH_HAVE_TBB
    rb::add_tbb_peers(all_peers);
#else
    peer_notes.push_back("tbb::parallel_sort: not built (TBB not found at configure time)");
#endif
#ifdef RADIX_BENCH_HAVE_BOOST
    rb::add_boost_peers(all_peers);
#else
    peer_notes.push_back("Boost block_indirect_sort / spreadsort: not built (Boost.Sort not found at configure time)");
#endif
    // (the issue peers: header-only checkouts named at configure time)
#ifdef RADIX_BENCH_HAVE_XSS
    rb::add_xss_peers(all_peers);
#else
    peer_notes.push_back("x86-simd-sort: not built (configure with -DRADIX_BENCH_XSS_DIR=<checkout>)");
#endif
#ifdef RADIX_BENCH_HAVE_IPS2RA
    rb::add_ips2ra_peers(all_peers);
#else
    peer_notes.push_back("ips2ra: not built (configure with -DRADIX_BENCH_IPS2RA_DIR=<checkout>)");
#endif
  }
#ifdef RADIX_BENCH_HAVE_HWY
  rb::add_hwy_peers(all_peers, true);
#else
  peer_notes.push_back("vqsort: not built (Highway hwy_contrib not found at configure time)");
#endif
  std::vector<rb::peer> peers;
  for (auto& p : all_peers) {
    if (p.id == "vqsort_default" && !cfg.vqsort_default) continue;
    if (!selected(p.id, cfg.peer_patterns) && !selected(p.name, cfg.peer_patterns)) continue;
    peers.push_back(p);
  }
  // numpy.sort, where the interpreter imports NumPy (timed in that process)
  numpy_peer numpy;
  const std::string numpy_detail =
      "NumPy's sort in " + python_command() + " ($RADIX_BENCH_PYTHON), 1 thread, timed inside Python";
  if (selected("numpy_sort", cfg.peer_patterns) && !list) {
    numpy.version = run_command(shell_quote(python_command()) +
                                " -c 'import numpy; print(numpy.__version__)' 2>/dev/null");
    char dir[] = "/tmp/radix_cpu_bench_XXXXXX";
    if (numpy.version.empty() || numpy.version.find_first_of(" \n") != std::string::npos) {
      peer_notes.push_back("numpy.sort: not run (" + python_command() +
                           " cannot import numpy; RADIX_BENCH_PYTHON names another interpreter)");
    } else if (mkdtemp(dir) == nullptr) {
      peer_notes.push_back("numpy.sort: not run (no temporary folder)");
    } else {
      numpy.dir = dir;
      numpy.script = numpy.dir + "/numpy_sort.py";
      std::ofstream(numpy.script) << numpy_script;
      cfg.numpy = &numpy;
    }
  }

  // ---- rows ---------------------------------------------------------------
  // The CPU speed issue's rows first (2^24 but for u32 2^27 and u64 2^26),
  // then the larger ones earlier results files used.
  std::vector<row_def> defs = {
      {"u32:24", kind::u32, 24},         {"u32:27", kind::u32, 27},         {"u64:26", kind::u64, 26},
      {"f32:24", kind::f32, 24},         {"pairs:24", kind::pairs, 24},     {"low10:24", kind::low10, 24},
      {"presorted:24", kind::presorted, 24},
      {"u32:26", kind::u32, 26},         {"u64:25", kind::u64, 25},         {"f32:26", kind::f32, 26},
      {"pairs:25", kind::pairs, 25},     {"pairs:26", kind::pairs, 26},     {"argsort:26", kind::argsort, 26},
      {"presorted:26", kind::presorted, 26}, {"low10:26", kind::low10, 26},
  };
  for (int k = 16; k <= 27; ++k) defs.push_back({fmt("sweep:%d", k), kind::u32, k, true});

  if (list) {
    std::puts("rows:");
    for (auto& d : defs) std::printf("  %-14s %s, n = 2^%d\n", d.id.c_str(), kind_title(d.k), d.log2n);
    std::puts("peers:");
    for (auto& p : all_peers) std::printf("  %-18s %s — %s\n", p.id.c_str(), p.name.c_str(), p.detail.c_str());
    std::printf("  %-18s %s — %s\n", "numpy_sort", "numpy.sort", numpy_detail.c_str());
    for (auto& s : peer_notes) std::printf("  (%s)\n", s.c_str());
    return 0;
  }

  // ---- header -------------------------------------------------------------
  std::vector<std::pair<std::string, std::string>> meta;
  meta.emplace_back("date", now_string());
  meta.emplace_back("command", cmdline);
  meta.emplace_back("machine", fmt("%s; %u hardware threads; %s RAM", cpu_model().c_str(),
                                   std::thread::hardware_concurrency(), mem_total().c_str()));
  {
    utsname u{};
    if (uname(&u) == 0) meta.emplace_back("kernel", std::string(u.sysname) + " " + u.release);
  }
  meta.emplace_back("transparent huge pages", read_file_line("/sys/kernel/mm/transparent_hugepage/enabled"));
  meta.emplace_back("load average at start", read_file_line("/proc/loadavg"));
  meta.emplace_back("compiler", std::string(RADIX_BENCH_COMPILER) + " (" + __VERSION__ + ")");
  meta.emplace_back("library and cpu_bench.cpp flags",
                    std::string(RADIX_BENCH_BUILD_TYPE) + ": " + RADIX_BENCH_CXX_FLAGS + " (no -march)");
  meta.emplace_back("peer TU flags (std, TBB, Boost)", RADIX_BENCH_PEER_FLAGS_STR);
  meta.emplace_back("radix", std::string(RADIX_BENCH_VERSION) + ", commit " + library_commit());
  meta.emplace_back("libstdc++", fmt("_GLIBCXX_RELEASE %d, __GLIBCXX__ %d", _GLIBCXX_RELEASE, __GLIBCXX__));
#ifdef RADIX_BENCH_HAVE_TBB
  if (avx2_ok) meta.emplace_back("TBB", rb::tbb_version());
#endif
#ifdef RADIX_BENCH_HAVE_BOOST
  if (avx2_ok) meta.emplace_back("Boost", rb::boost_version());
#endif
#ifdef RADIX_BENCH_HAVE_HWY
  {
    // Which target vqsort runs, by the dispatch probe and by speed.
    const std::string t_def = rb::hwy_restrict_avx2(false);
    const std::string t_avx2 = rb::hwy_restrict_avx2(true);
    std::string speed;
    const rb::peer *pv = nullptr, *pd = nullptr;
    for (auto& p : all_peers) {
      if (p.id == "vqsort") pv = &p;
      if (p.id == "vqsort_default") pd = &p;
    }
    if (pv && pd) {
      const std::size_t m = std::size_t(1) << 20;
      buffer<std::uint32_t> a(m), w(m);
      gen_u32(a.data(), m, cfg.seed, kind::u32);
      auto rate = [&](rb::sort_u32_fn fn) {
        double best = 1e30;
        for (int i = 0; i < 3; ++i) {
          std::memcpy(w.data(), a.data(), a.bytes());
          double t0 = now_s();
          fn(w.data(), m);
          best = std::min(best, now_s() - t0);
        }
        return double(m) / best / 1e6;
      };
      const double r_def = rate(pd->u32);
      const double r_avx2 = rate(pv->u32);
      rb::hwy_restrict_avx2(true);
      speed = fmt("; 2^20 u32, best of 3: %.0f Mkeys/s restricted, %.0f Mkeys/s default", r_avx2, r_def);
    }
    meta.emplace_back("Highway", rb::hwy_version() + " (libhwy_contrib, dynamic dispatch)");
    meta.emplace_back("vqsort target", "runs " + rb::hwy_dispatched_target() + " (AVX3/AVX3_DL disabled with "
                      "hwy::DisableTargets; default dispatch would pick " + t_def + ")" + speed);
    if (t_avx2 != "AVX2")
      peer_notes.push_back("warning: with AVX-512 disabled Highway dispatches to " + t_avx2 + ", not AVX2");
  }
#endif
  meta.emplace_back("seed", fmt("0x%llX", (unsigned long long)cfg.seed));
  meta.emplace_back("protocol", fmt("one process; input restored by memcpy from a pristine copy before every run "
                                    "(untimed); 1 warm-up each, then median of >= %d runs (inputs under 20 ms: more runs, "
                                    "up to 200, about 0.25 s in all), the row's contestants interleaved run by run; "
                                    "every output verified%s",
                                    cfg.repeat, cfg.quick ? "; --quick: every row 2^8 times smaller" : ""));
  std::printf("radix_cpu_bench\n");
  for (auto& [k, v] : meta) std::printf("  %-34s %s\n", (k + ":").c_str(), v.c_str());
  std::printf("  peers:\n");
  for (auto& p : peers) std::printf("    %-28s %s\n", p.name.c_str(), p.detail.c_str());
  if (cfg.numpy) std::printf("    %-28s NumPy %s, %s\n", "numpy.sort", numpy.version.c_str(), numpy_detail.c_str());
  for (auto& s : peer_notes) std::printf("    (%s)\n", s.c_str());
  std::fflush(stdout);

  // ---- run ----------------------------------------------------------------
  const double t_start = now_s();
  std::vector<row_result> rows;
  for (auto& d : defs) {
    if (!selected(d.id, cfg.row_patterns)) continue;
    // The sweep's largest sizes are the u32:26 / u32:27 rows (same stream,
    // same seed): reuse them when they ran with the same peers.
    if (d.sweep) {
      const row_result* same = find_row(rows, fmt("u32:%d", d.log2n));
      if (same) {
        row_result rr = *same;
        rr.def = d;
        rr.reused_from = same->def.id;
        std::printf("\n== %s: same input as %s, figures reused\n", d.id.c_str(), same->def.id.c_str());
        rows.push_back(rr);
        continue;
      }
    }
    rows.push_back(run_row(d, cfg, peers));
    std::printf("%s", row_table(rows.back()).c_str());
    std::fflush(stdout);
  }
  const double elapsed = now_s() - t_start;
  meta.emplace_back("load average at end", read_file_line("/proc/loadavg"));
  meta.emplace_back("benchmark wall time", fmt("%.0f s", elapsed));

  // ---- summary ------------------------------------------------------------
  const auto bars = compute_bars(rows);
  std::printf("\n== bars (ratio = other time / radix time; radix::sort allocates its scratch per call, "
              "radix::sorter keeps it)\n");
  int fails = 0;
  for (auto& b : bars) {
    std::printf("  %-4s  %-62s %8s  (sorter %s)  need >= %.1fx   %s\n", b.verdict.c_str(), b.name.c_str(),
                std::isnan(b.ratio) ? "—" : ratio_str(b.ratio).c_str(),
                std::isnan(b.ratio_sorter) ? "—" : ratio_str(b.ratio_sorter).c_str(), b.threshold,
                b.figures.c_str());
    fails += b.verdict == "FAIL";
  }
  int invalid = 0;
  for (auto& r : rows)
    for (auto& x : r.rs)
      if (!x.valid) {
        ++invalid;
        std::printf("  %s on %s: %s\n", x.name.c_str(), r.def.id.c_str(), x.problem.c_str());
      }
  std::printf("\n%d bar(s) failed; %d result(s) invalid or errored; %.0f s\n", fails, invalid, elapsed);
  if (cfg.numpy) {
    std::remove(numpy.script.c_str());
    rmdir(numpy.dir.c_str());
  }

  if (!cfg.out.empty()) {
    std::ofstream f(cfg.out);
    if (!f) {
      std::fprintf(stderr, "cannot write %s\n", cfg.out.c_str());
      return 1;
    }
    f << "# radix CPU benchmark" << (cfg.quick ? " (--quick smoke test: sizes 2^8 times smaller)" : "") << "\n\n";
    f << "| | |\n|---|---|\n";
    for (auto& [k, v] : meta) f << "| " << k << " | " << (k == "command" ? "`" + v + "`" : v) << " |\n";
    f << "\nPeers (the std, TBB and Boost ones compiled with `" << RADIX_BENCH_PEER_FLAGS_STR
      << "`; vqsort restricted to AVX2 at run time — AVX-512 compress-store is microcoded on Zen 4 and its "
         "AVX-512 path runs several times slower):\n\n";
    for (auto& p : peers) f << "- " << p.name << ": " << p.detail << "\n";
    if (cfg.numpy) f << "- numpy.sort: NumPy " << numpy.version << ", " << numpy_detail << "\n";
    for (auto& s : peer_notes) f << "- (" << s << ")\n";
    f << "\n## Bars\n\nratio = the other figure's time / radix's time (> 1: radix faster). radix::sort allocates "
         "its scratch in every call; radix::sorter keeps it between calls.\n\n";
    f << bars_table(bars);
    f << "\n## Rows\n\nt / t(radix) = the row's median time over radix::sort's median time on the same input "
         "(> 1: radix::sort is that many times faster). Peak extra MiB = what the warm-up call added to the "
         "process's peak resident memory (its high-water mark reset through /proc/self/clear_refs; radix::sort's "
         "scratch cache emptied first; n/a where the kernel has no reset); memory already resident that a call "
         "reuses does not count.\n";
    for (auto& r : rows) {
      if (r.def.sweep) continue;
      f << "\n### " << r.def.id << " — " << r.title << ", n = 2^" << r.log2n << " = " << r.n << "\n\n";
      if (!r.note.empty()) f << r.note << "\n\n";
      f << "Load average when the row started: " << r.load << "\n\n";
      f << row_table(r);
    }
    if (std::string s = sweep_table(rows); !s.empty()) f << "\n## Size sweep: " << kind_title(kind::u32) << "\n\n" << s;
    std::printf("wrote %s\n", cfg.out.c_str());
  }
  return 0;
}
