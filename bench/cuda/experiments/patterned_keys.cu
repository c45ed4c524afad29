// Experiment (not built by CMake): Onesweep on 32-bit keys alone whose bits follow a pattern, against CUB's
// DeviceRadixSort (DoubleBuffer, int offsets), in one process, alternating, CUDA events, medians; every
// result checked against CUB's element for element. The patterns are the ones where the quick matrix finds
// radix relatively slower than on uniform keys, and one more:
//   uniform   random 32 bits
//   sorted    evenly spaced ascending keys i * 2^32 / n (the presorted check: the histogram alone)
//   swaps     evenly spaced ascending keys i * 2^32 / n, then n / 100 swaps of random positions (the
//             matrix's "swaps"; at 2^28 every key is a multiple of 16)
//   mult16    random multiples of 16 (the low four bits zero: 16 values of the first digit)
//   fswaps    the matrix's f32 "swaps": floats evenly spaced in IEEE total order from -FLT_MAX to
//             +FLT_MAX, then the swaps; sorted in numeric order
// Only onesweep_sort<u32, no_value> is compiled, so that variants of a tree are A/B'd as binaries.
//
//   nvcc -I TREE/include -I TREE/src -I TREE/src/core -I TREE/src/cuda -O3 -DNDEBUG \
//     --generate-code=arch=compute_90,code=sm_90 --expt-relaxed-constexpr -std=c++20 \
//     -o patterned_keys bench/cuda/experiments/patterned_keys.cu
//   ./patterned_keys LOG2N REPS DIST...
#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "experiment.cuh"
#include "onesweep/dispatch.cuh"
#include "onesweep_alone.cuh"
#include "radix/key_traits.hpp"

namespace radix::cuda_detail {
template int onesweep_sort<std::uint32_t, no_value>(const onesweep_job<std::uint32_t, no_value>&);
template std::size_t onesweep_workspace_bytes<std::uint32_t, no_value>(sort_mode, std::uint64_t, const onesweep_tuning&,
                                                                       bool, bool);
}  // namespace radix::cuda_detail

using namespace radix::cuda_detail;

/// The keys of a pattern (host side: the swaps need a sequential generator to be reproducible).
static std::vector<std::uint32_t> make_keys(const std::string& dist, std::uint64_t n, int log2n) {
  std::vector<std::uint32_t> k(n);
  std::mt19937_64 g(0x5eed + log2n);
  const bool floats = dist == "fswaps";
  for (std::uint64_t i = 0; i < n; ++i) {
    if (dist == "uniform") k[i] = std::uint32_t(g() >> 32);
    else if (dist == "mult16") k[i] = std::uint32_t(g() >> 32) & ~15u;
    else {
      const std::uint64_t u = (std::uint64_t(i) << 32) / n;
      if (!floats) {
        k[i] = std::uint32_t(u);
      } else {  // position u in total order, -FLT_MAX .. +FLT_MAX (bench_matrix.cu's key_at<float>)
        const std::uint32_t o = 0x00800000u + std::uint32_t((u * 0xFF000000ull) >> 32);
        k[i] = o >> 31 ? o ^ 0x80000000u : ~o;
      }
    }
  }
  if (dist != "uniform" && dist != "mult16" && dist != "sorted" && dist != "swaps" && dist != "fswaps") {
    std::printf("unknown pattern '%s'\n", dist.c_str());
    std::exit(2);
  }
  if (dist == "swaps" || dist == "fswaps")
    for (std::uint64_t s = 0; s < n / 100; ++s) std::swap(k[g() % n], k[g() % n]);
  return k;
}

/// The integer whose order is numeric float order (no -0 or NaN among these keys): CUB sorts these.
static std::uint32_t float_bits_order(std::uint32_t x) { return (x & 0x80000000u) ? ~x : x | 0x80000000u; }

