// Long segments given by offsets, many at once (segment_tiers::sweep_min):
// Onesweep's passes over the tiles of every listed segment together. Each
// segment's digits are counted and started on their own, and a tile's
// look-back ends at its segment's first tile, which knows its starts: to the
// ring, a segment's first tile is what tile 0 is to a plain sort (Adinets &
// Merrill 2022, Onesweep; the decoupled look-back of Merrill & Garland 2016
// needs nothing but a tile that publishes a prefix). A pass then uses all the
// GPU whatever the segments' lengths, where one block a segment (the long
// route) leaves the longest to a single block at the end.
//
// The route's story, a kernel each:
//   layout   one block: the tiles of each listed segment, numbered in list
//            order (a segment's tiles consecutive and in order, so a tile
//            looks back only at lower tickets)
//   table    a block a segment: its tiles' entries (sweep_tile), its digit
//            counters zeroed
//   count    a tile a block: every pass's digit counts of the tile, added
//            to its segment's counters
//   scan     a block a segment: counts -> each digit's start in the
//            segment; a pass some segment needs (two digits present) is marked
//   plan     one thread: the passes that run (the others, a digit the same
//            in every key of every segment, are skipped)
//   passes   Onesweep's scatter kernel with segment_tiles as its tile source
//   finish   a tile a block: home from the alternates (an odd number of
//            passes ran), or an argsort whose passes were all skipped
#pragma once
#include <cstdint>
#include <type_traits>

#include "../block/block_scan.cuh"
#include "../common/common.cuh"
#include "../common/policy.hpp"
#include "../onesweep/scatter_agent.cuh"
#include "segments.hpp"

namespace radix::cuda_detail {

/// One tile of the sweep, as the table kernel writes it (32 bytes: two
/// 16-byte loads, the same address for the whole block).
struct alignas(16) sweep_tile {
  std::uint64_t base, origin;  ///< its first key; its segment's first key
  std::uint32_t valid, index;  ///< its keys; its number in its segment
  std::uint32_t group, unused; ///< its segment's place in the list (its counters)
};

/// The sweep's own counters, zeroed with Onesweep's control block.
struct sweep_control {
  unsigned tiles;                ///< tiles of all listed segments (layout kernel)
  unsigned long long needed;     ///< bit p: some segment has two digits in pass p
};

/// The scatter agent's tile source: tiles from the table, digit starts per
/// segment (32 bits, relative to the segment's first key).
struct segment_tiles {
  static constexpr bool local_indices = true;  ///< an argsort's indices count from the segment's first key
  const sweep_tile* table = nullptr;
  const std::uint32_t* starts = nullptr;  ///< [segment][bin]
  unsigned stride = 0;                    ///< bins a segment (pass_list::total_bins)
  const sweep_control* sc = nullptr;

