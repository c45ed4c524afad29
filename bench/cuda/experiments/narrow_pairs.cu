// Experiment (not built by CMake): Onesweep on 1- and 2-byte keys with 4-, 8- or 16-byte values, the double-buffer form
// (the caller's alternates, no copy home), against CUB's DeviceRadixSort::SortPairs with DoubleBuffer, in one
// process, alternating, CUDA events, medians. Uniform random keys, values 0..n-1; every run's result is checked
// against CUB's (both are stable, so they must agree element for element). Only the two engine instantiations
// it times are compiled, so it builds in a few minutes against any tree and ncu can look at its kernels alone.
//
//   nvcc -I TREE/include -I TREE/src -I TREE/src/core -I TREE/src/cuda -O3 -DNDEBUG \
//     --generate-code=arch=compute_90,code=sm_90 --expt-relaxed-constexpr -std=c++20 \
//     -o narrow_pairs bench/cuda/experiments/narrow_pairs.cu
//   ./narrow_pairs [LOG2N] [REPS] [KEYBYTES: 1, 2 or 0 for both] [VALUEBYTES: 4, 8, 16 or 0 for all]
#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "experiment.cuh"
#include "onesweep/dispatch.cuh"
#include "onesweep_alone.cuh"

namespace radix::cuda_detail {
#define NARROW_PAIRS_INSTANTIATE(K, V)                                              \
  template int onesweep_sort<K, V>(const onesweep_job<K, V>&);                       \
  template std::size_t onesweep_workspace_bytes<K, V>(sort_mode, std::uint64_t, const onesweep_tuning&, bool, bool);
NARROW_PAIRS_INSTANTIATE(std::uint8_t, std::uint32_t)
NARROW_PAIRS_INSTANTIATE(std::uint16_t, std::uint32_t)
NARROW_PAIRS_INSTANTIATE(std::uint8_t, std::uint64_t)
NARROW_PAIRS_INSTANTIATE(std::uint16_t, std::uint64_t)
NARROW_PAIRS_INSTANTIATE(std::uint8_t, v128)
NARROW_PAIRS_INSTANTIATE(std::uint16_t, v128)

}  // namespace radix::cuda_detail

using namespace radix::cuda_detail;

template <class V>
__device__ V value_of(std::uint64_t i) {
  V v{};
  for (int b = 0; b < int(sizeof(V) / 4); ++b) reinterpret_cast<std::uint32_t*>(&v)[b] = std::uint32_t(i) + b;
  return v;
}

template <class K, class V>
__global__ void uniform_keys(K* k, V* v, std::uint64_t n, std::uint64_t seed) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::uint64_t(gridDim.x) * blockDim.x) {
    k[i] = K(splitmix_at(i, seed) >> 17);
    v[i] = value_of<V>(i);
  }
}

