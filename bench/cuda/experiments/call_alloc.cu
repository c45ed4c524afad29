// Experiment (not built by CMake): what a sort called without a workspace pays for its allocation. Times,
// wall clock a call with the stream synchronized after it (how a program that sorts now and then calls it),
// median of REPS calls after a warm-up, the input restored (not timed) before each:
//   workspace:  radix::cuda::sort_keys / sort_pairs with a workspace allocated once
//   allocating: the same calls without one (the library allocates it stream-ordered, from its pool, or from
//               the device's default pool where RADIX_CUDA_SCRATCH_CACHE=0)
// u32 keys and u32/u32 pairs at 2^20, 2^24, 2^28. Run it twice, with and without RADIX_CUDA_SCRATCH_CACHE=0.
// Links against a build's libradix.a (RADIX_CUDA_TYPES=dev is enough):
//   nvcc -I TREE/include -O3 -DNDEBUG --generate-code=arch=compute_90,code=sm_90 -std=c++20 \
//     -o call_alloc bench/cuda/experiments/call_alloc.cu BUILD/libradix.a
//   ./call_alloc [REPS]
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "experiment.cuh"
#include "radix/cuda.hpp"

namespace {

__global__ void fill(std::uint32_t* k, std::uint64_t n) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < n; i += gridDim.x * std::uint64_t(blockDim.x))
    k[i] = std::uint32_t(splitmix_at(i, 0));
}

template <class Call, class Restore>
double median_ms(int reps, cudaStream_t s, Restore restore, Call call) {
  std::vector<double> t;
  for (int r = 0; r <= reps; ++r) {
    restore();
    CK_EXIT(cudaStreamSynchronize(s));
    const auto t0 = std::chrono::steady_clock::now();
    call();
    CK_EXIT(cudaStreamSynchronize(s));
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (r) t.push_back(ms);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 9;
  const char* cache = std::getenv("RADIX_CUDA_SCRATCH_CACHE");
  std::printf("RADIX_CUDA_SCRATCH_CACHE=%s\n| op | n | workspace ms | allocating ms | allocating / workspace |\n"
              "|---|---|---|---|---|\n", cache ? cache : "(unset)");
  cudaStream_t s;
  CK_EXIT(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  for (int log2n : {20, 24, 28}) {
    const std::uint64_t n = std::uint64_t(1) << log2n;
    std::uint32_t *in, *k, *v, *vin;
    CK_EXIT(cudaMalloc(&in, n * 4));
    CK_EXIT(cudaMalloc(&k, n * 4));
    CK_EXIT(cudaMalloc(&v, n * 4));
    CK_EXIT(cudaMalloc(&vin, n * 4));
    fill<<<1024, 256>>>(in, n);
    fill<<<1024, 256>>>(vin, n);
    CK_EXIT(cudaDeviceSynchronize());
    const auto restore = [&] {
      CK_EXIT(cudaMemcpyAsync(k, in, n * 4, cudaMemcpyDeviceToDevice, s));
      CK_EXIT(cudaMemcpyAsync(v, vin, n * 4, cudaMemcpyDeviceToDevice, s));
    };
    for (bool pairs : {false, true}) {
      const std::size_t wsb = pairs ? radix::cuda::sort_pairs_workspace_bytes<std::uint32_t, std::uint32_t>(n)
                                    : radix::cuda::sort_keys_workspace_bytes<std::uint32_t>(n);
      void* ws = nullptr;
      CK_EXIT(cudaMalloc(&ws, wsb));
      const double with = median_ms(reps, s, restore, [&] {
        if (pairs) radix::cuda::sort_pairs(k, v, n, ws, wsb, s);
        else radix::cuda::sort_keys(k, n, ws, wsb, s);
      });
      const double without = median_ms(reps, s, restore, [&] {
        if (pairs) radix::cuda::sort_pairs(k, v, n, s);
        else radix::cuda::sort_keys(k, n, s);
      });
      std::printf("| %s | 2^%d | %.3f | %.3f | %.2f |\n", pairs ? "u32/u32 pairs" : "u32 keys", log2n, with, without,
                  without / with);
      CK_EXIT(cudaFree(ws));
    }
    CK_EXIT(cudaFree(in));
    CK_EXIT(cudaFree(k));
    CK_EXIT(cudaFree(v));
    CK_EXIT(cudaFree(vin));
  }
  return 0;
}
