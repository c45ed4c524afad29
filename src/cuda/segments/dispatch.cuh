// Host side of the segmented sort: workspace, routes, launches. Included by
// the per-key-width instantiation files (segments_k*.cu) only.
#pragma once
#include <algorithm>
#include <cmath>
#include <mutex>
#include <string>
#include <vector>

#include "../onesweep/onesweep.hpp"  // declarations only: its kernels live in onesweep_k*.cu
#include "kernels.cuh"
#include "segments.hpp"

namespace radix::cuda_detail {

/// The segmented sort's workspace: the bins' counters and lists (offsets
/// only), the alternates of the long route, and Onesweep's workspace where
/// a huge segment can reach it (keys and pairs share the long route's
/// alternates with it).
struct segmented_workspace {
  core::workspace_layout layout{device_alignment};
  int counts = -1, warp = -1, block[block_lists] = {-1, -1, -1, -1, -1}, longer = -1, huge = -1;
  int key_alt[2] = {-1, -1}, value_alt = -1, onesweep = -1;
  int crowded = -1;  ///< uniform rows of the bin route: those it left (ids for a block route, bounds for the long one)
  /// The split route's rows, bin maps, bucket tables, bucket bounds,
  /// look-back words, crowded buckets and rows left to the long route.
  int split_rows = -1, split_maps = -1, split_table = -1, split_offsets = -1, split_status = -1, split_crowded = -1,
      split_left = -1;
  /// The sweep route's segments, their first tiles, the tile table, the
  /// digit counters, its own control words, Onesweep's control and ring.
  int sweep_list = -1, sweep_first = -1, sweep_table = -1, sweep_starts = -1, sweep_control = -1, sweep_onesweep = -1,
      sweep_ring = -1;
};

/// SMs of the current device (the long and huge routes' split).
inline unsigned sm_count() {
  int dev = 0, sms = 0;
  RADIX_CUDA_CHECK(cudaGetDevice(&dev));
  RADIX_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  return unsigned(std::max(1, sms));
}

/// Offsets: segments longer than this go to Onesweep (when not captured).
inline std::uint64_t huge_min(std::uint64_t n) {
  return std::max<std::uint64_t>(segment_tiers::large_tile, std::min<std::uint64_t>(n / sm_count(), 0xFFFFFFFFull));
}

/// Whether this device's shared memory holds a block route's kernel
/// (launch_block_route): the single-tile agent, or the block sort where the
/// shape has one.
template <class U, class V, int Threads, int Items>
bool block_route_fits() {
  using sorter = block_sort_agent<U, V>;
  const std::size_t most = current_device_limits().shared_optin;
  if (single_tile_agent<U, V, Threads, Items>::smem_bytes <= most) return true;
  if constexpr (Items == sorter::items && (Threads == 256 || Threads == 512)) return sorter::smem_bytes(Threads) <= most;
  return false;
}

/// The longest segment the block routes take on this device; longer ones
/// take the long route. sm_90 and sm_100 hold the large shape for every key
/// and value width; 163 KiB (A100) not for 8-byte keys with values, 99 KiB
/// (sm_86, sm_89, sm_120) not for 4-byte keys with values nor 8-byte keys:
/// those stop at the mid shape, which every device from sm_80 holds.
template <class U, class V>
std::uint64_t block_route_longest() {
  using T = segment_tiers;
  if (block_route_fits<U, V, T::large_threads, T::large_items>()) return T::large_tile;
  if (block_route_fits<U, V, T::mid_threads, T::mid_items>()) return T::mid_tile;
  return T::small_tile;
}

/// Whether this device holds Onesweep's tile for one segment of n keys (the
/// huge segments' route); where it does not, the long route takes them.
template <class U, class V>
bool onesweep_fits_segment(std::uint64_t n, const onesweep_tuning& t) {
  return onesweep_shared_bytes<U, V>(n, t) <= current_device_limits().shared_optin;
}

/// The longest segment the warp route takes (0: none): the tuning's limit,
/// rounded down to whole rounds of 32 keys and to a slice of at most
/// segment_tiers::warp_slice_bytes.
template <class U, class V>
unsigned warp_capacity(sort_mode mode, const onesweep_tuning& t) {
  const std::size_t most = std::min<std::size_t>(segment_tiers::warp_slice_bytes, current_device_limits().shared_optin);
  unsigned cap = unsigned(std::min<std::uint64_t>(t.segment_warp_max, 65536)) / 32 * 32;
  while (cap > segment_tiers::tiny && typename warp_lsd_agent<U, V>::slice_layout(cap, mode).bytes > most) cap -= 32;
  return cap > segment_tiers::tiny ? cap : 0;
}

/// The bin route's shape for rows of L keys (segment_tiers::bin_longest):
/// calls f with the agent's (threads, capacity, bin bits) as template arguments.
template <class F>
decltype(auto) with_bin_shape(std::uint64_t L, F&& f) {
  if (L <= 1024) return f.template operator()<256, 1024, 11>();
  if (L <= 4096) return f.template operator()<256, 4096, 12>();
  if (L <= 8192) return f.template operator()<512, 8192, 12>();
  return f.template operator()<512, 16384, 13>();
}

/// Whether a block's shared memory on this device holds the bin route's
/// shape for rows of L <= bin_longest keys (and their values, for pairs).
template <class U, class V>
bool bin_shape_fits(sort_mode mode, std::uint64_t L) {
  const std::size_t bytes = with_bin_shape(L, [&]<int Threads, int Capacity, int BinBits>() {
    using agent = bin_sort_agent<U, V, Threads, Capacity, BinBits>;
    return agent::smem_bytes(mode == sort_mode::pairs) + sizeof(typename agent::storage);
  });
  return bytes <= current_device_limits().shared_optin;
}

/// Whether uniform rows of L keys take the bin route (launch_bin_route).
template <class U, class V>
bool use_bin_route(sort_mode mode, std::uint64_t L, const onesweep_tuning& t) {
  using T = segment_tiers;
  if constexpr (!T::bin_sort_keys(sizeof(U))) {
    return false;
  } else {
    if (!t.bin_sort || L < std::max<std::uint64_t>(t.bin_sort_min, 2) || L > T::bin_longest) return false;
    return bin_shape_fits<U, V>(mode, L);
  }
}

/// What travels with a key through the split route: the values (pairs),
/// 4-byte positions in the row (argsort), or nothing.
template <class V>
using split_payload_t = std::conditional_t<std::is_same_v<V, no_value>, no_value, V>;

/// Whether uniform rows take the split route (split_agent.cuh): 4- and 8-byte
/// keys alone, with 4- or 8-byte values, or argsort into 4- or 8-byte
/// positions; rows above the bin route's longest up to split_longest, and
/// rows above the long route's shortest (segment_tiers::large_tile: the
/// split route moves keys through its alternates) whose bin route shape a
/// block's shared memory does not hold (8-byte keys, pairs); at least as
/// many rows as SMs (fewer: Onesweep a row); the kernels' shared memory on
/// this device.
template <class U, class V>
bool use_split_route(sort_mode mode, const segments& segs, const onesweep_tuning& t) {
  using T = segment_tiers;
  constexpr bool wide_enough = sizeof(U) == 4 || sizeof(U) == 8;
  constexpr bool keys_alone = std::is_same_v<V, no_value>;
  constexpr bool word_values = std::is_same_v<V, std::uint32_t> || std::is_same_v<V, std::uint64_t>;
  if constexpr (!wide_enough || !(keys_alone || word_values)) {
    return false;
  } else {
    if (!t.split_rows || segs.layout != segment_layout::uniform) return false;
    if (segs.length <= T::large_tile || segs.length > T::split_longest || segs.count < sm_count()) return false;
    if (segs.length <= T::bin_longest && bin_shape_fits<U, V>(mode, segs.length)) return false;
    if (keys_alone != (mode == sort_mode::keys)) return false;
    const auto fits = [&]<class P>() {
      using agent = split_agent<U, P, T::split_threads, T::split_items>;
      using bins = bin_sort_agent<U, P, T::split_bucket_threads, int(T::split_bucket_keys), T::split_bucket_bin_bits>;
      const std::size_t most = current_device_limits().shared_optin;
      return sizeof(typename agent::storage) <= most && bins::smem_bytes(true) + sizeof(typename bins::storage) <= most &&
             block_sort_agent<U, P>::smem_bytes(T::split_bucket_threads) <= most;
    };
    if constexpr (keys_alone) return fits.template operator()<no_value>();
    else return mode == sort_mode::argsort ? fits.template operator()<std::uint32_t>() : fits.template operator()<V>();
  }
}

/// Segments longer than this may take the sweep route (0: none).
inline std::uint64_t sweep_min_of(const onesweep_tuning& t) {
  return t.segment_sweep_min == 0 ? 0 : std::max<std::uint64_t>(t.segment_sweep_min, segment_tiers::large_tile);
}

/// The most segments the sweep route can list, and the most tiles they hold.
template <class U, class V>
std::uint64_t sweep_list_max(std::uint64_t n, const segments& segs, const onesweep_tuning& t) {
  return std::min<std::uint64_t>(segs.count, n / (sweep_min_of(t) + 1));
}
template <class U, class V>
std::uint64_t sweep_tiles_max(std::uint64_t n, const segments& segs, const onesweep_tuning& t) {
  return n / std::uint64_t(sweep_shape<U, V>::value.tile()) + sweep_list_max<U, V>(n, segs, t);
}

/// The key and value types the sweep route's kernels are compiled for.
template <class U, class V>
constexpr bool sweep_compiled = (sizeof(U) == 4 || sizeof(U) == 8) &&
                                (std::is_same_v<V, no_value> || std::is_same_v<V, std::uint32_t> ||
                                 std::is_same_v<V, std::uint64_t>);
/// Whether segments longer than sweep_min_of(t) take the sweep route
/// (sweep.cuh): 4- and 8-byte keys alone, with 4- or 8-byte values, or
/// argsort into 4- or 8-byte positions; where the device holds the scatter
/// kernel's shared memory and the ring's tickets do not wrap. Offsets: those
/// up to n / SMs. Uniform rows: those the long route would take (at least as
/// many rows as SMs, none of the bin and split routes).
template <class U, class V>
bool use_sweep_route(sort_mode mode, std::uint64_t n, const segments& segs, const onesweep_tuning& t) {
  constexpr bool keys_alone = std::is_same_v<V, no_value>;
  if constexpr (!sweep_compiled<U, V>) {
    return false;
  } else {
    if (sweep_min_of(t) == 0 || n <= sweep_min_of(t)) return false;
    if (keys_alone != (mode == sort_mode::keys)) return false;
    if (segs.layout == segment_layout::uniform &&
        (segs.length <= sweep_min_of(t) || segs.count < sm_count() || use_split_route<U, V>(mode, segs, t) ||
         use_bin_route<U, V>(mode, segs.length, t)))
      return false;
    using agent = scatter_agent<U, V, sweep_shape<U, V>, scatter_forms::floats, segment_tiles>;
    if (agent::smem_bytes > current_device_limits().shared_optin) return false;
    return sweep_tiles_max<U, V>(n, segs, t) * sizeof(U) < (std::uint64_t(1) << 31);  // tickets of 8-bit digits' passes
  }
}

template <class U, class V>
bool segmented_splits_rows(sort_mode mode, const segments& segs, const onesweep_tuning& t) {
  if constexpr (!onesweep_compiled<U, V>()) return false;
  else return use_split_route<U, V>(mode, segs, t);
}

template <class U, class V>
segmented_workspace segmented_layout(sort_mode mode, std::uint64_t n, const segments& segs, const onesweep_tuning& t) {
  segmented_workspace w;
  using T = segment_tiers;
  const bool uniform = segs.layout == segment_layout::uniform;
  const std::uint64_t count = segs.count;
  const std::uint64_t block_max = block_route_longest<U, V>();
  w.counts = w.layout.add("counters", bin_counters * sizeof(unsigned));
  if (!uniform) {
    if (warp_capacity<U, V>(mode, t) > 0)
      w.warp = w.layout.add("short segments", std::min(count, n / (T::tiny + 1)) * 4);
    w.block[small_list] = w.layout.add("small segments", std::min(count, n / (T::tiny + 1)) * 4);
    w.block[mid_list] = w.layout.add("mid segments", std::min(count, n / (T::small_tile + 1)) * 4);
    w.block[mid_sort_list] = w.layout.add("mid segments, block sort", std::min(count, n / T::mid_sort_min) * 4);
    w.block[large_list] = w.layout.add("large segments", std::min(count, n / (T::mid_tile + 1)) * 4);
    w.block[large_sort_list] = w.layout.add("large segments, block sort", std::min(count, n / T::large_sort_min) * 4);
    w.longer = w.layout.add("long segments", std::min(count, n / (block_max + 1)) * sizeof(segment_range));
    w.huge = w.layout.add("huge segments", std::min(count, n / (block_max + 1)) * sizeof(segment_range));
  }
  if (uniform && use_bin_route<U, V>(mode, segs.length, t))
    w.crowded = w.layout.add("crowded rows", count * (segs.length > block_max ? sizeof(segment_range) : 4));
  if (use_split_route<U, V>(mode, segs, t)) {
    const std::uint64_t L = segs.length, buckets = T::split_buckets_max(L);
    const std::uint64_t tiles = count * ((L + T::split_tile - 1) / T::split_tile);
    w.split_rows = w.layout.add("split rows", count * sizeof(split_row));
    w.split_maps = w.layout.add("split bin maps", count * bin_map<U>::coarse * sizeof(typename bin_map<U>::entry));
    w.split_table = w.layout.add("split bucket tables", count * T::split_row_bins);
    w.split_offsets = w.layout.add("split bucket bounds", (count * (buckets + 1) + 1) * sizeof(std::uint64_t));
    w.split_status = w.layout.add("split look-back", tiles * buckets * sizeof(unsigned));
    w.split_crowded = w.layout.add("split crowded buckets", count * buckets * sizeof(std::uint32_t));
    w.split_left = w.layout.add("split rows left", count * sizeof(segment_range));
  }
  if (use_sweep_route<U, V>(mode, n, segs, t)) {
    const std::uint64_t most = sweep_list_max<U, V>(n, segs, t);
    w.sweep_list = w.layout.add("sweep segments", most * sizeof(segment_range));
    w.sweep_first = w.layout.add("sweep first tiles", most * sizeof(std::uint32_t));
    w.sweep_table = w.layout.add("sweep tiles", sweep_tiles_max<U, V>(n, segs, t) * sizeof(sweep_tile));
    // (the most bins of any digit width: 8-bit digits, 256 a key byte)
    w.sweep_starts = w.layout.add("sweep digit counters", most * sizeof(U) * radix_size * sizeof(std::uint32_t));
    w.sweep_control = w.layout.add("sweep control", sizeof(sweep_control));
    w.sweep_onesweep = w.layout.add("sweep onesweep control", sizeof(control));
    w.sweep_ring = w.layout.add("sweep look-back ring",
                                (std::uint64_t(1) << t.ring.log2) * radix_size * sizeof(unsigned long long));
  }
  const bool long_route = uniform ? segs.length > block_max : n > block_max;
  if (!long_route) return w;
  const std::size_t vb = std::is_same_v<V, no_value> ? 0 : sizeof(V);
  w.key_alt[0] = w.layout.add("key alternate", n * sizeof(U));
  if (mode == sort_mode::argsort) w.key_alt[1] = w.layout.add("key alternate 2", n * sizeof(U));
  if (mode != sort_mode::keys) w.value_alt = w.layout.add("value alternate", n * vb);
  const std::uint64_t longest = uniform ? segs.length : n;
  const bool huge_route = (uniform ? count < sm_count() : true) && onesweep_fits_segment<U, V>(longest, t);
  if (huge_route) {
    w.onesweep = w.layout.add("onesweep", onesweep_workspace_bytes<U, V>(mode, longest, t, mode != sort_mode::argsort));
  }
  return w;
}

template <class U, class V>
std::size_t segmented_workspace_bytes(sort_mode mode, std::uint64_t n, const segments& segs, const onesweep_tuning& t) {
  if constexpr (!onesweep_compiled<U, V>()) return 0;
  else return segmented_layout<U, V>(mode, n, segs, t).layout.total();
}

/// Raises a kernel's shared-memory limit (once per device) and returns how
/// many of its blocks the GPU holds at once.
template <auto Kernel, int Threads, std::size_t Smem>
unsigned resident_blocks() {
  struct prepared {
    cudaError_t status = cudaSuccess;
    unsigned grid = 0;
  };
  static per_device<prepared> known;
  const prepared& pr = known.get([] {
    prepared r;
    r.status = cudaFuncSetAttribute(Kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(Smem));
    int per_sm = 0;
    if (r.status == cudaSuccess) r.status = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, Kernel, Threads, Smem);
    if (r.status == cudaSuccess) r.grid = unsigned(std::max(1, per_sm)) * sm_count();
    return r;
  });
  if (pr.status != cudaSuccess) throw_cuda(pr.status, "cudaFuncSetAttribute / occupancy of a segmented-sort kernel", __FILE__, __LINE__);
  return pr.grid;
}

