// What the stand-alone Onesweep harnesses (narrow_pairs.cu, wide_spills.cu) need besides the kernels: the
// two functions the engine's other translation units define, the device's limits (device_sort.cu) and the
// argsort's index widening (gather.cu; pairs and keys never call it), and a timed call. Include once, in a
// harness that instantiates only the Onesweep sorts it times.
#pragma once
#include <cstdio>
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

/// Enqueues the sort (in workspace `ws`, default tuning) between two events and waits for it: returns
/// where the result is (onesweep_sort's answer) and its time in `ms`, or -1 after printing a CUDA error.
template <class U, class V>
int timed_onesweep(onesweep_job<U, V> job, void* ws, std::size_t ws_bytes, cudaEvent_t e0, cudaEvent_t e1,
                   float& ms) {
  job.workspace = ws;
  job.workspace_bytes = ws_bytes;
  job.tuning = onesweep_tuning{};
  cudaError_t e = cudaEventRecord(e0);
  const int where = onesweep_sort<U, V>(job);
  if (e == cudaSuccess) e = cudaEventRecord(e1);
  if (e == cudaSuccess) e = cudaEventSynchronize(e1);
  if (e == cudaSuccess) e = cudaGetLastError();
  if (e == cudaSuccess) e = cudaEventElapsedTime(&ms, e0, e1);
  if (e == cudaSuccess) return where;
  std::printf("CUDA error %s around onesweep_sort\n", cudaGetErrorString(e));
  return -1;
}
}  // namespace radix::cuda_detail
