// The applications' CUDA error checks: every runtime call through CU(), and
// CU_LAUNCHED() after every launch (a bad configuration shows up there, a
// fault at the next synchronizing call). Failures throw std::runtime_error
// naming the call, the error and the place.
#pragma once
#include <cuda_runtime.h>

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