/// resident_blocks for a kernel launched with either of two shared-memory
/// sizes (Least, or Most where the device holds it): the limit is raised
/// once to the larger, and the grid follows the size of the launch.
template <auto Kernel, int Threads, std::size_t Least, std::size_t Most>
unsigned resident_blocks_at(std::size_t smem) {
  struct prepared {
    cudaError_t status = cudaSuccess;
    unsigned least = 0, most = 0;
  };
  static per_device<prepared> known;
  const prepared& pr = known.get([] {
    prepared r;
    const bool most_fits = Most <= current_device_limits().shared_optin;
    r.status = cudaFuncSetAttribute(Kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(most_fits ? Most : Least));
    int least = 0, most = 0;
    if (r.status == cudaSuccess) r.status = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&least, Kernel, Threads, Least);
    if (r.status == cudaSuccess && most_fits)
      r.status = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&most, Kernel, Threads, Most);
    r.least = unsigned(std::max(1, least)) * sm_count();
    r.most = unsigned(std::max(1, most)) * sm_count();
    return r;
  });
  if (pr.status != cudaSuccess) throw_cuda(pr.status, "cudaFuncSetAttribute / occupancy of a segmented-sort kernel", __FILE__, __LINE__);
  return smem > Least ? pr.most : pr.least;
}

