// The order check before each pass of the 4-way sort (Ha, Krüger & Silva
// 2009, "Fast 4-way parallel radix sorting on GPUs", §4.2 and its Algorithm
// 3): if the keys are already in order (over the whole bit range),
// this pass and every later one would leave them as they are, so they are
// skipped. First a quick check of the first n' keys; only if it finds them in
// order, the rest (from n' - 1 on). Each block compares neighbours read
// coalesced and reduces its verdict with one barrier (no global array, no
// second reduction pass); any block that sees a descent sets the flag.
// The decision stays on the device: pass kernels read ctl->unsorted[e].
#pragma once
#include "../common/multipass_params.cuh"

namespace radix::cuda_detail {

constexpr std::uint32_t quick_check_keys = 1u << 16;  ///< n' of Ha et al. 2009, §4.2

/// Quick (Full = false): pairs (i, i+1) with i + 1 < min(n, n'). Full: the
/// pairs from n' - 1 on, only if the quick check found none out of order.
/// Both leave unsorted[e] at 0 (sorted: skip) when pass e - 1 was skipped.
template <class U, class V, bool Full>
__global__ void __launch_bounds__(256) order_check_kernel(const multipass_params<U, V> p, int e) {
  multipass_control* ctl = p.ctl;
  // One thread reads the flags for the block (other blocks may set unsorted[e]
  // meanwhile): the decision to return must be the same for every thread.
  __shared__ bool skip;
  if (threadIdx.x == 0)
    skip = (e > 0 && ctl->unsorted[e - 1] == 0)  // found sorted before: still sorted
           || (Full && ctl->unsorted[e] != 0);    // the quick check (or another block) decided
  __syncthreads();
  if (skip) return;
  const U* keys = multipass_buffers<U, V>::pick(p, e).ksrc;
  const std::uint32_t quick_end = p.n < quick_check_keys ? p.n : quick_check_keys;
  const std::uint32_t first = Full ? (quick_end > 0 ? quick_end - 1 : 0) : 0;
  const std::uint32_t last = Full ? p.n : quick_end;  // pairs (i, i+1) with i + 1 < last
  bool descent = false;
  // the loop bound is the block's base (uniform), so every thread reaches each barrier
  const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
  for (std::uint64_t base = first + std::uint64_t(blockIdx.x) * blockDim.x; base + 1 < last; base += stride) {
    const std::uint64_t i = base + threadIdx.x;
    if (i + 1 < last) {
      const U a = ranged_key(p.codec, p.range_mask, ld_nc(keys + i));
      const U b = ranged_key(p.codec, p.range_mask, ld_nc(keys + i + 1));
      descent = descent || b < a;
    }
    if (__syncthreads_or(descent)) break;
  }
  if (__syncthreads_or(descent) && threadIdx.x == 0) atomicExch(&ctl->unsorted[e], 1u);
}

}  // namespace radix::cuda_detail
