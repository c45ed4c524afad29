// Tests of the CUDA engine's algorithms: every variant the
// calibration tries (radix::cuda::candidates(), widened to every tile shape
// and both four_way mappings) and the options.algo route, for the seed
// algorithms -- reduce-then-scan (the course slides "CUDA LSD Radix Sort";
// Helluy 2011, "A portable implementation of the radix sort algorithm in
// OpenCL"), the 4-way / 8-way sort of Ha, Krüger & Silva 2009 ("Fast 4-way
// parallel radix sorting on GPUs"), the split sort of García, Alvizo,
// Olivares & Ramos 2014 ("Fast Data Parallel Radix Sort Implementation in
// DirectX 11 Compute Shader to Accelerate Ray Tracing Algorithms") -- and
// Onesweep (after the GPUOpen article on Onesweep with a circular look-back
// buffer).
//
// Each workload's expected result is computed once on the host, as the
// conformance oracle does it (std::stable_sort of an index permutation by the
// ordered key of src/core/radix/core/ordered_bits.hpp, masked to the bit
// range), and every variant is compared with it byte for byte. Device
// buffers carry a poisoned guard tail that must survive; workspaces are
// poisoned and exactly as large as the variant asks for.
//
//   radix_cuda_tests 'algo_*'            these cases
//   radix_cuda_tests --small 'algo_*'    sizes <= 5000 only (compute-sanitizer)
//   RADIX_TEST_SEED=<n>                  another base seed (failures print theirs)
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "harness.hpp"
#include "radix/core/ordered_bits.hpp"
#include "radix/cuda.hpp"
#include "radix/radix.hpp"
#include "cuda/tuning_cache.hpp"

namespace {

using radix::algorithm;
using radix::options;
using radix::order;
namespace rc = radix::cuda;

#ifdef RADIX_CUDA_DEV_TYPES
// RADIX_CUDA_TYPES=dev builds lack u8/u16 keys and 64-bit values: those runs are counted as skipped.
constexpr bool kDevTypes = true;
#else
constexpr bool kDevTypes = false;
#endif

// ---------------------------------------------------------------- seeds, failures

std::uint64_t mix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/// RADIX_TEST_SEED (as in the conformance suite), else a fixed seed.
std::uint64_t base_seed() {
  static const std::uint64_t s = [] {
    const char* e = std::getenv("RADIX_TEST_SEED");
    return e && *e ? std::uint64_t(std::strtoull(e, nullptr, 0)) : std::uint64_t(0xA1605EEDull);
  }();
  return s;
}

/// A workload's seed: the base seed mixed with its description (FNV-1a).
std::uint64_t multipass_for(const std::string& tag) {
  std::uint64_t h = 0xCBF29CE484222325ull;
  for (unsigned char ch : tag) h = (h ^ ch) * 0x100000001B3ull;
  return mix64(base_seed() ^ h);
}

std::string hex(std::uint64_t x) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(x));
  return b;
}

long g_runs = 0, g_skipped = 0;
int g_printed = 0;
constexpr int kMaxPrinted = 80;  // a systematic bug would otherwise print thousands of lines

/// Records a failed check; prints the first kMaxPrinted of them.
void fail(const char* fmt, ...) {
  ++ct::failures();
  if (g_printed++ >= kMaxPrinted) {
    if (g_printed == kMaxPrinted + 1) std::fprintf(stderr, "  (further failures are counted, not printed)\n");
    return;
  }
  std::va_list ap;
  va_start(ap, fmt);
  std::fprintf(stderr, "  FAILED: ");
  std::vfprintf(stderr, fmt, ap);
  std::fprintf(stderr, " [base seed %s]\n", hex(base_seed()).c_str());
  va_end(ap);
}

// ---------------------------------------------------------------- what runs a sort

const char* algo_name(algorithm a) {
  switch (a) {
    case algorithm::automatic: return "automatic";
    case algorithm::onesweep: return "onesweep";
    case algorithm::reduce_then_scan: return "reduce_then_scan";
    case algorithm::four_way: return "four_way";
    case algorithm::split: return "split";
  }
  return "?";
}

/// The digit width an algorithm uses when digit_bits is 0 (cuda.hpp).
int default_bits(algorithm a) {
  switch (a) {
    case algorithm::reduce_then_scan: return 8;
    case algorithm::four_way: return 2;
    case algorithm::split: return 4;
    default: return 8;
  }
}

/// Either an explicit variant (radix::cuda::sort(req, v, ...)) or the
/// options.algo / options.digit_bits route through the normal entry points.
struct runner {
  std::string name;
  bool explicit_variant = true;
  rc::variant v{};
  algorithm algo = algorithm::automatic;
  int digit_bits = 0;
  algorithm which() const { return explicit_variant ? v.algo : algo; }
};

/// candidates() plus every tile shape and both four_way mappings of each
/// candidate's width: each is a compiled instantiation of its own.
std::vector<rc::variant> all_variants() {
  std::vector<rc::variant> vs;
  auto add = [&](const rc::variant& v) {
    if (std::find(vs.begin(), vs.end(), v) == vs.end()) vs.push_back(v);
  };
  for (const rc::variant& c : rc::candidates()) {
    add(c);
    for (int t = 0; t < rc::tile_shapes(c.algo); ++t) {
      rc::variant w = c;
      w.tile = t;
      add(w);
      if (c.algo == algorithm::four_way) {
        w.coalesced = !w.coalesced;
        add(w);
      }
    }
  }
  return vs;
}

const std::vector<runner>& runners(bool with_options = true) {
  static const std::vector<runner> explicit_only = [] {
    std::vector<runner> r;
    for (const rc::variant& v : all_variants()) r.push_back({rc::to_string(v), true, v});
    return r;
  }();
  static const std::vector<runner> all = [] {
    std::vector<runner> r = explicit_only;
    const std::pair<algorithm, int> by_options[] = {{algorithm::reduce_then_scan, 0}, {algorithm::reduce_then_scan, 2},
                                                    {algorithm::four_way, 0},         {algorithm::four_way, 3},
                                                    {algorithm::split, 0},            {algorithm::onesweep, 0}};
    for (auto [a, b] : by_options) {
      runner x;
      x.name = std::string("options.algo=") + algo_name(a) + " digit_bits=" + std::to_string(b);
      x.explicit_variant = false;
      x.algo = a;
      x.digit_bits = b;
      r.push_back(x);
    }
    return r;
  }();
  return with_options ? all : explicit_only;
}

