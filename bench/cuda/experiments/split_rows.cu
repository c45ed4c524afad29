// Experiment (not built by CMake): the split route's kernels alone on torch's [1024 x 262144]
// argsort shape (f32 normal keys, int64 positions, the sorted keys written too), launched as
// segments/dispatch.cuh's launch_split_route launches them (survey, split, the buckets' bin sort,
// the crowded buckets' block sort). Built against a tree's headers, so that two trees (before and
// after a change) give two binaries to time on one machine; it checks 64 rows (positions a
// permutation, keys in order, ties by position) and fails if any row was left to the long route.
//
//   nvcc -I TREE/include -I TREE/src -I TREE/src/core -I TREE/src/cuda -O3 -DNDEBUG \
//     --generate-code=arch=compute_90,code=sm_90 --expt-relaxed-constexpr -std=c++20 \
//     -o split_rows bench/cuda/experiments/split_rows.cu
//   ./split_rows [REPS]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "experiment.cuh"
#include "segments/kernels.cuh"

using namespace radix::cuda_detail;

template <auto Kernel>
int blocks_per_sm(int threads, std::size_t smem) {
  cudaFuncSetAttribute(Kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem));
  int per_sm = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, Kernel, threads, smem);
  return per_sm;
}

int main(int argc, char** argv) {
  using T = segment_tiers;
  using U = std::uint32_t;
  using P = std::uint32_t;  // argsort: 4-byte positions through the alternates, 8-byte ones written out
#ifndef SPLIT_ROWS  // other shapes, e.g. small ones for compute-sanitizer: -DSPLIT_ROWS=140 -DSPLIT_LEN=20000
#define SPLIT_ROWS 1024
#define SPLIT_LEN 262144
#endif
  const std::uint64_t rows = SPLIT_ROWS, L = SPLIT_LEN, n = rows * L;
  const int reps = argc > 1 ? std::atoi(argv[1]) : 15;
  const std::uint64_t buckets = T::split_buckets_max(L), tiles_per_row = (L + T::split_tile - 1) / T::split_tile;
  float* keys;
  float* sorted;
  std::uint64_t* idx;
  U* key_alt;
  P* value_alt;
  split_row* row;
  bin_map<U>::entry* maps;
  std::uint32_t *table, *crowded;
  std::uint64_t* offsets;
  unsigned *status, *counts;
  segment_range* left;
  CK(cudaMalloc(&keys, n * 4));
  CK(cudaMalloc(&sorted, n * 4));
  CK(cudaMalloc(&idx, n * 8));
  CK(cudaMalloc(&key_alt, n * 4));
  CK(cudaMalloc(&value_alt, n * 4));
  CK(cudaMalloc(&row, rows * sizeof(split_row)));
  CK(cudaMalloc(&maps, rows * bin_map<U>::coarse * sizeof(bin_map<U>::entry)));
  CK(cudaMalloc(&table, rows * T::split_row_bins));
  CK(cudaMalloc(&offsets, (rows * (buckets + 1) + 1) * 8));
  CK(cudaMalloc(&status, rows * tiles_per_row * buckets * 4));
  CK(cudaMalloc(&crowded, rows * buckets * 4));
  CK(cudaMalloc(&left, rows * sizeof(segment_range)));
  CK(cudaMalloc(&counts, bin_counters * 4));
  normal_keys<<<1024, 256>>>(keys, n, 12345);
  CK(cudaGetLastError());

  split_params<U, P> p;
  p.keys = reinterpret_cast<U*>(keys);
  p.values = nullptr;
  p.key_alt = key_alt;
  p.value_alt = value_alt;
  p.length = L;
  p.rows = rows;
  p.tiles_per_row = std::uint32_t(tiles_per_row);
  p.stride = unsigned(buckets + 1);
  p.codec = radix::core::make_codec<U>(radix::key_desc_of<float>(), radix::order::ascending, radix::float_order::numeric);
  p.range_mask = ~U(0);
  p.row = row;
  p.maps = maps;
  p.table = table;
  p.offsets = offsets;
  p.status = status;
  p.ticket = counts + split_ticket;
  p.left = left;
  p.left_count = counts + split_left_count;
  split_outputs<U, P> out{reinterpret_cast<U*>(sorted), nullptr, idx};

  constexpr auto survey = split_survey_kernel<U, P>;
  constexpr auto split = split_kernel<U, P>;
  constexpr auto sort_buckets = split_buckets_kernel<U, P>;
  constexpr auto sort_crowded = split_crowded_kernel<U, P>;
  using bins = bin_sort_agent<U, P, T::split_bucket_threads, int(T::split_bucket_keys), T::split_bucket_bin_bits>;
  constexpr std::size_t split_smem = sizeof(typename split_agent<U, P, T::split_threads, T::split_items>::storage);
  constexpr std::size_t bins_smem = bins::smem_bytes(true);
  constexpr std::size_t crowded_smem = block_sort_agent<U, P>::smem_bytes(T::split_bucket_threads);
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int survey_per = blocks_per_sm<survey>(T::split_survey_threads, 0);
  blocks_per_sm<split>(T::split_threads, split_smem);
  const int bucket_per = blocks_per_sm<sort_buckets>(T::split_bucket_threads, bins_smem);
  const int crowded_per = blocks_per_sm<sort_crowded>(T::split_bucket_threads, crowded_smem);
  const unsigned survey_grid = unsigned(std::min<std::uint64_t>(rows, std::uint64_t(survey_per) * sms));
  const unsigned bucket_grid = unsigned(std::min<std::uint64_t>(rows * p.stride, std::uint64_t(bucket_per) * sms));
  const unsigned crowded_grid = unsigned(std::min<std::uint64_t>(rows * buckets, std::uint64_t(crowded_per) * sms));
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  std::printf("%s, survey %d blocks an SM; buckets' bin sort: %zu B dynamic + %zu B static shared memory, %d blocks an SM\n",
              prop.name, survey_per, bins_smem, sizeof(typename bins::storage), bucket_per);

  cudaEvent_t ev[5];
  for (auto& e : ev) CK(cudaEventCreate(&e));
  std::vector<float> whole, part[4];
  for (int rep = 0; rep <= reps; ++rep) {
    CK(cudaMemset(counts, 0, bin_counters * 4));
    CK(cudaMemset(status, 0, rows * tiles_per_row * buckets * 4));
    CK(cudaEventRecord(ev[0]));
    survey<<<survey_grid, T::split_survey_threads>>>(p);
    CK(cudaEventRecord(ev[1]));
    split<<<unsigned(rows * tiles_per_row), T::split_threads, split_smem>>>(p);
    CK(cudaEventRecord(ev[2]));
    sort_buckets<<<bucket_grid, T::split_bucket_threads, bins_smem>>>(p, out, crowded, counts + split_crowded_count);
    CK(cudaEventRecord(ev[3]));
    sort_crowded<<<crowded_grid, T::split_bucket_threads, crowded_smem>>>(p, out, crowded,
                                                                          counts + split_crowded_count);
    CK(cudaEventRecord(ev[4]));
    CK(cudaEventSynchronize(ev[4]));
    CK(cudaGetLastError());
    if (rep == 0) continue;
    float t = 0;
    CK(cudaEventElapsedTime(&t, ev[0], ev[4]));
    whole.push_back(t);
    for (int k = 0; k < 4; ++k) {
      CK(cudaEventElapsedTime(&t, ev[k], ev[k + 1]));
      part[k].push_back(t);
    }
  }
  const auto median = [](std::vector<float> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  unsigned c[bin_counters];
  CK(cudaMemcpy(c, counts, sizeof c, cudaMemcpyDeviceToHost));

  std::uint64_t checked = 0;
  const long long bad = argsort_rows_bad(keys, sorted, idx, rows, L, rows >= 64 ? rows / 64 : 1, checked);
  if (bad < 0) return 1;
  std::printf("split route [%llu x %llu] argsort: median %.4f ms (survey %.4f, split %.4f, buckets %.4f, crowded %.4f;"
              " %d reps); buckets crowded %u, rows left %u; %llu rows checked, %llu bad\n",
              (unsigned long long)rows, (unsigned long long)L, median(whole), median(part[0]), median(part[1]), median(part[2]), median(part[3]), reps,
              c[split_crowded_count], c[split_left_count], (unsigned long long)checked, (unsigned long long)bad);
  return bad || c[split_left_count] ? 2 : 0;
}
