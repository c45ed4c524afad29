// Long segments, many of them: one block sorts a whole segment in global
// memory, LSD, one tile after another, with no other block involved (no
// look-back, no global counters). Its story:
//
//   count_digits   one read of the segment: every pass's digit histogram
//   for each pass whose digit varies:
//     start_digits   exclusive scan of the pass's histogram: where each digit begins
//     for each tile, in order:
//       load_tile      keys (and values, or generated local indices) into registers
//       rank_tile      stable block ranking of the tile's digits (block_rank)
//       stage_tile     keys and values to their digit-sorted places in shared memory
//       write_tile     from there to the segment's alternate buffer, digit runs
//                      after those of earlier tiles (coalesced runs)
//   copy_home      an odd number of passes left the result in the alternate
//
// Stable: tiles go in input order and the ranking within a tile is stable.
// Each pass reads and writes the segment once; the histograms cost one read.
#pragma once
#include <cstdint>
#include <type_traits>

#include "../block/block_rank.cuh"
#include "../common/common.cuh"
#include "../onesweep/params.cuh"
#include "radix/core/pass_plan.hpp"

namespace radix::cuda_detail {

/// One segment's buffers: the caller's, and alternates at the same offsets.
template <class U, class V>
struct lsd_segment {
  U* keys;           ///< caller's keys (read-only for argsort)
  V* values;         ///< caller's values, or argsort's indices
  U* key_alt[2];     ///< [1]: argsort only
  V* value_alt;
  U* sorted_keys;    ///< argsort: its last pass's keys go here (nullptr: nowhere)
  std::uint64_t n;
};

template <class U, class V, int Threads, int Items>
struct block_lsd_agent {
  static constexpr bool has_values = !std::is_same_v<V, no_value>;
  static constexpr int tile = Threads * Items;
  using rank_t = block_rank<Threads, Items>;

  struct storage {
    typename rank_t::storage rank;
    unsigned hist[max_bins];         ///< every pass's digit counts over the segment
    unsigned start[radix_size];      ///< this pass: first place of digit d not yet written
    U keys[tile];                    ///< the tile, digit-sorted
    V vals[has_values ? tile : 1];
  };

  const sort_mode mode;
  const core::ordered_codec<U> codec;
  const U range_mask;
  const pass_list& passes;
  storage& s;

  __device__ __forceinline__ unsigned digit(U k, const core::pass& ps) const {
    return core::digit_of<U>(U(codec(k) & range_mask), ps.shift, ps.bits);
  }
  __device__ __forceinline__ core::pass pass_at(int p) const { return {passes.shift[p], passes.bits[p]}; }

  __device__ void process(const lsd_segment<U, V>& g) {
    count_digits(g);
    // The passes whose digit varies (the others keep every key in place).
    int k = 0;
    for (int p = 0; p < passes.count; ++p) k += varies(p, g.n) ? 1 : 0;
    if (k == 0) return write_identity(g);
    int e = 0;
    for (int p = 0; p < passes.count; ++p) {
      if (!varies(p, g.n)) continue;
      run_pass(g, p, e, k);
      ++e;
    }
    if (mode != sort_mode::argsort && (k & 1)) copy_home(g);
  }

  /// One read: the digit counts of every pass.
  __device__ __forceinline__ void count_digits(const lsd_segment<U, V>& g) {
    for (int i = threadIdx.x; i < passes.total_bins; i += Threads) s.hist[i] = 0;
    __syncthreads();
    for (std::uint64_t i = threadIdx.x; i < g.n; i += Threads) {
      const U o = U(codec(ld_nc(g.keys + i)) & range_mask);
      for (int p = 0; p < passes.count; ++p)
        atomicAdd(&s.hist[passes.bin_offset[p] + core::digit_of<U>(o, passes.shift[p], passes.bits[p])], 1u);
    }
    __syncthreads();
  }

  /// A pass moves keys unless one digit holds them all.
  __device__ __forceinline__ bool varies(int p, std::uint64_t n) const {
    // (every thread reads the same counters: the answer is block-uniform)
    const unsigned* h = s.hist + passes.bin_offset[p];
    for (int d = 0; d < (1 << passes.bits[p]); ++d)
      if (h[d] != 0) return h[d] != n;
    return false;
  }

  __device__ __forceinline__ void write_identity(const lsd_segment<U, V>& g) const {
    if constexpr (has_values)
      if (mode == sort_mode::argsort)
        for (std::uint64_t i = threadIdx.x; i < g.n; i += Threads) {
          g.values[i] = index_value<V>(i);
          if (g.sorted_keys) g.sorted_keys[i] = g.keys[i];
        }
  }