inline void need_shared(std::size_t bytes, const char* what) {
  if (bytes > current_device_limits().shared_optin)
    throw engine_unavailable(std::string("radix: the segmented sort's ") + what + " needs " + std::to_string(bytes) +
                             " bytes of shared memory per block; this GPU offers " +
                             std::to_string(current_device_limits().shared_optin));
}

/// A block route: the single-tile agent, or where `block_sort` asks (segments
/// of more than 12 keys a thread), onesweep_tuning's block_sort allows
/// (RADIX_CUDA_BLOCK_SORT=0: not) and the device holds its shared memory,
/// the block sort (block_sort_segments_kernel).
template <class U, class V, int Threads, int Items>
void launch_block_route(const onesweep_params<U, V>& p, const pass_list& passes, const segment_reader& r,
                        const std::uint32_t* list, const unsigned* list_count, std::uint64_t most, bool block_sort,
                        const onesweep_tuning& t, cudaStream_t s) {
  using agent = single_tile_agent<U, V, Threads, Items>;
  using sorter = block_sort_agent<U, V>;
  constexpr bool block_sort_shape = Items == sorter::items && (Threads == 256 || Threads == 512);
  if constexpr (block_sort_shape) {
    // (also for the shorter segments where the device cannot hold the single-tile agent)
    const std::size_t optin = current_device_limits().shared_optin;
    const bool wanted = (block_sort && t.block_sort) || agent::smem_bytes > optin;
    if (wanted && sorter::smem_bytes(Threads) <= optin) {
      if (most == 0) return;
      constexpr auto kernel = block_sort_segments_kernel<U, V, Threads>;
      const unsigned resident = resident_blocks<kernel, Threads, sorter::smem_bytes(Threads)>();
      const unsigned grid = unsigned(std::min<std::uint64_t>(most, resident));
      kernel<<<grid, Threads, sorter::smem_bytes(Threads), s>>>(p, r, list, list_count);
      RADIX_CUDA_CHECK_LAUNCH("radix block_sort_segments_kernel");
      return;
    }
  }
  need_shared(agent::smem_bytes, "block route");
  if (most == 0) return;
  const unsigned resident =
      resident_blocks<block_segments_kernel<U, V, Threads, Items>, Threads, agent::smem_bytes>();
  const unsigned grid = unsigned(std::min<std::uint64_t>(most, resident));
  block_segments_kernel<U, V, Threads, Items><<<grid, Threads, agent::smem_bytes, s>>>(p, passes, r, list, list_count);
  RADIX_CUDA_CHECK_LAUNCH("radix block_segments_kernel");
}

