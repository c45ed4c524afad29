// Long uniform rows, many of them (segment_tiers::split_*): each row is cut
// into buckets of fewer than 4096 keys by one stable MSD step, and the bin
// sort (onesweep/bin_sort_agent.cuh) finishes each bucket. The buckets
// follow the row's own keys, not fixed digit bits: a row's keys are counted
// into 4096 bins over their span where they are dense (bin_map.cuh), and
// consecutive bins are grouped into buckets of about the same size, so that
// floats of any distribution (and integers of any range) give buckets that
// fit a block. The idea is the hybrid MSD sort's (Stehle & Jacobsen 2017, "A
// Memory Bandwidth-Efficient Hybrid Radix Sort on GPUs"), with bucket bounds
// from a histogram of the keys in place of a fixed digit.
//
// The route's story, a kernel each:
//   survey    one block a row: the row's span (smallest and largest ordered
//             key) and its bin map (bin_map.cuh: bins where the keys are
//             dense), its keys counted into those bins, the bins grouped
//             into buckets (a bin -> bucket table and each bucket's first
//             place); a row whose largest bin is too full is listed for the
//             long route instead
//   split     a tile of a row each (split_agent): its keys ranked by bucket
//             (stable), each bucket's place after the row's earlier tiles by
//             a look-back over the row's tiles, then the tile written to the
//             alternates bucket by bucket (with values, or argsort's positions)
//   buckets   a bucket a block: the bin sort, from the alternates into the
//             caller's buffers; a bucket with a crowded bin is listed
//   crowded   the listed buckets, by the block sort (stable, any keys)
#pragma once
#include <cstdint>
#include <type_traits>

#include "../block/block_rank.cuh"
#include "../block/block_scan.cuh"
#include "../common/common.cuh"
#include "../onesweep/bin_map.cuh"
#include "segments.hpp"

namespace radix::cuda_detail {

/// A row as the survey left it for the split: its number of buckets (0: the
/// row is not split; the long route sorts it). Its bin map and bin -> bucket
/// table lie in split_params::maps and ::table.
struct split_row {
  unsigned buckets;
};

/// What the route's kernels share. Bucket b of row r is segment r * stride +
/// b of `offsets` (global places, stride = buckets_max + 1: the last of a
/// row's segments is an empty gap, so a row's buckets never run into the next
/// row's).
template <class U, class P>
struct split_params {
  const U* keys = nullptr;        ///< the caller's keys
  const P* values = nullptr;      ///< pairs: the caller's values (argsort: generated positions)
  U* key_alt = nullptr;           ///< the rows split into buckets
  P* value_alt = nullptr;
  std::uint64_t length = 0, rows = 0;
  std::uint32_t tiles_per_row = 0;
  unsigned stride = 0;            ///< segment_tiers::split_buckets_max(length) + 1
  core::ordered_codec<U> codec{};
  U range_mask = 0;
  split_row* row = nullptr;       ///< [rows]
  typename bin_map<U>::entry* maps = nullptr;  ///< [rows][bin_map::coarse]
  std::uint32_t* table = nullptr;  ///< [rows][bins / 4]: each bin's bucket, 8 bits
  std::uint64_t* offsets = nullptr;  ///< [rows * stride + 1]
  unsigned* status = nullptr;     ///< [rows * tiles_per_row][stride - 1], zeroed: the look-back
  unsigned* ticket = nullptr;     ///< zeroed: tiles in launch order
  segment_range* left = nullptr;  ///< rows not split
  unsigned* left_count = nullptr;

