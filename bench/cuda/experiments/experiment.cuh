// What the stand-alone experiments here share (each is built alone with nvcc
// against a tree's headers, not by CMake): a CUDA call checked in main(), and
// torch.randn-like keys (normal floats) generated on the GPU from a seed.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x)                                                                              \
  do {                                                                                     \
    cudaError_t e_ = (x);                                                                  \
    if (e_ != cudaSuccess) {                                                               \
      std::printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
      return 1;                                                                            \
    }                                                                                      \
  } while (0)

/// CK's form for code outside main() (lambdas, helpers): a failed call ends the program.
#define CK_EXIT(x)                                                                         \
  do {                                                                                     \
    cudaError_t e_ = (x);                                                                  \
    if (e_ != cudaSuccess) {                                                               \
      std::printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
      std::exit(1);                                                                        \
    }                                                                                      \
  } while (0)

/// The median of a run's times.
inline float median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.f : v[v.size() / 2];
}

/// Milliseconds of `body`, which enqueues work on streams s[0..k): the device idle before, the other
/// streams start after an event on s[0], and s[0] waits for all of them at the end.
template <class Body>
float time_streams(const cudaStream_t* s, int k, cudaEvent_t e0, cudaEvent_t e1, Body&& body) {
  CK_EXIT(cudaDeviceSynchronize());
  CK_EXIT(cudaEventRecord(e0, s[0]));
  for (int i = 1; i < k; ++i) CK_EXIT(cudaStreamWaitEvent(s[i], e0, 0));
  body();
  for (int i = 1; i < k; ++i) {
    cudaEvent_t done;
    CK_EXIT(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
    CK_EXIT(cudaEventRecord(done, s[i]));
    CK_EXIT(cudaStreamWaitEvent(s[0], done, 0));
    CK_EXIT(cudaEventDestroy(done));
  }
  CK_EXIT(cudaEventRecord(e1, s[0]));
  CK_EXIT(cudaEventSynchronize(e1));
  CK_EXIT(cudaGetLastError());
  float ms = 0;
  CK_EXIT(cudaEventElapsedTime(&ms, e0, e1));
  return ms;
}

/// Element i's 64 random bits of a splitmix64 stream from `seed`.
__device__ __forceinline__ std::uint64_t splitmix_at(std::uint64_t i, std::uint64_t seed) {
  std::uint64_t z = (i + seed) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// n normal floats (Box-Muller over a splitmix64 stream from `seed`).
__global__ void normal_keys(float* k, std::uint64_t n, std::uint64_t seed) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::uint64_t(gridDim.x) * blockDim.x) {
    const std::uint64_t z = splitmix_at(i, seed);
    const double u1 = (double((z >> 11) & ((1ull << 26) - 1)) + 1.0) / double(1ull << 26);
    const double u2 = double(z >> 37) / double(1ull << 27);
    k[i] = float(sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2));
  }
}

/// Whether one row's argsort is right: `idx` a permutation of the row, the
/// sorted keys the keys at those positions, in order, equal keys by position.
inline bool argsort_row_ok(const std::vector<float>& keys, const std::vector<float>& sorted,
                           const std::vector<std::uint64_t>& idx) {
  const std::size_t L = keys.size();
  std::vector<char> seen(L, 0);
  for (std::size_t i = 0; i < L; ++i) {
    const std::uint64_t j = idx[i];
    if (j >= L || seen[j]) return false;
    seen[j] = 1;
    if (sorted[i] != keys[j]) return false;
    if (i > 0 && (keys[idx[i - 1]] > keys[j] || (keys[idx[i - 1]] == keys[j] && idx[i - 1] > j))) return false;
  }
  return true;
}

/// Checks every `step`-th row of an argsort of `rows` rows of L float keys on the device (the keys, the
/// sorted keys, the 8-byte positions): returns the rows that are wrong, or -1 after a failed copy; `checked`
/// counts the rows looked at.
inline long long argsort_rows_bad(const float* keys, const float* sorted, const void* idx, std::uint64_t rows,
                                  std::uint64_t L, std::uint64_t step, std::uint64_t& checked) {
  std::vector<float> hk(L), hs(L);
  std::vector<std::uint64_t> hi(L);
  long long bad = 0;
  for (std::uint64_t r = 0; r < rows; r += step) {
    if (cudaMemcpy(hk.data(), keys + r * L, L * 4, cudaMemcpyDeviceToHost) != cudaSuccess ||
        cudaMemcpy(hs.data(), sorted + r * L, L * 4, cudaMemcpyDeviceToHost) != cudaSuccess ||
        cudaMemcpy(hi.data(), static_cast<const std::uint64_t*>(idx) + r * L, L * 8, cudaMemcpyDeviceToHost) !=
            cudaSuccess)
      return -1;
    bad += !argsort_row_ok(hk, hs, hi);
    ++checked;
  }
  return bad;
}
