// Experiment (not built by CMake): Onesweep on 1- and 2-byte keys with 4-, 8- or 16-byte values, the double-buffer form
// (the caller's alternates, no copy home), against CUB's DeviceRadixSort::SortPairs with DoubleBuffer, in one
// process, alternating, CUDA events, medians. Uniform random keys, values 0..n-1; every run's result is checked
// against CUB's (both are stable, so they must agree element for element). Only the two engine instantiations
// it times are compiled, so it builds in a few minutes against any tree and ncu can look at its kernels alone.
//
//   nvcc -I TREE/include -I TREE/src -I TREE/src/core -I TREE/src/cuda -O3 -DNDEBUG \
//     --generate-code=arch=compute_90,code=sm_90 --expt-relaxed-constexpr -std=c++20 \
//     -o wide_spills bench/cuda/experiments/wide_spills.cu
//   ./wide_spills [LOG2N] [REPS] [WHICH: 1 f32 keys, 2 u32/u64 pairs, 0 both]
#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "experiment.cuh"
#include "onesweep/dispatch.cuh"
#include "onesweep_alone.cuh"
#include "radix/key_traits.hpp"

namespace radix::cuda_detail {
template int onesweep_sort<std::uint32_t, no_value>(const onesweep_job<std::uint32_t, no_value>&);
template std::size_t onesweep_workspace_bytes<std::uint32_t, no_value>(sort_mode, std::uint64_t, const onesweep_tuning&,
                                                                       bool, bool);
template int onesweep_sort<std::uint32_t, std::uint64_t>(const onesweep_job<std::uint32_t, std::uint64_t>&);
template std::size_t onesweep_workspace_bytes<std::uint32_t, std::uint64_t>(sort_mode, std::uint64_t,
                                                                            const onesweep_tuning&, bool, bool);

}  // namespace radix::cuda_detail

using namespace radix::cuda_detail;

/// Uniform random 32-bit keys: finite floats (exponents within [2^-64, 2^64), either sign) or integers.
__global__ void uniform_keys32(std::uint32_t* k, std::uint64_t* v, std::uint64_t n, std::uint64_t seed, bool floats) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::uint64_t(gridDim.x) * blockDim.x) {
    std::uint32_t x = std::uint32_t(splitmix_at(i, seed) >> 17);
    if (floats) x = (x & 0x807FFFFFu) | ((63u + (x >> 23) % 128u) << 23);
    k[i] = x;
    if (v) v[i] = i;
  }
}

