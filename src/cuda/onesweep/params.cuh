// What the Onesweep kernels share: the control block at the head of the
// workspace (counters, the device-side pass schedule, the global digit
// offsets), the pass list, and the buffers of one sort.
#pragma once
#include <cstdint>
#include <type_traits>

#include "../common/common.cuh"
#include "radix/core/ordered_bits.hpp"

namespace radix::cuda_detail {

constexpr int max_passes = 64;   // 64-bit keys with 1-bit digits
constexpr int max_bins = 2048;   // sum over passes of 2^bits (64-bit keys, 8-bit digits)
/// Counters of finished tiles per tail group, shared by groups g, g + ring_groups, ...
/// (lookback_ring.cuh): the ring may hold at most ring_groups - 2 groups.
constexpr unsigned ring_groups = 2048;

/// Keys [begin, end) of a sort's input that lie elsewhere, at `keys`: the
/// histogram kernel, the first pass that runs and a finish after no pass read
/// them from there, so that a caller assembling its input from runs (the
/// distributed sort: its own run beside those that arrived) need not copy
/// one in first. Keys alone with the caller's alternates, on the tiled
/// route; onesweep_sort copies it in for any other.
template <class U>
struct key_inset {
  const U* keys = nullptr;
  std::uint64_t begin = 0, end = 0;

  __host__ __device__ bool active() const { return end > begin; }
  /// Whether [first, first + count) and the inset share an element.
  __device__ __forceinline__ bool meets(std::uint64_t first, std::uint64_t count) const {
    return first < end && first + count > begin;
  }
  /// Element i of the input whose other elements are in `input`.
  __device__ __forceinline__ U at(const U* input, std::uint64_t i) const {
    return ld_nc(i >= begin && i < end ? keys + (i - begin) : input + i);
  }
};

/// The passes of one sort, least significant first (from core::plan_passes).
struct pass_list {
  int count = 0;
  int total_bins = 0;
  std::uint8_t shift[max_passes] = {};
  std::uint8_t bits[max_passes] = {};
  std::uint16_t bin_offset[max_passes] = {};  ///< where pass p's bins start in the flat histogram
};

/// Head of the workspace; zeroed (with the ring) before each sort.
struct control {
  unsigned tail;       ///< tail iterator of the look-back ring (GPUOpen Onesweep article): tail groups known finished, over all passes
  unsigned hist_done;  ///< histogram blocks finished (the last one plans)
  unsigned unsorted;   ///< some key is smaller than its predecessor
  unsigned canon_used; ///< some key is a NaN or -0 (the float canonicalisation changes it)
  int eff_passes;      ///< passes that really run (k)
  unsigned narrow;     ///< the passes between the first and the last keep half-width keys (narrow_key_t)
  unsigned msd;        ///< only the top pass runs, and onesweep_buckets_kernel sorts each of its buckets
  unsigned long long narrow_high;  ///< then: the high half every key shares (bits in place, key 0's)
  unsigned ticket[max_passes];  ///< tile tickets of the e-th pass that runs
  int pass_eff[max_passes];  ///< pass p is the pass_eff[p]-th to run, or -1: skipped
  unsigned long long counts[max_bins];   ///< global digit counts
  unsigned long long offsets[max_bins];  ///< exclusive prefix of counts, per pass
  unsigned group_done[ring_groups];      ///< finished tiles of tail group g, at [g % ring_groups]
};

/// The half-width keys that passes between the first and the last store in
/// the alternate buffers when the high half of every key is the same (the
/// passes of those digits are skipped): a pass then moves 6 bytes a 32-bit
/// key instead of 8. 32-bit keys only (void otherwise): 64-bit keys with
/// narrow passes (to 32 bits) sorted full-width keys 0.5 % slower (H100:
/// bench/results/cuda-h100-2026-11-23-c.md, call 10).
template <class U>
using narrow_key_t = std::conditional_t<sizeof(U) == 4, std::uint16_t, void>;

/// Look-back ring geometry (run-time so that tests can force a tiny ring).
struct ring_config {
  unsigned log2 = 10;        ///< 2^log2 tiles in the ring
  unsigned lookback = 256;   ///< L
  unsigned tail_bits = 8;    ///< out-of-order group of 2^tail_bits tiles
};

/// Where a keys or pairs sort leaves its result: in the caller's buffers
/// (the in-place API), or in the alternates where the passes end there (the
/// double-buffer API, whose alternates are the caller's too). The host picks
/// it from the passes planned; the finish kernel copies when the passes
/// actually run (some are skipped on the device) end elsewhere.
enum class result_buffer : int { caller, alternate };

template <class U, class V>
struct onesweep_params {
  U* keys = nullptr;        ///< user keys: input, and output unless argsort or out of place
  /// argsort: where its last pass writes the keys (nullptr: nowhere); keys:
  /// the output of a sort out of place (nullptr: in place, in `keys`)
  U* sorted_keys = nullptr;
  U* key_alt[2] = {};       ///< [1] only for argsort
  V* values = nullptr;      ///< user values (pairs) or indices (argsort)
  V* value_alt = nullptr;
  std::uint64_t n = 0;
  std::uint32_t num_tiles = 0;
  sort_mode mode = sort_mode::keys;
  core::ordered_codec<U> codec{};
  U range_mask = 0;
  control* ctl = nullptr;
  unsigned long long* ring = nullptr;  ///< 2^log2 x 256 entries
  ring_config ring_cfg{};
  result_buffer result = result_buffer::caller;
  /// Argsort carrying 4-byte indices: where its last pass (on the MSD path,
  /// the buckets' block sorts) writes them widened to 8 bytes (nullptr: into
  /// values, as they are)
  std::uint64_t* wide_values = nullptr;
  /// A tile whose keys all have the pass's digit is written as it was read
  /// (scatter_agent::whole_tile); off only for A/B measurements.
  bool whole_tiles = true;
  /// Keys of the input that lie elsewhere (key_inset; keys with the caller's alternates)
  key_inset<U> inset{};

