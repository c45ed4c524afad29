// The count-matrix scan of the seed algorithms (matrix_scan.cuh). Not a
// template: compiled once.
#include "../block/block_scan.cuh"
#include "matrix_scan.cuh"

namespace radix::cuda_detail {
namespace {

using ms = matrix_scan;
/// Shared-memory index of chunk element j, padded so that a thread reading
/// its `items` consecutive elements hits distinct banks.
__device__ __forceinline__ int padded(int j) { return j + j / 32; }

__global__ void __launch_bounds__(ms::threads) matrix_reduce_kernel(const std::uint32_t* counts, std::uint64_t m,
                                                                    std::uint32_t* partials, const multipass_control* ctl,
                                                                    int e) {
  if (ctl->unsorted[e] == 0) return;
  __shared__ typename block_scan<ms::threads, std::uint32_t>::storage st;
  const std::uint64_t base = std::uint64_t(blockIdx.x) * ms::chunk;
  std::uint32_t sum = 0;
#pragma unroll
  for (int i = 0; i < ms::items; ++i) {
    const std::uint64_t j = base + std::uint64_t(i) * ms::threads + threadIdx.x;
    if (j < m) sum += counts[j];
  }
  std::uint32_t total = 0;
  block_scan<ms::threads, std::uint32_t>::exclusive(sum, st, &total);
  if (threadIdx.x == 0) partials[blockIdx.x] = total;
}

/// One block: exclusive scan of the chunk sums in place, 1024 at a time with a carry.
__global__ void __launch_bounds__(1024) matrix_partials_kernel(std::uint32_t* partials, std::uint32_t count,
                                                               const multipass_control* ctl, int e) {
  if (ctl->unsorted[e] == 0) return;
  __shared__ typename block_scan<1024, std::uint32_t>::storage st;
  std::uint32_t carry = 0;
  for (std::uint32_t b = 0; b < count; b += 1024) {
    const std::uint32_t j = b + threadIdx.x;
    const std::uint32_t v = j < count ? partials[j] : 0;
    std::uint32_t total = 0;
    const std::uint32_t ex = block_scan<1024, std::uint32_t>::exclusive(v, st, &total);
    if (j < count) partials[j] = carry + ex;
    carry += total;
  }
}

__global__ void __launch_bounds__(ms::threads) matrix_down_kernel(std::uint32_t* counts, std::uint64_t m,
                                                                  const std::uint32_t* partials,
                                                                  const multipass_control* ctl, int e) {
  if (ctl->unsorted[e] == 0) return;
  __shared__ std::uint32_t tile[ms::chunk + ms::chunk / 32];
  __shared__ typename block_scan<ms::threads, std::uint32_t>::storage st;
  const std::uint64_t base = std::uint64_t(blockIdx.x) * ms::chunk;
  // coalesced load, then each thread scans its `items` consecutive entries
#pragma unroll
  for (int i = 0; i < ms::items; ++i) {
    const int j = i * ms::threads + int(threadIdx.x);
    tile[padded(j)] = base + j < m ? counts[base + j] : 0u;
  }
  __syncthreads();
  std::uint32_t v[ms::items], sum = 0;
#pragma unroll
  for (int i = 0; i < ms::items; ++i) {
    v[i] = tile[padded(int(threadIdx.x) * ms::items + i)];
    sum += v[i];
  }
  std::uint32_t run = partials[blockIdx.x] + block_scan<ms::threads, std::uint32_t>::exclusive(sum, st);
#pragma unroll
  for (int i = 0; i < ms::items; ++i) {
    tile[padded(int(threadIdx.x) * ms::items + i)] = run;
    run += v[i];
  }
  __syncthreads();
#pragma unroll
  for (int i = 0; i < ms::items; ++i) {
    const int j = i * ms::threads + int(threadIdx.x);
    if (base + j < m) counts[base + j] = tile[padded(j)];
  }
}

}  // namespace

void matrix_scan::run(std::uint32_t* counts, std::uint32_t* partials, std::uint64_t m, const multipass_control* ctl,
                      int e, cudaStream_t s) {
  const std::uint64_t c = chunks(m);
  matrix_reduce_kernel<<<unsigned(c), threads, 0, s>>>(counts, m, partials, ctl, e);
  RADIX_CUDA_CHECK_LAUNCH("radix matrix_reduce_kernel");
  matrix_partials_kernel<<<1, 1024, 0, s>>>(partials, std::uint32_t(c), ctl, e);
  RADIX_CUDA_CHECK_LAUNCH("radix matrix_partials_kernel");
  matrix_down_kernel<<<unsigned(c), threads, 0, s>>>(counts, m, partials, ctl, e);
  RADIX_CUDA_CHECK_LAUNCH("radix matrix_down_kernel");
}

}  // namespace radix::cuda_detail