std::vector<runner> four_way_runners() {
  std::vector<runner> r;
  for (const runner& x : runners()) if (x.which() == algorithm::four_way) r.push_back(x);
  return r;
}

// ---------------------------------------------------------------- device buffers

constexpr std::size_t kGuard = 256;       // poisoned bytes after every buffer, checked after each sort
constexpr unsigned char kPoison = 0xA5;

/// Device memory reused across runs, grown on demand.
struct dmem {
  unsigned char* p = nullptr;
  std::size_t cap = 0;
  dmem() = default;
  dmem(const dmem&) = delete;
  ~dmem() {
    if (p) cudaFree(p);
  }
  unsigned char* get(std::size_t bytes) {
    if (bytes > cap) {
      if (p) CU(cudaFree(p));
      p = nullptr;
      CU(cudaMalloc(&p, bytes));
      cap = bytes;
    }
    return p;
  }
};

/// One test case's buffers and stream. The stream is non-blocking, so work
/// the library wrongly put on the legacy stream is not ordered with ours.
struct ctx {
  dmem keys, vals, ws;
  cudaStream_t s{};
  ctx() { CU(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)); }
  ~ctx() { cudaStreamDestroy(s); }
  ctx(const ctx&) = delete;

  /// `bytes` poisoned bytes plus the guard.
  unsigned char* poisoned(dmem& m, std::size_t bytes) {
    unsigned char* p = m.get(bytes + kGuard);
    CU(cudaMemsetAsync(p, kPoison, bytes + kGuard, s));
    return p;
  }
  unsigned char* upload(dmem& m, const void* h, std::size_t bytes) {
    unsigned char* p = poisoned(m, bytes);
    if (bytes) CU(cudaMemcpyAsync(p, h, bytes, cudaMemcpyHostToDevice, s));
    return p;
  }
  /// bytes + guard back to the host (after the stream's work).
  std::vector<unsigned char> download(const dmem& m, std::size_t bytes) {
    std::vector<unsigned char> h(bytes + kGuard);
    CU(cudaMemcpyAsync(h.data(), m.p, bytes + kGuard, cudaMemcpyDeviceToHost, s));
    CU(cudaStreamSynchronize(s));
    return h;
  }
  bool guard_ok(const dmem& m, std::size_t bytes) {
    unsigned char g[kGuard];
    CU(cudaMemcpyAsync(g, m.p + bytes, kGuard, cudaMemcpyDeviceToHost, s));
    CU(cudaStreamSynchronize(s));
    return std::all_of(g, g + kGuard, [](unsigned char b) { return b == kPoison; });
  }
};

bool tail_ok(const std::vector<unsigned char>& h, std::size_t bytes) {
  return std::all_of(h.begin() + std::ptrdiff_t(bytes), h.end(), [](unsigned char b) { return b == kPoison; });
}

// ---------------------------------------------------------------- inputs and the oracle

enum class dist { uniform, all_equal, sorted, reversed, few4, specials };
const char* dist_name(dist d) {
  const char* n[] = {"uniform", "all_equal", "sorted", "reversed", "few_unique4", "specials"};
  return n[int(d)];
}

template <class K>
using ubits = radix::core::uint_t<int(sizeof(K))>;

template <class K>
ubits<K> bits_of(const K& k) {
  ubits<K> u;
  std::memcpy(&u, &k, sizeof u);
  return u;
}