template <class K, class V>
int run(int log2n, int reps) {
  const std::uint64_t n = std::uint64_t(1) << log2n;
  K *k0, *k[2];
  V *v0, *v[2];
  CK(cudaMalloc(&k0, n * sizeof(K)));
  CK(cudaMalloc(&v0, n * sizeof(V)));
  for (int b = 0; b < 2; ++b) {
    CK(cudaMalloc(&k[b], n * sizeof(K)));
    CK(cudaMalloc(&v[b], n * sizeof(V)));
  }
  uniform_keys<<<1024, 256>>>(k0, v0, n, 0x5eed + log2n);
  CK(cudaGetLastError());

  const onesweep_tuning tuning{};  // the defaults (timed_onesweep sorts with them)
  const std::size_t ws_bytes = onesweep_workspace_bytes<K, V>(sort_mode::pairs, n, tuning, true);
  void* ws = nullptr;
  CK(cudaMalloc(&ws, std::max<std::size_t>(ws_bytes, 1)));
  std::size_t cub_bytes = 0;
  cub::DoubleBuffer<K> ck(k[0], k[1]);
  cub::DoubleBuffer<V> cv(v[0], v[1]);
  CK(cub::DeviceRadixSort::SortPairs(nullptr, cub_bytes, ck, cv, int(n)));
  void* cub_ws = nullptr;
  CK(cudaMalloc(&cub_ws, cub_bytes));

  std::vector<K> ref_k(n), got_k(n);
  std::vector<V> ref_v(n), got_v(n);
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  std::vector<float> t_radix, t_cub;
  int bad = 0;
  for (int r = -1; r < reps; ++r) {
    float ms = 0;
    // CUB
    CK(cudaMemcpy(k[0], k0, n * sizeof(K), cudaMemcpyDeviceToDevice));
    CK(cudaMemcpy(v[0], v0, n * sizeof(V), cudaMemcpyDeviceToDevice));
    cub::DoubleBuffer<K> dk(k[0], k[1]);
    cub::DoubleBuffer<V> dv(v[0], v[1]);
    CK(cudaEventRecord(e0));
    CK(cub::DeviceRadixSort::SortPairs(cub_ws, cub_bytes, dk, dv, int(n)));
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    CK(cudaEventElapsedTime(&ms, e0, e1));
    if (r >= 0) t_cub.push_back(ms);
    if (r == -1) {
      CK(cudaMemcpy(ref_k.data(), dk.Current(), n * sizeof(K), cudaMemcpyDeviceToHost));
      CK(cudaMemcpy(ref_v.data(), dv.Current(), n * sizeof(V), cudaMemcpyDeviceToHost));
    }
    // radix
    CK(cudaMemcpy(k[0], k0, n * sizeof(K), cudaMemcpyDeviceToDevice));
    CK(cudaMemcpy(v[0], v0, n * sizeof(V), cudaMemcpyDeviceToDevice));
    CK(cudaMemset(k[1], 0xA5, n * sizeof(K)));
    CK(cudaMemset(v[1], 0xA5, n * sizeof(V)));
    onesweep_job<K, V> job;
    job.mode = sort_mode::pairs;
    job.keys = k[0];
    job.values = v[0];
    job.n = n;
    job.end_bit = 8 * int(sizeof(K));  // the plan's whole key (begin_bit 0)
    job.key_alt = k[1];
    job.value_alt = v[1];
    const int where = timed_onesweep(job, ws, ws_bytes, e0, e1, ms);
    if (where < 0) return 1;
    if (r >= 0) t_radix.push_back(ms);
    if (r == -1 || r == reps - 1) {
      CK(cudaMemcpy(got_k.data(), k[where], n * sizeof(K), cudaMemcpyDeviceToHost));
      CK(cudaMemcpy(got_v.data(), v[where], n * sizeof(V), cudaMemcpyDeviceToHost));
      for (std::uint64_t i = 0; i < n; ++i)
        if (got_k[i] != ref_k[i] || std::memcmp(&got_v[i], &ref_v[i], sizeof(V)) != 0) ++bad;
    }
  }
  const float mr = median(t_radix), mc = median(t_cub);
  std::printf("%d-byte keys, %d-byte values, 2^%d, double buffer: radix %.4f ms  CUB %.4f ms  CUB/radix %.3fx  (%d reps; %d elements differ from CUB)\n",
              int(sizeof(K)), int(sizeof(V)), log2n, mr, mc, mc / mr, reps, bad);
  cudaFree(k0); cudaFree(v0); cudaFree(ws); cudaFree(cub_ws);
  for (int b = 0; b < 2; ++b) { cudaFree(k[b]); cudaFree(v[b]); }
  return bad ? 2 : 0;
}

template <class K>
int run_values(int log2n, int reps, int value_bytes) {
  int rc = 0;
  if (value_bytes == 0 || value_bytes == 4) rc |= run<K, std::uint32_t>(log2n, reps);
  if (value_bytes == 0 || value_bytes == 8) rc |= run<K, std::uint64_t>(log2n, reps);
  if (value_bytes == 0 || value_bytes == 16) rc |= run<K, v128>(log2n, reps);
  return rc;
}

int main(int argc, char** argv) {
  const int log2n = argc > 1 ? std::atoi(argv[1]) : 24;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 15;
  const int key_bytes = argc > 3 ? std::atoi(argv[3]) : 0;
  const int value_bytes = argc > 4 ? std::atoi(argv[4]) : 4;
  int rc = 0;
  try {
    if (key_bytes == 0 || key_bytes == 1) rc |= run_values<std::uint8_t>(log2n, reps, value_bytes);
    if (key_bytes == 0 || key_bytes == 2) rc |= run_values<std::uint16_t>(log2n, reps, value_bytes);
  } catch (const std::exception& e) {
    std::printf("error: %s\n", e.what());
    return 1;
  }
  return rc;
}