int run(int log2n, int reps, const std::string& dist) {
  using K = std::uint32_t;
  const std::uint64_t n = std::uint64_t(1) << log2n;
  const bool floats = dist == "fswaps";
  std::vector<K> in = make_keys(dist, n, log2n), cub_in(in);
  if (floats)
    for (auto& x : cub_in) x = float_bits_order(x);
  K *k0, *ck0, *k[2];
  CK(cudaMalloc(&k0, n * 4));
  CK(cudaMalloc(&ck0, n * 4));
  for (int b = 0; b < 2; ++b) CK(cudaMalloc(&k[b], n * 4));
  CK(cudaMemcpy(k0, in.data(), n * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(ck0, cub_in.data(), n * 4, cudaMemcpyHostToDevice));
  const auto codec = floats ? radix::core::make_codec<K>(radix::key_desc_of<float>(), radix::order::ascending,
                                                         radix::float_order::numeric)
                            : radix::core::ordered_codec<K>{};
  const std::size_t ws_bytes = onesweep_workspace_bytes<K, no_value>(sort_mode::keys, n, onesweep_tuning{}, true);
  void* ws = nullptr;
  CK(cudaMalloc(&ws, std::max<std::size_t>(ws_bytes, 1)));
  std::size_t cub_bytes = 0;
  {
    cub::DoubleBuffer<K> dk(k[0], k[1]);
    CK(cub::DeviceRadixSort::SortKeys(nullptr, cub_bytes, dk, int(n)));
  }
  void* cub_ws = nullptr;
  CK(cudaMalloc(&cub_ws, cub_bytes));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  std::vector<float> t_radix, t_cub;
  std::vector<K> ref(n), got(n);
  std::uint64_t bad = 0;
  for (int r = -1; r < reps; ++r) {
    float ms = 0;
    CK(cudaMemcpy(k[0], ck0, n * 4, cudaMemcpyDeviceToDevice));
    cub::DoubleBuffer<K> dk(k[0], k[1]);
    CK(cudaEventRecord(e0));
    CK(cub::DeviceRadixSort::SortKeys(cub_ws, cub_bytes, dk, int(n)));
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    CK(cudaEventElapsedTime(&ms, e0, e1));
    if (r >= 0) t_cub.push_back(ms);
    if (r == -1) CK(cudaMemcpy(ref.data(), dk.Current(), n * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(k[0], k0, n * 4, cudaMemcpyDeviceToDevice));
    CK(cudaMemset(k[1], 0xA5, n * 4));
    onesweep_job<K, no_value> job;
    job.mode = sort_mode::keys;
    job.keys = k[0];
    job.key_alt = k[1];
    job.n = n;
    job.end_bit = 32;
    job.codec = codec;
    const int where = timed_onesweep(job, ws, ws_bytes, e0, e1, ms);
    if (where < 0) return 1;
    if (r >= 0) t_radix.push_back(ms);
    if (r == -1 || r == reps - 1) {
      CK(cudaMemcpy(got.data(), k[where], n * 4, cudaMemcpyDeviceToHost));
      for (std::uint64_t i = 0; i < n; ++i) bad += (floats ? float_bits_order(got[i]) : got[i]) != ref[i];
    }
  }
  const float mr = median(t_radix), mc = median(t_cub);
  std::printf("%-8s 2^%d keys: radix %.4f ms  CUB %.4f ms  CUB/radix %.3fx  (%d reps; %llu keys differ from CUB)\n",
              dist.c_str(), log2n, mr, mc, mc / mr, reps, static_cast<unsigned long long>(bad));
  cudaFree(k0); cudaFree(ck0); cudaFree(k[0]); cudaFree(k[1]); cudaFree(ws); cudaFree(cub_ws);
  return bad ? 1 : 0;
}

int main(int argc, char** argv) {
  if (argc < 4) {
    std::printf("usage: %s LOG2N REPS DIST... (uniform sorted swaps mult16 fswaps)\n", argv[0]);
    return 2;
  }
  int rc = 0;
  for (int i = 3; i < argc; ++i) rc |= run(std::atoi(argv[1]), std::atoi(argv[2]), argv[i]);
  return rc;
}
