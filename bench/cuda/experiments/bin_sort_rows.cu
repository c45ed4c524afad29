// Experiment (not built by CMake): the bin sort kernel alone on torch's [262144 x 1024]
// argsort shape (f32 normal keys, int64 positions, the sorted keys written too), as
// segments/dispatch.cuh launches it: bin_sort_segments_kernel<u32, u64, 256, 1024, BINBITS>,
// one block a row, as many blocks as fit. -DROWLEN=4096 -DTHREADS=256 -DBINBITS=12 times
// rows of 4096 instead (2^28 keys in all), in that shape. Built against a tree's headers, so that two trees
// (before and after a change) give two binaries to time on one machine; it checks 2048 rows
// (positions a permutation, keys in order, ties by position). Results:
// bench/results/segments-2026-11-28-bin-sort-1024.md.
//
//   nvcc -I TREE/include -I TREE/src -I TREE/src/core -I TREE/src/cuda -O3 -DNDEBUG -DBINBITS=11 \
//     --generate-code=arch=compute_90,code=sm_90 --expt-relaxed-constexpr -std=c++20 \
//     -o bin_sort_rows bench/cuda/experiments/bin_sort_rows.cu
//   ./bin_sort_rows [REPS]   (BINBITS: the tree's with_bin_shape for rows of 1024)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "experiment.cuh"
#include "segments/kernels.cuh"

using namespace radix::cuda_detail;

#ifndef ROWLEN
#define ROWLEN 1024
#endif
#ifndef THREADS
#define THREADS 256
#endif

int main(int argc, char** argv) {
  const std::uint64_t L = ROWLEN, rows = (std::uint64_t(1) << 28) / L, n = rows * L;
  const int reps = argc > 1 ? std::atoi(argv[1]) : 15;
  using U = std::uint32_t;
  using V = std::uint64_t;
  using agent = bin_sort_agent<U, V, THREADS, ROWLEN, BINBITS>;
  constexpr auto kernel = bin_sort_segments_kernel<U, V, THREADS, ROWLEN, BINBITS>;
  float* keys;
  float* sorted;
  V* idx;
  std::uint32_t* crowded;
  unsigned* count;
  CK(cudaMalloc(&keys, n * 4));
  CK(cudaMalloc(&sorted, n * 4));
  CK(cudaMalloc(&idx, n * 8));
  CK(cudaMalloc(&crowded, rows * 4));
  CK(cudaMalloc(&count, 4));
  normal_keys<<<1024, 256>>>(keys, n, 12345);
  CK(cudaGetLastError());
  onesweep_params<U, V> p;
  p.keys = reinterpret_cast<U*>(keys);
  p.sorted_keys = reinterpret_cast<U*>(sorted);
  p.values = idx;
  p.n = n;
  p.mode = sort_mode::argsort;
  p.codec = radix::core::make_codec<U>(radix::key_desc_of<float>(), radix::order::ascending, radix::float_order::numeric);
  p.range_mask = ~U(0);
  segment_reader r;
  r.length = L;
  r.count = rows;
  const std::size_t smem = agent::smem_bytes(false);
  CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
  int per_sm = 0, sms = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, THREADS, smem));
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const unsigned grid = unsigned(std::min<std::uint64_t>(rows, std::uint64_t(per_sm) * sms));
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  std::printf("%s, bins 2^%d, smem %zu B, %d blocks an SM, grid %u\n", prop.name, BINBITS, smem, per_sm, grid);
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  std::vector<float> ms;
  for (int rep = 0; rep <= reps; ++rep) {
    CK(cudaMemset(count, 0, 4));
    CK(cudaEventRecord(a));
    kernel<<<grid, THREADS, smem>>>(p, r, crowded, nullptr, count);
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    CK(cudaGetLastError());
    float t = 0;
    CK(cudaEventElapsedTime(&t, a, b));
    if (rep > 0) ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  unsigned left = 0;
  CK(cudaMemcpy(&left, count, 4, cudaMemcpyDeviceToHost));
  // Check 2048 rows spread over the batch: positions a permutation of the row, keys in order, the
  // sorted keys the keys at those positions, equal keys by position (stable).
  std::uint64_t checked = 0;
  const long long bad = argsort_rows_bad(keys, sorted, idx, rows, L, rows / 2048, checked);
  if (bad < 0) return 1;
  std::printf("bin sort [%llu x %llu] argsort: median %.4f ms, min %.4f, max %.4f (%d reps); rows left crowded %u;"
              " %llu rows checked, %llu bad\n",
              (unsigned long long)rows, (unsigned long long)L, ms[ms.size() / 2], ms.front(), ms.back(), reps, left, (unsigned long long)checked,
              (unsigned long long)bad);
  return bad ? 2 : 0;
}