static float median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// V: no_value (f32 keys alone) or std::uint64_t (u32 keys with 8-byte values).
template <class V>
int run(int log2n, int reps) {
  constexpr bool pairs = !std::is_same_v<V, no_value>;
  using K = std::uint32_t;
  using VV = std::conditional_t<pairs, V, std::uint64_t>;  // storage (unused for keys alone)
  const std::uint64_t n = std::uint64_t(1) << log2n;
  K *k0, *k[2];
  VV *v0 = nullptr, *v[2] = {};
  CK(cudaMalloc(&k0, n * sizeof(K)));
  for (int b = 0; b < 2; ++b) CK(cudaMalloc(&k[b], n * sizeof(K)));
  if (pairs) {
    CK(cudaMalloc(&v0, n * sizeof(VV)));
    for (int b = 0; b < 2; ++b) CK(cudaMalloc(&v[b], n * sizeof(VV)));
  }
  uniform_keys32<<<1024, 256>>>(k0, pairs ? v0 : nullptr, n, 0x5eed + log2n, !pairs);
  CK(cudaGetLastError());

  const auto codec = pairs ? radix::core::ordered_codec<K>{}
                           : radix::core::make_codec<K>(radix::key_desc_of<float>(), radix::order::ascending,
                                                        radix::float_order::numeric);
  const onesweep_tuning tuning{};  // the defaults (timed_onesweep sorts with them)
  const std::size_t ws_bytes =
      onesweep_workspace_bytes<K, V>(pairs ? sort_mode::pairs : sort_mode::keys, n, tuning, true);
  void* ws = nullptr;
  CK(cudaMalloc(&ws, std::max<std::size_t>(ws_bytes, 1)));
  std::size_t cub_bytes = 0;
  cub::DoubleBuffer<float> fk(reinterpret_cast<float*>(k[0]), reinterpret_cast<float*>(k[1]));
  cub::DoubleBuffer<K> ck(k[0], k[1]);
  cub::DoubleBuffer<VV> cv(v[0], v[1]);
  if (pairs) CK(cub::DeviceRadixSort::SortPairs(nullptr, cub_bytes, ck, cv, int(n)));
  else CK(cub::DeviceRadixSort::SortKeys(nullptr, cub_bytes, fk, int(n)));
  void* cub_ws = nullptr;
  CK(cudaMalloc(&cub_ws, cub_bytes));

  std::vector<K> ref_k(n), got_k(n);
  std::vector<VV> ref_v(pairs ? n : 0), got_v(pairs ? n : 0);
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  std::vector<float> t_radix, t_cub;
  std::uint64_t bad = 0;
  for (int r = -1; r < reps; ++r) {
    float ms = 0;
    CK(cudaMemcpy(k[0], k0, n * sizeof(K), cudaMemcpyDeviceToDevice));
    if (pairs) CK(cudaMemcpy(v[0], v0, n * sizeof(VV), cudaMemcpyDeviceToDevice));
    cub::DoubleBuffer<float> dfk(reinterpret_cast<float*>(k[0]), reinterpret_cast<float*>(k[1]));
    cub::DoubleBuffer<K> dk(k[0], k[1]);
    cub::DoubleBuffer<VV> dv(v[0], v[1]);
    CK(cudaEventRecord(e0));
    if (pairs) CK(cub::DeviceRadixSort::SortPairs(cub_ws, cub_bytes, dk, dv, int(n)));
    else CK(cub::DeviceRadixSort::SortKeys(cub_ws, cub_bytes, dfk, int(n)));
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    CK(cudaEventElapsedTime(&ms, e0, e1));
    if (r >= 0) t_cub.push_back(ms);
    if (r == -1) {
      const K* kres = pairs ? dk.Current() : reinterpret_cast<const K*>(dfk.Current());
      CK(cudaMemcpy(ref_k.data(), kres, n * sizeof(K), cudaMemcpyDeviceToHost));
      if (pairs) CK(cudaMemcpy(ref_v.data(), dv.Current(), n * sizeof(VV), cudaMemcpyDeviceToHost));
    }
    CK(cudaMemcpy(k[0], k0, n * sizeof(K), cudaMemcpyDeviceToDevice));
    CK(cudaMemset(k[1], 0xA5, n * sizeof(K)));
    if (pairs) {
      CK(cudaMemcpy(v[0], v0, n * sizeof(VV), cudaMemcpyDeviceToDevice));
      CK(cudaMemset(v[1], 0xA5, n * sizeof(VV)));
    }
    onesweep_job<K, V> job;
    job.mode = pairs ? sort_mode::pairs : sort_mode::keys;
    job.keys = k[0];
    if constexpr (pairs) {
      job.values = v[0];
      job.value_alt = v[1];
    }
    job.n = n;
    job.end_bit = 32;
    job.codec = codec;
    job.key_alt = k[1];
    const int where = timed_onesweep(job, ws, ws_bytes, e0, e1, ms);
    if (where < 0) return 1;
    if (r >= 0) t_radix.push_back(ms);
    if (r == -1 || r == reps - 1) {
      CK(cudaMemcpy(got_k.data(), k[where], n * sizeof(K), cudaMemcpyDeviceToHost));
      if (pairs) CK(cudaMemcpy(got_v.data(), v[where], n * sizeof(VV), cudaMemcpyDeviceToHost));
      for (std::uint64_t i = 0; i < n; ++i)
        if (got_k[i] != ref_k[i] || (pairs && got_v[i] != ref_v[i])) ++bad;
    }
  }
  const float mr = median(t_radix), mc = median(t_cub);
  std::printf("%s, 2^%d, double buffer: radix %.4f ms  CUB %.4f ms  CUB/radix %.3fx  (%d reps; %llu elements differ from CUB)\n",
              pairs ? "u32 keys, 8-byte values" : "f32 keys alone", log2n, mr, mc, mc / mr, reps,
              static_cast<unsigned long long>(bad));
  cudaFree(k0); cudaFree(v0); cudaFree(ws); cudaFree(cub_ws);
  for (int b = 0; b < 2; ++b) { cudaFree(k[b]); cudaFree(v[b]); }
  return bad ? 2 : 0;
}

int main(int argc, char** argv) {
  const int log2n = argc > 1 ? std::atoi(argv[1]) : 24;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 15;
  const int which = argc > 3 ? std::atoi(argv[3]) : 0;
  int rc = 0;
  try {
    if (which == 0 || which == 1) rc |= run<no_value>(log2n, reps);
    if (which == 0 || which == 2) rc |= run<std::uint64_t>(log2n, reps);
  } catch (const std::exception& e) {
    std::printf("error: %s\n", e.what());
    return 1;
  }
  return rc;
}