  /// Keys sorted out of place (CUB's d_keys_in / d_keys_out): the caller's
  /// keys are only read, by the first pass, and the last pass writes
  /// sorted_keys, which saves the copy an in-place sort of a copy would make.
  __host__ __device__ bool out_of_place() const { return mode == sort_mode::keys && sorted_keys != nullptr; }
  /// Where the sorted keys go (argsort: nowhere where sorted_keys is null).
  __host__ __device__ U* key_out() const {
    return mode == sort_mode::argsort || sorted_keys != nullptr ? sorted_keys : keys;
  }
};

/// Sources and destinations of the e-th pass that runs, out of k. Keys/pairs
/// ping-pong user <-> alt (a final copy when k's parity does not match
/// onesweep_params::result); keys out of place read the user's keys once and
/// ping-pong sorted_keys <-> alt, so that the last pass writes sorted_keys;
/// argsort reads the user's keys once, ping-pongs
/// two key alternates, writes its last pass's keys to sorted_keys (or
/// nowhere), and picks the index
/// buffer of its first pass so that the last lands in the user's.
template <class U, class V>
struct pass_buffers {
  const U* ksrc;
  U* kdst;
  const V* vsrc;  ///< nullptr: generate indices
  V* vdst;
  std::uint64_t* vwide;  ///< an argsort's last pass that widens its indices: they go here, not to vdst

  /// msd (control::msd: the top pass alone runs, and onesweep_buckets_kernel
  /// reads its buckets): an argsort's top pass then writes its keys to an
  /// alternate (sorted_keys may be null) and its indices, unwidened, to values.
  __device__ __forceinline__ static pass_buffers pick(const onesweep_params<U, V>& p, int e, int k, bool msd = false) {
    pass_buffers b{};
    if (msd && p.mode == sort_mode::argsort) {
      b.ksrc = p.keys;
      b.kdst = p.key_alt[0];
      b.vsrc = nullptr;
      b.vdst = p.values;
      b.vwide = nullptr;
      return b;
    }
    if (p.out_of_place()) {
      auto dst = [&](int pass) { return ((k - 1 - pass) & 1) == 0 ? p.sorted_keys : p.key_alt[0]; };
      b.ksrc = e == 0 ? p.keys : dst(e - 1);
      b.kdst = dst(e);
      b.vsrc = nullptr;
      b.vdst = nullptr;
    } else if (p.mode != sort_mode::argsort) {
      const bool even = (e & 1) == 0;
      b.ksrc = even ? p.keys : p.key_alt[0];
      b.kdst = even ? p.key_alt[0] : p.keys;
      b.vsrc = even ? p.values : p.value_alt;
      b.vdst = even ? p.value_alt : p.values;
    } else {
      // (no run-time index into the parameter array: that would copy it to local memory)
      b.ksrc = e == 0 ? p.keys : (((e - 1) & 1) ? p.key_alt[1] : p.key_alt[0]);
      b.kdst = e == k - 1 ? p.sorted_keys : ((e & 1) ? p.key_alt[1] : p.key_alt[0]);
      auto idx = [&](int pass) { return ((k - 1 - pass) & 1) == 0 ? p.values : p.value_alt; };
      b.vsrc = e == 0 ? nullptr : idx(e - 1);
      b.vdst = idx(e);
      if (e == k - 1) b.vwide = p.wide_values;
    }
    return b;
  }
};

}  // namespace radix::cuda_detail
