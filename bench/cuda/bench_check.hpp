// The CUDA benchmarks' check of a runtime call: prints the failed call and
// exits with 2 (a benchmark has no way to go on after a CUDA error).
#pragma once
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>

#define CU(call)                                                                                          \
  do {                                                                                                    \
    cudaError_t e_ = (call);                                                                              \
    if (e_ != cudaSuccess) {                                                                              \
      std::fprintf(stderr, "CUDA error %s at %s:%d: %s\n", cudaGetErrorName(e_), __FILE__, __LINE__, #call); \
      std::exit(2);                                                                                       \
    }                                                                                                     \
  } while (0)
