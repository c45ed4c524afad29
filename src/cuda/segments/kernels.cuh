// The segmented sort's kernels: binning by length, the lane-group route for
// tiny segments (uniform rows: row_network.cuh), the warp route (warp_lsd_agent) for short ones, the block
// routes (Onesweep's single-tile agent or block sort, one segment per block
// at a time) and the long route (block_lsd_agent).
#pragma once
#include <cstdint>
#include <type_traits>

#include "../common/common.cuh"
#include "../onesweep/bin_sort_agent.cuh"
#include "../onesweep/block_sort_agent.cuh"
#include "../onesweep/single_tile_agent.cuh"
#include "block_lsd_agent.cuh"
#include "params.cuh"
#include "row_network.cuh"
#include "split_agent.cuh"
#include "sweep.cuh"
#include "warp_lsd_agent.cuh"
#include "segments.hpp"

namespace radix::cuda_detail {

/// The lists of block-sized segments (segment ids), by length: up to the
/// small tile; the mid shape's, below and from mid_sort_min (the block
/// sort); the large shape's, below and from large_sort_min.
enum block_list : int { small_list, mid_list, mid_sort_list, large_list, large_sort_list, block_lists };
/// segment_bins::counts: the length of each block list, then these.
constexpr int long_count = block_lists, huge_count = block_lists + 1, long_ticket = block_lists + 2,
              warp_count = block_lists + 3, crowded_count = block_lists + 4, split_ticket = block_lists + 5,
              split_crowded_count = block_lists + 6, split_left_count = block_lists + 7, sweep_count = block_lists + 8,
              bin_counters = block_lists + 9;

/// What the binning kernel fills: the short segments (one warp each), the
/// block-sized ones of each list, the long ones (one block each, in global
/// memory) and the huge ones (Onesweep). counts[] is zeroed before it runs.
struct segment_bins {
  unsigned* counts = nullptr;
  std::uint32_t* warp = nullptr;     ///< segment ids of length in (tiny, warp_max]
  std::uint64_t warp_max = 0;        ///< 0: no warp route
  std::uint32_t* block[block_lists] = {};  ///< segment ids of length above warp_max (or tiny) up to block_max, by block_list
  std::uint64_t block_max = segment_tiers::large_tile;  ///< the longest a block route takes on this device
  segment_range* longer = nullptr;   ///< bounds of the segments in (block_max, huge_min], but the sweep's
  segment_range* sweep = nullptr;    ///< bounds of the segments in (sweep_min, huge_min] (nullptr: no sweep route)
  std::uint64_t sweep_min = 0;
  segment_range* huge = nullptr;     ///< bounds of the segments above huge_min
  std::uint64_t huge_min = 0;
};

/// One thread per segment: appends it to the list of its route. The order
/// within a list varies from run to run; each segment is sorted alone, so
/// the result does not. (Internal linkage: each key width's file has a copy.)
static __global__ void __launch_bounds__(256) bin_segments_kernel(const segment_reader r, const segment_bins bins) {
  using T = segment_tiers;
  const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
  for (std::uint64_t s = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; s < r.count; s += stride) {
    const std::uint64_t b = r.begin(s), e = r.begin(s + 1), len = e - b;
    if (len <= T::tiny) continue;
    if (len <= bins.warp_max) {
      bins.warp[atomicAdd(&bins.counts[warp_count], 1u)] = std::uint32_t(s);
      continue;
    }
    const int c = len > bins.block_max ? block_lists
                  : len <= T::small_tile ? small_list
                  : len <= T::mid_tile ? (len >= T::mid_sort_min ? mid_sort_list : mid_list)
                  : len <= T::large_tile ? (len >= T::large_sort_min ? large_sort_list : large_list)
                                         : block_lists;
    if (c < block_lists) bins.block[c][atomicAdd(&bins.counts[c], 1u)] = std::uint32_t(s);
    else if (len > bins.huge_min) bins.huge[atomicAdd(&bins.counts[huge_count], 1u)] = segment_range{b, e};
    else if (bins.sweep && len > bins.sweep_min) bins.sweep[atomicAdd(&bins.counts[sweep_count], 1u)] = segment_range{b, e};
    else bins.longer[atomicAdd(&bins.counts[long_count], 1u)] = segment_range{b, e};
  }
}

/// __shfl_sync of any unsigned key width.
template <class U>
__device__ __forceinline__ U shuffle(U x, int lane, int width) {
  if constexpr (sizeof(U) == 8) return U(__shfl_sync(0xFFFFFFFFu, (unsigned long long)x, lane, width));
  else return U(__shfl_sync(0xFFFFFFFFu, unsigned(x), lane, width));
}

/// Tiny segments: a group of G lanes (G a power of two, at most 32) sorts a
/// segment of at most G keys in registers, one segment a group at a time (a
/// version loading four groups' segments before ranking them measured
/// slower, and so did one thread a row with a sorting network: its loads do
/// not coalesce). Lane i's place is the number of
/// keys that order before its key, ties broken by position (stable), found
/// with G shuffles; then every lane writes its key (and value) there.
/// Segments longer than G are left to the other routes. Every lane of a warp
/// runs the same iterations (the shuffles need the whole warp).
template <class U, class V, int G>
__global__ void __launch_bounds__(256) tiny_segments_kernel(const segment_params<U, V> p, const segment_reader r) {
  static_assert(G >= 1 && G <= 32 && (G & (G - 1)) == 0, "a power-of-two group of lanes");
  constexpr bool has_values = !std::is_same_v<V, no_value>;
  constexpr std::uint64_t per_warp = 32 / G;
  const unsigned lane = threadIdx.x & 31u, member = lane % G;
  const std::uint64_t warp = (std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const std::uint64_t stride = std::uint64_t(gridDim.x) * (blockDim.x / 32) * per_warp;
  for (std::uint64_t first = warp * per_warp; first < r.count; first += stride) {
    const std::uint64_t s = first + lane / G;
    std::uint64_t b = 0, len = 0;
    if (s < r.count) b = r.begin(s), len = r.begin(s + 1) - b;
    const bool ours = len >= 1 && len <= std::uint64_t(G);
    const bool mine = ours && member < len;
    U k = 0, o = U(~U(0));
    V v{};
    if (mine) {
      k = p.keys[b + member];
      o = U(p.codec(k) & p.range_mask);
      if constexpr (has_values)
        if (p.mode == sort_mode::pairs) v = p.values[b + member];
    }
    unsigned place = 0;
#pragma unroll
    for (int j = 0; j < G; ++j) {
      const U oj = shuffle(o, j, G);
      // (lanes past the segment's end hold the largest key at later
      // positions: they never order before a key of the segment)
      place += unsigned(oj < o || (oj == o && unsigned(j) < member));
    }
    if (!mine) continue;
    if (p.mode != sort_mode::argsort) p.keys[b + place] = k;
    else if (p.sorted_keys) p.sorted_keys[b + place] = k;
    if constexpr (has_values) {
      if (p.mode == sort_mode::pairs) p.values[b + place] = v;
      else p.values[b + place] = index_value<V>(member);
    }
  }
}

/// Block-sized segments: each block sorts one segment at a time in shared
/// memory (the single-tile agent: the segment's passes in shared memory,
/// one read and one write of the data), taking the segments of a list, or
/// every segment when `list` is null (uniform segments of one route).
template <class U, class V, int Threads, int Items>
__global__ void __launch_bounds__(Threads) block_segments_kernel(const onesweep_params<U, V> base,
                                                                 const pass_list passes, const segment_reader r,
                                                                 const std::uint32_t* list, const unsigned* list_count) {
  extern __shared__ __align__(16) unsigned char smem[];
  const std::uint64_t total = list ? *list_count : r.count;
  for (std::uint64_t i = blockIdx.x; i < total; i += gridDim.x) {
    const std::uint64_t s = list ? list[i] : i;
    const std::uint64_t b = r.begin(s), len = r.begin(s + 1) - b;
    if (len < 2) {  // (uniform segments of length 1 come here only as argsort's zeros)
      if constexpr (!std::is_same_v<V, no_value>)
        if (len == 1 && base.mode == sort_mode::argsort && threadIdx.x == 0) {
          base.values[b] = V(0);
          if (base.sorted_keys) base.sorted_keys[b] = base.keys[b];
        }
      continue;
    }
    onesweep_params<U, V> p = base;
    p.keys = base.keys + b;
    if (base.sorted_keys) p.sorted_keys = base.sorted_keys + b;
    if constexpr (!std::is_same_v<V, no_value>) p.values = base.values + b;
    p.n = len;
    __syncthreads();  // the previous segment is done with the shared memory
    single_tile_agent<U, V, Threads, Items>{p, passes, smem}.process();
  }
}

/// Segments of more than 12 keys a thread of the mid and large shapes
/// (segment_tiers::mid_sort_min, large_sort_min): each block sorts one
/// segment at a time with the block sort (thread-private digit counters,
/// 6-bit digits over the bits in which the segment's keys differ;
/// onesweep/block_sort_agent.cuh), which issues fewer instructions a key than
/// the single-tile agent's warp ranking there. Threads: 256 up to 4096 keys
/// (two blocks an SM by registers), 512 above (one).
template <class U, class V, int Threads>
__global__ void __launch_bounds__(Threads, block_sort_agent<U, V>::max_threads / Threads)
    block_sort_segments_kernel(const onesweep_params<U, V> base, const segment_reader r, const std::uint32_t* list,
                               const unsigned* list_count) {
  extern __shared__ __align__(16) unsigned char smem[];
  const std::uint64_t total = list ? *list_count : r.count;
  for (std::uint64_t i = blockIdx.x; i < total; i += gridDim.x) {
    const std::uint64_t s = list ? list[i] : i;
    const std::uint64_t b = r.begin(s), len = r.begin(s + 1) - b;
    onesweep_params<U, V> p = base;
    p.keys = base.keys + b;
    if (base.sorted_keys) p.sorted_keys = base.sorted_keys + b;
    if constexpr (!std::is_same_v<V, no_value>) p.values = base.values + b;
    p.n = len;
    __syncthreads();  // the previous segment is done with the shared memory
    block_sort_agent<U, V>{p, block_sort_io<U, V>::whole(p), smem}.process();
  }
}

/// Uniform rows of a few thousand keys (onesweep_tuning::bin_sort_min and up):
/// each block sorts one row at a time by counting its keys into bins of
/// their span (bin_sort_agent: one step instead of a pass a digit), loading
/// its next row's keys while it writes the row before. Blocks an SM: five
/// for rows of up to 1024 keys (48 registers; a short row's barriers leave
/// an SM idle unless many blocks take turns), three for the larger
/// 256-thread shapes (80 registers, no spills). A row
/// with a crowded bin is left as it was and appended to the list of rows for
/// another route: its id to `crowded`, or where that is null (rows the long
/// route takes) its bounds to `crowded_ranges`.
template <class U, class V, int Threads, int Capacity, int BinBits>
__global__ void __launch_bounds__(Threads, Threads == 256 ? (Capacity <= 1024 ? 5 : 3) : 1)
    bin_sort_segments_kernel(const onesweep_params<U, V> base, const segment_reader r, std::uint32_t* crowded,
                             segment_range* crowded_ranges, unsigned* crowded_count) {
  using agent = bin_sort_agent<U, V, Threads, Capacity, BinBits>;
  extern __shared__ __align__(16) unsigned char smem[];
  __shared__ typename agent::storage st;
  const auto row = [&](std::uint64_t i) {  // row i's inputs and outputs (n = 0 past the last row)
    if (i >= r.count) return block_sort_io<U, V>{};
    const std::uint64_t b = r.begin(i);
    onesweep_params<U, V> p = base;
    p.keys = base.keys + b;
    if (base.sorted_keys) p.sorted_keys = base.sorted_keys + b;
    if constexpr (!std::is_same_v<V, no_value>) p.values = base.values + b;
    p.n = r.begin(i + 1) - b;
    return block_sort_io<U, V>::whole(p);
  };
  agent a{base.codec, base.range_mask, smem, st};
  U keys[agent::items];  // the input's keys, loaded while the block wrote the one before
  block_sort_io<U, V> io = row(blockIdx.x);
  a.load_keys(io, keys);
  for (std::uint64_t i = blockIdx.x; i < r.count; i += gridDim.x) {
    const block_sort_io<U, V> next = row(i + gridDim.x);
    __syncthreads();  // the previous row is done with the shared memory
    if (!a.process(io, keys, next) && threadIdx.x == 0) {
      const unsigned at = atomicAdd(crowded_count, 1u);
      const std::uint64_t b = r.begin(i);
      if (crowded) crowded[at] = std::uint32_t(i);
      else crowded_ranges[at] = segment_range{b, b + std::uint64_t(io.n)};
    }
    io = next;
  }
}

/// Short segments: each warp sorts one segment at a time in its own slice of
/// shared memory (warp_lsd_agent), taking the segments of a list, or every
/// segment when `list` is null (uniform segments of one route). `capacity`:
/// the longest segment a slice holds (a multiple of 32).
template <class U, class V>
__global__ void __launch_bounds__(128) warp_segments_kernel(const segment_params<U, V> p, const pass_list passes,
                                                            const segment_reader r, const std::uint32_t* list,
                                                            const unsigned* list_count, unsigned capacity) {
  using agent = warp_lsd_agent<U, V>;
  extern __shared__ __align__(16) unsigned char smem[];
  const typename agent::slice_layout at(capacity, p.mode);
  const unsigned warp = threadIdx.x / 32, warps = blockDim.x / 32;
  unsigned char* slice = smem + warp * at.bytes;
  const std::uint64_t total = list ? *list_count : r.count;
  for (std::uint64_t i = std::uint64_t(blockIdx.x) * warps + warp; i < total; i += std::uint64_t(gridDim.x) * warps) {
    const std::uint64_t s = list ? list[i] : i;
    const std::uint64_t b = r.begin(s), len = r.begin(s + 1) - b;
    if (len < 2) {  // (uniform segments of length 1 come here only as argsort's zeros)
      if constexpr (!std::is_same_v<V, no_value>)
        if (len == 1 && p.mode == sort_mode::argsort && lane_id() == 0) {
          p.values[b] = V(0);
          if (p.sorted_keys) p.sorted_keys[b] = p.keys[b];
        }
      continue;
    }
    V* values = nullptr;
    if constexpr (!std::is_same_v<V, no_value>) values = p.values + b;
    agent{p.keys + b, values, p.sorted_keys ? p.sorted_keys + b : nullptr, unsigned(len), p.mode, p.codec,
          p.range_mask, passes, slice, at}
        .process();
  }
}

/// Long segments: each block takes the next segment (a global ticket, so
/// that blocks finishing early take more) and sorts it alone in global
/// memory (block_lsd_agent), between the caller's buffers and the
/// alternates at the same offsets. Segments come from a list of bounds, or
/// are every segment when `list` is null (uniform ones). MinBlocks: 1, or
/// 2 where segment_tiers::lsd_pair_blocks.
template <class U, class V, int Threads, int Items, int MinBlocks>
__global__ void __launch_bounds__(Threads, MinBlocks) lsd_segments_kernel(const segment_params<U, V> p, const pass_list passes,
                                                               const segment_reader r, const segment_range* list,
                                                               const unsigned* list_count, unsigned* ticket,
                                                               U* key_alt0, U* key_alt1, V* value_alt) {
  using agent = block_lsd_agent<U, V, Threads, Items>;
  extern __shared__ __align__(16) unsigned char smem[];
  auto& st = *reinterpret_cast<typename agent::storage*>(smem);
  __shared__ unsigned next;
  const std::uint64_t total = list ? *list_count : r.count;
  for (;;) {
    __syncthreads();  // the previous segment is done with the shared memory
    if (threadIdx.x == 0) next = atomicAdd(ticket, 1u);
    __syncthreads();
    if (next >= total) return;
    const segment_range g = list ? list[next] : segment_range{r.begin(next), r.begin(next + 1)};
    lsd_segment<U, V> seg;
    seg.keys = p.keys + g.begin;
    seg.values = nullptr;
    if constexpr (!std::is_same_v<V, no_value>) seg.values = p.values + g.begin;
    seg.key_alt[0] = key_alt0 + g.begin;
    seg.key_alt[1] = key_alt1 ? key_alt1 + g.begin : nullptr;
    seg.value_alt = nullptr;
    if constexpr (!std::is_same_v<V, no_value>) seg.value_alt = value_alt + g.begin;
    seg.sorted_keys = p.sorted_keys ? p.sorted_keys + g.begin : nullptr;
    seg.n = g.end - g.begin;
    agent{p.mode, p.codec, p.range_mask, passes, st}.process(seg);
  }
}

/// The split route's survey (split_agent.cuh): one block a row.
template <class U, class P>
__global__ void __launch_bounds__(segment_tiers::split_survey_threads) split_survey_kernel(const split_params<U, P> p) {
  using survey = split_survey<U, P, segment_tiers::split_survey_threads>;
  __shared__ typename survey::storage st;
  for (std::uint64_t row = blockIdx.x; row < p.rows; row += gridDim.x) {
    __syncthreads();  // the previous row is done with the shared memory
    survey{p, st}.survey(row);
  }
}

/// The split route's MSD step: one tile a block (split_agent).
template <class U, class P>
__global__ void __launch_bounds__(segment_tiers::split_threads,
                                  split_agent<U, P, segment_tiers::split_threads, segment_tiers::split_items>::min_blocks)
    split_kernel(const split_params<U, P> p) {
  using agent = split_agent<U, P, segment_tiers::split_threads, segment_tiers::split_items>;
  extern __shared__ __align__(16) unsigned char smem[];
  agent{p, *reinterpret_cast<typename agent::storage*>(smem)}.process();
}

/// Where the split route's buckets go sorted: the keys (nullptr: an argsort
/// that does not want them), the values or argsort's 4-byte positions, or
/// its 8-byte positions (`wide`, instead of `values`).
template <class U, class P>
struct split_outputs {
  U* keys = nullptr;
  P* values = nullptr;
  std::uint64_t* wide = nullptr;
};

/// Bucket `first`.. of n keys: from the alternates into the outputs.
template <class U, class P>
__device__ __forceinline__ block_sort_io<U, P> split_bucket_io(const split_params<U, P>& p, const split_outputs<U, P>& out,
                                                              std::uint64_t first, int n) {
  block_sort_io<U, P> io;
  io.kin = p.key_alt + first;
  io.kout = out.keys ? out.keys + first : nullptr;
  io.n = n;
  if constexpr (!std::is_same_v<P, no_value>) {
    io.vin = p.value_alt + first;
    io.vout = out.values ? out.values + first : nullptr;
    io.vwide = out.wide ? out.wide + first : nullptr;
  }
  return io;
}

/// The split route's buckets: the bin sort, one bucket a block at a time (the
/// next bucket's keys loaded while the one before is written); a
/// bucket with a crowded bin is left to split_crowded_kernel (its segment id
/// appended to `crowded`).
template <class U, class P>
__global__ void __launch_bounds__(segment_tiers::split_bucket_threads, std::is_same_v<P, no_value> ? 4 : 3)
    split_buckets_kernel(const split_params<U, P> p, const split_outputs<U, P> out, std::uint32_t* crowded,
                         unsigned* crowded_count) {
  using T = segment_tiers;
  using agent = bin_sort_agent<U, P, T::split_bucket_threads, int(T::split_bucket_keys), T::split_bucket_bin_bits>;
  extern __shared__ __align__(16) unsigned char smem[];
  __shared__ typename agent::storage st;
  const std::uint64_t total = p.rows * p.stride;
  // This block's buckets from s on: past a row's buckets (or a row left to the long route) and empty ones skipped.
  const auto bucket_from = [&](std::uint64_t s) {
    for (; s < total; s += gridDim.x)
      if (unsigned(s % p.stride) < p.row[s / p.stride].buckets && p.offsets[s + 1] > p.offsets[s]) break;
    return s;
  };
  const auto bucket = [&](std::uint64_t s) {  // (n = 0 past the last)
    if (s >= total) return block_sort_io<U, P>{};
    return split_bucket_io(p, out, p.offsets[s], int(p.offsets[s + 1] - p.offsets[s]));
  };
  agent a{p.codec, p.range_mask, smem, st};
  U keys[agent::items];  // the input's keys, loaded while the block wrote the one before
  std::uint64_t s = bucket_from(blockIdx.x);
  block_sort_io<U, P> io = bucket(s);
  a.load_keys(io, keys);
  while (s < total) {
    const std::uint64_t s_next = bucket_from(s + gridDim.x);
    const block_sort_io<U, P> next = bucket(s_next);
    __syncthreads();  // the previous bucket is done with the shared memory
    if (!a.process(io, keys, next) && threadIdx.x == 0) crowded[atomicAdd(crowded_count, 1u)] = std::uint32_t(s);
    s = s_next;
    io = next;
  }
}

/// The buckets the bin sort left (a crowded bin: runs of equal keys): the
/// block sort, which takes any keys.
template <class U, class P>
__global__ void __launch_bounds__(segment_tiers::split_bucket_threads,
                                  block_sort_agent<U, P>::max_threads / segment_tiers::split_bucket_threads)
    split_crowded_kernel(const split_params<U, P> p, const split_outputs<U, P> out, const std::uint32_t* crowded,
                         const unsigned* crowded_count) {
  extern __shared__ __align__(16) unsigned char smem[];
  onesweep_params<U, P> codec;  // (the block sort reads the codec and the bit range from it)
  codec.codec = p.codec;
  codec.range_mask = p.range_mask;
  const unsigned total = *crowded_count;
  for (unsigned i = blockIdx.x; i < total; i += gridDim.x) {
    const std::uint64_t s = crowded[i], first = p.offsets[s], n = p.offsets[s + 1] - first;
    __syncthreads();  // the previous bucket is done with the shared memory
    block_sort_agent<U, P>{codec, split_bucket_io(p, out, first, int(n)), smem}.process();
  }
}

}  // namespace radix::cuda_detail
