// radix_bench_matrix: the CUDA engine against cub::DeviceRadixSort (DoubleBuffer
// API) over a matrix of operation x key type x n x input distribution, in one
// process. bench/README.md documents the flags, the inputs and the protocol.
//
// Per cell: the input is generated once on the device into a pristine copy;
// before every run (warm-up included) each sort's buffers are restored from it,
// outside the timed region. A warm-up round, then --reps rounds; a round runs
// radix (radix::cuda::sort_keys / sort_pairs / argsort with a preallocated
// workspace: the public device API), then CUB with int num_items, then CUB with
// long long num_items, each timed with CUDA events. Medians; CUB's time is the
// faster of its two medians. radix's result is compared with every CUB result
// of the warm-up round and of the last round (keys, values and indices
// bitwise: both sorts are stable).
//
//   radix_bench_matrix [--quick] [--ops LIST] [--keys LIST] [--n SPEC] [--dists LIST] [--reps N]
//                      [--shard I/K] [--budget-s S] [--cub-offsets 32,64] [--csv PATH] [--out PATH]
//                      [--commit TEXT] [--seed S] [--api inplace|double] [--list]
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "bench_common.cuh"
#include "peers_cub.hpp"
#include "radix/cuda.hpp"

#ifndef RADIX_BENCH_CONFIGURE_COMMIT
#define RADIX_BENCH_CONFIGURE_COMMIT "unknown"
#endif

namespace {

using bench::mix;

// ---------------------------------------------------------------- the dimensions

enum class op : int { keys, pairs4, pairs8, pairs16, argsort32, argsort64 };
enum class key : int { u8, u16, u32, u64, f32, f32nan, f64 };
enum class dist : int { uniform, zipf, few16, sorted, swaps };
const std::vector<std::string> op_names = {"keys", "pairs4", "pairs8", "pairs16", "argsort32", "argsort64"};
const std::vector<std::string> key_names = {"u8", "u16", "u32", "u64", "f32", "f32nan", "f64"};
const std::vector<std::string> dist_names = {"uniform", "zipf", "few16", "sorted", "swaps"};
constexpr std::size_t key_bytes[] = {1, 2, 4, 8, 4, 4, 8};
constexpr std::size_t value_bytes[] = {0, 4, 8, 16, 4, 8};  ///< per op; argsort: the index

struct cell {
  int op, key, lg, dist;
};
std::string cell_name(const cell& c) {
  return op_names[c.op] + " " + key_names[c.key] + " 2^" + std::to_string(c.lg) + " " + dist_names[c.dist];
}

struct settings {
  std::vector<int> ops, keys, lgs, dists;
  int reps = 10;
  bool use_cub[2] = {true, true};  ///< [0]: int num_items, [1]: long long
  int shard = 1, shards = 1;
  double budget_s = 0;
  std::string csv, out, commit;
  std::uint64_t seed = 0x5EEDC0DE2026ull;
  bool radix_double = false;  ///< --api double: radix's keys and pairs through its double-buffer forms, as CUB's
};

std::string gib(double bytes) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f GiB", bytes / double(1ull << 30));
  return b;
}

// ---------------------------------------------------------------- inputs

/// A bijection of [0, 2^w): spreads ranks (Zipf, few16) over the key space and
/// picks the swapped positions.
__host__ __device__ std::uint64_t scramble(std::uint64_t x, int w, std::uint64_t salt) {
  const std::uint64_t m = w >= 64 ? ~0ull : (1ull << w) - 1;
  const int s = (w + 1) / 2;
  x = (x + salt) & m;
  x = (x * 0x9E3779B97F4A7C15ull) & m;
  x ^= x >> s;
  x = (x * 0xBF58476D1CE4E5B9ull) & m;
  return x ^ (x >> s);
}

/// The key at position u in [0, 2^bits) of the key kind's order, monotone in u
/// (sorted positions give sorted keys). Integers: u. f32 and f64: the finite
/// values only, u scaled onto them (every digit varies). f32nan (`nans`): a
/// bijection onto all 2^32 bit patterns, the non-NaN ones first in value order
/// (-inf .. -0.0, +0.0 .. +inf), then the 2^24 - 2 NaNs of either sign.
template <class K>
__device__ K key_at(std::uint64_t u, bool nans) {
  if constexpr (std::is_same_v<K, float>) {
    std::uint32_t o;  // position in IEEE totalOrder: 0 is the NaN 0xFFFFFFFF, 2^32 - 1 the NaN 0x7FFFFFFF
    if (!nans) {
      o = 0x00800000u + std::uint32_t((u * 0xFF000000ull) >> 32);  // -FLT_MAX .. +FLT_MAX
    } else if (u < 0xFF000002ull) {
      o = std::uint32_t(u) + 0x007FFFFFu;  // -inf .. +inf
    } else {
      const std::uint32_t t = std::uint32_t(u - 0xFF000002ull);
      o = t < 0x007FFFFFu ? 0xFF800001u + t : t - 0x007FFFFFu;  // +NaNs, then -NaNs
    }
    return __uint_as_float(o >> 31 ? o ^ 0x80000000u : ~o);
  } else if constexpr (std::is_same_v<K, double>) {
    const std::uint64_t o = (1ull << 52) + __umul64hi(u, 0ull - (1ull << 53));  // -DBL_MAX .. +DBL_MAX
    return __longlong_as_double(static_cast<long long>(o >> 63 ? o ^ (1ull << 63) : ~o));
  } else {
    return K(u);
  }
}