  __device__ __forceinline__ U ordered(U k) const { return U(codec(k) & range_mask); }
};

/// One block a row: the span, the bin counts, the buckets (see the file's
/// story). Every thread of the block calls survey() for the same row.
template <class U, class P, int Threads>
struct split_survey {
  using T = segment_tiers;
  static constexpr int bins = T::split_row_bins, per = bins / Threads;  ///< bins a thread scans
  static_assert(per * Threads == bins && per % 4 == 0, "whole bins a thread, whole words of the bucket table");
  static constexpr int warps = Threads / 32;
  struct storage {
    unsigned count[bins];
    unsigned coarse[bin_map<U>::coarse];
    typename bin_map<U>::entry map[bin_map<U>::coarse];
    U lo[warps], hi[warps];
    unsigned most[warps];
    typename block_scan<Threads, unsigned>::storage scan;
  };
  const split_params<U, P>& p;
  storage& s;

  __device__ void survey(std::uint64_t row) {
    const U* keys = p.keys + row * p.length;
    clear();
    U lo, hi;
    span(keys, lo, hi);
    const bin_map<U> map = map_bins(row, lo, hi);
    count(keys, map);
    unsigned largest = 0;
    const unsigned before = scan_bins(largest);
    if (lo == hi || largest > T::split_largest_bin) return leave(row);
    choose_buckets(row, before, largest);
  }

  /// f(ordered key) for every key of the row, four loads in flight a thread.
  template <class F>
  __device__ __forceinline__ void each_key(const U* keys, F&& f) const {
    constexpr int batch = 4;
    std::uint64_t i = threadIdx.x;
    for (; i + (batch - 1) * Threads < p.length; i += batch * Threads) {
      U k[batch];
#pragma unroll
      for (int b = 0; b < batch; ++b) k[b] = ld_nc(keys + i + b * Threads);
#pragma unroll
      for (int b = 0; b < batch; ++b) f(p.ordered(k[b]));
    }
    for (; i < p.length; i += Threads) f(p.ordered(ld_nc(keys + i)));
  }

  __device__ __forceinline__ void clear() {
    for (int b = threadIdx.x; b < bins; b += Threads) s.count[b] = 0;
    if (threadIdx.x < bin_map<U>::coarse) s.coarse[threadIdx.x] = 0;
    __syncthreads();
  }

  /// The row's smallest and largest ordered key, and its keys counted by
  /// coarse range (their top 8 bits).
  __device__ __forceinline__ void span(const U* keys, U& lo, U& hi) {
    lo = U(~U(0));
    hi = U(0);
    each_key(keys, [&](U o) {
      lo = o < lo ? o : lo;
      hi = o > hi ? o : hi;
      atomicAdd(&s.coarse[bin_map<U>::coarse_of(o)], 1u);
    });
    warp_span(lo, hi);
    if (lane_id() == 0) s.lo[threadIdx.x / 32] = lo, s.hi[threadIdx.x / 32] = hi;
    __syncthreads();
#pragma unroll
    for (int w = 0; w < warps; ++w) {
      lo = s.lo[w] < lo ? s.lo[w] : lo;
      hi = s.hi[w] > hi ? s.hi[w] : hi;
    }
  }

  /// The row's bin map, here and for the split.
  __device__ __forceinline__ bin_map<U> map_bins(std::uint64_t row, U lo, U hi) {
    const unsigned c = threadIdx.x;
    bin_map<U>::template build<Threads>(s.map, c < bin_map<U>::coarse ? s.coarse[c] : 0u, lo, hi,
                                        unsigned(p.length), unsigned(bins), s.scan);
    if (c < bin_map<U>::coarse) p.maps[row * bin_map<U>::coarse + c] = s.map[c];
    return bin_map<U>{s.map};
  }

  __device__ __forceinline__ void count(const U* keys, const bin_map<U>& bin_of) {
    each_key(keys, [&](U o) { atomicAdd(&s.count[bin_of(o)], 1u); });
    __syncthreads();
  }

