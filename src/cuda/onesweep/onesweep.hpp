// Onesweep (Adinets & Merrill's algorithm with the circular look-back buffer
// of the GPUOpen article on it) as the engine sees it: a job per (key width, value
// type), the workspace it needs, and the explicitly instantiated entry
// points (onesweep_k1/2/4/8.cu). No kernels here.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "../common/common.cuh"
#include "params.cuh"
#include "radix/core/ordered_bits.hpp"
#include "radix/core/pass_plan.hpp"

namespace radix::cuda_detail {

/// Knobs the tests turn (production uses the defaults).
struct onesweep_tuning {
  ring_config ring{};
  bool force_onesweep = false;  ///< no single-block path even for tiny inputs
  /// Inputs of at most this many keys are sorted by comparison counting
  /// (rank_sort_agent; -1: sm90_rank_sort_max; 0: never; RADIX_CUDA_RANK_SORT_MAX)
  int rank_sort_max = -1;
  /// 1-byte keys: inputs of at most this many are counted by one block
  /// (keys alone, whole key: counting_block_agent, default
  /// sm90_counting_block_max; pairs: counting_pairs_agent, default
  /// sm90_counting_pairs_max, at most its capacity; -1: the defaults; 0:
  /// never; RADIX_CUDA_COUNTING_MAX)
  long long counting_block_max = -1;
  /// Inputs above block_sort_agent::capacity and up to this many keys are
  /// sorted by one thread block cluster in its distributed shared memory
  /// (cluster_sort_agent, sm_90 and later; -1: sm90_cluster_sort_max; 0:
  /// never; RADIX_CUDA_CLUSTER_SORT_MAX)
  long long cluster_sort_max = -1;
  /// The keys a block of the cluster sort holds: 2048 or 4096 (0: the
  /// smallest chunk whose cluster holds the input), and its widest digit: 6
  /// or 7 bits (0: sm90_cluster_digit_bits); RADIX_CUDA_CLUSTER_CHUNK,
  /// RADIX_CUDA_CLUSTER_DIGIT_BITS, for A/B
  int cluster_chunk = 0;
  int cluster_digit_bits = 0;
  bool block_sort = true;       ///< up to 8192 keys, and segments of more than 12 keys a thread: block_sort_agent (RADIX_CUDA_BLOCK_SORT=0: single_tile_agent, for A/B)
  bool msd_buckets = true;      ///< 32- and 64-bit keys (alone, 4- or 8-byte values, argsort), 2^18 to 3 x 2^19: one MSD pass, then a block sort a bucket where they fit (RADIX_CUDA_MSD=0: off)
  bool small_tiles = true;      ///< sm90_small_tiles up to the policy's medium_n (RADIX_CUDA_SMALL_TILES=0: off, for A/B)
  bool mid_tiles = true;        ///< sm90_mid_tiles up to the policy's mid_n (RADIX_CUDA_MID_TILES=0: off, for A/B)
  bool whole_tiles = true;      ///< a tile of one digit is written as it was read, unranked (RADIX_CUDA_WHOLE_TILES=0: off, for A/B)
  bool narrow = true;           ///< half-width keys between the first and last pass where the high halves agree
  bool pdl = true;              ///< Programmatic Dependent Launch between the passes (sm_90; RADIX_CUDA_PDL=0: off)
  int alt_policy = 0;           ///< sm90_alt_policy(..., alt_policy) where instantiated (RADIX_CUDA_ALT_POLICY=1..3)
  /// Segmented sort: segments of 33 keys up to this many go to the warp route
  /// (one warp each; 0: none; RADIX_CUDA_SEGMENT_WARP_MAX)
  std::uint32_t segment_warp_max = 1024;
  /// Segmented sort: uniform rows of this many keys up to 8192 go to the bin
  /// sort (segment_tiers; RADIX_CUDA_BIN_SORT=0: never; RADIX_CUDA_BIN_SORT_MIN)
  bool bin_sort = true;
  std::uint32_t bin_sort_min = 513;
  /// Segmented sort: longer uniform rows take the split route (segment_tiers;
  /// RADIX_CUDA_SPLIT_ROWS=0: never, for A/B)
  bool split_rows = true;
  /// Segmented sort: segments longer than this (at least
  /// segment_tiers::large_tile; offsets up to n / SMs, uniform rows that
  /// would take the long route) take the sweep route, Onesweep's passes over
  /// all of them at once (segments/sweep.cuh; RADIX_CUDA_SEGMENT_SWEEP_MIN,
  /// 0: never)
  std::uint64_t segment_sweep_min = 16384;
  /// Segmented sort, offsets: segments longer than this are sorted by
  /// Onesweep one at a time, each with the whole GPU (0: n / SMs, where one
  /// segment fills the GPU alone); those from segment_sweep_min up to it take
  /// the sweep route, one launch a pass for all of them. Raised, it sends
  /// long segments to the sweep route (bench/cuda/experiments/bucket_sweep.cu).
  /// Under graph capture every long segment takes the sweep route anyway.
  std::uint64_t segment_huge_min = 0;
};

template <class U, class V>
struct onesweep_job {
  sort_mode mode = sort_mode::keys;
  U* keys = nullptr;    ///< device; read-only for argsort and for keys out of place
  V* values = nullptr;  ///< device; values (pairs) or indices (argsort)
  /// argsort: the keys in sorted order too, or nullptr; keys: where they go
  /// sorted out of place (nullptr or keys: in place)
  U* sorted_keys = nullptr;
  /// Argsort with 4-byte indices (V = std::uint32_t), optional: the last
  /// pass (or the block sort of the whole input or of each MSD bucket)
  /// writes them here as 8-byte ones instead of into `values`, which then
  /// serves as scratch; the single-tile kernel widens them after)
  std::uint64_t* wide_indices = nullptr;
  std::uint64_t n = 0;
  core::ordered_codec<U> codec{};
  int begin_bit = 0, end_bit = -1, digit_bits = 0;
  /// Keys/pairs: the caller's alternate buffers (double-buffer API; then
  /// the workspace holds none), or nullptr.
  U* key_alt = nullptr;
  V* value_alt = nullptr;
  /// Keys of the input that lie elsewhere (key_inset, params.cuh): keys with
  /// the caller's alternates; onesweep_sort copies them in where its route
  /// would read the input otherwise than through the tiled kernels.
  key_inset<U> inset{};
  void* workspace = nullptr;  ///< device
  std::size_t workspace_bytes = 0;
  void* stream = nullptr;  ///< cudaStream_t
  onesweep_tuning tuning{};
};

/// Enqueues the sort. Returns where the result is: 0 in job.keys / job.values
/// (job.sorted_keys for keys out of place), 1 in job.key_alt / job.value_alt
/// (only when those were given).
template <class U, class V>
int onesweep_sort(const onesweep_job<U, V>& job);
/// `caller_alternates`: keys/pairs whose alternates the caller gives;
/// `keys_out_of_place`: keys sorted into other memory (onesweep_job::sorted_keys),
/// which some small sorts do without a workspace.
template <class U, class V>
std::size_t onesweep_workspace_bytes(sort_mode mode, std::uint64_t n, const onesweep_tuning& t,
                                     bool caller_alternates = false, bool keys_out_of_place = false);

/// Shared memory per block Onesweep's scatter needs for n keys: a device
/// must offer that much (device_limits::shared_optin) for Onesweep to run.
template <class U, class V>
std::size_t onesweep_shared_bytes(std::uint64_t n, const onesweep_tuning& t);

/// The device form of the plan's passes (digits of at most max_radix_bits).
inline pass_list make_pass_list(int begin_bit, int end_bit, int digit_bits) {
  const int d = digit_bits <= 0 ? max_radix_bits : std::min(digit_bits, max_radix_bits);
  const core::pass_plan plan = core::plan_passes(begin_bit, end_bit, d);
  pass_list l;
  l.count = plan.count;
  int off = 0;
  for (int i = 0; i < plan.count; ++i) {
    l.shift[i] = std::uint8_t(plan[i].shift);
    l.bits[i] = std::uint8_t(plan[i].bits);
    l.bin_offset[i] = std::uint16_t(off);
    off += 1 << plan[i].bits;
  }
  l.total_bins = off;
  return l;
}

/// Whether this build instantiated Onesweep for keys U with values V
/// (RADIX_CUDA_TYPES=dev builds 32- and 64-bit keys, keys only or 32-bit values).
template <class U, class V>
constexpr bool onesweep_compiled() {
#if defined(RADIX_CUDA_DEV_TYPES) && RADIX_CUDA_DEV_TYPES
  return (sizeof(U) == 4 || sizeof(U) == 8) && (std::is_same_v<V, no_value> || std::is_same_v<V, std::uint32_t>);
#else
  return true;
#endif
}

}  // namespace radix::cuda_detail
