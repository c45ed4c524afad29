// What the stand-alone experiments here share (each is built alone with nvcc
// against a tree's headers, not by CMake): a CUDA call checked in main(), and
// torch.randn-like keys (normal floats) generated on the GPU from a seed.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstdio>

#define CK(x)                                                                              \
  do {                                                                                     \
    cudaError_t e_ = (x);                                                                  \
    if (e_ != cudaSuccess) {                                                               \
      std::printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
      return 1;                                                                            \
    }                                                                                      \
  } while (0)

/// n normal floats (Box-Muller over a splitmix64 stream from `seed`).
__global__ void normal_keys(float* k, std::uint64_t n, std::uint64_t seed) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::uint64_t(gridDim.x) * blockDim.x) {
    std::uint64_t z = (i + seed) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    const double u1 = (double((z >> 11) & ((1ull << 26) - 1)) + 1.0) / double(1ull << 26);
    const double u2 = double(z >> 37) / double(1ull << 27);
    k[i] = float(sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2));
  }
}
