// The CUDA engine's segmented sort (a batch of independent arrays in one
// buffer) as the engine sees it: a job per (key width, value type), its
// workspace, and the explicitly instantiated entry points (segments_k*.cu).
//
// The route of each segment follows its length:
//   <= segment_tiers::tiny        : a group of lanes of one warp, in registers
//                                   (rank = keys before it, by comparison)
//   uniform rows of 4- and 8-byte keys from onesweep_tuning::bin_sort_min
//   to segment_tiers::bin_longest : the bin sort, one block a row in shared
//                                   memory (a row with a crowded bin: the
//                                   route of its length, after)
//   uniform rows of 4- and 8-byte keys above bin_longest, up to
//   segment_tiers::split_longest, and above large_tile where a block
//   does not hold the bin sort's shape (8-byte keys, pairs)
//                                 : the split route: one stable MSD step into
//                                   buckets of at most 4095 keys chosen from
//                                   the row's own distribution, then the bin
//                                   sort a bucket (a row whose keys crowd:
//                                   the long route; a crowded bucket: the
//                                   block sort)
//   <= segment_tiers::small_tile  : one block of the small shape, in shared memory
//   <= segment_tiers::mid_tile    : one block of the mid shape, in shared memory
//   <= segment_tiers::large_tile  : one block of the large shape, in shared memory
//                                   (both with the block sort above 12 keys a thread)
//   long                          : one block, LSD in global memory, tile by tile
//   4- and 8-byte keys from onesweep_tuning::segment_sweep_min: offsets up
//   to n / SMs, uniform rows the routes above leave to the long one
//                                 : the sweep route: Onesweep's passes over the
//                                   tiles of all of them at once, each
//                                   segment's digits started on their own
//                                   (sweep.cuh)
//   huge                          : Onesweep on the segment alone (all the GPU)
// A segment is huge when one block would hold up the rest: uniform
// segments when there are fewer than SMs, offsets when longer than n / SMs.
// Uniform segments have one length, so the host launches the one route.
// With offsets, one kernel bins the segments on the device (lists of each
// route) and nothing waits for the host, except the huge ones: their bounds
// are read back (one stream synchronisation) to size the Onesweep launches.
// Under graph capture there is no read-back: huge segments take the sweep
// route (or, where it is off or their keys are not 4 or 8 bytes, the long
// route: correct, slower).
#pragma once
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "../common/common.cuh"
#include "../onesweep/onesweep.hpp"
#include "radix/core/ordered_bits.hpp"
#include "radix/sort.hpp"