/// uniform: every key equally likely. zipf: ranks of a Zipf law (exponent 1,
/// over min(n, 2^bits) ranks, drawn by inverting the continuous CDF
/// ln(x) / ln(ranks + 1)), each rank a scrambled key. few16: 16 distinct keys.
/// sorted and swaps: ascending positions i * 2^bits / n (swaps: then swap_pairs).
template <class K>
__global__ void gen_keys(K* k, std::uint64_t n, dist d, bool nans, std::uint64_t seed) {
  constexpr int w = 8 * sizeof(K);
  constexpr std::uint64_t mask = w == 64 ? ~0ull : (1ull << (w % 64)) - 1;
  const std::uint64_t ranks = w == 64 ? n : std::min<std::uint64_t>(n, mask + 1);
  const double log_ranks = log(double(ranks) + 1.0);
  for (std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += std::uint64_t(gridDim.x) * blockDim.x) {
    const std::uint64_t r = mix(i * 0x9E3779B97F4A7C15ull + seed);
    std::uint64_t u;
    switch (d) {
      case dist::uniform: u = r & mask; break;
      case dist::zipf: {
        const double x = exp(double(r >> 11) * 0x1p-53 * log_ranks);  // in [1, ranks + 1)
        u = scramble(std::min<std::uint64_t>(std::uint64_t(x) - 1, ranks - 1), w, seed);
        break;
      }
      case dist::few16: u = scramble(r & 15, w, seed); break;
      default: u = std::uint64_t((__uint128_t(i) << w) / n); break;
    }
    k[i] = key_at<K>(u, nans);
  }
}

/// `swaps` swaps of two positions each, all 2 * swaps positions distinct (a
/// bijection of [0, 2^lg) picks them), so the result does not depend on the schedule.
template <class K>
__global__ void swap_pairs(K* k, std::uint64_t swaps, int lg, std::uint64_t seed) {
  for (std::uint64_t t = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; t < swaps;
       t += std::uint64_t(gridDim.x) * blockDim.x) {
    const std::uint64_t a = scramble(2 * t, lg, seed), b = scramble(2 * t + 1, lg, seed);
    const K x = k[a];
    k[a] = k[b];
    k[b] = x;
  }
}

/// The input position a value carries (pairs' values and argsort's indices are positions).
template <class V>
__device__ std::uint64_t position_of(const V& v) {
  if constexpr (std::is_same_v<V, ulonglong2>) return v.x;
  else if constexpr (std::is_same_v<V, peers::none>) return 0;
  else return v;
}
/// v[i] = i: the pairs' values (16 bytes: {i, mix(i)}) and CUB's argsort iota.
template <class V>
__global__ void fill_positions(V* v, std::uint64_t n) {
  for (std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += std::uint64_t(gridDim.x) * blockDim.x) {
    if constexpr (std::is_same_v<V, ulonglong2>) v[i] = make_ulonglong2(i, mix(i));
    else v[i] = V(i);
  }
}

__device__ bool is_nan_bits(std::uint32_t b) { return (b & 0x7FFFFFFFu) > 0x7F800000u; }

/// f32nan input: out[0] += NaNs with the sign bit set, out[1] += all NaNs,
/// out[2] += a hash of the NaNs' bit patterns.
__global__ void count_nans(const float* k, std::uint64_t n, unsigned long long* out) {
  unsigned long long neg = 0, all = 0, hash = 0;
  for (std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += std::uint64_t(gridDim.x) * blockDim.x) {
    const std::uint32_t b = __float_as_uint(k[i]);
    if (!is_nan_bits(b)) continue;
    ++all;
    neg += b >> 31;
    hash += mix(b);
  }
  atomicAdd(out, neg);
  atomicAdd(out + 1, all);
  atomicAdd(out + 2, hash);
}

/// radix's tail [m, n) of an f32nan result must hold the input's NaNs in input
/// order. keys: radix's sorted keys (nullptr for argsort); pos: the positions it
/// carried (pairs' values, argsort's indices; nullptr for keys). out[0] += faults
/// (not a NaN, positions not increasing, key not the input's at its position),
/// out[1] += the hash of the tail's bit patterns.
template <class V>
__global__ void check_nan_tail(const float* keys, const V* pos, const float* input, std::uint64_t m, std::uint64_t n,
                               unsigned long long* out) {
  unsigned long long bad = 0, hash = 0;
  for (std::uint64_t j = m + std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; j < n;
       j += std::uint64_t(gridDim.x) * blockDim.x) {
    std::uint32_t b = keys ? __float_as_uint(keys[j]) : 0;
    if (pos) {
      const std::uint64_t p = position_of(pos[j]);
      if (p >= n || (j > m && position_of(pos[j - 1]) >= p)) {
        ++bad;
        continue;
      }
      const std::uint32_t in = __float_as_uint(input[p]);
      bad += keys && b != in;
      b = in;
    }
    bad += !is_nan_bits(b);
    hash += mix(b);
  }
  atomicAdd(out, bad);
  atomicAdd(out + 1, hash);
}

int grid_for(std::uint64_t n) { return int(std::clamp<std::uint64_t>((n + 255) / 256, 1, 4096)); }

// ---------------------------------------------------------------- one cell

