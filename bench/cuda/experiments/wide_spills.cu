// Experiment (not built by CMake): Onesweep on 32-bit keys (integers, finite floats, or floats of random bits:
// NaN payloads and -0, the canonicalising form) alone or with 4- or 8-byte values, the double-buffer form (the
// caller's alternates, no copy home), against CUB's DeviceRadixSort with DoubleBuffer, in one process,
// alternating, CUDA events, medians. Values 0..n-1; every checked result equals CUB's element for element (both
// are stable; CUB sorts floats of random bits by their ordered bits, so those runs are compared as integers
// against CUB's integer sort of the bits radix orders by: numeric order folds -0 and the NaNs, checked here by
// the keys' order and by the values' permutation). Only the engine instantiations it times are compiled, so it
// builds in a minute against any tree and policy slots are A/B'd as binaries.
//
//   nvcc -I TREE/include -I TREE/src -I TREE/src/core -I TREE/src/cuda -O3 -DNDEBUG \
//     --generate-code=arch=compute_90,code=sm_90 --expt-relaxed-constexpr -std=c++20 \
//     -o wide_spills bench/cuda/experiments/wide_spills.cu
//   ./wide_spills [LOG2N] [REPS] [KEYS: u32 f32 f32nan] [VALUES: 0 4 8]
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
template int onesweep_sort<std::uint32_t, std::uint32_t>(const onesweep_job<std::uint32_t, std::uint32_t>&);
template std::size_t onesweep_workspace_bytes<std::uint32_t, std::uint32_t>(sort_mode, std::uint64_t,
                                                                            const onesweep_tuning&, bool, bool);
template int onesweep_sort<std::uint32_t, std::uint64_t>(const onesweep_job<std::uint32_t, std::uint64_t>&);
template std::size_t onesweep_workspace_bytes<std::uint32_t, std::uint64_t>(sort_mode, std::uint64_t,
                                                                            const onesweep_tuning&, bool, bool);

}  // namespace radix::cuda_detail

using namespace radix::cuda_detail;

enum class key_kind { u32, f32, f32nan };

/// Uniform random 32-bit keys: integers, finite floats (exponents within [2^-64, 2^64), either sign), or any bits
/// (NaN payloads, infinities and -0 among them).
__global__ void uniform_keys32(std::uint32_t* k, std::uint64_t n, std::uint64_t seed, key_kind kind) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::uint64_t(gridDim.x) * blockDim.x) {
    const std::uint64_t z = splitmix_at(i, seed);
    std::uint32_t x = std::uint32_t(z >> 17);
    if (kind == key_kind::f32) x = (x & 0x807FFFFFu) | ((63u + (x >> 23) % 128u) << 23);
    if (kind == key_kind::f32nan && (z & 0xFF) == 0) x = (z & 0x100) ? 0x80000000u : 0x7FC00000u | (x & 0xFFFF);
    k[i] = x;
  }
}

/// The bits numeric float order sorts by (ordered_bits.hpp's canonical form, written out): -0 as +0, every NaN
/// as the one above +inf, then the sign flip. CUB sorts these as integers: its order is radix's.
__global__ void numeric_bits(std::uint32_t* k, std::uint64_t n) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::uint64_t(gridDim.x) * blockDim.x) {
    std::uint32_t x = k[i];
    if (x == 0x80000000u) x = 0;
    if ((x & 0x7FFFFFFFu) > 0x7F800000u) x = 0x7FC00000u;
    k[i] = (x & 0x80000000u) ? ~x : x | 0x80000000u;
  }
}

__global__ void iota(std::uint32_t* v32, std::uint64_t* v64, std::uint64_t n) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::uint64_t(gridDim.x) * blockDim.x) {
    if (v32) v32[i] = std::uint32_t(i);
    if (v64) v64[i] = i;
  }
}

