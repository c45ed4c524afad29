// The tuning cache, loaded once per process for algorithm::automatic (Ha,
// Krüger & Silva 2009, "Fast 4-way parallel radix sorting on GPUs", §5).
// Host C++ of the CUDA engine: it asks the CUDA
// runtime which device is current, nothing more.
#include "tuning_cache.hpp"

#include <cuda_runtime_api.h>

#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <vector>

#include "radix/calibrate.hpp"

namespace radix::cuda_detail {

namespace {

struct loaded_cache {
  std::mutex m;
  bool loaded = false;
  std::string path_override;  ///< set by reload_tuning_cache(path)
  std::string text;           ///< the whole file ("" when missing)
  /// Entries for each device ordinal seen, filtered on its identity and on
  /// variants this build can parse (so a stale line never wins a lookup).
  std::map<int, std::vector<tuning_entry>> by_device;
  std::map<int, std::optional<device_identity>> identities;
};

loaded_cache& cache() {
  static loaded_cache c;
  return c;
}

/// Asked once per ordinal: cudaGetDeviceProperties is far too slow per sort.
std::optional<device_identity> identity_of(loaded_cache& c, int dev) {
  const auto it = c.identities.find(dev);
  if (it != c.identities.end()) return it->second;
  std::optional<device_identity> id;
  cudaDeviceProp p{};
  int drv = 0;
  if (cudaGetDeviceProperties(&p, dev) == cudaSuccess && cudaDriverGetVersion(&drv) == cudaSuccess)
    id = device_identity{sanitize_field(p.name), std::to_string(drv)};
  else
    (void)cudaGetLastError();  // leave no error behind for the caller's next check
  c.identities[dev] = id;
  return id;
}

int current_ordinal() {
  int dev = -1;
  if (cudaGetDevice(&dev) != cudaSuccess) {
    (void)cudaGetLastError();
    return -1;
  }
  return dev;
}

}  // namespace

std::optional<device_identity> current_device_identity() {
  const int dev = current_ordinal();
  if (dev < 0) return std::nullopt;
  auto& c = cache();
  std::lock_guard lock(c.m);
  return identity_of(c, dev);
}

workload workload_of(const sort_request& r) {
  workload w;
  w.key_bytes = r.key.bytes;
  w.value_bytes = r.op == operation::pairs ? int(r.value_bytes) : r.op == operation::argsort ? int(r.index_bytes) : 0;
  return w;
}

std::optional<radix::cuda::variant> cached_variant(const sort_request& r) {
  try {
    const int dev = current_ordinal();
    if (dev < 0) return std::nullopt;
    auto& c = cache();
    std::lock_guard lock(c.m);
    if (!c.loaded) {
      const std::string path = c.path_override.empty() ? radix::tuning_cache_path() : c.path_override;
      std::ifstream in(path, std::ios::binary);
      c.text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
      if (in.bad()) c.text.clear();
      c.by_device.clear();
      c.loaded = true;
    }
    auto it = c.by_device.find(dev);
    if (it == c.by_device.end()) {
      std::vector<tuning_entry> mine;
      if (const auto id = identity_of(c, dev)) {
        radix::cuda::variant v;
        for (auto& e : parse_tuning_lines(c.text, id->name, id->driver))
          if (radix::cuda::parse_variant(e.variant, v)) mine.push_back(std::move(e));
      }
      it = c.by_device.emplace(dev, std::move(mine)).first;
    }
    const tuning_entry* e = nearest_entry(it->second, workload_of(r), r.n);
    if (!e) return std::nullopt;
    radix::cuda::variant v;
    if (!radix::cuda::parse_variant(e->variant, v)) return std::nullopt;
    // The seed algorithms stop at 2^32 - 1 elements: beyond, the built-in choice.
    if (v.algo != algorithm::onesweep && r.n > 0xFFFFFFFFull) return std::nullopt;
    return v;
  } catch (...) {
    // A broken cache must never break a sort: fall back to the built-in choice.
    return std::nullopt;
  }
}

void reload_tuning_cache(const std::string& path) {
  auto& c = cache();
  std::lock_guard lock(c.m);
  c.loaded = false;
  c.text.clear();
  c.by_device.clear();
  c.path_override = path;
}

}  // namespace radix::cuda_detail
