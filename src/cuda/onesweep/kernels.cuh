// The Onesweep kernels: thin shims that put an agent on its shared memory.
#pragma once
#include "block_sort_agent.cuh"
#include "cluster_sort_agent.cuh"
#include "counting_block_agent.cuh"
#include "histogram_agent.cuh"
#include "rank_sort_agent.cuh"
#include "scatter_agent.cuh"
#include "single_tile_agent.cuh"

namespace radix::cuda_detail {

/// Inset: the input has keys elsewhere (key_inset; a kernel of its own, so
/// that every other sort's histogram stays as it was).
template <class U, int Threads, int Vectors, int MinBlocks, bool Inset = false>
__global__ void __launch_bounds__(Threads, MinBlocks) onesweep_histogram_kernel(const histogram_params<U> p) {
  using agent = histogram_agent<U, Threads, Vectors, Inset>;
  __shared__ typename agent::storage s;
  agent{p, s}.process();
}

/// Launched as a dependent of the previous kernel (launch_dependent): it
/// waits for it before anything else.
/// Shape::value: threads, keys per thread, blocks per SM and the scatter's
/// switches (policy.hpp, scatter_shape; scatter_agent explains each); Forms:
/// the forms of the ordered-bits transform it holds (integer keys: linear,
/// one XOR; the host picks from the codec: onesweep_kernels::scatter_kernel_of).
template <class U, class V, class Shape, scatter_forms Forms>
__global__ void __launch_bounds__(Shape::value.threads, Shape::value.min_blocks)
    onesweep_scatter_kernel(const onesweep_params<U, V> p, int pass, int shift, int bits, int bin_offset) {
  extern __shared__ __align__(16) unsigned char smem[];
  pdl_wait();     // the previous pass (or the histogram) is done
  pdl_release();  // every block is resident: the next pass may queue behind them
  scatter_agent<U, V, Shape, Forms>{p, pass, shift, bits, bin_offset, smem}.process();
}

template <class U, class V, int Threads, int Items>
__global__ void __launch_bounds__(Threads) single_tile_kernel(const onesweep_params<U, V> p, const pass_list passes) {
  extern __shared__ __align__(16) unsigned char smem[];
  single_tile_agent<U, V, Threads, Items>{p, passes, smem}.process();
}

/// Up to block_sort_agent::capacity keys: one block of threads_for(n) threads.
template <class U, class V>
__global__ void __launch_bounds__(block_sort_agent<U, V>::max_threads) block_sort_kernel(const onesweep_params<U, V> p) {
  extern __shared__ __align__(16) unsigned char smem[];
  block_sort_agent<U, V>{p, block_sort_io<U, V>::whole(p), smem}.process();
}

/// Above one block's reach (cluster_sort_agent): one cluster of blocks,
/// 2^chunk_log2 keys a block (the last fewer). sm_90 and later; an empty
/// kernel elsewhere (the host never launches it there: cluster_sort_shape).
template <class U, class V>
__global__ void __launch_bounds__(cluster_sort_agent<U, V>::max_threads)
    cluster_sort_kernel(const onesweep_params<U, V> p, const block_sort_io<U, V> io, unsigned chunk_log2, int digit_bits) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  extern __shared__ __align__(16) unsigned char smem[];
  cluster_sort_agent<U, V>{{p, io, smem}}.process(chunk_log2, digit_bits);
#endif
}

/// Up to rank_sort_agent::capacity keys: rank_sort_agent::blocks(n) blocks
/// of rank_sort_agent::threads, each placing 32 keys by comparison counting.
template <class U, class V>
__global__ void __launch_bounds__(rank_sort_agent<U, V>::threads)
    rank_sort_kernel(const core::ordered_codec<U> codec, const U range_mask, const block_sort_io<U, V> io) {
  extern __shared__ __align__(16) unsigned char smem[];
  rank_sort_agent<U, V>{codec, range_mask, io, smem}.process();
}

/// After a sort into the workspace (rank_sort_kernel in place): n keys, and
/// values unless V is no_value, copied home. Launched as a dependent.
template <class U, class V>
__global__ void __launch_bounds__(256) copy_home_kernel(const U* ks, U* kd, const V* vs, V* vd, int n) {
  pdl_wait();  // the sort is done
  const int i = int(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= n) return;
  kd[i] = ks[i];
  if constexpr (!std::is_same_v<V, no_value>) vd[i] = vs[i];
}