  /// Thread t's bins are [t * per, (t + 1) * per). Returns the keys before
  /// them; `largest` gets the row's fullest bin.
  __device__ __forceinline__ unsigned scan_bins(unsigned& largest) {
    unsigned sum = 0, most = 0;
#pragma unroll
    for (int i = 0; i < per; ++i) {
      const unsigned c = s.count[threadIdx.x * per + i];
      sum += c;
      most = c > most ? c : most;
    }
#pragma unroll
    for (int o = 16; o > 0; o /= 2) {
      const unsigned m = __shfl_xor_sync(0xFFFFFFFFu, most, o);
      most = m > most ? m : most;
    }
    if (lane_id() == 0) s.most[threadIdx.x / 32] = most;
    const unsigned before = block_scan<Threads, unsigned>::exclusive(sum, s.scan);  // (synchronises)
#pragma unroll
    for (int w = 0; w < warps; ++w) largest = s.most[w] > largest ? s.most[w] : largest;
    return before;
  }

  /// Bucket of bin i: (keys before bin i) / w. Bucket b's first place is
  /// that of the first bin with at least b * w keys before it (the row's
  /// length for buckets past the last bin). Each bucket start is written by
  /// the one bin where the bucket number steps up to it.
  __device__ __forceinline__ void choose_buckets(std::uint64_t row, unsigned before, unsigned largest) {
    const unsigned w = unsigned(T::split_bucket_keys) - largest;
    const unsigned L = unsigned(p.length);
    const split_row r{L / w + 1};
    std::uint64_t* off = p.offsets + row * p.stride;
    const std::uint64_t base = row * p.length;
    const int first = int(threadIdx.x) * per;
    unsigned at = before;
    unsigned prev = first == 0 ? 0u : (before - s.count[first - 1]) / w;  // the bucket of the bin before
    if (first == 0) off[0] = base;
    unsigned packed = 0;
#pragma unroll
    for (int i = 0; i < per; ++i) {
      const unsigned b = at / w;
      for (unsigned q = prev + 1; q <= b; ++q) off[q] = base + at;
      prev = b;
      packed |= b << ((i % 4) * 8);
      if (i % 4 == 3) p.table[row * (bins / 4) + (first + i) / 4] = packed, packed = 0;
      at += s.count[first + i];
    }
    if (threadIdx.x == Threads - 1)  // past the last bin: every remaining bucket starts (and ends) at the row's end
      for (unsigned q = prev + 1; q < p.stride; ++q) off[q] = base + L;
    if (threadIdx.x == 0) {
      p.row[row] = r;
      if (row + 1 == p.rows) p.offsets[p.rows * p.stride] = p.rows * p.length;
    }
  }

  __device__ __forceinline__ void leave(std::uint64_t row) const {
    if (threadIdx.x != 0) return;
    p.row[row] = split_row{0u};
    p.left[atomicAdd(p.left_count, 1u)] = segment_range{row * p.length, (row + 1) * p.length};
    if (row + 1 == p.rows) p.offsets[p.rows * p.stride] = p.rows * p.length;
  }

};

/// One tile of a row: its keys (and values, or argsort's positions in the
/// row) to their bucket in the alternates, after the row's earlier tiles.
template <class U, class P, int Threads, int Items>
struct split_agent {
  static constexpr bool has_values = !std::is_same_v<P, no_value>;
  static constexpr int tile = Threads * Items;
  using rank_t = block_rank<Threads, Items>;
  /// Blocks an SM (__launch_bounds__): the tile's latency (loads, look-back)
  /// is hidden by other blocks' work. Three cap registers at 80, which holds
  /// a tile of 4-byte keys and 4-byte values with little spilling; wider
  /// ones keep two (128 registers).
  static constexpr int min_blocks = sizeof(U) + (has_values ? sizeof(P) : 0) <= 8 ? 3 : 2;
  /// A tile's published count of a bucket: the count alone (aggregate) or
  /// with the row's earlier tiles' (inclusive prefix); 0 = not yet.
  static constexpr unsigned aggregate = 1u << 30, prefix = 1u << 31, count_mask = aggregate - 1;
  static_assert(segment_tiers::split_longest < aggregate, "counts below the flags");
  /// Earlier tiles' words read at once in the look-back: a row has up to 128
  /// tiles, most of them in flight together.
  static constexpr int lookback_batch = 8;

