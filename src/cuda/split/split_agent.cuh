// The radix sort with the split primitive of García, Alvizo, Olivares & Ramos
// 2014, "Fast Data Parallel Radix Sort Implementation in DirectX 11 Compute
// Shader to Accelerate Ray Tracing Algorithms" (§IV-A), one LSD pass of 4-bit
// digits in three dispatches:
//   local    (local_agent) "each block sorts in local shared memory the 4-bit
//            keys ... using the split primitive": four successive 1-bit
//            splits, least significant bit first, each a block scan of the
//            bit (warp shuffles, then the warp totals: the warp-synchronous
//            scan of §IV-A) that puts the 0s before the 1s, stably; then
//            the bucket counts of the tile go to the bucket matrix
//   scan     matrix_scan: "prefix sum over the global buckets"
//   scatter  (scatter_agent) "the global position of the number locally
//            sorted ... its local offset in the block plus the offset in its
//            bucket"; a bucket's keys are consecutive, so writes coalesce.
// Threads hold Items keys each (the paper: one): more work per barrier.
#pragma once
#include <type_traits>

#include "../block/block_scan.cuh"
#include "../common/multipass_params.cuh"
#include "../common/tile_io.cuh"

namespace radix::cuda_detail {

constexpr int split_max_bits = 4;

template <class U, class V, int Threads, int Items>
struct split_local_agent {
  static constexpr bool has_values = !std::is_same_v<V, no_value>;
  static constexpr int tile = Threads * Items;
  using scan_t = block_scan<Threads, unsigned>;
  struct storage {
    typename scan_t::storage scan;
    unsigned start[1 << split_max_bits], end[1 << split_max_bits];
  };
  static constexpr std::size_t keys_offset = (sizeof(storage) + 15) / 16 * 16;
  static constexpr std::size_t values_offset = keys_offset + (sizeof(U) * smem_slots<U>(tile) + 15) / 16 * 16;
  static constexpr std::size_t digits_offset =
      (values_offset + (has_values ? sizeof(V) * smem_slots<V>(tile) : 0) + 15) / 16 * 16;
  static constexpr std::size_t smem_bytes = digits_offset + smem_slots<unsigned char>(tile);

  const multipass_params<U, V> p;  // a copy: a reference to a kernel parameter would live in local memory
  unsigned char* smem;