/// A cell whose buffers do not fit: skipped, not failed.
struct no_room : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The cell's device buffers, freed on scope exit.
struct buffers {
  std::vector<void*> held;
  buffers() = default;
  buffers(const buffers&) = delete;
  ~buffers() {
    for (void* p : held) cudaFree(p);
  }
  template <class T>
  T* get(std::uint64_t count) {
    const std::size_t bytes = std::max<std::size_t>(count * sizeof(T), 1);
    void* p = nullptr;
    const cudaError_t e = cudaMalloc(&p, bytes);
    if (e == cudaErrorMemoryAllocation) {
      cudaGetLastError();
      throw no_room("cudaMalloc of " + gib(double(bytes)) + " failed");
    }
    BCU(e);
    held.push_back(p);
    return static_cast<T*>(p);
  }
};

struct outcome {
  double radix_ms = 0, cub_ms = 0;
  double cub_ms_of[2] = {0, 0};  ///< [0]: int num_items, [1]: long long; 0: not run
  std::size_t radix_ws = 0, cub_temp = 0;
  std::string status = "ok";  ///< ok, SKIPPED: why, MISMATCH: what, ERROR: what
  bool ok() const { return status == "ok"; }
  bool failed() const { return !ok() && status.rfind("SKIPPED", 0) != 0; }
};

/// The element at index i of a device array, as a hex number.
std::string hex_at(const void* p, std::size_t elem, std::uint64_t i) {
  unsigned char b[16] = {};
  if (cudaMemcpy(b, static_cast<const unsigned char*>(p) + i * elem, elem, cudaMemcpyDeviceToHost) != cudaSuccess)
    return "?";
  std::string s = "0x";
  char h[4];
  for (std::size_t k = elem; k-- > 0;) {
    std::snprintf(h, sizeof h, "%02x", b[k]);
    s += h;
  }
  return s;
}

enum class family { keys, pairs, argsort };

