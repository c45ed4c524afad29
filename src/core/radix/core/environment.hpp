// Every environment variable the library reads, read here and nowhere else,
// each with what it does. README.md lists the same table (a test checks that
// every name below is documented there). Host-only.
//
// They are for tuning experiments and diagnostics: none changes a result,
// only how it is computed, and the library runs with none of them set.
#pragma once
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "radix/error.hpp"

namespace radix::core::env {

struct variable {
  const char* name;
  const char* effect;
};

inline constexpr variable variables[] = {
    {"RADIX_SCRATCH_CACHE", "bytes of scratch memory kept between sorts for reuse (K, M, G; default an eighth of physical memory, at most 4 GiB; 0: off)"},
    {"RADIX_CPU_POLICY", "CPU engine tuning fields, e.g. \"bucket_bytes=131072,max_msd_bits=11\" (src/cpu/lsd.hpp lists them)"},
    {"RADIX_TRACE", "1: the CPU engine prints the time of each phase of a sort to stderr"},
    {"RADIX_CUDA_SCRATCH_CACHE", "bytes of device memory the CUDA engine keeps between sorts called without a workspace, per device (K, M, G; default an eighth of the device's memory; 0: off)"},
    {"RADIX_CUDA_ALGORITHM", "forces one CUDA algorithm or variant for every sort, e.g. onesweep, four_way/3"},
    {"RADIX_CUDA_ALT_POLICY", "1, 2 or 3: a build with RADIX_CUDA_ALT_POLICY_BUILD uses that alternative Onesweep policy slot"},
    {"RADIX_CUDA_NARROW", "0: Onesweep keeps full-width 32-bit keys between passes (for A/B measurements)"},
    {"RADIX_CUDA_PDL", "0: Onesweep launches its passes without Programmatic Dependent Launch (for A/B measurements)"},
    {"RADIX_CUDA_RANK_SORT_MAX", "keys: the largest input the CUDA engine sorts by comparison counting (0: none; at most 16384; for A/B measurements)"},
    {"RADIX_CUDA_CLUSTER_SORT_MAX", "keys: the largest input the CUDA engine sorts in one thread block cluster (sm_90 and later; 0: none; at most 65536; for A/B measurements)"},
    {"RADIX_CUDA_CLUSTER_CHUNK", "2048 or 4096: the keys a block of the CUDA engine's cluster sort holds (default: the smallest chunk whose cluster holds the input; for A/B measurements)"},
    {"RADIX_CUDA_CLUSTER_DIGIT_BITS", "6 or 7: the widest digit of the CUDA engine's cluster sort (default: 7 for 4-byte keys, 6 for others; for A/B measurements)"},
    {"RADIX_CUDA_COUNTING_MAX", "keys: the largest input of 1-byte keys that one CUDA block sorts by counting (keys alone: default 65536; pairs: default 2048, at most 4096; 0: none; for A/B measurements)"},
    {"RADIX_CUDA_BLOCK_SORT", "0: inputs of 1025 to 8192 keys that comparison counting does not take, and segments of 3073-4096 and 6145-8192 keys, take the warp-ranked single-tile kernel instead of the block sort with thread-private counters (where a block holds it: segments keep the block sort where it does not; for A/B measurements)"},
    {"RADIX_CUDA_MSD", "0: sorts of 2^18 to 3 x 2^19 32- or 64-bit keys (alone, with 4- or 8-byte values, or argsort) always run every Onesweep pass, never one MSD pass followed by a block sort of each bucket (for A/B measurements)"},
    {"RADIX_CUDA_SMALL_TILES", "0: Onesweep skips its small tiles (inputs of up to 2^18-2^21 keys, by key and value width; for A/B measurements)"},
    {"RADIX_CUDA_MID_TILES", "0: Onesweep skips its mid-size tiles (32-bit keys with 4-byte values, 16-bit keys alone; for A/B measurements)"},
    {"RADIX_CUDA_WHOLE_TILES", "0: Onesweep ranks and stages every tile, even one whose keys all have the digit of the pass (which it otherwise writes as it was read, except above 2^24 keys with 64-bit keys or 8-byte values; for A/B measurements)"},
    {"RADIX_CUDA_SEGMENT_WARP_MAX", "keys: the segmented sort's longest segment sorted by one warp (0: none; for A/B measurements)"},
    {"RADIX_CUDA_BIN_SORT", "0: the segmented sort's uniform rows of 4- and 8-byte keys never take the bin sort (keys counted into bins of their span, then ranked within a bin; for A/B measurements)"},
    {"RADIX_CUDA_BIN_SORT_MIN", "keys: the shortest uniform row of the segmented sort that takes the bin sort (default 513; for A/B measurements)"},
    {"RADIX_CUDA_SPLIT_ROWS", "0: the segmented sort's uniform rows of 4- or 8-byte keys never take the split route (rows of 16385 to 522240 keys, and rows of 8193 to 16384 that the bin sort's shared memory does not hold) (one MSD step into buckets chosen from each row's keys, then the bin sort a bucket; for A/B measurements)"},
    {"RADIX_CUDA_SEGMENT_SWEEP_MIN", "keys: segments longer than this (default 16384, at least 8192; given by offsets, up to n / SMs; uniform rows, where neither the bin sort nor the split route takes them and there are at least as many as SMs) take the sweep route of the segmented sort, Onesweep's passes over all of them at once, instead of one block each (0: never; for A/B measurements)"},
    {"RADIX_CUDA_SHARED_LIMIT", "bytes: the CUDA engine acts as if a block could have at most this much shared memory (tests of the fallbacks for GPUs with less than an H100)"},
    {"RADIX_CUDA_NO_PIN", "set: host spans are staged through pinned buffers instead of being pinned in place"},
    {"RADIX_TUNING_CACHE", "the file `radix calibrate` writes and the CUDA engine reads (default under XDG_CACHE_HOME or HOME)"},
    {"RADIX_OPENCL_DEVICE", "the OpenCL device: an index or a name substring, e.g. NVIDIA or Portable"},
    {"RADIX_OPENCL_POLICY", "OpenCL engine tuning fields, e.g. \"groups=64,items=32\" (src/opencl/cl_internal.hpp lists them)"},
    {"RADIX_OPENCL_BUILD_OPTIONS", "extra options for the OpenCL kernel compiler"},
    {"RADIX_OPENCL_BUILD_LOG", "1: print the OpenCL kernel compiler's log"},
};

/// The value of a variable of the table above, or nullptr when unset. Asking
/// for a name not in the table is a bug: every variable is documented.
inline const char* get(const char* name) {
  for (const auto& v : variables)
    if (std::strcmp(v.name, name) == 0) return std::getenv(name);
  throw invalid_argument(std::string("radix: internal: undocumented environment variable ") + name);
}

/// Whether a flag variable is set to something other than empty or "0".
inline bool flag(const char* name) {
  const char* v = get(name);
  return v && *v && !(v[0] == '0' && v[1] == 0);
}

/// Parses a policy override "name=value,name=value" (values decimal or 0x
/// hex), calling set(name, value) for each item; items without '=' are
/// skipped, and unknown names are for `set` to ignore.
template <class F>
void for_each_setting(const char* spec, F set) {
  if (!spec) return;
  std::string_view s(spec);
  while (!s.empty()) {
    const std::size_t comma = s.find(',');
    const std::string item(s.substr(0, comma));
    s = comma == std::string_view::npos ? std::string_view() : s.substr(comma + 1);
    const std::size_t eq = item.find('=');
    if (eq == std::string::npos) continue;
    set(std::string_view(item).substr(0, eq), std::strtoull(item.c_str() + eq + 1, nullptr, 0));
  }
}

}  // namespace radix::core::env
