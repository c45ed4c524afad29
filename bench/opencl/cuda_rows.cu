// CUB and the radix CUDA engine on the OpenCL benchmark's input (see cuda_rows.hpp).
#include "cuda_rows.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "peers_cub.hpp"
#include "radix/cuda.hpp"

namespace {

void ok(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  std::fprintf(stderr, "radix_opencl_bench: %s: %s\n", what, cudaGetErrorString(e));
  std::exit(2);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? -1 : v[v.size() / 2];
}

}  // namespace

cuda_rows time_cuda_rows(const std::uint32_t* input, const std::uint32_t* sorted, std::size_t n, int repeat) {
  cuda_rows r;
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    cudaGetLastError();  // clear the "no device" error
    return r;
  }
  cudaDeviceProp prop{};
  ok(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  r.ran = true;
  r.device = prop.name;
  const std::size_t bytes = n * sizeof(std::uint32_t);
  std::uint32_t *keys = nullptr, *alt = nullptr;
  ok(cudaMalloc(&keys, bytes), "cudaMalloc keys");
  ok(cudaMalloc(&alt, bytes), "cudaMalloc alternate keys");
  const std::size_t cub_bytes = peers::cub_temp_bytes<std::uint32_t, peers::none>(n, 0, 32);
  const std::size_t ws_bytes = radix::cuda::sort_keys_workspace_bytes<std::uint32_t>(n);
  void *cub_temp = nullptr, *ws = nullptr;
  ok(cudaMalloc(&cub_temp, std::max<std::size_t>(cub_bytes, 1)), "cudaMalloc CUB temp");
  ok(cudaMalloc(&ws, std::max<std::size_t>(ws_bytes, 1)), "cudaMalloc radix workspace");
  cudaEvent_t start, stop;
  ok(cudaEventCreate(&start), "cudaEventCreate");
  ok(cudaEventCreate(&stop), "cudaEventCreate");
  std::vector<std::uint32_t> back(n);

  auto timed = [&](auto&& sort, bool& correct) {
    std::vector<double> t;
    int where = 0;
    for (int i = 0; i <= repeat; ++i) {
      ok(cudaMemcpy(keys, input, bytes, cudaMemcpyHostToDevice), "cudaMemcpy input");
      ok(cudaEventRecord(start), "cudaEventRecord");
      where = sort();
      ok(cudaGetLastError(), "sort launch");
      ok(cudaEventRecord(stop), "cudaEventRecord");
      ok(cudaEventSynchronize(stop), "cudaEventSynchronize");
      float ms = 0;
      ok(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
      if (i > 0) t.push_back(ms / 1e3);
    }
    ok(cudaMemcpy(back.data(), where ? alt : keys, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy result");
    correct = std::equal(back.begin(), back.end(), sorted);
    return median(t);
  };
  r.cub_s = timed(
      [&] { return peers::cub_sort<std::uint32_t, peers::none>(keys, alt, nullptr, nullptr, n, 0, 32, cub_temp, cub_bytes, 0); },
      r.cub_ok);
  r.radix_s = timed(
      [&] {
        radix::cuda::sort_keys<std::uint32_t>(keys, n, ws, ws_bytes, 0);
        return 0;
      },
      r.radix_ok);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaFree(ws);
  cudaFree(cub_temp);
  cudaFree(alt);
  cudaFree(keys);
  return r;
}