/// The long route over a list of bounds (or every segment), with the
/// alternates of the workspace.
template <class U, class V>
void launch_long_route(const segment_params<U, V>& p, const pass_list& passes, const segment_reader& r,
                       const segment_range* list, const unsigned* list_count, unsigned* ticket, U* key_alt0,
                       U* key_alt1, V* value_alt, std::uint64_t most, cudaStream_t s) {
  constexpr int threads = segment_tiers::lsd_threads, items = segment_tiers::lsd_items;
  using agent = block_lsd_agent<U, V, threads, items>;
  constexpr std::size_t smem = sizeof(typename agent::storage);
  need_shared(smem, "long route");
  if (most == 0) return;
  constexpr std::size_t vb = std::is_same_v<V, no_value> ? 0 : sizeof(V);
  const auto launch = [&]<int MinBlocks>() {
    const unsigned resident = resident_blocks<lsd_segments_kernel<U, V, threads, items, MinBlocks>, threads, smem>();
    const unsigned grid = unsigned(std::min<std::uint64_t>(most, resident));
    lsd_segments_kernel<U, V, threads, items, MinBlocks>
        <<<grid, threads, smem, s>>>(p, passes, r, list, list_count, ticket, key_alt0, key_alt1, value_alt);
  };
  if constexpr (segment_tiers::lsd_may_pair_blocks(sizeof(U), vb)) {
    if (segment_tiers::lsd_pair_blocks(sizeof(U), vb, r.length)) launch.template operator()<2>();
    else launch.template operator()<1>();
  } else {
    launch.template operator()<1>();
  }
  RADIX_CUDA_CHECK_LAUNCH("radix lsd_segments_kernel");
}

/// Uniform rows of the bin route (use_bin_route): the bin sort over every
/// row, then the route of their length over the rows it left (a crowded
/// bin), whose number only the device knows.
template <class U, class V>
void launch_bin_route(const onesweep_params<U, V>& p, const segment_params<U, V>& sp, const pass_list& passes,
                      const segment_reader& r, std::uint64_t L, void* crowded, unsigned* counts, U* key_alt0,
                      U* key_alt1, V* value_alt, const onesweep_tuning& t, cudaStream_t s) {
  using T = segment_tiers;
  const std::uint64_t block_max = block_route_longest<U, V>();
  const bool ranges = L > block_max;  // the long route takes the rows left
  auto* ids = ranges ? nullptr : static_cast<std::uint32_t*>(crowded);
  auto* bounds = ranges ? static_cast<segment_range*>(crowded) : nullptr;
  with_bin_shape(L, [&]<int Threads, int Capacity, int BinBits>() {
    constexpr auto kernel = bin_sort_segments_kernel<U, V, Threads, Capacity, BinBits>;
    using agent = bin_sort_agent<U, V, Threads, Capacity, BinBits>;
    const std::size_t smem = agent::smem_bytes(p.mode == sort_mode::pairs);
    const unsigned resident =
        resident_blocks_at<kernel, Threads, agent::smem_bytes(false), agent::smem_bytes(true)>(smem);
    const unsigned grid = unsigned(std::min<std::uint64_t>(r.count, resident));
    kernel<<<grid, Threads, smem, s>>>(p, r, ids, bounds, counts + crowded_count);
    RADIX_CUDA_CHECK_LAUNCH("radix bin_sort_segments_kernel");
  });
  const unsigned* left = counts + crowded_count;
  if (L <= T::small_tile)
    launch_block_route<U, V, T::small_threads, T::small_items>(p, passes, r, ids, left, r.count, false, t, s);
  else if (ranges)
    launch_long_route<U, V>(sp, passes, r, bounds, left, counts + long_ticket, key_alt0, key_alt1, value_alt, r.count, s);
  else if (L <= T::mid_tile)
    launch_block_route<U, V, T::mid_threads, T::mid_items>(p, passes, r, ids, left, r.count, L >= T::mid_sort_min, t, s);
  else
    launch_block_route<U, V, T::large_threads, T::large_items>(p, passes, r, ids, left, r.count,
                                                               L >= T::large_sort_min, t, s);
}