  template <class P>
  __device__ __forceinline__ unsigned count(const P&) const { return sc->tiles; }
  template <int Tile, class P>
  __device__ __forceinline__ tile_place locate(const P&, unsigned i) const {
    const sweep_tile e = table[i];
    return {e.base, int(e.valid), e.index};
  }
  /// (a segment's first tile only: its entry is read again rather than kept
  /// in registers through the tile, which spilled)
  template <class P>
  __device__ __forceinline__ unsigned long long digit_start(const P&, unsigned ticket, int bin) const {
    const sweep_tile e = table[ticket];
    return e.origin + starts[std::size_t(e.group) * stride + unsigned(bin)];
  }
};

/// What the sweep's own kernels share.
template <class U>
struct sweep_params {
  const U* keys = nullptr;
  const segment_range* list = nullptr;  ///< the listed segments
  const unsigned* list_count = nullptr;
  std::uint32_t* first_tile = nullptr;  ///< [list]: its first tile
  sweep_tile* table = nullptr;
  std::uint32_t* starts = nullptr;      ///< [list][total_bins]: counts, then starts
  sweep_control* sc = nullptr;
  control* ctl = nullptr;               ///< Onesweep's: the pass plan
  pass_list passes{};
  core::ordered_codec<U> codec{};
};

/// The shape of the sweep's tiles: Onesweep's default for these key and value widths.
template <class U, class V>
struct sweep_shape {
  static constexpr bool has_values = !std::is_same_v<V, no_value>;
  static constexpr scatter_shape value =
      scatter_shape_of(sm90_policy(int(sizeof(U)), has_values ? int(sizeof(V)) : 0), has_values);
};

/// Uniform rows: the list is every row (and its length, the row count).
static __global__ void __launch_bounds__(256) sweep_rows_kernel(segment_range* list, unsigned* count,
                                                                std::uint64_t rows, std::uint64_t length) {
  const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
  for (std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < rows; i += stride)
    list[i] = segment_range{i * length, (i + 1) * length};
  if (blockIdx.x == 0 && threadIdx.x == 0) *count = unsigned(rows);
}

/// Layout: one block numbers the tiles, a chunk of the list at a time.
template <class U, int Tile>
__global__ void __launch_bounds__(1024) sweep_layout_kernel(const sweep_params<U> p) {
  using scan = block_scan<1024, unsigned>;
  __shared__ typename scan::storage st;
  const unsigned count = *p.list_count;
  unsigned total = 0;
  for (unsigned at = 0; at < count; at += 1024) {
    const unsigned i = at + threadIdx.x;
    unsigned tiles = 0;
    if (i < count) tiles = unsigned((p.list[i].end - p.list[i].begin + Tile - 1) / Tile);
    unsigned sum = 0;
    const unsigned before = scan::exclusive(tiles, st, &sum);
    if (i < count) p.first_tile[i] = total + before;
    total += sum;
  }
  if (threadIdx.x == 0) p.sc->tiles = total;
}

/// Table: a block a segment writes its tiles' entries and zeroes its counters.
template <class U, int Tile>
__global__ void __launch_bounds__(256) sweep_table_kernel(const sweep_params<U> p) {
  const unsigned count = *p.list_count;
  const unsigned stride = unsigned(p.passes.total_bins);
  for (unsigned g = blockIdx.x; g < count; g += gridDim.x) {
    const segment_range r = p.list[g];
    const unsigned first = p.first_tile[g], tiles = unsigned((r.end - r.begin + Tile - 1) / Tile);
    for (unsigned j = threadIdx.x; j < tiles; j += blockDim.x) {
      const std::uint64_t base = r.begin + std::uint64_t(j) * Tile;
      const std::uint64_t left = r.end - base;
      p.table[first + j] = sweep_tile{base, r.begin, unsigned(left < Tile ? left : Tile), j, g, 0};
    }
    for (unsigned b = threadIdx.x; b < stride; b += blockDim.x) p.starts[std::size_t(g) * stride + b] = 0;
  }
}

/// Count: a tile a block, every pass's digits counted in shared memory, then
/// added to the segment's counters.
template <class U, int Threads>
__global__ void __launch_bounds__(Threads) sweep_count_kernel(const sweep_params<U> p) {
  __shared__ unsigned bins[max_bins];
  const unsigned tiles = p.sc->tiles;
  const int total = p.passes.total_bins;
  for (unsigned t = blockIdx.x; t < tiles; t += gridDim.x) {
    const sweep_tile e = p.table[t];
    for (int b = threadIdx.x; b < total; b += Threads) bins[b] = 0;
    __syncthreads();
    for (unsigned i = threadIdx.x; i < e.valid; i += Threads) {
      const U k = ld_nc(p.keys + e.base + i);
      const U o = p.codec(k);  // canonical where the codec asks, as the passes' kernel (scatter_forms::canonical)
      for (int ps = 0; ps < p.passes.count; ++ps)
        atomicAdd(&bins[p.passes.bin_offset[ps] + core::digit_of<U>(o, p.passes.shift[ps], p.passes.bits[ps])], 1u);
    }
    __syncthreads();
    std::uint32_t* to = p.starts + std::size_t(e.group) * unsigned(total);
    for (int b = threadIdx.x; b < total; b += Threads)
      if (bins[b]) atomicAdd(to + b, bins[b]);
    __syncthreads();  // bins are cleared for the next tile
  }
}

/// Scan: a block of radix_size threads a segment; each pass's counts become
/// the digits' starts in the segment.
template <class U>
__global__ void __launch_bounds__(radix_size) sweep_scan_kernel(const sweep_params<U> p) {
  using scan = block_scan<radix_size, unsigned>;
  __shared__ typename scan::storage st;
  const unsigned count = *p.list_count;
  const unsigned stride = unsigned(p.passes.total_bins);
  unsigned long long needed = 0;
  for (unsigned g = blockIdx.x; g < count; g += gridDim.x) {
    std::uint32_t* at = p.starts + std::size_t(g) * stride;
    for (int ps = 0; ps < p.passes.count; ++ps) {
      const int d = int(threadIdx.x), digits = 1 << p.passes.bits[ps];
      const unsigned c = d < digits ? at[p.passes.bin_offset[ps] + d] : 0u;
      const unsigned start = scan::exclusive(c, st);
      if (__syncthreads_count(c != 0) > 1) needed |= 1ull << ps;
      if (d < digits) at[p.passes.bin_offset[ps] + d] = start;
    }
  }
  if (threadIdx.x == 0 && needed) atomicOr(&p.sc->needed, needed);
}

/// Plan: the passes that run, in order (control::pass_eff, eff_passes), for
/// the scatter kernel. (control::canon_used stays 0: the host picks the float
/// form, canonical where the codec canonicalises, biased where it does not.)
template <class U>
__global__ void sweep_plan_kernel(const sweep_params<U> p) {
  int e = 0;
  for (int ps = 0; ps < p.passes.count; ++ps) p.ctl->pass_eff[ps] = (p.sc->needed >> ps) & 1 ? e++ : -1;
  p.ctl->eff_passes = e;
}

/// A pass: Onesweep's scatter agent over the listed segments' tiles.
template <class U, class V, scatter_forms Forms>
__global__ void __launch_bounds__(sweep_shape<U, V>::value.threads, sweep_shape<U, V>::value.min_blocks)
    sweep_scatter_kernel(const onesweep_params<U, V> p, const segment_tiles tiles, int pass, int shift, int bits,
                         int bin_offset) {
  extern __shared__ __align__(16) unsigned char smem[];
  pdl_wait();     // the previous pass (or the plan) is done
  pdl_release();  // every block is resident: the next pass may queue behind them
  scatter_agent<U, V, sweep_shape<U, V>, Forms, segment_tiles>{p, pass, shift, bits, bin_offset, smem, 0u, tiles}
      .process();
}

/// Finish: a tile a block. Keys and pairs whose passes ended in the
/// alternates go home; an argsort whose passes were all skipped gets each
/// segment's identity (and its keys, as they are).
template <class U, class V>
__global__ void __launch_bounds__(256) sweep_finish_kernel(const onesweep_params<U, V> p, const segment_tiles tiles) {
  pdl_wait();  // the last pass is done
  const int k = p.ctl->eff_passes;
  const bool argsort = p.mode == sort_mode::argsort;
  if (argsort ? k != 0 : (k & 1) == 0) return;
  const unsigned count = tiles.sc->tiles;
  for (unsigned t = blockIdx.x; t < count; t += gridDim.x) {
    const sweep_tile e = tiles.table[t];
    for (unsigned i = threadIdx.x; i < e.valid; i += blockDim.x) {
      const std::uint64_t at = e.base + i;
      if (argsort) {
        if constexpr (!std::is_same_v<V, no_value>) p.values[at] = index_value<V>(at - e.origin);
        if (p.sorted_keys) p.sorted_keys[at] = p.keys[at];
      } else {
        p.keys[at] = p.key_alt[0][at];
        if constexpr (!std::is_same_v<V, no_value>) p.values[at] = p.value_alt[at];
      }
    }
  }
}

}  // namespace radix::cuda_detail