/// After the passes: keys/pairs that ended in the other buffer than
/// p.result asks for (an odd number of passes in the alternates, or an even
/// number at home when the alternates are asked for) are copied there; an
/// argsort whose passes were all skipped needs the identity permutation, and
/// keys out of place whose passes were all skipped a copy of the input.
/// Thread `first` of `stride` (a grid-stride loop); not where the buckets
/// kernel wrote the output (control::msd).
template <class U, class V>
__device__ __forceinline__ void finish_output(const onesweep_params<U, V>& p, std::uint64_t first,
                                              std::uint64_t stride) {
  const int k = p.ctl->eff_passes;
  if (p.out_of_place()) {  // the passes end in sorted_keys; with none, the input is the result
    if (k == 0)
      for (std::uint64_t i = first; i < p.n; i += stride) p.sorted_keys[i] = p.keys[i];
    return;
  }
  if (k == 0 && p.inset.active()) {  // no pass ran: the input, part of it elsewhere, is the result
    if (p.result == result_buffer::alternate)
      for (std::uint64_t i = first; i < p.n; i += stride) p.key_alt[0][i] = p.inset.at(p.keys, i);
    else
      for (std::uint64_t i = first + p.inset.begin; i < p.inset.end; i += stride) p.keys[i] = p.inset.at(p.keys, i);
    return;
  }
  if (p.mode == sort_mode::argsort) {
    if constexpr (!std::is_same_v<V, no_value>) {
      if (k == 0)  // in order already: the identity, and the keys as they are
        for (std::uint64_t i = first; i < p.n; i += stride) {
          if (p.wide_values) p.wide_values[i] = i;
          else p.values[i] = index_value<V>(i);
          if (p.sorted_keys) p.sorted_keys[i] = p.keys[i];
        }
    }
    return;
  }
  const bool in_alt = (k & 1) != 0;
  if (in_alt == (p.result == result_buffer::alternate)) return;
  const U* ks = in_alt ? p.key_alt[0] : p.keys;
  U* kd = in_alt ? p.keys : p.key_alt[0];
  for (std::uint64_t i = first; i < p.n; i += stride) kd[i] = ks[i];
  if constexpr (!std::is_same_v<V, no_value>) {
    const V* vs = in_alt ? p.value_alt : p.values;
    V* vd = in_alt ? p.values : p.value_alt;
    for (std::uint64_t i = first; i < p.n; i += stride) vd[i] = vs[i];
  }
}

/// Where the histogram kernel found every bucket of the top digit within a
/// block's capacity (control::msd; Stehle & Jacobsen 2017, "A Memory
/// Bandwidth-Efficient Hybrid Radix Sort on GPUs": an MSD pass, then each
/// bucket sorted on chip): the top pass alone ran, and block d sorts bucket d
/// whole, over the bits in which its keys differ, from where that pass wrote
/// it to the sort's output. One read and one write of the data instead of a
/// pass for each lower digit. Values come from the top pass's alternate; an
/// argsort's indices, global ones from the top pass, are permuted in place
/// (or written 8 bytes wide).
template <class U, class V>
__global__ void __launch_bounds__(block_sort_agent<U, V>::max_threads)
    onesweep_buckets_kernel(const onesweep_params<U, V> p, int bin_offset) {
  extern __shared__ __align__(16) unsigned char smem[];
  pdl_wait();  // the top pass is done
  if (!p.ctl->msd) {  // the path was not taken (every pass ran): this launch finishes instead of onesweep_finish_kernel
    finish_output(p, std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x, std::uint64_t(gridDim.x) * blockDim.x);
    return;
  }
  const std::uint64_t start = p.ctl->offsets[bin_offset + blockIdx.x], count = p.ctl->counts[bin_offset + blockIdx.x];
  if (count == 0) return;
  const auto top = pass_buffers<U, V>::pick(p, 0, 1, true);  // the top pass, the one that ran
  block_sort_io<U, V> io;
  io.kin = top.kdst + start;
  io.kout = p.key_out() ? p.key_out() + start : nullptr;  // in place where that pass wrote the output
  io.n = int(count);
  if constexpr (!std::is_same_v<V, no_value>) {
    io.vin = top.vdst + start;  // (an argsort's indices: in p.values already)
    io.vout = p.values + start;
    io.vwide = p.wide_values ? p.wide_values + start : nullptr;
  }
  block_sort_agent<U, V>{p, io, smem}.process();
}