/// Uniform rows of the split route (use_split_route): the survey, the MSD
/// step into the alternates, the bin sort of each bucket into the caller's
/// buffers, the block sort of the buckets it left, and the long route over
/// the rows the survey left. No host synchronisation.
template <class U, class V>
void launch_split_route(const segmented_job<U, V>& job, const segment_params<U, V>& sp, const pass_list& passes,
                        const segment_reader& r, const segmented_workspace& w, std::byte* const* at,
                        unsigned* counts, U* key_alt0, U* key_alt1, V* value_alt, cudaStream_t s) {
  using T = segment_tiers;
  constexpr bool taken = std::is_same_v<V, no_value> || std::is_same_v<V, std::uint32_t> ||
                         std::is_same_v<V, std::uint64_t>;  // (use_split_route's value types)
  if constexpr (taken) {
    const std::uint64_t L = r.length, buckets = T::split_buckets_max(L);
    const auto run = [&]<class P>(const P* values, P* alt, split_outputs<U, P> out) {
      split_params<U, P> p;
      p.keys = job.keys;
      p.values = values;
      p.key_alt = key_alt0;
      p.value_alt = alt;
      p.length = L;
      p.rows = r.count;
      p.tiles_per_row = std::uint32_t((L + T::split_tile - 1) / T::split_tile);
      p.stride = unsigned(buckets + 1);
      p.codec = job.codec;
      p.range_mask = sp.range_mask;
      p.row = reinterpret_cast<split_row*>(at[w.split_rows]);
      p.maps = reinterpret_cast<typename bin_map<U>::entry*>(at[w.split_maps]);
      p.table = reinterpret_cast<std::uint32_t*>(at[w.split_table]);
      p.offsets = reinterpret_cast<std::uint64_t*>(at[w.split_offsets]);
      p.status = reinterpret_cast<unsigned*>(at[w.split_status]);
      p.ticket = counts + split_ticket;
      p.left = reinterpret_cast<segment_range*>(at[w.split_left]);
      p.left_count = counts + split_left_count;
      const std::uint64_t tiles = r.count * p.tiles_per_row;
      RADIX_CUDA_CHECK(cudaMemsetAsync(p.status, 0, tiles * buckets * sizeof(unsigned), s));

      constexpr auto survey = split_survey_kernel<U, P>;
      const unsigned survey_grid =
          unsigned(std::min<std::uint64_t>(r.count, resident_blocks<survey, T::split_survey_threads, 0>()));
      survey<<<survey_grid, T::split_survey_threads, 0, s>>>(p);
      RADIX_CUDA_CHECK_LAUNCH("radix split_survey_kernel");

      constexpr auto split = split_kernel<U, P>;
      constexpr std::size_t split_smem = sizeof(typename split_agent<U, P, T::split_threads, T::split_items>::storage);
      resident_blocks<split, T::split_threads, split_smem>();  // (raises the kernel's shared-memory limit)
      split<<<unsigned(tiles), T::split_threads, split_smem, s>>>(p);
      RADIX_CUDA_CHECK_LAUNCH("radix split_kernel");

      auto* crowded = reinterpret_cast<std::uint32_t*>(at[w.split_crowded]);
      constexpr auto sort_buckets = split_buckets_kernel<U, P>;
      using bins = bin_sort_agent<U, P, T::split_bucket_threads, int(T::split_bucket_keys), T::split_bucket_bin_bits>;
      constexpr std::size_t bins_smem = bins::smem_bytes(true);
      const unsigned bucket_grid = unsigned(std::min<std::uint64_t>(
          r.count * p.stride, resident_blocks<sort_buckets, T::split_bucket_threads, bins_smem>()));
      sort_buckets<<<bucket_grid, T::split_bucket_threads, bins_smem, s>>>(p, out, crowded,
                                                                          counts + split_crowded_count);
      RADIX_CUDA_CHECK_LAUNCH("radix split_buckets_kernel");

      constexpr auto sort_crowded = split_crowded_kernel<U, P>;
      constexpr std::size_t crowded_smem = block_sort_agent<U, P>::smem_bytes(T::split_bucket_threads);
      const unsigned crowded_grid = unsigned(std::min<std::uint64_t>(
          r.count * buckets, resident_blocks<sort_crowded, T::split_bucket_threads, crowded_smem>()));
      sort_crowded<<<crowded_grid, T::split_bucket_threads, crowded_smem, s>>>(p, out, crowded,
                                                                              counts + split_crowded_count);
      RADIX_CUDA_CHECK_LAUNCH("radix split_crowded_kernel");
    };
    if constexpr (std::is_same_v<V, no_value>) {
      run.template operator()<no_value>(nullptr, nullptr, split_outputs<U, no_value>{job.keys, nullptr, nullptr});
    } else if (job.mode == sort_mode::argsort) {
      // 4-byte positions through the alternate values; out 4 or 8 bytes wide
      split_outputs<U, std::uint32_t> out{job.sorted_keys, nullptr, nullptr};
      if constexpr (std::is_same_v<V, std::uint32_t>) out.values = job.values;
      else out.wide = reinterpret_cast<std::uint64_t*>(job.values);
      run.template operator()<std::uint32_t>(nullptr, reinterpret_cast<std::uint32_t*>(value_alt), out);
    } else {
      run.template operator()<V>(job.values, value_alt, split_outputs<U, V>{job.keys, job.values, nullptr});
    }
    launch_long_route<U, V>(sp, passes, r, reinterpret_cast<segment_range*>(at[w.split_left]),
                            counts + split_left_count, counts + long_ticket, key_alt0, key_alt1, value_alt, r.count, s);
  }
}

/// The sweep route (sweep.cuh) over the listed segments, whose number only
/// the device knows (at most `most`): no host synchronisation. `op` carries
/// the job's buffers and the long route's alternates.
template <class U, class V>
void launch_sweep_route(onesweep_params<U, V> op, const pass_list& passes, const segment_range* list,
                        const unsigned* list_count, std::uint64_t most, const segmented_workspace& w,
                        std::byte* const* at, const onesweep_tuning& t, cudaStream_t s) {
  if constexpr (sweep_compiled<U, V>) {
    using shape = sweep_shape<U, V>;
    constexpr int tile = shape::value.tile();
    const std::uint64_t tiles_most = (op.n + tile - 1) / tile + most;
    const unsigned sms = sm_count();
    sweep_params<U> sp;
    sp.keys = op.keys;
    sp.list = list;
    sp.list_count = list_count;
    sp.first_tile = reinterpret_cast<std::uint32_t*>(at[w.sweep_first]);
    sp.table = reinterpret_cast<sweep_tile*>(at[w.sweep_table]);
    sp.starts = reinterpret_cast<std::uint32_t*>(at[w.sweep_starts]);
    sp.sc = reinterpret_cast<sweep_control*>(at[w.sweep_control]);
    sp.ctl = reinterpret_cast<control*>(at[w.sweep_onesweep]);
    sp.passes = passes;
    sp.codec = op.codec;
    RADIX_CUDA_CHECK(cudaMemsetAsync(sp.sc, 0, sizeof(sweep_control), s));
    RADIX_CUDA_CHECK(cudaMemsetAsync(sp.ctl, 0, sizeof(control), s));
    RADIX_CUDA_CHECK(cudaMemsetAsync(at[w.sweep_ring], 0,
                                     (std::uint64_t(1) << t.ring.log2) * radix_size * sizeof(unsigned long long), s));
    const unsigned per_segment = unsigned(std::min<std::uint64_t>(most, 8ull * sms));
    sweep_layout_kernel<U, tile><<<1, 1024, 0, s>>>(sp);
    RADIX_CUDA_CHECK_LAUNCH("radix sweep_layout_kernel");
    sweep_table_kernel<U, tile><<<per_segment, 256, 0, s>>>(sp);
    RADIX_CUDA_CHECK_LAUNCH("radix sweep_table_kernel");
    constexpr int count_threads = 512;
    const unsigned per_tile = unsigned(std::min<std::uint64_t>(tiles_most, 4ull * sms));
    sweep_count_kernel<U, count_threads><<<per_tile, count_threads, 0, s>>>(sp);
    RADIX_CUDA_CHECK_LAUNCH("radix sweep_count_kernel");
    sweep_scan_kernel<U><<<per_segment, radix_size, 0, s>>>(sp);
    RADIX_CUDA_CHECK_LAUNCH("radix sweep_scan_kernel");
    sweep_plan_kernel<U><<<1, 1, 0, s>>>(sp);
    RADIX_CUDA_CHECK_LAUNCH("radix sweep_plan_kernel");

    op.ctl = sp.ctl;
    op.ring = reinterpret_cast<unsigned long long*>(at[w.sweep_ring]);
    op.ring_cfg = t.ring;
    op.whole_tiles = t.whole_tiles;
    segment_tiles tiles;
    tiles.table = sp.table;
    tiles.starts = sp.starts;
    tiles.stride = unsigned(passes.total_bins);
    tiles.sc = sp.sc;
    using agent = scatter_agent<U, V, shape, scatter_forms::floats, segment_tiles>;
    const bool pdl = t.pdl && current_device_limits().pdl();
    const auto passes_of = [&]<scatter_forms F>() {
      constexpr auto kernel = sweep_scatter_kernel<U, V, F>;
      const unsigned grid =
          unsigned(std::min<std::uint64_t>(tiles_most, resident_blocks<kernel, shape::value.threads, agent::smem_bytes>()));
      for (int ps = 0; ps < passes.count; ++ps)
        launch_dependent(pdl, kernel, grid, shape::value.threads, agent::smem_bytes, s, op, tiles, ps,
                         int(passes.shift[ps]), int(passes.bits[ps]), int(passes.bin_offset[ps]));
    };
    if (op.codec.linear()) passes_of.template operator()<scatter_forms::linear>();
    else if (op.codec.canon) passes_of.template operator()<scatter_forms::canonical>();
    else passes_of.template operator()<scatter_forms::biased>();
    launch_dependent(pdl, sweep_finish_kernel<U, V>, unsigned(std::min<std::uint64_t>(tiles_most, 8ull * sms)), 256, 0,
                     s, op, tiles);
  }
}