  struct storage {
    typename rank_t::storage rank;
    std::uint64_t base[radix_size];  ///< where the tile's first key of each bucket goes
    typename bin_map<U>::entry map[bin_map<U>::coarse];  ///< the row's
    std::uint32_t table[segment_tiers::split_row_bins / 4];
    unsigned tile_id;
    U keys[tile];  ///< the tile, bucket-sorted
    P vals[has_values ? tile : 1];
    std::uint8_t bucket[tile];  ///< each staged key's bucket
  };

  const split_params<U, P>& p;
  storage& s;

  __device__ void process() {
    const std::uint64_t t = take_tile();
    const std::uint64_t row = t / p.tiles_per_row;
    const unsigned j = unsigned(t % p.tiles_per_row);
    const std::uint64_t first = row * p.length + std::uint64_t(j) * tile;
    const int m = int(p.length - std::uint64_t(j) * tile < std::uint64_t(tile) ? p.length - std::uint64_t(j) * tile
                                                                                 : tile);
    U key[Items];
    P val[has_values ? Items : 1];
    load_tile(first, j, m, key, val);  // in flight while the row's bucket table comes
    const split_row r = p.row[row];
    if (r.buckets == 0) return;  // the long route takes the row
    load_table(row, r.buckets);
    unsigned bucket[Items], rank[Items];
#pragma unroll
    for (int i = 0; i < Items; ++i) bucket[i] = slot(i) < m ? bucket_of(key[i]) : rank_t::no_digit;
    const unsigned count = rank_tile(bucket, rank, int(r.buckets), t, j);
    look_back(t, j, r.buckets, count);
    stage_tile(key, val, rank, m);
    write_tile(m);
  }

  /// Tiles are numbered in the order blocks start, so a tile waits in the
  /// look-back only for tiles already running.
  __device__ __forceinline__ std::uint64_t take_tile() {
    if (threadIdx.x == 0) s.tile_id = atomicAdd(p.ticket, 1u);
    __syncthreads();
    return s.tile_id;
  }

  /// The row's bin map and bin -> bucket table, and each bucket's first place.
  __device__ __forceinline__ void load_table(std::uint64_t row, unsigned buckets) {
    const std::uint32_t* table = p.table + row * (segment_tiers::split_row_bins / 4);
    for (int i = threadIdx.x; i < segment_tiers::split_row_bins / 4; i += Threads) s.table[i] = ld_nc(table + i);
    for (int c = threadIdx.x; c < bin_map<U>::coarse; c += Threads) s.map[c] = p.maps[row * bin_map<U>::coarse + c];
    if (threadIdx.x < buckets) s.base[threadIdx.x] = p.offsets[row * p.stride + threadIdx.x];
    __syncthreads();
  }

  __device__ __forceinline__ unsigned bucket_of(U k) const {
    const unsigned bin = bin_map<U>{s.map}(p.ordered(k));
    return (s.table[bin >> 2] >> ((bin & 3u) * 8u)) & 255u;
  }

  /// Item i of lane l in warp w is key w * 32 * Items + i * 32 + l of the
  /// tile (the order block_rank keeps stable).
  __device__ __forceinline__ static int slot(int i) {
    return int(threadIdx.x / 32) * 32 * Items + i * 32 + int(lane_id());
  }

  __device__ __forceinline__ void load_tile(std::uint64_t first, unsigned j, int m, U (&key)[Items],
                                            P (&val)[has_values ? Items : 1]) const {
#pragma unroll
    for (int i = 0; i < Items; ++i) {
      const int q = slot(i);
      if (q < m) {
        key[i] = ld_nc(p.keys + first + q);
        if constexpr (has_values)
          val[i] = p.values ? ld_nc(p.values + first + q) : index_value<P>(std::uint64_t(j) * tile + q);
      }
    }
  }