/// Keys only, every bit of 1-byte integer keys in one 8-bit pass: the sorted
/// keys are the histogram written out (a counting sort), so the pass reads
/// nothing but the 256 digit starts and writes each key once, where a
/// scatter pass reads, writes and then copies home. Equal keys are the same
/// byte, so there is no order among them to keep.
template <class U>
__global__ void __launch_bounds__(256) onesweep_expand_kernel(const onesweep_params<U, no_value> p, int bin_offset) {
  static_assert(sizeof(U) == 1, "one byte a key: the digit is the whole key");
  constexpr int per_thread = 16;  // one 16-byte store
  pdl_wait();  // the histogram's plan is done
  U* out = p.key_out();
  if (p.ctl->eff_passes == 0) {  // sorted already, or every key the same: in place, nothing to write
    if (p.out_of_place())
      for (std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < p.n;
           i += std::uint64_t(gridDim.x) * blockDim.x)
        out[i] = p.keys[i];
    return;
  }
  __shared__ unsigned long long start[radix_size + 1];
  for (int d = threadIdx.x; d < radix_size; d += blockDim.x) start[d] = p.ctl->offsets[bin_offset + d];
  if (threadIdx.x == 0) start[radix_size] = p.n;
  __syncthreads();
  const U x = p.codec.linear_xor();  // ordered digit -> key
  const bool aligned = (reinterpret_cast<std::uintptr_t>(out) & 15u) == 0;
  const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x * per_thread;
  for (std::uint64_t i0 = (std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x) * per_thread; i0 < p.n; i0 += stride) {
    // the digit of position i0: the last d whose run starts at or before it
    int d = 0;
    for (int step = radix_size / 2; step > 0; step /= 2)
      if (start[d + step] <= i0) d += step;
    union {
      U k[per_thread];
      uint4 v;
    } run;
#pragma unroll
    for (int j = 0; j < per_thread; ++j) {
      while (start[d + 1] <= i0 + j && d + 1 < radix_size) ++d;  // the next non-empty run
      run.k[j] = U(U(d) ^ x);
    }
    if (aligned && i0 + per_thread <= p.n) {
      *reinterpret_cast<uint4*>(out + i0) = run.v;
    } else {
#pragma unroll
      for (int j = 0; j < per_thread; ++j)
        if (i0 + j < p.n) out[i0 + j] = run.k[j];
    }
  }
}

/// 1-byte keys alone, a small input: one block counts them and writes the
/// runs out (counting_block_agent).
template <class U>
__global__ void __launch_bounds__(counting_block_agent<U>::max_threads) counting_block_kernel(const onesweep_params<U, no_value> p) {
  __shared__ typename counting_block_agent<U>::storage s;
  counting_block_agent<U>{p, s}.process();
}

/// Pairs of 1-byte keys, a small input: one block, a stable counting sort
/// (counting_pairs_agent).
template <class U, class V>
__global__ void __launch_bounds__(counting_pairs_agent<U, V>::max_threads) counting_pairs_kernel(const onesweep_params<U, V> p) {
  __shared__ typename counting_pairs_agent<U, V>::storage s;
  extern __shared__ __align__(16) unsigned char staging[];
  counting_pairs_agent<U, V>{p, s, staging, block_sort_io<U, V>::whole(p)}.process();
}

/// finish_output() as a kernel of its own, after the last pass (where no
/// buckets kernel follows the passes: that one finishes by itself).
template <class U, class V>
__global__ void __launch_bounds__(256) onesweep_finish_kernel(const onesweep_params<U, V> p) {
  pdl_wait();  // the last pass is done
  if (p.ctl->msd) return;  // the buckets kernel wrote the output
  finish_output(p, std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x, std::uint64_t(gridDim.x) * blockDim.x);
}

}  // namespace radix::cuda_detail
