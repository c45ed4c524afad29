// The applications' CUDA error checks: every runtime call through CU(), and
// CU_LAUNCHED() after every launch (a bad configuration shows up there, a
// fault at the next synchronizing call). Failures throw std::runtime_error
// naming the call, the error and the place. Also the device line of the
// CUDA engine's tables, and the launch shape and warp sum the kernels share.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace apps {

inline void cu_check(cudaError_t e, const char* what, const char* file, int line) {
  if (e != cudaSuccess)
    throw std::runtime_error(std::string("CUDA error ") + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) +
                             ") in " + what + " at " + file + ":" + std::to_string(line));
}

}  // namespace apps

#define CU(call) ::apps::cu_check((call), #call, __FILE__, __LINE__)
#define CU_LAUNCHED(kernel) ::apps::cu_check(cudaGetLastError(), "launch of " #kernel, __FILE__, __LINE__)
/// for (Index i = this thread's first element; i < n; i += threads in the grid)
#define APPS_GRID_STRIDE(Index, i, n) \
  for (Index i = Index(blockIdx.x) * blockDim.x + threadIdx.x; i < Index(n); i += Index(gridDim.x) * blockDim.x)

namespace apps {

/// Threads per block of the apps' grid-stride kernels.
constexpr int block = 256;
/// Blocks for n elements, one per thread (at least 1, at most 2^20: the loop strides over the rest).
inline unsigned grid_for(std::uint64_t n) {
  return unsigned(std::clamp<std::uint64_t>((n + block - 1) / block, 1, 1u << 20));
}

#if defined(__CUDACC__)
/// The sum over the warp, in lane 0.
__device__ inline unsigned long long warp_sum(unsigned long long v) {
  for (int d = 16; d > 0; d /= 2) v += __shfl_down_sync(0xFFFFFFFFu, v, d);
  return v;
}
#endif

/// The current device in words: name, SMs, runtime and driver versions.
inline std::string device_name() {
  int dev = 0, rt = 0, drv = 0;
  CU(cudaGetDevice(&dev));
  cudaDeviceProp p{};
  CU(cudaGetDeviceProperties(&p, dev));
  CU(cudaRuntimeGetVersion(&rt));
  CU(cudaDriverGetVersion(&drv));
  return std::string(p.name) + ", " + std::to_string(p.multiProcessorCount) + " SMs, CUDA runtime " +
         std::to_string(rt / 1000) + "." + std::to_string(rt % 1000 / 10) + ", driver API " +
         std::to_string(drv / 1000) + "." + std::to_string(drv % 1000 / 10);
}

}  // namespace apps