/// One cell: K the key type, V the value (pairs) or index (argsort) type,
/// peers::none for keys.
template <class K, class V, family F>
outcome run_cell(const cell& c, const settings& st, cudaStream_t s) {
  constexpr bool has_v = F != family::keys;
  constexpr int bits = int(8 * sizeof(K));
  const std::uint64_t n = 1ull << c.lg;
  const bool nans = c.key == int(key::f32nan);
  const radix::options o{};
  outcome r;
  // the double-buffer forms: the caller's alternates, the result in either buffer
  const bool dbl = st.radix_double && F != family::argsort;
  if constexpr (F == family::keys) {
    r.radix_ws = dbl ? radix::cuda::sort_keys_workspace_bytes(radix::cuda::double_buffer<K>{}, n, o)
                     : radix::cuda::sort_keys_workspace_bytes<K>(n, o);
  } else if constexpr (F == family::pairs) {
    r.radix_ws = dbl ? radix::cuda::sort_pairs_workspace_bytes(radix::cuda::double_buffer<K>{},
                                                               radix::cuda::double_buffer<V>{}, n, o)
                     : radix::cuda::sort_pairs_workspace_bytes<K, V>(n, o);
  } else {
    r.radix_ws = radix::cuda::argsort_workspace_bytes<K, V>(n, o);
  }
  const bool use[2] = {st.use_cub[0] && n <= std::uint64_t(INT_MAX), st.use_cub[1]};
  if (!use[0] && !use[1]) {
    r.status = "SKIPPED: n > INT_MAX and --cub-offsets 32 only";
    return r;
  }
  if (use[0]) r.cub_temp = peers::cub_temp_bytes_as<K, V, int>(n, 0, bits);
  if (use[1]) r.cub_temp = std::max(r.cub_temp, peers::cub_temp_bytes_as<K, V, long long>(n, 0, bits));

  // pristine keys, radix's keys (and values or indices) and workspace, CUB's keys,
  // alternate keys (values, alternate values) and temp storage
  const double need = double(n) * ((dbl ? 5.0 : 4.0) * sizeof(K) + (has_v ? (dbl ? 4.0 : 3.0) * sizeof(V) : 0.0)) +
                      double(r.radix_ws) + double(r.cub_temp);
  std::size_t free_bytes = 0, total_bytes = 0;
  BCU(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (need + double(256ull << 20) > double(free_bytes)) {
    r.status = "SKIPPED: needs " + gib(need) + " of device memory, " + gib(double(free_bytes)) + " free";
    return r;
  }
  // allocated in the order of each sort's documentation example (bench_cuda.cu's --layout doc)
  buffers b;
  K* pk = b.get<K>(n);
  K* rk = b.get<K>(n);
  V* rv = has_v ? b.get<V>(n) : nullptr;
  K* rka = dbl ? b.get<K>(n) : nullptr;
  V* rva = dbl && has_v ? b.get<V>(n) : nullptr;
  void* ws = b.get<unsigned char>(r.radix_ws);
  K* ck = b.get<K>(n);
  K* ca = b.get<K>(n);
  V* cv = has_v ? b.get<V>(n) : nullptr;
  V* cva = has_v ? b.get<V>(n) : nullptr;
  void* temp = b.get<unsigned char>(r.cub_temp);
  unsigned long long* stats = b.get<unsigned long long>(8);

  const int grid = grid_for(n);
  const std::uint64_t seed = st.seed + 0x100 * std::uint64_t(c.dist);
  gen_keys<K><<<grid, 256, 0, s>>>(pk, n, dist(c.dist), nans, seed);
  if (c.dist == int(dist::swaps)) swap_pairs<K><<<grid_for(n / 100), 256, 0, s>>>(pk, n / 100, c.lg, seed);
  BCU(cudaGetLastError());
  // f32nan: radix puts every NaN last in input order (float_order::numeric), CUB
  // orders them by bits, -NaNs first: the numbers are compared, the NaNs checked
  unsigned long long nan_stats[3] = {0, 0, 0};
  if constexpr (std::is_same_v<K, float>) {
    if (nans) {
      BCU(cudaMemsetAsync(stats, 0, 3 * sizeof(unsigned long long), s));
      count_nans<<<grid, 256, 0, s>>>(pk, n, stats);
      BCU(cudaGetLastError());
      BCU(cudaMemcpyAsync(nan_stats, stats, sizeof nan_stats, cudaMemcpyDeviceToHost, s));
      BCU(cudaStreamSynchronize(s));
    }
  }
  const std::uint64_t cub_from = nan_stats[0], compared = n - nan_stats[1];

  auto restore_radix = [&] {
    BCU(cudaMemcpyAsync(rk, pk, n * sizeof(K), cudaMemcpyDeviceToDevice, s));
    if constexpr (F == family::pairs) fill_positions<V><<<grid, 256, 0, s>>>(rv, n);
    if constexpr (F == family::argsort) BCU(cudaMemsetAsync(rv, 0xFF, n * sizeof(V), s));  // no stale answer
  };
  int rsel = 0;  // where radix's double-buffered result is
  K* const rk_home = rk;
  V* const rv_home = rv;
  auto run_radix = [&] {
    if constexpr (F == family::keys) {
      if (dbl) {
        radix::cuda::double_buffer<K> dk(rk, rka);
        radix::cuda::sort_keys(dk, n, ws, r.radix_ws, s, o);
        rsel = dk.selector;
      } else {
        radix::cuda::sort_keys(rk, n, ws, r.radix_ws, s, o);
      }
    } else if constexpr (F == family::pairs) {
      if (dbl) {
        radix::cuda::double_buffer<K> dk(rk, rka);
        radix::cuda::double_buffer<V> dv(rv, rva);
        radix::cuda::sort_pairs(dk, dv, n, ws, r.radix_ws, s, o);
        rsel = dk.selector;
      } else {
        radix::cuda::sort_pairs(rk, rv, n, ws, r.radix_ws, s, o);
      }
    } else {
      radix::cuda::argsort(static_cast<const K*>(rk), rv, n, ws, r.radix_ws, s, o);
    }
  };
  auto restore_cub = [&] {
    BCU(cudaMemcpyAsync(ck, pk, n * sizeof(K), cudaMemcpyDeviceToDevice, s));
    if constexpr (F == family::pairs) fill_positions<V><<<grid, 256, 0, s>>>(cv, n);
  };
  int sel = 0;
  auto run_cub = [&](int width) {
    if constexpr (F == family::argsort) fill_positions<V><<<grid, 256, 0, s>>>(cv, n);  // the iota: timed
    sel = width == 0 ? peers::cub_sort_as<K, V, int>(ck, ca, cv, cva, n, 0, bits, temp, r.cub_temp, s)
                     : peers::cub_sort_as<K, V, long long>(ck, ca, cv, cva, n, 0, bits, temp, r.cub_temp, s);
  };
  // radix's result (still in its buffers) against CUB's latest; "" when equal
  auto verify = [&](int width, const char* when) -> std::string {
    const K* ck_out = sel ? ca : ck;
    const V* cv_out = sel ? cva : cv;
    const K* rk = rsel ? rka : rk_home;
    const V* rv = rsel && has_v ? rva : rv_home;
    BCU(cudaMemsetAsync(stats, 0, 8 * sizeof(unsigned long long), s));
    BCU(cudaMemsetAsync(stats + 1, 0xFF, sizeof(unsigned long long), s));
    BCU(cudaMemsetAsync(stats + 3, 0xFF, sizeof(unsigned long long), s));
    const int g = grid_for(compared);
    if constexpr (F != family::argsort)
      bench::count_diff<K><<<g, 256, 0, s>>>(rk, ck_out + cub_from, compared, stats, stats + 1);
    if constexpr (has_v) bench::count_diff<V><<<g, 256, 0, s>>>(rv, cv_out + cub_from, compared, stats + 2, stats + 3);
    if constexpr (std::is_same_v<K, float>) {
      if (nans)
        check_nan_tail<V><<<grid_for(n - compared), 256, 0, s>>>(F == family::argsort ? nullptr : rk, rv, pk,
                                                                  compared, n, stats + 4);
    }
    BCU(cudaGetLastError());
    unsigned long long h[6];
    BCU(cudaMemcpyAsync(h, stats, sizeof h, cudaMemcpyDeviceToHost, s));
    BCU(cudaStreamSynchronize(s));
    std::string what;
    auto describe = [&](unsigned long long count, unsigned long long first, const char* name, const void* ours,
                        const void* theirs, std::size_t elem) {
      if (!count) return;
      what += (what.empty() ? "" : "; ") + std::to_string(count) + " " + name + " differ, the first at " +
              std::to_string(first) + ": radix " + hex_at(ours, elem, first) + ", CUB " +
              hex_at(theirs, elem, first + cub_from);
    };
    describe(h[0], h[1], "keys", rk, ck_out, sizeof(K));
    describe(h[2], h[3], F == family::argsort ? "indices" : "values", rv, cv_out, sizeof(V));
    if (h[4]) what += (what.empty() ? "" : "; ") + std::to_string(h[4]) + " faults in the NaN tail";
    if (nans && F == family::keys && h[5] != nan_stats[2])
      what += (what.empty() ? "" : "; ") + std::string("the NaN tail is not the input's NaNs");
    if (what.empty()) return "";
    return std::string("MISMATCH with CUB (") + (width ? "long long" : "int") + " num_items) " + when + ": " + what;
  };

  bench::event_pair ev;
  std::vector<float> tr, tc[2];
  for (int rep = 0; rep <= st.reps && r.ok(); ++rep) {  // rep 0: the warm-up
    restore_radix();
    const float t = ev.ms(s, run_radix);
    if (rep) tr.push_back(t);
    for (int w = 0; w < 2 && r.ok(); ++w) {
      if (!use[w]) continue;
      restore_cub();
      const float tw = ev.ms(s, [&] { run_cub(w); });
      if (rep) tc[w].push_back(tw);
      if (rep == 0 || rep == st.reps) {
        const std::string bad = verify(w, rep ? "after the last round" : "after the warm-up");
        if (!bad.empty()) r.status = bad;
      }
    }
  }
  if (!r.ok()) return r;
  auto median = [](std::vector<float> v) {
    std::sort(v.begin(), v.end());
    return double(v[v.size() / 2]);
  };
  r.radix_ms = median(tr);
  for (int w = 0; w < 2; ++w)
    if (use[w]) {
      r.cub_ms_of[w] = median(tc[w]);
      r.cub_ms = r.cub_ms > 0 ? std::min(r.cub_ms, r.cub_ms_of[w]) : r.cub_ms_of[w];
    }
  return r;
}

template <class K>
outcome run_key(const cell& c, const settings& st, cudaStream_t s) {
  switch (op(c.op)) {
    case op::keys: return run_cell<K, peers::none, family::keys>(c, st, s);
    case op::pairs4: return run_cell<K, std::uint32_t, family::pairs>(c, st, s);
    case op::pairs8: return run_cell<K, std::uint64_t, family::pairs>(c, st, s);
    case op::pairs16: return run_cell<K, ulonglong2, family::pairs>(c, st, s);
    case op::argsort32: return run_cell<K, std::uint32_t, family::argsort>(c, st, s);
    default: return run_cell<K, std::uint64_t, family::argsort>(c, st, s);
  }
}
outcome run_any(const cell& c, const settings& st, cudaStream_t s) {
  switch (key(c.key)) {
    case key::u8: return run_key<std::uint8_t>(c, st, s);
    case key::u16: return run_key<std::uint16_t>(c, st, s);
    case key::u32: return run_key<std::uint32_t>(c, st, s);
    case key::u64: return run_key<std::uint64_t>(c, st, s);
    case key::f64: return run_key<double>(c, st, s);
    default: return run_key<float>(c, st, s);  // f32, f32nan
  }
}

/// Rough seconds a cell takes on an H100, for --list and --budget-s: every sort
/// and restore at 2.4 TB/s with 8-bit digits, launch and sync costs, and the
/// allocations. Real cells take about 0.5x to 2x this.
double estimate_s(const cell& c, const settings& st) {
  const double n = std::ldexp(1.0, c.lg), kb = double(key_bytes[c.key]), vb = double(value_bytes[c.op]);
  const double sort_ms = 0.02 + (n * kb + kb * 2.0 * n * (kb + vb)) / 2.4e9;
  const double restore_ms = 0.01 + 2.0 * n * (kb + vb) / 2.4e9;
  const int sorts = 1 + int(st.use_cub[0]) + int(st.use_cub[1]);
  const double alloc_ms = 2.0 + n * (5.0 * kb + 4.0 * vb) / double(1ull << 30);
  return ((st.reps + 1) * sorts * (sort_ms + restore_ms + 0.03) + alloc_ms) / 1e3;
}

// ---------------------------------------------------------------- report

struct result {
  cell c;
  outcome o;
};

std::string csv_field(std::string s) {
  for (char& ch : s)
    if (ch == ',' || ch == '\n' || ch == '"') ch = ';';
  return s;
}
std::string ms_text(double ms) {
  if (ms <= 0) return "";
  char b[32];
  std::snprintf(b, sizeof b, "%.5f", ms);
  return b;
}

double geomean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += std::log(x);
  return v.empty() ? 0 : std::exp(s / double(v.size()));
}