/// V: no_value, std::uint32_t or std::uint64_t.
template <class V>
int run(int log2n, int reps, key_kind kind) {
  constexpr bool pairs = !std::is_same_v<V, no_value>;
  using K = std::uint32_t;
  using VV = std::conditional_t<pairs, V, std::uint32_t>;  // storage (unused for keys alone)
  const std::uint64_t n = std::uint64_t(1) << log2n;
  const bool floats = kind != key_kind::u32;
  K *k0, *k[2], *ck0;
  VV *v0 = nullptr, *v[2] = {};
  CK(cudaMalloc(&k0, n * sizeof(K)));
  CK(cudaMalloc(&ck0, n * sizeof(K)));
  for (int b = 0; b < 2; ++b) CK(cudaMalloc(&k[b], n * sizeof(K)));
  CK(cudaMalloc(&v0, n * sizeof(VV)));
  for (int b = 0; b < 2; ++b) CK(cudaMalloc(&v[b], n * sizeof(VV)));
  uniform_keys32<<<1024, 256>>>(k0, n, 0x5eed + log2n, kind);
  iota<<<1024, 256>>>(sizeof(VV) == 4 ? reinterpret_cast<std::uint32_t*>(v0) : nullptr,
                      sizeof(VV) == 8 ? reinterpret_cast<std::uint64_t*>(v0) : nullptr, n);
  CK(cudaMemcpy(ck0, k0, n * sizeof(K), cudaMemcpyDeviceToDevice));
  if (floats) numeric_bits<<<1024, 256>>>(ck0, n);  // CUB sorts the bits radix orders by, as integers
  CK(cudaGetLastError());

  const auto codec = floats ? radix::core::make_codec<K>(radix::key_desc_of<float>(), radix::order::ascending,
                                                         radix::float_order::numeric)
                            : radix::core::ordered_codec<K>{};
  const sort_mode mode = pairs ? sort_mode::pairs : sort_mode::keys;
  const std::size_t ws_bytes = onesweep_workspace_bytes<K, V>(mode, n, onesweep_tuning{}, true);
  void* ws = nullptr;
  CK(cudaMalloc(&ws, std::max<std::size_t>(ws_bytes, 1)));
  std::size_t cub_bytes = 0;
  {
    cub::DoubleBuffer<K> dk(k[0], k[1]);
    cub::DoubleBuffer<VV> dv(v[0], v[1]);
    std::size_t keys_bytes = 0;  // keys alone: the reference run sorts pairs, the timed ones keys
    CK(cub::DeviceRadixSort::SortPairs(nullptr, cub_bytes, dk, dv, int(n)));
    CK(cub::DeviceRadixSort::SortKeys(nullptr, keys_bytes, dk, int(n)));
    cub_bytes = std::max(cub_bytes, keys_bytes);
  }
  void* cub_ws = nullptr;
  CK(cudaMalloc(&cub_ws, cub_bytes));

  // Reference: CUB's order of the keys' ordered bits; its values (0..n-1 in, so the permutation) check radix's.
  std::vector<K> ref_k(n), got_k(n), in_k(n);
  std::vector<VV> ref_v(n), got_v(n);
  CK(cudaMemcpy(in_k.data(), k0, n * sizeof(K), cudaMemcpyDeviceToHost));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  std::vector<float> t_radix, t_cub;
  std::uint64_t bad = 0;
  for (int r = -1; r < reps; ++r) {
    float ms = 0;
    CK(cudaMemcpy(k[0], ck0, n * sizeof(K), cudaMemcpyDeviceToDevice));
    CK(cudaMemcpy(v[0], v0, n * sizeof(VV), cudaMemcpyDeviceToDevice));
    cub::DoubleBuffer<K> dk(k[0], k[1]);
    cub::DoubleBuffer<VV> dv(v[0], v[1]);
    CK(cudaEventRecord(e0));
    if (pairs || r == -1) CK(cub::DeviceRadixSort::SortPairs(cub_ws, cub_bytes, dk, dv, int(n)));
    else CK(cub::DeviceRadixSort::SortKeys(cub_ws, cub_bytes, dk, int(n)));
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    CK(cudaEventElapsedTime(&ms, e0, e1));
    if (r >= 0) t_cub.push_back(ms);
    if (r == -1) {  // the reference (keys alone: sorted as pairs, for the permutation)
      CK(cudaMemcpy(ref_v.data(), dv.Current(), n * sizeof(VV), cudaMemcpyDeviceToHost));
      for (std::uint64_t i = 0; i < n; ++i) ref_k[i] = in_k[std::uint64_t(ref_v[i])];
    }
    CK(cudaMemcpy(k[0], k0, n * sizeof(K), cudaMemcpyDeviceToDevice));
    CK(cudaMemset(k[1], 0xA5, n * sizeof(K)));
    CK(cudaMemcpy(v[0], v0, n * sizeof(VV), cudaMemcpyDeviceToDevice));
    CK(cudaMemset(v[1], 0xA5, n * sizeof(VV)));
    onesweep_job<K, V> job;
    job.mode = mode;
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
  static const char* names[] = {"u32", "f32", "f32nan"};
  std::printf("%-6s keys, %d-byte values, 2^%d, double buffer: radix %.4f ms  CUB %.4f ms  CUB/radix %.3fx  (%d reps; "
              "%llu elements differ from CUB)\n",
              names[int(kind)], pairs ? int(sizeof(VV)) : 0, log2n, mr, mc, mc / mr, reps,
              static_cast<unsigned long long>(bad));
  cudaFree(k0); cudaFree(ck0); cudaFree(v0); cudaFree(ws); cudaFree(cub_ws);
  for (int b = 0; b < 2; ++b) { cudaFree(k[b]); cudaFree(v[b]); }
  return bad ? 2 : 0;
}

int main(int argc, char** argv) {
  const int log2n = argc > 1 ? std::atoi(argv[1]) : 24;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 15;
  const char* keys = argc > 3 ? argv[3] : "u32";
  const int values = argc > 4 ? std::atoi(argv[4]) : 0;
  const key_kind kind = !std::strcmp(keys, "f32") ? key_kind::f32 : !std::strcmp(keys, "f32nan") ? key_kind::f32nan
                                                                                                  : key_kind::u32;
  try {
    if (values == 4) return run<std::uint32_t>(log2n, reps, kind);
    if (values == 8) return run<std::uint64_t>(log2n, reps, kind);
    return run<no_value>(log2n, reps, kind);
  } catch (const std::exception& e) {
    std::printf("error: %s\n", e.what());
    return 1;
  }
}