  /// Stable ranking by bucket; each bucket's count is published as soon as it
  /// is known (the first tile of a row publishes it as its prefix). Returns
  /// thread d's bucket count.
  __device__ __forceinline__ unsigned rank_tile(const unsigned (&bucket)[Items], unsigned (&rank)[Items], int buckets,
                                                std::uint64_t t, unsigned j) {
    rank_t::clear(s.rank, buckets);
    __syncthreads();
    rank_t::rank_warp(bucket, rank, s.rank, 0, true);
    __syncthreads();
    unsigned* mine = p.status + t * (p.stride - 1);
    return rank_t::scan_digits(s.rank, buckets, [&](unsigned c) {
      atomicExch(mine + threadIdx.x, (j == 0 ? prefix : aggregate) | c);
    });  // ends synchronised
  }

  /// Thread d: the keys of bucket d in the row's earlier tiles (summing
  /// their published counts back to one that carries its prefix), then this
  /// tile's prefix published and the bucket's place in the alternates moved
  /// past them.
  __device__ __forceinline__ void look_back(std::uint64_t t, unsigned j, unsigned buckets, unsigned count) {
    const unsigned d = threadIdx.x;
    if (d < buckets) {
      unsigned before = 0;
      if (j > 0) {
        // Up to lookback_batch earlier tiles read at once (one memory round
        // trip for several steps back), nearest first; an unpublished one is
        // read again from there. Relaxed loads: a tile's word is its whole
        // message (no data of that tile is read after it), and an acquire
        // load invalidates the SM's L1 (the other blocks' bucket tables).
        const unsigned stride = p.stride - 1;
        const unsigned* mine = p.status + d;
        std::uint64_t k = t;  // the tiles before k are still to sum
        const std::uint64_t row_first = t - j;
        for (bool done = false; !done;) {
          unsigned v[lookback_batch];
#pragma unroll
          for (int i = 0; i < lookback_batch; ++i)
            v[i] = k > row_first + i ? ld_relaxed(mine + (k - 1 - i) * stride) : 0u;
#pragma unroll
          for (int i = 0; i < lookback_batch; ++i) {
            if (done || v[i] == 0) break;
            before += v[i] & count_mask;
            done = (v[i] & prefix) != 0;
            k = done ? k : k - 1;
          }
        }
        atomicExch(p.status + t * stride + d, prefix | (before + count));
      }
      s.base[d] += before;
    }
    __syncthreads();
  }

  /// (The buckets are found again from the keys: cheaper than holding them
  /// in registers through the look-back. Each is staged beside its key for
  /// the write: a byte's load instead of the key's map and table lookups.)
  __device__ __forceinline__ void stage_tile(const U (&key)[Items], const P (&val)[has_values ? Items : 1],
                                             const unsigned (&rank)[Items], int m) {
#pragma unroll
    for (int i = 0; i < Items; ++i) {
      if (slot(i) >= m) continue;
      const unsigned d = bucket_of(key[i]), at = rank_t::local_position(s.rank, d, rank[i]);
      s.keys[at] = key[i];
      s.bucket[at] = std::uint8_t(d);
      if constexpr (has_values) s.vals[at] = val[i];
    }
    __syncthreads();
  }

  /// The bucket-sorted tile out: runs of a bucket land side by side.
  __device__ __forceinline__ void write_tile(int m) const {
    for (int q = threadIdx.x; q < m; q += Threads) {
      const U k = s.keys[q];
      const unsigned d = s.bucket[q];
      const std::uint64_t to = s.base[d] + unsigned(q) - s.rank.digit_start[d];
      p.key_alt[to] = k;
      if constexpr (has_values) p.value_alt[to] = s.vals[q];
    }
  }
};

}  // namespace radix::cuda_detail