/// The per-row table (op, key, dist over n), the worst cell, the overall
/// geometric mean, skips and failures.
void write_summary(std::FILE* f, const std::vector<result>& rs, const settings& st) {
  std::vector<int> lgs;
  for (const result& r : rs)
    if (std::find(lgs.begin(), lgs.end(), r.c.lg) == lgs.end()) lgs.push_back(r.c.lg);
  std::sort(lgs.begin(), lgs.end());
  std::fprintf(f, "\n## CUB / radix by row (> 1: radix faster; geometric mean over n)\n\n| op | key | dist |");
  for (int lg : lgs) std::fprintf(f, " 2^%d |", lg);
  std::fprintf(f, " geomean |\n|---|---|---|");
  for (std::size_t i = 0; i <= lgs.size(); ++i) std::fprintf(f, "---|");
  std::fprintf(f, "\n");
  std::vector<double> all;
  const result* worst = nullptr;
  int below = 0, skipped = 0;
  for (int o : st.ops)
    for (int k : st.keys)
      for (int d : st.dists) {
        std::vector<double> row;
        std::string line = "| " + op_names[o] + " | " + key_names[k] + " | " + dist_names[d] + " |";
        bool any = false;
        for (int lg : lgs) {
          const result* hit = nullptr;
          for (const result& r : rs)
            if (r.c.op == o && r.c.key == k && r.c.dist == d && r.c.lg == lg) hit = &r;
          std::string text;
          if (hit) {
            any = true;
            if (hit->o.ok()) {
              const double q = hit->o.cub_ms / hit->o.radix_ms;
              row.push_back(q);
              all.push_back(q);
              below += q < 1.0;
              if (!worst || q < worst->o.cub_ms / worst->o.radix_ms) worst = hit;
              char b[32];
              std::snprintf(b, sizeof b, q < 1.0 ? "**%.2f**" : "%.2f", q);
              text = b;
            } else {
              text = hit->o.failed() ? "FAILED" : "skip";
              skipped += !hit->o.failed();
            }
          }
          line += " " + text + " |";
        }
        if (!any) continue;
        char g[32] = "";
        if (!row.empty()) std::snprintf(g, sizeof g, "%.3f", geomean(row));
        std::fprintf(f, "%s %s |\n", line.c_str(), g);
      }
  std::fprintf(f, "\n");
  if (worst)
    std::fprintf(f, "- worst cell: **%s**: %.3fx (radix %.4f ms, CUB %.4f ms)\n", cell_name(worst->c).c_str(),
                 worst->o.cub_ms / worst->o.radix_ms, worst->o.radix_ms, worst->o.cub_ms);
  std::fprintf(f, "- overall geometric mean over %zu cells: **%.3fx**; cells below 1.00x: %d\n", all.size(),
               geomean(all), below);
  if (skipped) std::fprintf(f, "- skipped: %d cells (the reasons are in the cell lines and the CSV)\n", skipped);
  for (const result& r : rs)
    if (r.o.failed()) std::fprintf(f, "- **FAILED: %s: %s**\n", cell_name(r.c).c_str(), r.o.status.c_str());
}