  __device__ __forceinline__ void process(int e, int shift, int bits) {
    if (p.ctl->unsorted[e] == 0) return;
    const auto buf = multipass_buffers<U, V>::pick(p, e);
    storage& s = *reinterpret_cast<storage*>(smem);
    U* sk = reinterpret_cast<U*>(smem + keys_offset);
    V* sv = reinterpret_cast<V*>(smem + values_offset);
    unsigned char* sd = smem + digits_offset;
    const std::uint64_t base = std::uint64_t(blockIdx.x) * tile;
    const int valid = p.n - base < std::uint64_t(tile) ? int(p.n - base) : tile;
    const int first = int(threadIdx.x) * Items;

    U keys[Items];
    V vals[Items];
    load_blocked(buf.ksrc + base, valid, keys);
    if constexpr (has_values) {
      if (buf.vsrc) {
        load_blocked(buf.vsrc + base, valid, vals);
      } else {
#pragma unroll
        for (int i = 0; i < Items; ++i) vals[i] = index_value<V>(base + first + i);
      }
    }
    // Past the end: all digit bits 1. Those slots are the tile's last, so
    // every split keeps them last (1s go after the 0s, in order).
    const unsigned all_ones = (1u << bits) - 1;
    unsigned dig[Items];
#pragma unroll
    for (int i = 0; i < Items; ++i) dig[i] = first + i < valid ? multipass_digit(p.codec, keys[i], shift, bits) : all_ones;
    if (threadIdx.x < (1u << split_max_bits)) s.start[threadIdx.x] = s.end[threadIdx.x] = 0;

    for (int b = 0; b < bits; ++b) {
      unsigned ones = 0;
#pragma unroll
      for (int i = 0; i < Items; ++i) ones += (dig[i] >> b) & 1u;
      unsigned total_ones = 0;
      const unsigned before = scan_t::exclusive(ones, s.scan, &total_ones);  // ends with a barrier
      const unsigned zeros = unsigned(tile) - total_ones;
      unsigned seen = 0;
#pragma unroll
      for (int i = 0; i < Items; ++i) {
        const unsigned bit = (dig[i] >> b) & 1u;
        const unsigned o = before + seen;  // 1s before this key in the tile
        const unsigned pos = bit ? zeros + o : unsigned(first + i) - o;
        seen += bit;
        sk[smem_slot<U>(int(pos))] = keys[i];
        if constexpr (has_values) sv[smem_slot<V>(int(pos))] = vals[i];
        sd[smem_slot<unsigned char>(int(pos))] = static_cast<unsigned char>(dig[i]);
      }
      __syncthreads();
      if (b + 1 < bits) {
#pragma unroll
        for (int i = 0; i < Items; ++i) {
          keys[i] = sk[smem_slot<U>(first + i)];
          if constexpr (has_values) vals[i] = sv[smem_slot<V>(first + i)];
          dig[i] = sd[smem_slot<unsigned char>(first + i)];
        }
        __syncthreads();  // before the next split overwrites the tile
      }
    }
    if (bits == 0) return;  // (no pass plans 0 bits)

    // bucket offsets: where each digit's run starts and ends in the sorted tile
    for (int j = threadIdx.x; j < valid; j += Threads) {
      const unsigned d = sd[smem_slot<unsigned char>(j)];
      if (j == 0 || sd[smem_slot<unsigned char>(j - 1)] != d) s.start[d] = unsigned(j);
      if (j == valid - 1 || sd[smem_slot<unsigned char>(j + 1)] != d) s.end[d] = unsigned(j) + 1;
    }
    for (int j = threadIdx.x; j < valid; j += Threads) {
      buf.kt[base + j] = sk[smem_slot<U>(j)];
      if constexpr (has_values) buf.vt[base + j] = sv[smem_slot<V>(j)];
    }
    __syncthreads();
    if (threadIdx.x < (1u << bits))
      p.counts[std::uint64_t(threadIdx.x) * p.num_tiles + blockIdx.x] = s.end[threadIdx.x] - s.start[threadIdx.x];
  }
};

template <class U, class V, int Threads, int Items>
struct split_scatter_agent {
  static constexpr bool has_values = !std::is_same_v<V, no_value>;
  static constexpr int tile = Threads * Items;
  struct storage {
    unsigned start[1 << split_max_bits], global[1 << split_max_bits];
    unsigned char digit[tile];
  };
  static constexpr std::size_t smem_bytes = sizeof(storage);

  const multipass_params<U, V> p;
  unsigned char* smem;

  __device__ __forceinline__ void process(int e, int shift, int bits) {
    if (p.ctl->unsorted[e] == 0) return;
    const auto buf = multipass_buffers<U, V>::pick(p, e);
    storage& s = *reinterpret_cast<storage*>(smem);
    const std::uint64_t base = std::uint64_t(blockIdx.x) * tile;
    const int valid = p.n - base < std::uint64_t(tile) ? int(p.n - base) : tile;
    if (threadIdx.x < (1u << bits)) s.global[threadIdx.x] = p.counts[std::uint64_t(threadIdx.x) * p.num_tiles + blockIdx.x];
    U keys[Items];
    unsigned dig[Items];
#pragma unroll
    for (int i = 0; i < Items; ++i) {
      const int j = i * Threads + int(threadIdx.x);
      if (j < valid) {
        keys[i] = ld_nc(buf.kt + base + j);
        dig[i] = multipass_digit(p.codec, keys[i], shift, bits);
        s.digit[j] = static_cast<unsigned char>(dig[i]);
      }
    }
    __syncthreads();
#pragma unroll
    for (int i = 0; i < Items; ++i) {
      const int j = i * Threads + int(threadIdx.x);
      if (j < valid && (j == 0 || s.digit[j - 1] != dig[i])) s.start[dig[i]] = unsigned(j);
    }
    __syncthreads();
#pragma unroll
    for (int i = 0; i < Items; ++i) {
      const int j = i * Threads + int(threadIdx.x);
      if (j < valid) {
        const unsigned dst = s.global[dig[i]] + (unsigned(j) - s.start[dig[i]]);
        if (buf.kdst) buf.kdst[dst] = keys[i];
        if constexpr (has_values) buf.vdst[dst] = ld_nc(buf.vt + base + j);
      }
    }
  }
};

}  // namespace radix::cuda_detail