/// The warp route over a list (or every segment): warps of one block share
/// its shared memory, a slice each, up to four warps (or 48 KiB) a block so
/// that an SM can hold several blocks.
template <class U, class V>
void launch_warp_route(const segment_params<U, V>& p, const pass_list& passes, const segment_reader& r,
                       const std::uint32_t* list, const unsigned* list_count, unsigned capacity,
                       std::uint64_t most, cudaStream_t s) {
  if (most == 0 || capacity == 0) return;
  const auto kernel = warp_segments_kernel<U, V>;
  static per_device<cudaError_t> raised;  // the shared-memory limit, once per device
  const cudaError_t status = raised.get([&] {
    return cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                int(current_device_limits().shared_optin));
  });
  if (status != cudaSuccess) throw_cuda(status, "cudaFuncSetAttribute (warp_segments_kernel)", __FILE__, __LINE__);
  const std::size_t slice = typename warp_lsd_agent<U, V>::slice_layout(capacity, p.mode).bytes;
  const int warps = int(std::clamp<std::size_t>((48 << 10) / slice, 1, 4));
  const std::size_t smem = slice * std::size_t(warps);
  int per_sm = 0;
  RADIX_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, 32 * warps, smem));
  const std::uint64_t blocks = (most + warps - 1) / warps;
  const unsigned grid = unsigned(std::min<std::uint64_t>(blocks, std::uint64_t(std::max(1, per_sm)) * sm_count()));
  kernel<<<grid, 32 * warps, smem, s>>>(p, passes, r, list, list_count, capacity);
  RADIX_CUDA_CHECK_LAUNCH("radix warp_segments_kernel");
}

template <class U, class V, int G>
void launch_tiny_route(const segment_params<U, V>& p, const segment_reader& r, cudaStream_t s) {
  constexpr std::uint64_t per_block = 256 / G;
  const std::uint64_t blocks = std::min<std::uint64_t>((r.count + per_block - 1) / per_block, 64ull * sm_count());
  if (blocks == 0) return;
  tiny_segments_kernel<U, V, G><<<unsigned(blocks), 256, 0, s>>>(p, r);
  RADIX_CUDA_CHECK_LAUNCH("radix tiny_segments_kernel");
}

/// Whether the row network stages these rows 16 bytes at a time: rows of
/// exactly N keys whose keys and values fill whole chunks, every array
/// 16-byte aligned.
template <class U, class V, int N>
bool rows_whole_chunks(const segment_params<U, V>& p, const segment_reader& r) {
  if constexpr (!row_vector_compiled<U, V, N>) {
    return false;
  } else {
    const auto aligned = [](const void* q) { return reinterpret_cast<std::uintptr_t>(q) % 16 == 0; };
    return r.length == unsigned(N) && aligned(p.keys) && (!p.sorted_keys || aligned(p.sorted_keys)) &&
           (p.mode == sort_mode::keys || aligned(p.values));
  }
}

/// The row network over every (uniform) row: four warps a block, 32 rows a
/// warp; 16-byte staging where the rows are whole aligned chunks.
template <class U, class V, int N>
void launch_row_network(const segment_params<U, V>& p, const segment_reader& r, cudaStream_t s) {
  constexpr int threads = 128;
  // (rows of 32 4-byte keys with 8-byte values, scalar-staged, take 50688
  // bytes a block: above the 48 KiB a launch gets without the attribute)
  const auto launch = [&]<row_staging S>() {
    constexpr auto kernel = row_network_kernel<U, V, N, S>;
    constexpr std::size_t most = (threads / 32) * row_network_warp_bytes<U, V, N>(S, unsigned(N));
    const std::size_t smem = (threads / 32) * row_network_warp_bytes<U, V, N>(S, unsigned(r.length));
    const std::uint64_t blocks = (r.count + threads - 1) / threads;  // 32 rows a warp
    const unsigned grid = unsigned(std::min<std::uint64_t>(blocks, resident_blocks<kernel, threads, most>()));
    kernel<<<grid, threads, smem, s>>>(p, r);
    RADIX_CUDA_CHECK_LAUNCH("radix row_network_kernel");
  };
  if constexpr (row_vector_compiled<U, V, N>)
    if (rows_whole_chunks<U, V, N>(p, r)) return launch.template operator()<row_staging::vector>();
  launch.template operator()<row_staging::scalar>();
}

