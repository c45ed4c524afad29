// radix — calibration of the CUDA engine (Ha, Krüger & Silva 2009, "Fast
// 4-way parallel radix sorting on GPUs", §5: "a calibration procedure
// consisting of a few sorts to select the best approach").
//
// calibrate() times short sorts of every candidate variant (algorithm, digit
// width, tile shape: radix::cuda::candidates()) on the present GPU for a few
// sizes and key/value widths, and writes the fastest per workload to the
// tuning cache. algorithm::automatic then reads it (nearest calibrated size,
// same key and value widths); without a cache it uses the built-in policies.
//
// The cache is a small text file, one line per workload, keyed by device name
// and driver version (entries of another device or driver are ignored):
//   $RADIX_TUNING_CACHE if set, else $XDG_CACHE_HOME/radix/cuda-tuning.txt,
//   else $HOME/.cache/radix/cuda-tuning.txt.
// Host-only header: without the CUDA engine, calibrate() throws
// radix::engine_unavailable.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace radix {

struct calibrate_options {
  /// Element counts to calibrate (each workload is timed at every size).
  std::vector<std::uint64_t> sizes = {std::uint64_t(1) << 16, std::uint64_t(1) << 20, std::uint64_t(1) << 24};
  /// Timed runs per (workload, size, variant); the median counts.
  int repeats = 5;
  /// Where to write; empty: tuning_cache_path().
  std::string cache_path;
  /// false: measure and report only.
  bool write_cache = true;
  /// Called with one line of progress text per timed candidate (may be empty).
  std::function<void(const std::string&)> progress;
};

struct calibration_row {
  std::string workload;  ///< e.g. "u32 keys", "u32/u32 pairs", "u64 keys"
  std::uint64_t n = 0;
  std::string variant;   ///< radix::cuda::to_string of the variant
  double ms = 0;         ///< median
  bool best = false;     ///< fastest for (workload, n)
};

struct calibration_report {
  std::string device, driver, cache_path;
  std::vector<calibration_row> rows;
  /// After writing the cache: for each (workload, n), the automatic choice's
  /// median time over the best candidate's (re-measured), >= 1.
  std::vector<std::pair<std::string, double>> automatic_vs_best;
  double seconds = 0;  ///< wall time of the whole calibration
};

calibration_report calibrate(const calibrate_options& o = {});

/// The cache file calibrate() writes and algorithm::automatic reads.
std::string tuning_cache_path();

}  // namespace radix
