// The row network: uniform rows of 5 to 32 keys of at most 4 bytes, one row
// a lane, each sorted in registers by Batcher's odd-even merge network. A
// warp takes 32 consecutive rows at a time:
//   stage in   the rows (and values) into the warp's shared memory, with
//              coalesced global loads;
//   order      each lane reads its row and sorts it with the network;
//   gather     the values follow the keys' positions (pairs), or the
//              positions are the output (argsort);
//   stage out  each lane writes its row back, and the warp stores the rows
//              with coalesced global stores.
// About a tenth of the lane-group route's instructions a key, whose every
// key is compared with each of its row's.
#pragma once
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "../common/common.cuh"
#include "params.cuh"
#include "radix/core/sorting_network.hpp"

namespace radix::cuda_detail {

/// How a warp moves its 32 rows between global and shared memory.
enum class row_staging {
  /// Any row length and alignment: one element a lane a step, the rows at
  /// an odd stride in shared memory, so that lane r reading row r meets no
  /// bank conflict.
  scalar,
  /// Rows of exactly N keys (and values) that fill whole 16-byte chunks at
  /// 16-byte aligned addresses: 16-byte loads and stores, and each row's
  /// chunks permuted (an XOR swizzle) so that the eight lanes of a quarter
  /// warp reading chunk j of their rows hit eight different bank groups.
  vector,
};

/// How a lane orders its row (chosen per warp, at run time).
enum class row_order {
  /// Words of (ordered key, position in the row), all distinct: the
  /// network's order is the stable one, and the positions say where each
  /// key and value came from. 64-bit words for 4-byte keys, 32-bit below.
  composite,
  /// The ordered keys alone, by 32-bit min and max (a third of the
  /// composite's instructions for 4-byte keys). Only where equal ordered
  /// keys are equal keys, so that stability cannot show: keys without
  /// values, the whole key compared, and no key in the warp's rows that the
  /// float canonicalisation changes (-0, NaNs other than the canonical one).
  keys_only,
};

/// Rows of N elements of T fill whole 16-byte chunks.
template <class T, int N>
constexpr bool row_fills_chunks = (N * sizeof(T)) % 16 == 0;

/// Rows of N keys (and their values) that can take the vector staging.
template <class U, class V, int N>
constexpr bool row_vector_compiled = row_fills_chunks<U, N> && (std::is_same_v<V, no_value> || row_fills_chunks<V, N>);

/// A warp's 32 rows of T in shared memory, laid out for one staging.
template <class T, int N, row_staging S>
struct row_buffer {
  static constexpr unsigned per_chunk = 16 / sizeof(T);
  static constexpr unsigned chunks = N / per_chunk;  ///< (vector) 16-byte chunks a row
  T* base;
  unsigned stride;  ///< (scalar) elements a row: the row length, made odd

  /// Bytes of one warp's buffer (a multiple of 16, so the next one is aligned).
  RADIX_HD static constexpr std::size_t bytes(unsigned stride) { return (32 * stride * sizeof(T) + 15) / 16 * 16; }

  /// Where row r keeps its chunk j: eight consecutive rows' chunk j in
  /// eight different 16-byte bank groups.
  __device__ __forceinline__ static unsigned swizzle(unsigned r) {
    if constexpr (chunks >= 8) return r & 7u;
    else return (r * chunks / 8) & (chunks - 1);
  }
  __device__ __forceinline__ unsigned index(unsigned r, unsigned j) const {
    if constexpr (S == row_staging::vector) return (r * chunks + ((j / per_chunk) ^ swizzle(r))) * per_chunk + j % per_chunk;
    else return r * stride + j;
  }
  __device__ __forceinline__ uint4* chunk(unsigned r, unsigned c) const {
    return reinterpret_cast<uint4*>(base) + r * chunks + (c ^ swizzle(r));
  }