/// The stable sorting permutation by the masked ordered key (the oracle of tests/README.md).
template <class K>
std::vector<std::uint32_t> oracle_perm(const std::vector<K>& keys, const options& o) {
  using U = ubits<K>;
  const auto codec = radix::core::make_codec<U>(radix::key_desc_of<K>(), o.direction, o.floats);
  const int width = int(sizeof(K)) * 8;
  const U mask = radix::core::bit_range_mask<U>(o.begin_bit, o.end_bit < 0 ? width : o.end_bit);
  std::vector<std::pair<U, std::uint32_t>> ord(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) ord[i] = {U(codec(bits_of(keys[i])) & mask), std::uint32_t(i)};
  std::stable_sort(ord.begin(), ord.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::uint32_t> perm(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) perm[i] = ord[i].second;
  return perm;
}

template <class T>
std::vector<T> gather(const std::vector<T>& in, const std::vector<std::uint32_t>& perm) {
  std::vector<T> out(perm.size());
  for (std::size_t i = 0; i < perm.size(); ++i) out[i] = in[perm[i]];
  return out;
}

template <class T>
T from_u64(std::uint64_t x) {
  T t;
  std::memcpy(static_cast<void*>(&t), &x, sizeof t);
  return t;
}

/// Raw-bit keys; floats' `specials` mix NaNs (payloads, both signs), +-0,
/// +-inf and denormals with random values; integers' mix the extremes.
template <class K>
std::vector<K> make_keys(std::size_t n, dist d, std::uint64_t seed) {
  std::vector<K> v(n);
  std::uint64_t s = seed;
  const std::uint64_t one = splitmix(s);
  std::uint64_t four[4];
  for (auto& f : four) f = splitmix(s);
  constexpr radix::key_desc kd = radix::key_desc_of<K>();
  const int bits = int(sizeof(K)) * 8;
  const std::uint64_t sign = 1ull << (bits - 1);
  const std::uint64_t all = bits == 64 ? ~0ull : (1ull << bits) - 1;
  for (std::size_t i = 0; i < n; ++i) {
    std::uint64_t x = splitmix(s);
    switch (d) {
      case dist::all_equal: x = one; break;
      case dist::few4: x = four[x & 3]; break;
      case dist::specials:
        if (x & 1) {
          if constexpr (kd.kind == radix::key_kind::floating) {
            const std::uint64_t sp[] = {0, sign, kd.inf_bits, kd.inf_bits | sign, kd.inf_bits | 1,
                                        kd.inf_bits | 1 | sign, all & ~sign, all, 1, sign | 1,
                                        kd.inf_bits | (kd.inf_bits >> 1)};
            x = sp[(x >> 1) % (sizeof sp / sizeof sp[0])];
          } else {
            const std::uint64_t sp[] = {0, 1, all, all - 1, sign, sign - 1, sign + 1};
            x = sp[(x >> 1) % (sizeof sp / sizeof sp[0])];
          }
        }
        break;
      default: break;
    }
    v[i] = from_u64<K>(x);
  }
  if (d == dist::sorted || d == dist::reversed) {
    options o;
    o.direction = d == dist::sorted ? order::ascending : order::descending;
    v = gather(v, oracle_perm(v, o));
  }
  return v;
}

template <class T>
std::vector<T> random_values(std::size_t n, std::uint64_t seed) {
  std::vector<T> v(n);
  std::uint64_t s = seed ^ 0x7A1E5ull;
  for (auto& x : v) x = from_u64<T>(splitmix(s));
  return v;
}

/// The first element where two byte arrays of elements of `elem` bytes differ, or -1.
long first_diff(const unsigned char* a, const unsigned char* b, std::size_t n, std::size_t elem) {
  if (n == 0 || std::memcmp(a, b, n * elem) == 0) return -1;
  for (std::size_t i = 0; i < n; ++i)
    if (std::memcmp(a + i * elem, b + i * elem, elem) != 0) return long(i);
  return -1;
}
std::string elem_hex(const unsigned char* p, std::size_t elem) {
  std::uint64_t x = 0;
  std::memcpy(&x, p, std::min<std::size_t>(elem, 8));
  return hex(x);
}

std::string describe(const options& o) {
  std::string d = o.direction == order::descending ? "desc" : "asc";
  if (o.floats == radix::float_order::total) d += " total";
  if (o.begin_bit != 0 || o.end_bit >= 0)
    d += " bits[" + std::to_string(o.begin_bit) + "," + std::to_string(o.end_bit) + ")";
  return d;
}

// ---------------------------------------------------------------- one sort, checked

enum class op { keys, pairs, argsort };

/// What came back from one sort: the bytes of the keys and of the values or
/// indices (guards stripped), or why there is nothing.
struct outcome {
  bool ok = false, skipped = false;
  std::vector<unsigned char> keys, payload;
};

/// Sorts `keys` (with `vals` for pairs; P = index type for argsort) with one
/// runner. Checks the guards of every buffer and that argsort left its keys alone.
template <class K, class P>
outcome sort_once(ctx& c, op what, const std::vector<K>& keys, const std::vector<P>& vals, const options& o,
                  const runner& r, const std::string& label, bool poison_ws = true) {
  outcome out;
  const std::size_t n = keys.size(), kb = n * sizeof(K), pb = n * sizeof(P);
  options ro = o;
  if (!r.explicit_variant) {
    ro.algo = r.algo;
    ro.digit_bits = r.digit_bits;
  }
  radix::sort_request req;
  req.op = what == op::keys ? radix::operation::keys
                            : what == op::pairs ? radix::operation::pairs : radix::operation::argsort;
  req.key = radix::key_desc_of<K>();
  req.n = n;
  req.keys = c.upload(c.keys, keys.data(), kb);
  if (what == op::pairs) {
    req.values = c.upload(c.vals, vals.data(), pb);
    req.value_bytes = sizeof(P);
  } else if (what == op::argsort) {
    req.indices = c.poisoned(c.vals, pb);
    req.index_bytes = std::uint8_t(sizeof(P));
  }
  req.opts = ro;
  std::size_t wsb = 0;
  ++g_runs;
  try {
    wsb = r.explicit_variant ? rc::workspace_bytes(req, r.v) : rc::workspace_bytes(req);
    unsigned char* ws = poison_ws ? c.poisoned(c.ws, wsb) : c.ws.get(wsb + kGuard);
    if (r.explicit_variant) rc::sort(req, r.v, ws, wsb, c.s);
    else rc::sort(req, ws, wsb, c.s);
  } catch (const radix::engine_unavailable& e) {
    if (kDevTypes) {
      ++g_skipped;
      out.skipped = true;
    } else {
      fail("%s: engine_unavailable: %s", label.c_str(), e.what());
    }
    CU(cudaStreamSynchronize(c.s));
    return out;
  } catch (const std::exception& e) {
    fail("%s: threw: %s", label.c_str(), e.what());
    CU(cudaStreamSynchronize(c.s));
    return out;
  }
  CU(cudaStreamSynchronize(c.s));
  CU(cudaGetLastError());
  out.keys = c.download(c.keys, kb);
  if (!tail_ok(out.keys, kb)) fail("%s: wrote past the end of the keys", label.c_str());
  out.keys.resize(kb);
  if (what != op::keys) {
    out.payload = c.download(c.vals, pb);
    if (!tail_ok(out.payload, pb))
      fail("%s: wrote past the end of the %s", label.c_str(), what == op::pairs ? "values" : "indices");
    out.payload.resize(pb);
  }
  if (!c.guard_ok(c.ws, wsb)) fail("%s: wrote past its workspace (%zu bytes asked for)", label.c_str(), wsb);
  if (what == op::argsort && kb && std::memcmp(out.keys.data(), keys.data(), kb) != 0)
    fail("%s: argsort modified its keys", label.c_str());
  out.ok = true;
  return out;
}

/// Compares one sort's result with the expected keys and values / indices.
template <class K, class P>
void expect(const outcome& got, op what, const std::vector<K>& want_keys, const std::vector<P>& want_p,
            const std::string& label) {
  if (!got.ok) return;
  const std::size_t n = want_keys.size();
  if (what != op::argsort) {
    const long i = first_diff(got.keys.data(), reinterpret_cast<const unsigned char*>(want_keys.data()), n, sizeof(K));
    if (i >= 0)
      fail("%s: keys differ from the oracle at %ld: got %s want %s", label.c_str(), i,
           elem_hex(got.keys.data() + i * sizeof(K), sizeof(K)).c_str(),
           elem_hex(reinterpret_cast<const unsigned char*>(want_keys.data()) + i * sizeof(K), sizeof(K)).c_str());
  }
  if (what != op::keys) {
    const long i = first_diff(got.payload.data(), reinterpret_cast<const unsigned char*>(want_p.data()), n, sizeof(P));
    if (i >= 0)
      fail("%s: %s differ from the oracle at %ld: got %s want %s", label.c_str(),
           what == op::pairs ? "values" : "indices", i,
           elem_hex(got.payload.data() + i * sizeof(P), sizeof(P)).c_str(),
           elem_hex(reinterpret_cast<const unsigned char*>(want_p.data()) + i * sizeof(P), sizeof(P)).c_str());
  }
}

/// One workload on every runner: the oracle once, then each runner's sort.
/// P is the value type (pairs) or the index type (argsort); unused for keys.
template <class K, class P = std::uint32_t>
void check(ctx& c, op what, const std::vector<K>& keys, const options& o, const std::string& what_text,
           std::uint64_t seed, const std::vector<runner>& rs) {
  const std::size_t n = keys.size();
  const auto perm = oracle_perm(keys, o);
  const std::vector<K> want_keys = gather(keys, perm);
  std::vector<P> vals, want_p;
  if (what == op::pairs) {
    vals = random_values<P>(n, seed);
    want_p = gather(vals, perm);
  } else if (what == op::argsort) {
    want_p.resize(n);
    for (std::size_t i = 0; i < n; ++i) want_p[i] = P(perm[i]);
  }
  for (const runner& r : rs) {
    const std::string label = r.name + ": " + what_text + " " + describe(o) + " n=" + std::to_string(n) +
                              " seed=" + hex(seed);
    expect(sort_once<K, P>(c, what, keys, vals, o, r, label), what, want_keys, want_p, label);
  }
}

options dir_opts(int desc) {
  options o;
  o.direction = desc ? order::descending : order::ascending;
  return o;
}

/// One keys / pairs / argsort workload from a generated input.
template <class K, class P = std::uint32_t>
void workload(ctx& c, op what, const char* type_text, std::size_t n, dist d, const options& o,
              const std::vector<runner>& rs) {
  const char* opn = what == op::keys ? "keys" : what == op::pairs ? "pairs" : "argsort";
  const std::string tag = std::string(opn) + " " + type_text + " " + dist_name(d);
  const std::uint64_t seed = multipass_for(tag + " " + describe(o) + " " + std::to_string(n));
  check<K, P>(c, what, make_keys<K>(n, d, seed), o, tag, seed, rs);
}

void report(const char* name) {
  std::printf("  %s: %ld sorts so far, %ld skipped (types missing from this build)\n", name, g_runs, g_skipped);
}

std::vector<std::size_t> sizes_around_tiles() {
  // tile-1, tile, tile+1 for tiles of 1024 k elements (the seed algorithms' tiles
  // are 2048, 4096, 7680 ...), plus two-tile and odd sizes.
  std::vector<std::size_t> s = {0, 1, 2, 255, 256, 257};
  for (std::size_t t : {1024, 2048, 3072, 4096, 5120, 6144, 7680, 8192, 15360})
    for (std::size_t d : {t - 1, t, t + 1}) s.push_back(d);
  s.push_back(100003);
  s.push_back((std::size_t(1) << 20) + 3);
  return s;
}
const std::vector<std::size_t> kSome = {0, 1, 2, 257, 2049, 4095, 7681, 100003, (std::size_t(1) << 20) + 3};

// ---------------------------------------------------------------- the cases

TEST_CASE(algo_variant_text, true) {
  const auto cands = rc::candidates();
  CHECK(!cands.empty());
  bool has[5] = {};
  for (const rc::variant& v : cands) {
    has[int(v.algo)] = true;
    rc::variant back;
    back.algo = algorithm::split;
    back.digit_bits = 77;
    const std::string t = rc::to_string(v);
    CHECK_MSG(rc::parse_variant(t, back) && back == v, "parse_variant(to_string(v)) != v for \"%s\"", t.c_str());
    CHECK_MSG(v.algo != algorithm::automatic, "candidate \"%s\" is automatic", t.c_str());
    CHECK_MSG(v.tile >= 0 && v.tile < rc::tile_shapes(v.algo), "candidate \"%s\": tile %d of %d", t.c_str(), v.tile,
              rc::tile_shapes(v.algo));
  }
  CHECK_MSG(has[int(algorithm::reduce_then_scan)] && has[int(algorithm::four_way)] && has[int(algorithm::split)],
            "candidates() lacks a seed algorithm");
  for (const rc::variant& v : all_variants()) {
    rc::variant back;
    const std::string t = rc::to_string(v);
    CHECK_MSG(rc::parse_variant(t, back) && back == v, "parse_variant(to_string(v)) != v for \"%s\"", t.c_str());
  }
  // distinct variants print distinctly (the tuning cache stores the text)
  const auto vs = all_variants();
  for (std::size_t i = 0; i < vs.size(); ++i)
    for (std::size_t j = i + 1; j < vs.size(); ++j)
      CHECK_MSG(rc::to_string(vs[i]) != rc::to_string(vs[j]), "two variants print as \"%s\"",
                rc::to_string(vs[i]).c_str());
  rc::variant untouched;
  untouched.algo = algorithm::four_way;
  untouched.digit_bits = 3;
  const rc::variant before = untouched;
  CHECK(!rc::parse_variant("no_such_algorithm/8", untouched) && untouched == before);
  CHECK(!rc::parse_variant("", untouched) && untouched == before);
  std::printf("  %zu candidates, %zu variants tested:", cands.size(), vs.size());
  for (const rc::variant& v : vs) std::printf(" %s", rc::to_string(v).c_str());
  std::printf("\n");
}

TEST_CASE(algo_sizes, false) {
  ctx c;
  const auto& rs = runners();
  for (std::size_t n : sizes_around_tiles()) {
    workload<std::uint32_t>(c, op::keys, "u32", n, dist::uniform, dir_opts(0), rs);
    workload<std::uint32_t, std::uint32_t>(c, op::pairs, "u32/u32", n, dist::few4, dir_opts(1), rs);
    workload<std::uint32_t, std::uint32_t>(c, op::argsort, "u32->u32", n, dist::uniform, dir_opts(0), rs);
  }
  report("algo_sizes");
}

TEST_CASE(algo_key_types, false) {
  ctx c;
  const auto& rs = runners();
  for (std::size_t n : kSome)
    for (int desc = 0; desc < 2; ++desc) {
      const options o = dir_opts(desc);
      workload<std::uint32_t>(c, op::keys, "u32", n, dist::uniform, o, rs);
      workload<std::uint64_t>(c, op::keys, "u64", n, dist::uniform, o, rs);
      workload<float>(c, op::keys, "f32", n, dist::uniform, o, rs);
      workload<std::uint8_t>(c, op::keys, "u8", n, dist::uniform, o, rs);
      workload<std::uint16_t>(c, op::keys, "u16", n, dist::uniform, o, rs);
      workload<std::uint32_t, std::uint32_t>(c, op::pairs, "u32/u32", n, dist::uniform, o, rs);
      workload<std::uint64_t, std::uint64_t>(c, op::pairs, "u64/u64", n, dist::uniform, o, rs);
      workload<std::uint32_t, std::uint32_t>(c, op::argsort, "u32->u32", n, dist::uniform, o, rs);
      workload<std::uint64_t, std::uint64_t>(c, op::argsort, "u64->u64", n, dist::uniform, o, rs);
    }
  report("algo_key_types");
}

TEST_CASE(algo_distributions, false) {
  ctx c;
  const auto& rs = runners();
  for (dist d : {dist::uniform, dist::all_equal, dist::sorted, dist::reversed, dist::few4, dist::specials})
    for (std::size_t n : {std::size_t(257), std::size_t(7681), std::size_t(100003), (std::size_t(1) << 20) + 3})
      for (int desc = 0; desc < 2; ++desc) {
        options o = dir_opts(desc);
        workload<std::uint32_t>(c, op::keys, "u32", n, d, o, rs);
        workload<std::uint64_t>(c, op::keys, "u64", n, d, o, rs);
        workload<float>(c, op::keys, "f32", n, d, o, rs);
        workload<std::uint16_t>(c, op::keys, "u16", n, d, o, rs);
        workload<std::uint32_t, std::uint32_t>(c, op::pairs, "u32/u32", n, d, o, rs);
        workload<std::uint32_t, std::uint32_t>(c, op::argsort, "u32->u32", n, d, o, rs);
        if (d == dist::specials) {  // NaNs and -0.0 under IEEE totalOrder too
          o.floats = radix::float_order::total;
          workload<float>(c, op::keys, "f32", n, d, o, rs);
          workload<float, std::uint32_t>(c, op::argsort, "f32->u32", n, d, o, rs);
        }
      }
  report("algo_distributions");
}

TEST_CASE(algo_bit_range, false) {
  ctx c;
  const auto& rs = runners();
  for (std::size_t n : {std::size_t(2), std::size_t(257), std::size_t(7681), std::size_t(100003),
                        (std::size_t(1) << 20) + 3})
    for (int desc = 0; desc < 2; ++desc) {
      options o = dir_opts(desc);
      o.begin_bit = 3;
      o.end_bit = 17;
      workload<std::uint32_t>(c, op::keys, "u32", n, dist::uniform, o, rs);
      workload<std::uint64_t>(c, op::keys, "u64", n, dist::uniform, o, rs);
      workload<float>(c, op::keys, "f32", n, dist::specials, o, rs);
      workload<std::uint32_t, std::uint32_t>(c, op::pairs, "u32/u32", n, dist::uniform, o, rs);
      workload<std::uint64_t, std::uint64_t>(c, op::pairs, "u64/u64", n, dist::uniform, o, rs);
      workload<std::uint32_t, std::uint32_t>(c, op::argsort, "u32->u32", n, dist::few4, o, rs);
      workload<std::uint64_t, std::uint64_t>(c, op::argsort, "u64->u64", n, dist::uniform, o, rs);
    }
  report("algo_bit_range");
}

/// Same input twice, the second time on the first run's (dirty) workspace:
/// identical bytes, and those of the oracle.
template <class K, class V>
void determinism_of(ctx& c, const runner& r, std::size_t n, dist d, const char* type_text) {
  const std::string tag = std::string("determinism ") + type_text + " " + dist_name(d);
  const std::uint64_t seed = multipass_for(tag);
  const auto keys = make_keys<K>(n, d, seed);
  const auto vals = random_values<V>(n, seed);
  const options o;
  const std::string label = r.name + ": " + tag + " n=" + std::to_string(n) + " seed=" + hex(seed);
  const outcome a = sort_once<K, V>(c, op::pairs, keys, vals, o, r, label, true);
  const outcome b = sort_once<K, V>(c, op::pairs, keys, vals, o, r, label + " (second run, dirty workspace)", false);
  if (!a.ok || !b.ok) return;
  if (a.keys != b.keys || a.payload != b.payload) fail("%s: two runs gave different bytes", label.c_str());
  const auto perm = oracle_perm(keys, o);
  expect(a, op::pairs, gather(keys, perm), gather(vals, perm), label);
}

TEST_CASE(algo_determinism, false) {
  ctx c;
  for (const runner& r : runners()) {
    determinism_of<std::uint32_t, std::uint32_t>(c, r, (std::size_t(1) << 20) + 3, dist::few4, "u32/u32");
    determinism_of<std::uint64_t, std::uint32_t>(c, r, 300007, dist::uniform, "u64/u32");
  }
  report("algo_determinism");
}

/// Inputs the four_way order check (Ha et al. 2009, §4.2) sees as sorted, or as
/// sorted in the first n' elements only, or sorted after a few passes.
void presorted_cases(ctx& c, const std::vector<runner>& rs, const std::vector<std::size_t>& sizes) {
  for (std::size_t n : sizes) {
    const std::uint64_t seed = multipass_for("presorted " + std::to_string(n));
    auto sorted = make_keys<std::uint32_t>(n, dist::sorted, seed);
    check(c, op::keys, sorted, dir_opts(0), "u32 presorted", seed, rs);
    check(c, op::keys, sorted, dir_opts(1), "u32 presorted, sorted descending", seed, rs);
    check<std::uint32_t, std::uint32_t>(c, op::pairs, sorted, dir_opts(0), "u32/u32 presorted", seed, rs);
    check<std::uint32_t, std::uint32_t>(c, op::argsort, sorted, dir_opts(0), "u32->u32 presorted", seed, rs);
    check(c, op::keys, make_keys<std::uint32_t>(n, dist::reversed, seed), dir_opts(1), "u32 reversed, descending",
          seed, rs);
    check(c, op::keys, make_keys<std::uint64_t>(n, dist::sorted, seed), dir_opts(0), "u64 presorted", seed, rs);
    check(c, op::keys, make_keys<float>(n, dist::specials, seed), dir_opts(0), "f32 specials", seed, rs);
    {
      auto f = make_keys<float>(n, dist::specials, seed);
      f = gather(f, oracle_perm(f, options{}));
      check(c, op::keys, f, dir_opts(0), "f32 specials presorted (NaNs last, -0.0 == 0.0)", seed, rs);
    }
    if (n >= 2) {
      auto last = sorted;  // the quick check over the first n' elements passes, the full one does not
      last.back() = 0;
      check(c, op::keys, last, dir_opts(0), "u32 presorted but the last key 0", seed, rs);
      auto first = sorted;  // the quick check fails at once
      std::swap(first[0], first[1]);
      if (first[0] != first[1]) check(c, op::keys, first, dir_opts(0), "u32 presorted but the first two swapped", seed, rs);
      auto mid = sorted;
      mid[n / 2] = ~0u;
      check(c, op::keys, mid, dir_opts(0), "u32 presorted but the middle key max", seed, rs);
    }
    std::vector<std::uint32_t> k(n);
    std::uint64_t s = seed;
    // sorted in the bit range [3,17) only: the rest of each key is random
    for (std::size_t i = 0; i < n; ++i)
      k[i] = std::uint32_t(((i << 14) / std::max<std::size_t>(n, 1)) << 3) | (splitmix(s) & 0xFFFE0007u);
    options r = dir_opts(0);
    r.begin_bit = 3;
    r.end_bit = 17;
    check(c, op::keys, k, r, "u32 presorted in bits [3,17) only", seed, rs);
    // sorted after the first pass or after a few: only the low 2 / 8 bits vary
    for (std::size_t i = 0; i < n; ++i) k[i] = 0xC0DE0000u | std::uint32_t(splitmix(s) & 3);
    check(c, op::keys, k, dir_opts(0), "u32 only the low 2 bits vary", seed, rs);
    for (std::size_t i = 0; i < n; ++i) k[i] = 0xC0DE0000u | std::uint32_t(splitmix(s) & 0xFF);
    check<std::uint32_t, std::uint32_t>(c, op::pairs, k, dir_opts(0), "u32/u32 only the low 8 bits vary", seed, rs);
    check(c, op::keys, make_keys<std::uint32_t>(n, dist::all_equal, seed), dir_opts(1), "u32 all equal", seed, rs);
  }
}

TEST_CASE(algo_four_way_presorted, false) {
  ctx c;
  presorted_cases(c, four_way_runners(),
                  {2, 3, 2048, 4096, 7680, 7681, 100003, (std::size_t(1) << 20) + 3, (std::size_t(1) << 22) + 1});
  report("algo_four_way_presorted");
}

TEST_CASE(algo_workspace_too_small, true) {
  ctx c;
  const std::size_t n = 100003;
  const auto keys = make_keys<std::uint32_t>(n, dist::uniform, multipass_for("workspace"));
  const auto vals = random_values<std::uint32_t>(n, 5);
  for (const runner& r : runners())
    for (op what : {op::keys, op::pairs}) {
      radix::sort_request req;
      req.op = what == op::keys ? radix::operation::keys : radix::operation::pairs;
      req.key = radix::key_desc_of<std::uint32_t>();
      req.n = n;
      req.keys = c.upload(c.keys, keys.data(), n * 4);
      if (what == op::pairs) {
        req.values = c.upload(c.vals, vals.data(), n * 4);
        req.value_bytes = 4;
      }
      if (!r.explicit_variant) {
        req.opts.algo = r.algo;
        req.opts.digit_bits = r.digit_bits;
      }
      const std::string label = r.name + (what == op::keys ? ": u32 keys" : ": u32/u32 pairs") + " n=100003";
      bool threw = false;
      try {
        const std::size_t wsb = r.explicit_variant ? rc::workspace_bytes(req, r.v) : rc::workspace_bytes(req);
        if (wsb == 0) {
          fail("%s: workspace_bytes is 0", label.c_str());
          continue;
        }
        unsigned char* ws = c.poisoned(c.ws, wsb);
        if (r.explicit_variant) rc::sort(req, r.v, ws, wsb - 1, c.s);
        else rc::sort(req, ws, wsb - 1, c.s);
      } catch (const radix::out_of_memory&) {
        threw = true;
      } catch (const std::exception& e) {
        fail("%s: workspace_bytes - 1 threw something else: %s", label.c_str(), e.what());
        threw = true;
      }
      CU(cudaStreamSynchronize(c.s));
      if (!threw) fail("%s: a workspace of workspace_bytes - 1 bytes did not throw out_of_memory", label.c_str());
      const auto back = c.download(c.keys, n * 4);
      if (std::memcmp(back.data(), keys.data(), n * 4) != 0)
        fail("%s: the keys changed although the sort threw", label.c_str());
    }
  // the typed entry points with options.algo
  for (algorithm a : {algorithm::reduce_then_scan, algorithm::four_way, algorithm::split}) {
    options o;
    o.algo = a;
    const std::size_t wsb = rc::sort_keys_workspace_bytes<std::uint32_t>(n, o);
    auto* dk = reinterpret_cast<std::uint32_t*>(c.upload(c.keys, keys.data(), n * 4));
    unsigned char* ws = c.poisoned(c.ws, wsb);
    bool threw = false;
    try {
      rc::sort_keys(dk, n, ws, wsb - 1, c.s, o);
    } catch (const radix::out_of_memory&) {
      threw = true;
    }
    CU(cudaStreamSynchronize(c.s));
    CHECK_MSG(threw, "sort_keys with options.algo=%s and workspace_bytes - 1 did not throw out_of_memory", algo_name(a));
  }
}

TEST_CASE(algo_invalid_digit_bits, true) {
  ctx c;
  const std::size_t n = 5000;
  const auto keys = make_keys<std::uint32_t>(n, dist::uniform, multipass_for("invalid digit bits"));
  // widths the algorithms do not have (four_way: 1-3, reduce_then_scan: 1, 2, 4, 8, split: 1-4)
  const std::pair<algorithm, int> bad[] = {
      {algorithm::four_way, 5}, {algorithm::four_way, 8}, {algorithm::reduce_then_scan, 3}, {algorithm::split, 8}};
  for (auto [a, bits] : bad) {
    options o;
    o.algo = a;
    o.digit_bits = bits;
    auto* dk = reinterpret_cast<std::uint32_t*>(c.upload(c.keys, keys.data(), n * 4));
    auto req = rc::detail::request(radix::operation::keys, dk, n, o);
    bool threw = false;
    try {
      rc::choose(req);
    } catch (const radix::invalid_argument&) {
      threw = true;
    }
    CHECK_MSG(threw, "choose() with options.algo=%s digit_bits=%d did not throw invalid_argument", algo_name(a), bits);
    threw = false;
    try {
      // the query may already refuse; else the sort must, before touching the keys
      const std::size_t wsb = rc::sort_keys_workspace_bytes<std::uint32_t>(n, o);
      unsigned char* ws = c.poisoned(c.ws, wsb);
      rc::sort_keys(dk, n, ws, wsb, c.s, o);
    } catch (const radix::invalid_argument&) {
      threw = true;
    }
    CHECK_MSG(threw, "sort_keys with options.algo=%s digit_bits=%d did not throw invalid_argument", algo_name(a), bits);
    threw = false;
    try {
      rc::sort_keys(dk, n, c.s, o);  // the allocating entry point
    } catch (const radix::invalid_argument&) {
      threw = true;
    }
    CHECK_MSG(threw, "allocating sort_keys with options.algo=%s digit_bits=%d did not throw", algo_name(a), bits);
    CU(cudaStreamSynchronize(c.s));
    const auto back = c.download(c.keys, n * 4);
    CHECK_MSG(std::memcmp(back.data(), keys.data(), n * 4) == 0, "options.algo=%s digit_bits=%d changed the keys",
              algo_name(a), bits);
  }
}

TEST_CASE(algo_choose, true) {
  const std::pair<algorithm, int> asked[] = {
      {algorithm::reduce_then_scan, 0}, {algorithm::reduce_then_scan, 1}, {algorithm::reduce_then_scan, 2},
      {algorithm::reduce_then_scan, 4}, {algorithm::reduce_then_scan, 8}, {algorithm::four_way, 0},
      {algorithm::four_way, 2},         {algorithm::four_way, 3},         {algorithm::split, 0},
      {algorithm::split, 4},            {algorithm::onesweep, 0}};
  for (auto [a, bits] : asked) {
    options o;
    o.algo = a;
    o.digit_bits = bits;
    const auto req = rc::detail::request<std::uint32_t>(radix::operation::keys, nullptr, 1000000, o);
    try {
      const rc::variant v = rc::choose(req);
      CHECK_MSG(v.algo == a, "choose(options.algo=%s) gave %s", algo_name(a), rc::to_string(v).c_str());
      if (a != algorithm::onesweep) {
        const int want = bits ? bits : default_bits(a);
        CHECK_MSG(v.digit_bits == want || (bits == 0 && v.digit_bits == 0),
                  "choose(options.algo=%s digit_bits=%d) gave %s", algo_name(a), bits, rc::to_string(v).c_str());
      }
      CHECK_MSG(v.tile >= 0 && v.tile < rc::tile_shapes(v.algo), "choose gave tile %d", v.tile);
    } catch (const std::exception& e) {
      fail("choose(options.algo=%s digit_bits=%d) threw: %s", algo_name(a), bits, e.what());
    }
  }
}

TEST_CASE(algo_automatic_reads_cache, true) {
  // algorithm::automatic takes the tuning cache's variant for this device and
  // workload (nearest size), and ignores other devices' lines; a sort through
  // it is still right.
  namespace cd = radix::cuda_detail;
  const auto id = cd::current_device_identity();
  CHECK_MSG(id.has_value(), "no device identity with a device present");
  if (!id) return;
  const std::string path = "algo_cache_test.txt";
  std::vector<cd::tuning_entry> mine = {{id->name, id->driver, {4, 0}, 1u << 16, "split/4", 0.1},
                                        {id->name, id->driver, {4, 0}, 1u << 24, "reduce_then_scan/8/t1", 1.0},
                                        {id->name, id->driver, {4, 4}, 1u << 20, "four_way/3", 1.0}};
  cd::write_tuning_cache(path, id->name, id->driver, mine);
  cd::write_tuning_cache(path, "Some Other GPU", id->driver, {{"Some Other GPU", id->driver, {4, 0}, 1u << 20, "four_way/2", 1.0}});
  const char* before = std::getenv("RADIX_TUNING_CACHE");
  const std::string saved = before ? before : "";
  setenv("RADIX_TUNING_CACHE", path.c_str(), 1);
  cd::reload_tuning_cache();
  auto pick = [](radix::operation op, std::uint64_t n) {
    options o;
    radix::sort_request r = op == radix::operation::keys
                                ? rc::detail::request<std::uint32_t>(op, nullptr, n, o)
                                : rc::detail::pairs_request<std::uint32_t, std::uint32_t>(nullptr, nullptr, n, o);
    return rc::to_string(rc::choose(r));
  };
  CHECK_MSG(pick(radix::operation::keys, 1000) == "split/4", "u32 keys n=1000 chose %s", pick(radix::operation::keys, 1000).c_str());
  CHECK_MSG(pick(radix::operation::keys, 1u << 23) == "reduce_then_scan/8/t1", "u32 keys n=2^23 chose %s",
            pick(radix::operation::keys, 1u << 23).c_str());
  CHECK_MSG(pick(radix::operation::pairs, 5) == "four_way/3", "u32 pairs chose %s", pick(radix::operation::pairs, 5).c_str());
  // a sort through the automatic choice (split/4 here) against std::sort
  std::vector<std::uint32_t> h(5000);
  std::uint64_t x = 0x9e3779b97f4a7c15ull;
  for (auto& k : h) k = std::uint32_t((x = x * 6364136223846793005ull + 1442695040888963407ull) >> 33);
  std::uint32_t* d = nullptr;
  CU(cudaMalloc(&d, h.size() * 4));
  CU(cudaMemcpy(d, h.data(), h.size() * 4, cudaMemcpyHostToDevice));
  rc::sort_keys(d, h.size());
  std::vector<std::uint32_t> got(h.size());
  CU(cudaMemcpy(got.data(), d, h.size() * 4, cudaMemcpyDeviceToHost));
  CU(cudaFree(d));
  std::sort(h.begin(), h.end());
  CHECK_MSG(got == h, "sort through the cached choice differs from std::sort");
  setenv("RADIX_TUNING_CACHE", (path + ".missing").c_str(), 1);
  cd::reload_tuning_cache();
  CHECK_MSG(pick(radix::operation::keys, 1000) == "onesweep", "without a cache chose %s", pick(radix::operation::keys, 1000).c_str());
  if (before) setenv("RADIX_TUNING_CACHE", saved.c_str(), 1);
  else unsetenv("RADIX_TUNING_CACHE");
  cd::reload_tuning_cache();
  std::remove(path.c_str());
}

TEST_CASE(algo_host_api, false) {
  // radix::sort / sort_pairs / argsort on host memory with engine::cuda and
  // options.algo, against the CPU engine.
  for (const runner& r : runners())
    if (!r.explicit_variant)
      for (std::size_t n : {std::size_t(3), std::size_t(4097), std::size_t(100003)}) {
        options g;
        g.use = radix::engine::cuda;
        g.algo = r.algo;
        g.digit_bits = r.digit_bits;
        options cpu;
        cpu.use = radix::engine::cpu;
        const std::uint64_t seed = multipass_for("host api " + std::to_string(n));
        const std::string label = r.name + ": host API n=" + std::to_string(n) + " seed=" + hex(seed);
        try {
          auto k = make_keys<float>(n, dist::specials, seed), rk = k;
          radix::sort(std::span<float>(k), g);
          radix::sort(std::span<float>(rk), cpu);
          if (std::memcmp(k.data(), rk.data(), n * 4) != 0) fail("%s: f32 keys differ from the CPU engine", label.c_str());
          auto pk = make_keys<std::uint32_t>(n, dist::few4, seed), rpk = pk;
          auto pv = random_values<std::uint32_t>(n, seed), rpv = pv;
          radix::sort_pairs(std::span<std::uint32_t>(pk), std::span<std::uint32_t>(pv), g);
          radix::sort_pairs(std::span<std::uint32_t>(rpk), std::span<std::uint32_t>(rpv), cpu);
          if (pk != rpk || pv != rpv) fail("%s: u32/u32 pairs differ from the CPU engine", label.c_str());
          auto ak = make_keys<std::uint64_t>(n, dist::uniform, seed);
          std::vector<std::uint32_t> idx(n), ridx(n);
          radix::argsort(std::span<const std::uint64_t>(ak), std::span<std::uint32_t>(idx), g);
          radix::argsort(std::span<const std::uint64_t>(ak), std::span<std::uint32_t>(ridx), cpu);
          if (idx != ridx) fail("%s: u64 argsort differs from the CPU engine", label.c_str());
        } catch (const std::exception& e) {
          fail("%s: threw: %s", label.c_str(), e.what());
        }
      }
}

/// The --small set (compute-sanitizer): every variant, sizes <= 5000.
TEST_CASE(algo_small, true) {
  ctx c;
  const auto& rs = runners(false);
  for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(257), std::size_t(2049), std::size_t(4097)})
    workload<std::uint32_t>(c, op::keys, "u32", n, dist::uniform, dir_opts(0), rs);
  workload<std::uint64_t>(c, op::keys, "u64", 3001, dist::uniform, dir_opts(1), rs);
  workload<float>(c, op::keys, "f32", 2500, dist::specials, dir_opts(0), rs);
  workload<std::uint32_t, std::uint32_t>(c, op::pairs, "u32/u32", 4097, dist::few4, dir_opts(1), rs);
  options r = dir_opts(0);
  r.begin_bit = 3;
  r.end_bit = 17;
  workload<std::uint32_t, std::uint32_t>(c, op::argsort, "u32->u32", 3001, dist::uniform, r, rs);
  workload<std::uint64_t, std::uint64_t>(c, op::pairs, "u64/u64", 2000, dist::uniform, dir_opts(0), rs);
  workload<std::uint64_t, std::uint64_t>(c, op::argsort, "u64->u64", 2000, dist::uniform, dir_opts(1), rs);
  workload<std::uint8_t>(c, op::keys, "u8", 1000, dist::uniform, dir_opts(0), rs);
  // the order check's paths (all passes skipped, quick check passes but the full one fails)
  std::vector<runner> fw;
  for (const runner& x : rs) if (x.which() == algorithm::four_way) fw.push_back(x);
  const auto sorted = make_keys<std::uint32_t>(4096, dist::sorted, multipass_for("small presorted"));
  check(c, op::keys, sorted, dir_opts(0), "u32 presorted", 1, fw);
  auto last = sorted;
  last.back() = 0;
  check(c, op::keys, last, dir_opts(0), "u32 presorted but the last key 0", 1, fw);
  report("algo_small");
}

}  // namespace