/// Uniform segments of length L <= tiny: keys of up to 4 bytes in rows of 5
/// to 32 by the row network (N, the power of two >= L: from 5 keys on it
/// takes fewer instructions than comparing every pair), except pairs with
/// 8-byte values in rows it stages one element at a time (rows of 16 f32
/// keys with int64 values: 3.19 ms by the lane groups, 3.46 by the network
/// so staged); others by groups of the smallest power of two >= L.
template <class U, class V>
void launch_tiny_uniform(const segment_params<U, V>& p, const segment_reader& r, std::uint64_t L, cudaStream_t s) {
  constexpr bool wide_values = !std::is_same_v<V, no_value> && sizeof(V) > 4;
  if constexpr (sizeof(U) <= 4) {
    const bool scalar_ok = !(wide_values && p.mode == sort_mode::pairs);
    if (L > 4 && L <= 8 && (scalar_ok || rows_whole_chunks<U, V, 8>(p, r))) return launch_row_network<U, V, 8>(p, r, s);
    if (L > 8 && L <= 16 && (scalar_ok || rows_whole_chunks<U, V, 16>(p, r)))
      return launch_row_network<U, V, 16>(p, r, s);
    if (L > 16 && (scalar_ok || rows_whole_chunks<U, V, 32>(p, r))) return launch_row_network<U, V, 32>(p, r, s);
  }
  if (L <= 1) return launch_tiny_route<U, V, 1>(p, r, s);
  if (L <= 2) return launch_tiny_route<U, V, 2>(p, r, s);
  if (L <= 4) return launch_tiny_route<U, V, 4>(p, r, s);
  if (L <= 8) return launch_tiny_route<U, V, 8>(p, r, s);
  if (L <= 16) return launch_tiny_route<U, V, 16>(p, r, s);
  return launch_tiny_route<U, V, 32>(p, r, s);
}