// ---------------------------------------------------------------- command line

/// Prints the usage (and why, if given) and exits: 2 with a reason, else 0.
[[noreturn]] void usage(const char* why) {
  if (why) std::fprintf(stderr, "radix_bench_matrix: %s\n", why);
  std::fprintf(stderr,
               "usage: radix_bench_matrix [--quick] [--ops LIST] [--keys LIST] [--n SPEC] [--dists LIST] [--reps N]\n"
               "         [--shard I/K] [--budget-s S] [--cub-offsets 32,64] [--csv PATH] [--out PATH] [--commit TEXT]\n"
               "         [--seed S] [--api inplace|double] [--list]\n"
               "  --ops    keys,pairs4,pairs8,pairs16,argsort32,argsort64 (or all)\n"
               "  --keys   u8,u16,u32,u64,f32,f32nan,f64 (or all)\n"
               "  --dists  uniform,zipf,few16,sorted,swaps (or all)\n"
               "  --n      log2 sizes: 20 | 16,20,24 | FROM:TO (step 1) | FROM:TO:STEP (default 10:30:2)\n"
               "  --quick  n 12:28:4 (every op, key type and distribution; about 2 minutes on an H100)\n"
               "  the other flags and the protocol: bench/README.md\n");
  std::exit(why ? 2 : 0);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> v;
  std::size_t i = 0;
  while (i <= s.size()) {
    const std::size_t j = std::min(s.find(sep, i), s.size());
    if (j > i) v.push_back(s.substr(i, j - i));
    i = j + 1;
  }
  return v;
}

/// Names from a comma list ("all": every one), in the canonical order.
std::vector<int> parse_names(const std::string& text, const std::vector<std::string>& names, const char* what) {
  std::vector<int> v;
  for (const std::string& t : split(text, ',')) {
    if (t == "all") {
      for (std::size_t i = 0; i < names.size(); ++i) v.push_back(int(i));
      continue;
    }
    const auto it = std::find(names.begin(), names.end(), t);
    if (it == names.end()) usage((std::string("unknown ") + what + " '" + t + "'").c_str());
    v.push_back(int(it - names.begin()));
  }
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  if (v.empty()) usage((std::string("no ") + what).c_str());
  return v;
}

