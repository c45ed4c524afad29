// The seed algorithms' kernels: thin shims that put an agent on its shared
// memory, plus the finishing copy. One launch per step of a pass.
#pragma once
#include "../four_way/four_way_agent.cuh"
#include "../four_way/order_check.cuh"
#include "../reduce_then_scan/reduce_then_scan_agent.cuh"
#include "../split/split_agent.cuh"

namespace radix::cuda_detail {

template <class U, class V, int Threads, int Items>
__global__ void __launch_bounds__(Threads) rts_count_kernel(const multipass_params<U, V> p, int e, int shift, int bits) {
  using agent = rts_count_agent<U, V, Threads, Items>;
  __shared__ typename agent::storage s;
  agent{p, s}.process(e, shift, bits);
}

template <class U, class V, int Threads, int Items>
__global__ void __launch_bounds__(Threads) rts_scatter_kernel(const multipass_params<U, V> p, int e, int shift, int bits) {
  extern __shared__ __align__(16) unsigned char smem[];
  rts_scatter_agent<U, V, Threads, Items>{p, smem}.process(e, shift, bits);
}

template <class U, class V, int Threads, int Items, int Ways, bool Coalesced>
__global__ void __launch_bounds__(Threads) four_way_local_kernel(const multipass_params<U, V> p, int e, int shift,
                                                                 int bits) {
  extern __shared__ __align__(16) unsigned char smem[];
  four_way_local_agent<U, V, Threads, Items, Ways, Coalesced>{p, smem}.process(e, shift, bits);
}

template <class U, class V, int Threads, int Items, int Ways>
__global__ void __launch_bounds__(Threads) four_way_mapping_kernel(const multipass_params<U, V> p, int e, int shift,
                                                                   int bits) {
  extern __shared__ __align__(16) unsigned char smem[];
  four_way_mapping_agent<U, V, Threads, Items, Ways>{p, smem}.process(e, shift, bits);
}

template <class U, class V, int Threads, int Items, int Ways>
__global__ void __launch_bounds__(Threads) four_way_elementwise_kernel(const multipass_params<U, V> p, int e, int shift,
                                                                       int bits) {
  extern __shared__ __align__(16) unsigned char smem[];
  four_way_elementwise_agent<U, V, Threads, Items, Ways>{p, smem}.process(e, shift, bits);
}

template <class U, class V, int Threads, int Items>
__global__ void __launch_bounds__(Threads) split_local_kernel(const multipass_params<U, V> p, int e, int shift, int bits) {
  extern __shared__ __align__(16) unsigned char smem[];
  split_local_agent<U, V, Threads, Items>{p, smem}.process(e, shift, bits);
}

template <class U, class V, int Threads, int Items>
__global__ void __launch_bounds__(Threads) split_scatter_kernel(const multipass_params<U, V> p, int e, int shift, int bits) {
  extern __shared__ __align__(16) unsigned char smem[];
  split_scatter_agent<U, V, Threads, Items>{p, smem}.process(e, shift, bits);
}

/// After the passes: the passes that ran are those before the first one the
/// order check skipped. keys/pairs after an odd number of them are in the
/// alternates (copy home); argsort's indices are in the user's buffer only
/// if all planned passes ran (else copy), or nowhere when none ran (identity).
template <class U, class V>
__global__ void __launch_bounds__(256) multipass_finish_kernel(const multipass_params<U, V> p) {
  int ran = 0;
  while (ran < p.passes && p.ctl->unsorted[ran] != 0) ++ran;
  const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
  const std::uint64_t first = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (p.mode == sort_mode::argsort) {
    if constexpr (!std::is_same_v<V, no_value>) {
      if (ran == 0) {
        for (std::uint64_t i = first; i < p.n; i += stride) p.values[i] = index_value<V>(i);
      } else if (multipass_buffers<U, V>::index_buffer(p, ran - 1, p.passes) != p.values) {
        for (std::uint64_t i = first; i < p.n; i += stride) p.values[i] = p.value_alt[i];
      }
    }
    return;
  }
  if ((ran & 1) == 0) return;
  for (std::uint64_t i = first; i < p.n; i += stride) {
    p.keys[i] = p.key_alt[0][i];
    if constexpr (!std::is_same_v<V, no_value>) p.values[i] = p.value_alt[i];
  }
}

}  // namespace radix::cuda_detail