  /// The warp's `rows` rows from global memory (every lane calls it).
  __device__ __forceinline__ void stage_in(const T* g, unsigned rows, unsigned L, unsigned lane) const {
    if constexpr (S == row_staging::vector) {
      const uint4* g4 = reinterpret_cast<const uint4*>(g);
      const unsigned total = rows * chunks;
      uint4 c[chunks];  // every load out before the first store
#pragma unroll
      for (unsigned j = 0; j < chunks; ++j) c[j] = lane + 32 * j < total ? g4[lane + 32 * j] : uint4{};
#pragma unroll
      for (unsigned j = 0; j < chunks; ++j) {
        const unsigned q = lane + 32 * j;
        if (q < total) *chunk(q / chunks, q % chunks) = c[j];
      }
    } else {
      for (unsigned t = lane; t < rows * L; t += 32) base[scalar_at(t, L)] = g[t];
    }
  }

  /// The rows back to global memory (after a __syncwarp).
  __device__ __forceinline__ void stage_out(T* g, unsigned rows, unsigned L, unsigned lane) const {
    if constexpr (S == row_staging::vector) {
      uint4* g4 = reinterpret_cast<uint4*>(g);
      const unsigned total = rows * chunks;
#pragma unroll
      for (unsigned j = 0; j < chunks; ++j) {
        const unsigned q = lane + 32 * j;
        if (q < total) g4[q] = *chunk(q / chunks, q % chunks);
      }
    } else {
      for (unsigned t = lane; t < rows * L; t += 32) g[t] = base[scalar_at(t, L)];
    }
  }

  /// Row r's first L elements into registers, and back.
  template <int M>
  __device__ __forceinline__ void read_row(unsigned r, unsigned L, T (&x)[M]) const {
    if constexpr (S == row_staging::vector) {
#pragma unroll
      for (unsigned c = 0; c < chunks; ++c) {
        const uint4 v = *chunk(r, c);
        std::memcpy(&x[c * per_chunk], &v, 16);
      }
    } else {
#pragma unroll
      for (int i = 0; i < M; ++i) x[i] = unsigned(i) < L ? base[r * stride + i] : T{};
    }
  }
  template <int M>
  __device__ __forceinline__ void write_row(unsigned r, unsigned L, const T (&x)[M]) const {
    if constexpr (S == row_staging::vector) {
#pragma unroll
      for (unsigned c = 0; c < chunks; ++c) {
        uint4 v;
        std::memcpy(&v, &x[c * per_chunk], 16);
        *chunk(r, c) = v;
      }
    } else {
#pragma unroll
      for (int i = 0; i < M; ++i)
        if (unsigned(i) < L) base[r * stride + i] = x[i];
    }
  }