std::vector<int> parse_lgs(const std::string& text) {
  std::vector<int> v;
  auto num = [](const std::string& t) {
    char* end = nullptr;
    const long x = std::strtol(t.c_str(), &end, 10);
    if (t.empty() || *end || x < 1 || x > 32) usage(("--n: '" + t + "' is not a log2 size from 1 to 32").c_str());
    return int(x);
  };
  for (const std::string& t : split(text, ',')) {
    const std::vector<std::string> r = split(t, ':');
    if (r.size() == 1) {
      v.push_back(num(r[0]));
    } else if (r.size() == 2 || r.size() == 3) {
      const int step = r.size() == 3 ? num(r[2]) : 1;
      for (int lg = num(r[0]); lg <= num(r[1]); lg += step) v.push_back(lg);
    } else {
      usage(("--n: cannot read '" + t + "'").c_str());
    }
  }
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  if (v.empty()) usage("--n selects no size");
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  const auto t0 = std::chrono::steady_clock::now();
  std::string cmd;
  for (int i = 0; i < argc; ++i) cmd += std::string(i ? " " : "") + argv[i];
  settings st;
  bool quick = false, list = false;
  std::string ops, keys, lgs, dists;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) usage((a + " needs a value").c_str());
      return argv[++i];
    };
    if (a == "--quick") quick = true;
    else if (a == "--list") list = true;
    else if (a == "--ops") ops = next();
    else if (a == "--keys") keys = next();
    else if (a == "--n") lgs = next();
    else if (a == "--dists" || a == "--dist") dists = next();
    else if (a == "--reps") st.reps = std::max(1, std::atoi(next().c_str()));
    else if (a == "--budget-s") st.budget_s = std::atof(next().c_str());
    else if (a == "--csv") st.csv = next();
    else if (a == "--out") st.out = next();
    else if (a == "--commit") st.commit = next();
    else if (a == "--seed") st.seed = std::strtoull(next().c_str(), nullptr, 0);
    else if (a == "--api") {
      const std::string w = next();
      if (w != "inplace" && w != "double") usage("--api takes inplace or double");
      st.radix_double = w == "double";
    }
    else if (a == "--cub-offsets") {
      const std::string w = next();
      st.use_cub[0] = w.find("32") != std::string::npos;
      st.use_cub[1] = w.find("64") != std::string::npos;
      if (!st.use_cub[0] && !st.use_cub[1]) usage("--cub-offsets takes 32, 64 or 32,64");
    } else if (a == "--shard") {
      const std::string t = next();
      if (std::sscanf(t.c_str(), "%d/%d", &st.shard, &st.shards) != 2 || st.shards < 1 || st.shard < 1 ||
          st.shard > st.shards)
        usage("--shard takes I/K with 1 <= I <= K");
    } else if (a == "--help" || a == "-h") {
      usage(nullptr);
    } else {
      usage(("unknown argument '" + a + "'").c_str());
    }
  }
  // --quick: every op, key and distribution at 2^12 .. 2^28 in steps of 2^4 (about 2 minutes
  // on an H100); an explicit filter replaces its dimension
  st.ops = parse_names(!ops.empty() ? ops : "all", op_names, "operation");
  st.keys = parse_names(!keys.empty() ? keys : "all", key_names, "key type");
  st.lgs = parse_lgs(!lgs.empty() ? lgs : quick ? "12:28:4" : "10:30:2");
  st.dists = parse_names(!dists.empty() ? dists : "all", dist_names, "distribution");
  if (st.commit.empty())
    st.commit = std::string(RADIX_BENCH_CONFIGURE_COMMIT) +
                (std::string(RADIX_BENCH_CONFIGURE_COMMIT) == "unknown" ? "" : " (at configure time)");

  // n outermost, so that round-robin shards get the same mix of sizes
  std::vector<cell> cells;
  std::size_t index = 0;
  for (int lg : st.lgs)
    for (int o : st.ops)
      for (int k : st.keys)
        for (int d : st.dists)
          if (index++ % std::size_t(st.shards) == std::size_t(st.shard - 1)) cells.push_back({o, k, lg, d});
  double estimate = 0;
  for (const cell& c : cells) estimate += estimate_s(c, st);
  if (list) {
    for (const cell& c : cells) std::printf("%-28s ~%.2f s\n", cell_name(c).c_str(), estimate_s(c, st));
    std::printf("%zu cells (shard %d/%d of %zu), roughly %.0f s on an H100 (the model may be off by 2x)\n",
                cells.size(), st.shard, st.shards, index, estimate);
    return 0;
  }

  bench::device_info dev;
  cudaStream_t s{};
  if (const int status = bench::start_device(dev, s)) return status;
  const std::string date = bench::utc_now();
  auto header = [&](std::FILE* f) {
    std::fprintf(f, "# radix CUDA engine vs CUB: the matrix\n\n");
    std::fprintf(f, "- device: %s, %d SMs, %s, %.0f MB L2\n", dev.prop.name, dev.prop.multiProcessorCount,
                 gib(double(dev.prop.totalGlobalMem)).c_str(), dev.prop.l2CacheSize / 1e6);
    std::fprintf(f, "- %s, CUB %s (DeviceRadixSort, DoubleBuffer)\n", dev.versions().c_str(),
                 peers::cub_version().c_str());
    std::fprintf(f, "- radix commit: %s\n- date: %s\n- command: `%s`\n", st.commit.c_str(), date.c_str(), cmd.c_str());
    std::fprintf(f, "- engine: %s\n", radix::cuda::engine_info().c_str());
    std::fprintf(f, "- radix API: %s\n",
                 st.radix_double ? "double buffers (keys and pairs; the result in either buffer, as CUB's DoubleBuffer)"
                                 : "in place (the result in the caller's buffers)");
    std::fprintf(f, "- %zu cells (shard %d/%d of %zu), seed 0x%llx; per cell a warm-up round and %d timed rounds of "
                 "radix%s%s, alternating, CUDA events, medians; CUB = the faster of its medians; inputs restored "
                 "before every run (not timed)\n",
                 cells.size(), st.shard, st.shards, index, static_cast<unsigned long long>(st.seed), st.reps,
                 st.use_cub[0] ? ", CUB (int num_items)" : "", st.use_cub[1] ? ", CUB (long long num_items)" : "");
  };
  header(stdout);
  std::printf("- estimated time: roughly %.0f s%s\n\n", estimate,
              st.budget_s > 0 ? (", budget " + std::to_string(int(st.budget_s)) + " s").c_str() : "");
  std::fflush(stdout);

  std::FILE* csv = nullptr;
  if (!st.csv.empty()) {
    csv = std::fopen(st.csv.c_str(), "w");
    if (!csv) {
      std::fprintf(stderr, "cannot write %s\n", st.csv.c_str());
      return 2;
    }
    std::fprintf(csv, "device,sms,memory_gib,driver,runtime,cub,commit,date,op,key,log2n,n,dist,radix_ms,cub_ms,"
                      "cub_int_ms,cub_int64_ms,ratio,radix_workspace_bytes,cub_temp_bytes,reps,seed,status\n");
  }
  const std::string csv_prefix =
      csv_field(dev.prop.name) + "," + std::to_string(dev.prop.multiProcessorCount) + "," +
      gib(double(dev.prop.totalGlobalMem)).substr(0, gib(double(dev.prop.totalGlobalMem)).find(' ')) + "," +
      bench::device_info::version(dev.driver) + "," + bench::device_info::version(dev.runtime) + "," +
      peers::cub_version() + "," + csv_field(st.commit) + "," + date + ",";

  std::vector<result> rs;
  bool alive = true;
  std::size_t not_run = 0;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    const cell& c = cells[i];
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!alive || (st.budget_s > 0 && elapsed + estimate_s(c, st) > st.budget_s)) {
      not_run = cells.size() - i;
      std::printf("\n**INCOMPLETE**: %zu cells not run (%s), from %s on\n", not_run,
                  alive ? "the --budget-s limit" : "the CUDA context was lost", cell_name(c).c_str());
      break;
    }
    result r{c, {}};
    try {
      r.o = run_any(c, st, s);
    } catch (const no_room& e) {
      r.o.status = std::string("SKIPPED: ") + e.what();
    } catch (const std::exception& e) {
      r.o.status = std::string("ERROR: ") + e.what();
      alive = bench::context_alive();
    }
    rs.push_back(r);
    const outcome& o = r.o;
    if (o.ok())
      std::printf("[%4zu/%zu] %-9s %-6s 2^%-2d %-7s  radix %9.4f ms  CUB %9.4f ms (int %s, long long %s)  "
                  "CUB/radix %.3fx\n",
                  i + 1, cells.size(), op_names[c.op].c_str(), key_names[c.key].c_str(), c.lg,
                  dist_names[c.dist].c_str(), o.radix_ms, o.cub_ms,
                  o.cub_ms_of[0] > 0 ? ms_text(o.cub_ms_of[0]).c_str() : "-",
                  o.cub_ms_of[1] > 0 ? ms_text(o.cub_ms_of[1]).c_str() : "-", o.cub_ms / o.radix_ms);
    else
      std::printf("[%4zu/%zu] %-9s %-6s 2^%-2d %-7s  %s%s\n", i + 1, cells.size(), op_names[c.op].c_str(),
                  key_names[c.key].c_str(), c.lg, dist_names[c.dist].c_str(), o.failed() ? "!!! FAILED: " : "",
                  o.status.c_str());
    std::fflush(stdout);
    if (csv) {
      char ratio[32] = "";
      if (o.ok()) std::snprintf(ratio, sizeof ratio, "%.4f", o.cub_ms / o.radix_ms);
      std::fprintf(csv, "%s%s,%s,%d,%llu,%s,%s,%s,%s,%s,%s,%zu,%zu,%d,0x%llx,%s\n", csv_prefix.c_str(),
                   op_names[c.op].c_str(), key_names[c.key].c_str(), c.lg, 1ull << c.lg, dist_names[c.dist].c_str(),
                   ms_text(o.radix_ms).c_str(), ms_text(o.cub_ms).c_str(), ms_text(o.cub_ms_of[0]).c_str(),
                   ms_text(o.cub_ms_of[1]).c_str(), ratio, o.radix_ws, o.cub_temp, st.reps,
                   static_cast<unsigned long long>(st.seed), csv_field(o.status).c_str());
      std::fflush(csv);
    }
  }
  if (csv) std::fclose(csv);

  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  auto footer = [&](std::FILE* f) {
    if (not_run) std::fprintf(f, "- **INCOMPLETE: %zu cells not run**\n", not_run);
    std::fprintf(f, "- wall time: %.0f s (estimated: %.0f s)\n", wall, estimate);
  };
  write_summary(stdout, rs, st);
  footer(stdout);
  if (!st.out.empty()) {
    if (std::FILE* f = std::fopen(st.out.c_str(), "w")) {
      header(f);
      write_summary(f, rs, st);
      footer(f);
      std::fclose(f);
    } else {
      std::fprintf(stderr, "cannot write %s\n", st.out.c_str());
    }
  }
  bool failed = !alive;
  for (const result& r : rs) failed |= r.o.failed();
  if (failed) std::printf("\n!!! radix_bench_matrix: FAILED cells (above): exit 1\n");
  return failed ? 1 : 0;
}