  /// Pass e of k (counting only the passes that run) over histogram p.
  __device__ void run_pass(const lsd_segment<U, V>& g, int p, int e, int k) {
    // Sources and destinations: keys/pairs ping-pong caller <-> alternate;
    // argsort reads the caller's keys first, ping-pongs its two key
    // alternates (the last pass writes to sorted_keys, if asked), and picks
    // the first index buffer so that the last pass lands in the caller's.
    const U* ksrc;
    U* kdst;
    const V* vsrc = nullptr;
    V* vdst = nullptr;
    if (mode != sort_mode::argsort) {
      ksrc = (e & 1) ? g.key_alt[0] : g.keys;
      kdst = (e & 1) ? g.keys : g.key_alt[0];
      vsrc = (e & 1) ? g.value_alt : g.values;
      vdst = (e & 1) ? g.values : g.value_alt;
    } else {
      ksrc = e == 0 ? g.keys : g.key_alt[(e - 1) & 1];
      kdst = e == k - 1 ? g.sorted_keys : g.key_alt[e & 1];
      auto idx = [&](int pass) { return ((k - 1 - pass) & 1) == 0 ? g.values : g.value_alt; };
      vsrc = e == 0 ? nullptr : idx(e - 1);
      vdst = idx(e);
    }
    const core::pass ps = pass_at(p);
    const int digits = 1 << ps.bits;
    start_digits(p, digits);
    for (std::uint64_t t0 = 0; t0 < g.n; t0 += tile) {
      const int m = int(g.n - t0 < std::uint64_t(tile) ? g.n - t0 : tile);
      U key[Items];
      V val[has_values ? Items : 1];
      unsigned dig[Items], rank[Items];
      load_tile(ksrc + t0, vsrc ? vsrc + t0 : nullptr, t0, m, ps, key, val, dig);
      rank_tile(dig, rank, digits);
      stage_tile(key, val, dig, rank);
      write_tile(kdst, vdst, m, ps, digits);
    }
  }

  __device__ __forceinline__ void start_digits(int p, int digits) {
    const unsigned c = int(threadIdx.x) < digits ? s.hist[passes.bin_offset[p] + threadIdx.x] : 0u;
    const unsigned x = rank_t::scan::exclusive(c, s.rank.scan_storage);
    if (int(threadIdx.x) < digits) s.start[threadIdx.x] = x;
    __syncthreads();
  }

  /// Item i of lane l in warp w is key w * 32 * Items + i * 32 + l of the
  /// tile (the order block_rank keeps stable).
  __device__ __forceinline__ static int slot(int i) { return int(threadIdx.x / 32) * 32 * Items + i * 32 + int(lane_id()); }

  __device__ __forceinline__ void load_tile(const U* ks, const V* vs, std::uint64_t t0, int m, const core::pass& ps,
                                            U (&key)[Items], V (&val)[has_values ? Items : 1],
                                            unsigned (&dig)[Items]) const {
#pragma unroll
    for (int i = 0; i < Items; ++i) {
      const int j = slot(i);
      dig[i] = rank_t::no_digit;
      if (j < m) {
        key[i] = ks[j];
        dig[i] = digit(key[i], ps);
        if constexpr (has_values) val[i] = vs ? vs[j] : index_value<V>(t0 + j);
      }
    }
  }

  __device__ __forceinline__ void rank_tile(const unsigned (&dig)[Items], unsigned (&rank)[Items], int digits) {
    rank_t::clear(s.rank, digits);
    __syncthreads();
    rank_t::rank_warp(dig, rank, s.rank, 0, true);
    __syncthreads();
    rank_t::scan_digits(s.rank, digits, [](unsigned) {});  // ends synchronised
  }

  __device__ __forceinline__ void stage_tile(const U (&key)[Items], const V (&val)[has_values ? Items : 1],
                                             const unsigned (&dig)[Items], const unsigned (&rank)[Items]) {
#pragma unroll
    for (int i = 0; i < Items; ++i) {
      if (dig[i] == rank_t::no_digit) continue;
      const unsigned at = rank_t::local_position(s.rank, dig[i], rank[i]);
      s.keys[at] = key[i];
      if constexpr (has_values) s.vals[at] = val[i];
    }
    __syncthreads();
  }

  /// The staged tile out: place j of the tile, digit d, goes after the
  /// digit's earlier keys. Then the digits' next places move past this tile.
  __device__ __forceinline__ void write_tile(U* kd, V* vd, int m, const core::pass& ps, int digits) {
    for (int j = threadIdx.x; j < m; j += Threads) {
      const U k = s.keys[j];
      const unsigned d = digit(k, ps);
      const std::uint64_t to = std::uint64_t(s.start[d]) + unsigned(j) - s.rank.digit_start[d];
      if (kd) kd[to] = k;
      if constexpr (has_values) vd[to] = s.vals[j];
    }
    __syncthreads();
    if (int(threadIdx.x) < digits) {
      const unsigned next = int(threadIdx.x) + 1 < digits ? s.rank.digit_start[threadIdx.x + 1] : unsigned(m);
      s.start[threadIdx.x] += next - s.rank.digit_start[threadIdx.x];
    }
    __syncthreads();
  }

  __device__ __forceinline__ void copy_home(const lsd_segment<U, V>& g) const {
    for (std::uint64_t i = threadIdx.x; i < g.n; i += Threads) {
      g.keys[i] = g.key_alt[0][i];
      if constexpr (has_values) g.values[i] = g.value_alt[i];
    }
  }
};

}  // namespace radix::cuda_detail
