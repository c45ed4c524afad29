// What the stand-alone Onesweep harnesses (narrow_pairs.cu, wide_spills.cu) need besides the kernels: the
// two functions the engine's other translation units define, the device's limits (device_sort.cu) and the
// argsort's index widening (gather.cu; pairs and keys never call it). Include once, after
// onesweep/dispatch.cuh, in a harness that instantiates only the Onesweep sorts it times.
#pragma once
#include <cstdlib>

#include "onesweep/dispatch.cuh"

namespace radix::cuda_detail {
const device_limits& current_device_limits() {
  static device_limits d = [] {
    device_limits l;
    int dev = 0, optin = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
    cudaDeviceGetAttribute(&l.major, cudaDevAttrComputeCapabilityMajor, dev);
    l.shared_optin = std::size_t(optin);
    return l;
  }();
  return d;
}
void widen_indices(std::uint64_t*, const std::uint32_t*, std::uint64_t, void*) { std::abort(); }
}  // namespace radix::cuda_detail
