// The tuning cache as algorithm::automatic sees it (Ha, Krüger & Silva 2009,
// "Fast 4-way parallel radix sorting on GPUs", §5: calibrate once, then pick
// the measured best). The text format,
// lookup and writing are in tuning_cache_text.hpp (pure C++, CPU-tested);
// this adds the current device's identity and the per-process loaded copy.
#pragma once
#include <optional>
#include <string>

#include "tuning_cache_text.hpp"
#include "radix/cuda.hpp"

namespace radix::cuda_detail {

/// What the cache is keyed by: the device's name and the driver's CUDA
/// version (cudaDriverGetVersion, e.g. "13000").
struct device_identity {
  std::string name, driver;
};

/// The current device's identity; nullopt when no CUDA device is usable.
std::optional<device_identity> current_device_identity();

/// The cache key of a request: key width, and value width (pairs) or index
/// width (argsort).
workload workload_of(const sort_request& r);

/// The variant the tuning cache holds for `r` on the current device: the
/// entry of r's workload nearest to r.n in log2 (ties: the larger n).
/// nullopt without a device, a cache file, or an entry. The file is read
/// once per process; never throws.
std::optional<radix::cuda::variant> cached_variant(const sort_request& r);

/// Forgets the loaded cache: the next lookup reads the file again, from
/// `path` when not empty (calibrate() points it at the file it just wrote),
/// else from radix::tuning_cache_path() as evaluated then.
void reload_tuning_cache(const std::string& path = {});

}  // namespace radix::cuda_detail