template <class U, class V>
void segmented_sort(const segmented_job<U, V>& job) {
  if constexpr (!onesweep_compiled<U, V>()) {
    throw engine_unavailable("radix: this build of the CUDA engine (RADIX_CUDA_TYPES=dev) has no segmented kernels for " +
                             std::to_string(sizeof(U)) + "-byte keys with these values");
  } else {
    auto s = static_cast<cudaStream_t>(job.stream);
    const std::uint64_t n = job.n;
    const segments& segs = job.segs;
    if (n == 0 || segs.count == 0) return;
    const segmented_workspace w = segmented_layout<U, V>(job.mode, n, segs, job.tuning);
    const auto at = w.layout.carve({static_cast<std::byte*>(job.workspace), job.workspace_bytes});

    const int end_bit = job.end_bit < 0 ? int(sizeof(U)) * 8 : job.end_bit;
    segment_reader r;
    r.count = segs.count;
    if (segs.layout == segment_layout::uniform) r.length = segs.length;
    else r.offsets = segs.offsets, r.offset_bytes = segs.offset_bytes;

    segment_params<U, V> sp;
    sp.keys = job.keys;
    sp.values = job.values;
    sp.mode = job.mode;
    if (job.mode == sort_mode::argsort) sp.sorted_keys = job.sorted_keys;
    sp.codec = job.codec;
    sp.range_mask = core::bit_range_mask<U>(job.begin_bit, end_bit);
    onesweep_params<U, V> op;
    op.keys = job.keys;
    op.values = job.values;
    op.mode = job.mode;
    op.sorted_keys = sp.sorted_keys;
    op.codec = job.codec;
    op.range_mask = sp.range_mask;
    const pass_list passes = make_pass_list(job.begin_bit, end_bit, job.digit_bits);
    using T = segment_tiers;
    const unsigned warp_cap = warp_capacity<U, V>(job.mode, job.tuning);

    auto* counts = reinterpret_cast<unsigned*>(at[w.counts]);
    RADIX_CUDA_CHECK(cudaMemsetAsync(counts, 0, bin_counters * sizeof(unsigned), s));
    U* key_alt0 = w.key_alt[0] >= 0 ? reinterpret_cast<U*>(at[w.key_alt[0]]) : nullptr;
    U* key_alt1 = w.key_alt[1] >= 0 ? reinterpret_cast<U*>(at[w.key_alt[1]]) : nullptr;
    V* value_alt = w.value_alt >= 0 ? reinterpret_cast<V*>(at[w.value_alt]) : nullptr;

    // The sweep route's buffers: the whole batch, the long route's alternates.
    const auto swept = [&] {
      onesweep_params<U, V> o = op;
      o.n = n;
      o.key_alt[0] = key_alt0;
      o.key_alt[1] = key_alt1;
      o.value_alt = value_alt;
      return o;
    };

    // A huge segment on its own through Onesweep (its indices are local by
    // nature); keys and pairs with the long route's alternates.
    auto onesweep_one = [&](std::uint64_t b, std::uint64_t e) {
      onesweep_job<U, V> o;
      o.mode = job.mode;
      o.keys = job.keys + b;
      if constexpr (!std::is_same_v<V, no_value>) o.values = job.values + b;
      o.n = e - b;
      if (sp.sorted_keys) o.sorted_keys = sp.sorted_keys + b;
      o.codec = job.codec;
      o.begin_bit = job.begin_bit;
      o.end_bit = end_bit;
      o.digit_bits = job.digit_bits;
      if (job.mode != sort_mode::argsort) {
        o.key_alt = key_alt0 + b;
        if constexpr (!std::is_same_v<V, no_value>) o.value_alt = value_alt ? value_alt + b : nullptr;
      }
      o.workspace = at[w.onesweep];
      o.workspace_bytes = std::size_t(w.layout.bytes(w.onesweep));
      o.stream = s;
      o.tuning = job.tuning;
      if (onesweep_sort<U, V>(o) == 1) {  // the result is in the alternates: home
        RADIX_CUDA_CHECK(cudaMemcpyAsync(o.keys, o.key_alt, o.n * sizeof(U), cudaMemcpyDeviceToDevice, s));
        if constexpr (!std::is_same_v<V, no_value>)
          if (o.value_alt)
            RADIX_CUDA_CHECK(cudaMemcpyAsync(o.values, o.value_alt, o.n * sizeof(V), cudaMemcpyDeviceToDevice, s));
      }
    };

    const onesweep_tuning& t = job.tuning;
    const std::uint64_t block_max = block_route_longest<U, V>();
    if (segs.layout == segment_layout::uniform) {
      const std::uint64_t L = segs.length;
      if (L <= T::tiny) return launch_tiny_uniform<U, V>(sp, r, L, s);
      if (w.crowded >= 0)
        return launch_bin_route<U, V>(op, sp, passes, r, L, at[w.crowded], counts, key_alt0, key_alt1, value_alt, t, s);
      if (w.split_rows >= 0)
        return launch_split_route<U, V>(job, sp, passes, r, w, at.data(), counts, key_alt0, key_alt1, value_alt, s);
      if (L <= warp_cap)  // slices as long as the rows (whole rounds of 32), not the route's longest
        return launch_warp_route<U, V>(sp, passes, r, nullptr, nullptr, unsigned((L + 31) / 32 * 32), r.count, s);
      if (L <= T::small_tile)
        return launch_block_route<U, V, T::small_threads, T::small_items>(op, passes, r, nullptr, nullptr, r.count,
                                                                          false, t, s);
      if (L <= T::mid_tile && L <= block_max)
        return launch_block_route<U, V, T::mid_threads, T::mid_items>(op, passes, r, nullptr, nullptr, r.count,
                                                                      L >= T::mid_sort_min, t, s);
      if (L <= T::large_tile && L <= block_max)
        return launch_block_route<U, V, T::large_threads, T::large_items>(op, passes, r, nullptr, nullptr, r.count,
                                                                          L >= T::large_sort_min, t, s);
      if (w.sweep_list >= 0 &&
          sweep_tiles_max<U, V>(n, segs, t) * std::uint64_t(passes.count) < (std::uint64_t(1) << 31)) {
        auto* rows = reinterpret_cast<segment_range*>(at[w.sweep_list]);
        sweep_rows_kernel<<<unsigned(std::min<std::uint64_t>((r.count + 255) / 256, 4096)), 256, 0, s>>>(
            rows, counts + sweep_count, r.count, L);
        RADIX_CUDA_CHECK_LAUNCH("radix sweep_rows_kernel");
        return launch_sweep_route<U, V>(swept(), passes, rows, counts + sweep_count, r.count, w, at.data(), t, s);
      }
      if (w.onesweep < 0)
        return launch_long_route<U, V>(sp, passes, r, nullptr, nullptr, counts + long_ticket, key_alt0, key_alt1,
                                       value_alt, r.count, s);
      for (std::uint64_t i = 0; i < r.count; ++i) onesweep_one(i * L, (i + 1) * L);
      return;
    }

    // Offsets on the device: bin by length there, then every route.
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    RADIX_CUDA_CHECK(cudaStreamIsCapturing(s, &capture));
    const bool captured = capture != cudaStreamCaptureStatusNone;
    if (captured && n > 0xFFFFFFFFull)
      throw invalid_argument("radix: segments: under CUDA graph capture, offsets on the device need n < 2^32 "
                             "(longer segments are sized on the host); sort outside the capture");
    segment_bins bins;
    bins.counts = counts;
    bins.warp = w.warp >= 0 ? reinterpret_cast<std::uint32_t*>(at[w.warp]) : nullptr;
    bins.warp_max = bins.warp ? warp_cap : 0;
    for (int c = 0; c < block_lists; ++c) bins.block[c] = reinterpret_cast<std::uint32_t*>(at[w.block[c]]);
    bins.longer = reinterpret_cast<segment_range*>(at[w.longer]);
    bins.huge = reinterpret_cast<segment_range*>(at[w.huge]);
    bins.block_max = block_max;
    bins.huge_min = captured || w.onesweep < 0 ? ~0ull  // (the long route takes them)
                    : t.segment_huge_min > 0   ? std::max(std::min<std::uint64_t>(t.segment_huge_min, 0xFFFFFFFFull), block_max)
                                               : std::max(huge_min(n), block_max);
    // (the sweep's tickets, for the passes planned, must not wrap; where every
    // segment it could take is huge, its setup kernels would run over nothing)
    const bool sweep = w.sweep_list >= 0 && bins.huge_min > sweep_min_of(t) &&
                       sweep_tiles_max<U, V>(n, segs, t) * std::uint64_t(passes.count) < (std::uint64_t(1) << 31);
    if (sweep) {
      bins.sweep = reinterpret_cast<segment_range*>(at[w.sweep_list]);
      bins.sweep_min = sweep_min_of(t);
    }
    // (a grid that fills any current GPU; the loops stride over the rest)
    const std::uint64_t bin_blocks = std::min<std::uint64_t>((r.count + 255) / 256, 4096);
    bin_segments_kernel<<<unsigned(bin_blocks), 256, 0, s>>>(r, bins);
    RADIX_CUDA_CHECK_LAUNCH("radix bin_segments_kernel");
    launch_tiny_route<U, V, 32>(sp, r, s);
    if (bins.warp)
      launch_warp_route<U, V>(sp, passes, r, bins.warp, counts + warp_count, warp_cap,
                              std::min(r.count, n / (T::tiny + 1)), s);
    // (a block shape whose lengths all go to the warp route gets no launch)
    const auto most_above = [&](std::uint64_t shorter, std::uint64_t longest) {
      return warp_cap >= longest ? 0 : std::min(r.count, n / (std::max<std::uint64_t>(shorter, warp_cap) + 1));
    };
    const auto list = [&](block_list c) { return bins.block[c]; };
    const auto count_of = [&](block_list c) { return counts + c; };
    launch_block_route<U, V, T::small_threads, T::small_items>(op, passes, r, list(small_list), count_of(small_list),
                                                               most_above(T::tiny, T::small_tile), false, t, s);
    // (the shapes this device cannot hold get no launch: their lengths are binned to the long route)
    if (block_max >= T::mid_tile) {
      launch_block_route<U, V, T::mid_threads, T::mid_items>(op, passes, r, list(mid_list), count_of(mid_list),
                                                             most_above(T::small_tile, T::mid_sort_min - 1), false, t, s);
      launch_block_route<U, V, T::mid_threads, T::mid_items>(op, passes, r, list(mid_sort_list),
                                                             count_of(mid_sort_list),
                                                             most_above(T::mid_sort_min - 1, T::mid_tile), true, t, s);
    }
    if (block_max >= T::large_tile) {
      launch_block_route<U, V, T::large_threads, T::large_items>(op, passes, r, list(large_list), count_of(large_list),
                                                                 most_above(T::mid_tile, T::large_sort_min - 1), false,
                                                                 t, s);
      launch_block_route<U, V, T::large_threads, T::large_items>(op, passes, r, list(large_sort_list),
                                                                 count_of(large_sort_list),
                                                                 most_above(T::large_sort_min - 1, T::large_tile), true,
                                                                 t, s);
    }
    if (n <= block_max) return;  // no segment can be longer
    launch_long_route<U, V>(sp, passes, r, bins.longer, counts + long_count, counts + long_ticket, key_alt0, key_alt1,
                            value_alt, std::min(r.count, n / (block_max + 1)), s);
    if (sweep) {
      launch_sweep_route<U, V>(swept(), passes, bins.sweep, counts + sweep_count, sweep_list_max<U, V>(n, segs, t), w,
                               at.data(), t, s);
    }
    if (captured || w.onesweep < 0) return;  // (no huge segment: none listed)

    // The huge segments: their bounds come back to the host to size Onesweep.
    unsigned count_huge = 0;
    RADIX_CUDA_CHECK(cudaMemcpyAsync(&count_huge, counts + huge_count, sizeof(unsigned), cudaMemcpyDeviceToHost, s));
    RADIX_CUDA_CHECK(cudaStreamSynchronize(s));
    std::vector<segment_range> huge(count_huge);
    if (count_huge) {
      RADIX_CUDA_CHECK(cudaMemcpyAsync(huge.data(), bins.huge, count_huge * sizeof(segment_range),
                                       cudaMemcpyDeviceToHost, s));
      RADIX_CUDA_CHECK(cudaStreamSynchronize(s));
    }
    for (const auto& g : huge) onesweep_one(g.begin, g.end);
  }
}

}  // namespace radix::cuda_detail
