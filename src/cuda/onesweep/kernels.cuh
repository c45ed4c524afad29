// The Onesweep kernels: thin shims that put an agent on its shared memory.
#pragma once
#include "histogram_agent.cuh"
#include "scatter_agent.cuh"
#include "single_tile_agent.cuh"

namespace radix::cuda_detail {

template <class U, int Threads, int Vectors, int MinBlocks>
__global__ void __launch_bounds__(Threads, MinBlocks) onesweep_histogram_kernel(const histogram_params<U> p) {
  using agent = histogram_agent<U, Threads, Vectors>;
  __shared__ typename agent::storage s;
  agent{p, s}.process();
}

/// Launched as a dependent of the previous kernel (launch_dependent): it
/// waits for it before anything else.
/// Shape::value: threads, keys per thread, blocks per SM and the scatter's
/// switches (policy.hpp, scatter_shape; scatter_agent explains each); Linear:
/// integer keys (the ordered-bits transform is one XOR; the host picks this
/// kernel from the codec), else floats.
template <class U, class V, class Shape, bool Linear>
__global__ void __launch_bounds__(Shape::value.threads, Shape::value.min_blocks)
    onesweep_scatter_kernel(const onesweep_params<U, V> p, int pass, int shift, int bits, int bin_offset) {
  extern __shared__ __align__(16) unsigned char smem[];
  pdl_wait();     // the previous pass (or the histogram) is done
  pdl_release();  // every block is resident: the next pass may queue behind them
  scatter_agent<U, V, Shape, Linear>{p, pass, shift, bits, bin_offset, smem}.process();
}

template <class U, class V, int Threads, int Items>
__global__ void __launch_bounds__(Threads) single_tile_kernel(const onesweep_params<U, V> p, const pass_list passes) {
  extern __shared__ __align__(16) unsigned char smem[];
  single_tile_agent<U, V, Threads, Items>{p, passes, smem}.process();
}

/// After the passes: an odd number of passes left keys/pairs in the
/// alternate buffers (copy them home); an argsort whose passes were all
/// skipped needs the identity permutation.
template <class U, class V>
__global__ void __launch_bounds__(256) onesweep_finish_kernel(const onesweep_params<U, V> p) {
  pdl_wait();  // the last pass is done
  const int k = p.ctl->eff_passes;
  const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
  const std::uint64_t first = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (p.mode == sort_mode::argsort) {
    if constexpr (!std::is_same_v<V, no_value>) {
      if (k == 0)
        for (std::uint64_t i = first; i < p.n; i += stride) p.values[i] = index_value<V>(i);
    }
    return;
  }
  if ((k & 1) == 0) return;
  for (std::uint64_t i = first; i < p.n; i += stride) {
    p.keys[i] = p.key_alt[0][i];
    if constexpr (!std::is_same_v<V, no_value>) p.values[i] = p.value_alt[i];
  }
}

}  // namespace radix::cuda_detail