 private:
  /// (scalar) The t-th element of the warp's rows: (t * M) >> 16 is t / L for t < 1024.
  __device__ __forceinline__ unsigned scalar_at(unsigned t, unsigned L) const {
    const unsigned m = (65536u + L - 1) / L;
    return t + ((t * m) >> 16) * (stride - L);
  }
};

/// Comparator K of the network for N words (none past its count): min and
/// max, which for 32-bit words are one instruction each.
template <int N, int K, class C>
__device__ __forceinline__ void network_comparator(C (&a)[N]) {
  using core::network::batcher;  // (read in constant expressions only: no device copy needed)
  if constexpr (K < batcher<N>.count) {
    constexpr int lo = batcher<N>.lo[K], hi = batcher<N>.hi[K];
    const C x = a[lo], y = a[hi];
    if constexpr (sizeof(C) == 4) {
      a[lo] = ::min(x, y);
      a[hi] = ::max(x, y);
    } else {
      a[lo] = y < x ? y : x;
      a[hi] = y < x ? x : y;
    }
  }
}

template <int N, int First, class C, int... I>
__device__ __forceinline__ void network_chunk(C (&a)[N], std::integer_sequence<int, I...>) {
  (network_comparator<N, First + I>(a), ...);
}

/// Sorts a[0..N) ascending, every comparator unrolled with constant indices
/// (the words stay in registers), in chunks of 64 (shallow folds).
template <int N, class C>
__device__ __forceinline__ void sort_network(C (&a)[N]) {
  constexpr int chunk = 64, chunks = (core::network::batcher<N>.count + chunk - 1) / chunk;
  [&]<int... K>(std::integer_sequence<int, K...>) {
    (network_chunk<N, K * chunk>(a, std::make_integer_sequence<int, chunk>{}), ...);
  }(std::make_integer_sequence<int, chunks>{});
}

/// Bytes of shared memory a warp uses: its rows of keys, then of values
/// (the most: rows of N keys, whose scalar stride is N + 1).
template <class U, class V, int N>
RADIX_HD constexpr std::size_t row_network_warp_bytes(row_staging s, unsigned L) {
  const unsigned stride = s == row_staging::vector ? unsigned(N) : (L | 1u);
  std::size_t b = row_buffer<U, N, row_staging::scalar>::bytes(stride);
  if constexpr (!std::is_same_v<V, no_value>) b += row_buffer<V, N, row_staging::scalar>::bytes(stride);
  return b;
}

/// One lane's row: its keys, and where each sorted key came from.
template <class U, class V, int N, row_staging S>
struct row_network_agent {
  static_assert(sizeof(U) <= 4 && N <= 32, "positions take 5 bits");
  static constexpr bool has_values = !std::is_same_v<V, no_value>;
  using C = std::conditional_t<sizeof(U) <= 2, unsigned, unsigned long long>;
  static constexpr int pos_bits = 5;

  segment_params<U, V> p;  // (a copy: a reference would take the kernel parameter's address, putting it on the stack)
  row_buffer<U, N, S> keys;
  row_buffer<V, N, S> values;
  unsigned L, lane;

  /// Whether element i of this lane's row is a key: the vector staging's
  /// rows are whole (a lane past the last row sorts what its buffer holds
  /// and writes nothing out); the scalar one's are padded to N.
  __device__ __forceinline__ bool live(int i, bool mine) const {
    if constexpr (S == row_staging::vector) return true;
    else return mine && unsigned(i) < L;
  }

  __device__ __forceinline__ void process(std::uint64_t first, unsigned rows) {
    const bool mine = lane < rows;
    const bool read_values = has_values && p.mode == sort_mode::pairs;
    keys.stage_in(p.keys + first * L, rows, L, lane);
    if constexpr (has_values)
      if (read_values) values.stage_in(p.values + first * L, rows, L, lane);
    __syncwarp();
    U k[N];
    if (S == row_staging::vector || mine) keys.read_row(lane, L, k);
    if (order_for(k, mine) == row_order::keys_only) {
      sort_keys_only(k, mine);
    } else {
      C a[N];
      sort_composites(k, mine, a);
      if (S == row_staging::vector || mine) gather(a);
    }
    __syncwarp();
    if (p.mode != sort_mode::argsort || p.sorted_keys)
      keys.stage_out((p.mode != sort_mode::argsort ? p.keys : p.sorted_keys) + first * L, rows, L, lane);
    if constexpr (has_values)
      if (p.mode != sort_mode::keys) values.stage_out(p.values + first * L, rows, L, lane);
    __syncwarp();  // the buffers are free for the next rows
  }

 private:
  __device__ __forceinline__ row_order order_for(const U (&k)[N], bool mine) const {
    if constexpr (has_values) {
      return row_order::composite;  // (pairs and argsort need the positions)
    } else {
      if (p.mode != sort_mode::keys || p.range_mask != U(~U(0))) return row_order::composite;
      if (!p.codec.canon) return row_order::keys_only;
      bool changed = false;  // a -0 or a non-canonical NaN: canonical() is not one-to-one on these rows
#pragma unroll
      for (int i = 0; i < N; ++i)
        if (mine && live(i, mine)) changed |= p.codec.canonical(k[i]) != p.codec.biased(k[i]);
      return __any_sync(0xFFFFFFFFu, changed) ? row_order::composite : row_order::keys_only;
    }
  }