namespace radix::cuda_detail {

/// Segment lengths of each route, and why.
struct segment_tiers {
  /// One warp ranks up to 32 keys by comparison: 32 shuffles a key, no
  /// shared memory, and several short segments share a warp.
  static constexpr std::uint64_t tiny = 32;
  /// The warp route (one warp a segment, warp_lsd_agent) takes segments up
  /// to onesweep_tuning::segment_warp_max keys whose slice of shared memory
  /// is at most this: its gain is many warps an SM. On the H100 it beat the
  /// small block shape with slices of up to 14.5 KiB (768 keys with 4-byte
  /// values) and lost with 23 KiB (1024 f32 keys with 8-byte values).
  static constexpr std::size_t warp_slice_bytes = 16 << 10;
  /// 256 threads x 4 keys: the fewest threads the block ranking takes (one per
  /// 8-bit digit), with few empty rounds for segments of a few hundred keys.
  static constexpr int small_threads = 256, small_items = 4;
  static constexpr std::uint64_t small_tile = std::uint64_t(small_threads) * small_items;
  /// 256 threads x 16 keys: a few thousand keys with a quarter of the large
  /// shape's shared memory, so three or more blocks share an SM.
  static constexpr int mid_threads = 256, mid_items = 16;
  static constexpr std::uint64_t mid_tile = std::uint64_t(mid_threads) * mid_items;
  /// 512 threads x 16 keys: 8192 keys, whose two key buffers, ranks and
  /// origins fit one block's shared memory on sm_90 for 8-byte keys and values.
  static constexpr int large_threads = 512, large_items = 16;
  static constexpr std::uint64_t large_tile = std::uint64_t(large_threads) * large_items;
  /// Above 12 keys a thread of the mid and large shapes, the block sort
  /// (onesweep/block_sort_agent.cuh: thread-private counters, 6-bit digits)
  /// takes a segment instead of the single-tile agent: on the H100 it sorted
  /// rows of 4096 keys in 5.15 ms instead of 6.35 and rows of 8192 in 5.79
  /// instead of 6.47, but rows of 2048 (8 a thread) in 9.52 instead of 7.37
  /// (bench/results/segments-h100-2026-11-26-c.md): its 32 counter words a
  /// thread a pass cost the same for few keys as for many.
  static constexpr std::uint64_t mid_sort_min = std::uint64_t(mid_threads) * 12 + 1;
  static constexpr std::uint64_t large_sort_min = std::uint64_t(large_threads) * 12 + 1;
  /// Uniform rows of 4- or 8-byte keys from onesweep_tuning::bin_sort_min
  /// (RADIX_CUDA_BIN_SORT_MIN; bin_sort = false, RADIX_CUDA_BIN_SORT=0: none)
  /// to bin_longest keys: the bin sort (onesweep/bin_sort_agent.cuh: the keys
  /// counted into bins of their span, then ranked within their bin by
  /// comparison), one step where the other routes take a pass a digit. A row
  /// with a crowded bin (runs of equal keys) goes on to the route of its
  /// length. Shapes (threads x keys, bins) by length: up to 1024, 256 x 4 and
  /// 2048 bins; up to 4096, 256 x 16 and 4096; up to 8192, 512 x 16 and 4096;
  /// up to 16384, 512 x 32 and 8192 (where a block's shared memory holds it).
  static constexpr std::uint64_t bin_longest = 16384;
  static constexpr bool bin_sort_keys(std::size_t key_bytes) { return key_bytes >= 4; }
  /// Uniform rows of 4- or 8-byte keys longer than bin_longest, up to
  /// split_longest (and longer than large_tile where a block's shared memory
  /// does not hold the bin sort's shape), at least as many as SMs (onesweep_tuning::split_rows;
  /// RADIX_CUDA_SPLIT_ROWS=0: none): the split route (split_agent.cuh). One
  /// stable MSD step cuts each row into buckets of fewer than
  /// split_bucket_keys keys by the row's own key distribution, then the bin
  /// sort finishes each bucket: four reads and two writes of the data where
  /// the long route makes a pass a digit.
  /// The buckets are chosen from a count of the row's keys in split_row_bins
  /// bins of its span: 16 KiB of counters, 64 keys a bin in rows of 2^18.
  static constexpr int split_row_bin_bits = 12, split_row_bins = 1 << split_row_bin_bits;
  /// Buckets go to the bin sort's 256 x 16 shape (4096 bins): the shape
  /// with the most blocks an SM that holds a few thousand keys and values.
  static constexpr int split_bucket_threads = 256, split_bucket_bin_bits = 12;
  static constexpr std::uint64_t split_bucket_keys = 4096;
  /// Bucket b takes the bins whose first key falls in [b w, (b + 1) w), w =
  /// split_bucket_keys minus the row's largest bin: never a full bucket.
  /// A row with a bin above half the bucket (runs of equal keys, a span
  /// stretched by a few outliers) keeps the long route.
  static constexpr std::uint64_t split_largest_bin = split_bucket_keys / 2;
  /// Bucket ids are 8 bits (a row's bin -> bucket table, the tile's ranking
  /// by bucket): at most 256 buckets of at least split_largest_bin keys.
  static constexpr std::uint64_t split_longest = 255 * split_largest_bin;
  /// The most buckets a row of L keys can have (each bucket holds at least
  /// w >= split_largest_bin keys but the last).
  static constexpr std::uint64_t split_buckets_max(std::uint64_t L) { return L / split_largest_bin + 1; }
  /// The MSD step's tiles: 256 x 16 (block_rank takes a digit per thread, 256).
  static constexpr int split_threads = 256, split_items = 16;
  static constexpr std::uint64_t split_tile = std::uint64_t(split_threads) * split_items;
  /// The survey of a row (span, bin counts, buckets): one block a row.
  static constexpr int split_survey_threads = 512;
  /// Longer segments, when there are at least as many as SMs (or with
  /// offsets, up to n / SMs each): one block each, sorting in global memory
  /// tile by tile (block_lsd_agent). 512 x 8: two blocks an SM for 8-byte
  /// keys and values, 32 warps to hide the tiles' memory latency.
  static constexpr int lsd_threads = 512, lsd_items = 8;
  /// Two blocks an SM (__launch_bounds__(lsd_threads, 2)) instead of one:
  /// the registers this caps spill a little, the second block hides more
  /// latency. Only keys and values of up to 4 bytes (8-byte ones spilled
  /// more and lost 4-24 %). Measured on the H100 at 2^28 elements: keys
  /// alone won everywhere (power-law lengths 17.3 -> 14.0 ms, rows of 16384
  /// 9.9 -> 7.6); with 4-byte values it won on power-law lengths (31.9 ->
  /// 29.4) and rows of 262144 (30.0 -> 25.9) but lost on rows of 16384
  /// (15.8 -> 22.3), hence rows of values shorter than 2^16 keep one.
  static constexpr bool lsd_may_pair_blocks(std::size_t key_bytes, std::size_t value_bytes) {
    return key_bytes <= 4 && value_bytes <= 4;
  }
  static constexpr bool lsd_pair_blocks(std::size_t key_bytes, std::size_t value_bytes, std::uint64_t uniform_length) {
    return lsd_may_pair_blocks(key_bytes, value_bytes) &&
           (value_bytes == 0 || uniform_length == 0 || uniform_length >= (std::uint64_t(1) << 16));
  }
};

/// A segment's bounds, as the lists of long segments carry them.
struct segment_range {
  std::uint64_t begin, end;
};

template <class U, class V>
struct segmented_job {
  sort_mode mode = sort_mode::keys;
  U* keys = nullptr;    ///< device; read-only for argsort
  V* values = nullptr;  ///< device; values (pairs) or indices (argsort, local to the segment)
  U* sorted_keys = nullptr;  ///< argsort: the keys in sorted order too, or nullptr
  std::uint64_t n = 0;
  segments segs{};      ///< offsets (if any) in device memory
  core::ordered_codec<U> codec{};
  int begin_bit = 0, end_bit = -1, digit_bits = 0;
  void* workspace = nullptr;  ///< device
  std::size_t workspace_bytes = 0;
  void* stream = nullptr;  ///< cudaStream_t
  onesweep_tuning tuning{};
};

template <class U, class V>
std::size_t segmented_workspace_bytes(sort_mode mode, std::uint64_t n, const segments& segs, const onesweep_tuning& t);
template <class U, class V>
void segmented_sort(const segmented_job<U, V>& job);
/// Whether the request's uniform rows take the split route (which writes an
/// argsort's 8-byte positions itself: no narrowing to 4-byte ones first).
template <class U, class V>
bool segmented_splits_rows(sort_mode mode, const segments& segs, const onesweep_tuning& t);

#define RADIX_SEGMENTED_INSTANTIATE(U, V)                                                                       \
  template std::size_t segmented_workspace_bytes<U, V>(sort_mode, std::uint64_t, const segments&,           \
                                                       const onesweep_tuning&);                              \
  template void segmented_sort<U, V>(const segmented_job<U, V>&);                                          \
  template bool segmented_splits_rows<U, V>(sort_mode, const segments&, const onesweep_tuning&);
#define RADIX_SEGMENTED_INSTANTIATE_KEY(U)           \
  RADIX_SEGMENTED_INSTANTIATE(U, no_value)           \
  RADIX_SEGMENTED_INSTANTIATE(U, std::uint8_t)       \
  RADIX_SEGMENTED_INSTANTIATE(U, std::uint16_t)      \
  RADIX_SEGMENTED_INSTANTIATE(U, std::uint32_t)      \
  RADIX_SEGMENTED_INSTANTIATE(U, std::uint64_t)

}  // namespace radix::cuda_detail