  /// Keys whose ordered forms are one-to-one: sorted as 32-bit words, the
  /// row written back from them (padding: the largest word, after every key).
  __device__ __forceinline__ void sort_keys_only(U (&k)[N], bool mine) const {
    unsigned o[N];
#pragma unroll
    for (int i = 0; i < N; ++i) o[i] = live(i, mine) ? unsigned(p.codec.biased(k[i])) : ~0u;
    sort_network<N>(o);
#pragma unroll
    for (int i = 0; i < N; ++i) k[i] = p.codec.unbiased(U(o[i]));
    if (S == row_staging::vector || mine) keys.write_row(lane, L, k);
  }

  /// (ordered key, position) words, sorted (padding: the largest word).
  __device__ __forceinline__ void sort_composites(const U (&k)[N], bool mine, C (&a)[N]) const {
#pragma unroll
    for (int i = 0; i < N; ++i)
      a[i] = live(i, mine) ? (C(U(p.codec(k[i]) & p.range_mask)) << pos_bits) | C(i) : ~C(0);
    sort_network<N>(a);
  }

  /// Keys and values in the composites' order, from the row still in shared
  /// memory (read whole before it is overwritten); argsort's positions.
  __device__ __forceinline__ void gather(const C (&a)[N]) const {
    const auto from = [&](int i) { return unsigned(a[i]) & ((1u << pos_bits) - 1); };
    if (p.mode != sort_mode::argsort || p.sorted_keys) {
      U s[N];
#pragma unroll
      for (int i = 0; i < N; ++i)
        s[i] = live(i, true) ? keys.base[keys.index(lane, from(i))] : U{};
      keys.write_row(lane, L, s);
    }
    if constexpr (has_values) {
      if (p.mode == sort_mode::keys) return;
      V v[N];
      if (p.mode == sort_mode::argsort) {
#pragma unroll
        for (int i = 0; i < N; ++i) v[i] = index_value<V>(from(i));
      } else {
#pragma unroll
        for (int i = 0; i < N; ++i)
          v[i] = live(i, true) ? values.base[values.index(lane, from(i))] : V{};
      }
      values.write_row(lane, L, v);
    }
  }
};

/// Blocks an SM the row network's registers allow: 64 registers a thread up
/// to rows of 16 (32 warps an SM keep enough loads in flight), 128 for rows
/// of 32 (64-bit composites alone take 64).
template <int N>
constexpr int row_network_min_blocks = N <= 16 ? 8 : 4;

/// Uniform rows of N / 2 < L <= N keys of at most 4 bytes; four warps a
/// block, 32 rows a warp at a time.
template <class U, class V, int N, row_staging S>
__global__ void __launch_bounds__(128, row_network_min_blocks<N>) row_network_kernel(const segment_params<U, V> p, const segment_reader r) {
  constexpr unsigned warps = 128 / 32;
  extern __shared__ __align__(16) unsigned char smem[];
  const unsigned L = unsigned(r.length), stride = S == row_staging::vector ? unsigned(N) : (L | 1u);
  unsigned char* own = smem + (threadIdx.x / 32) * row_network_warp_bytes<U, V, N>(S, L);
  row_buffer<V, N, S> values{nullptr, stride};
  if constexpr (!std::is_same_v<V, no_value>)
    values.base = reinterpret_cast<V*>(own + row_buffer<U, N, row_staging::scalar>::bytes(stride));
  row_network_agent<U, V, N, S> agent{p, {reinterpret_cast<U*>(own), stride}, values, L, lane_id()};
  const std::uint64_t step = std::uint64_t(gridDim.x) * warps * 32;
  for (std::uint64_t first = (std::uint64_t(blockIdx.x) * warps + threadIdx.x / 32) * 32; first < r.count;
       first += step)
    agent.process(first, unsigned(std::min<std::uint64_t>(32, r.count - first)));
}

}  // namespace radix::cuda_detail
