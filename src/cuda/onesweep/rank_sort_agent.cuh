// Up to a few thousand keys: each key's place is counted directly, by
// comparing it with every other key (Knuth, The Art of Computer Programming
// vol. 3, §5.2, "comparison counting"), with the comparisons spread over the
// whole GPU.
//
// Why not a radix sort: at these sizes a radix sort is one block on one SM,
// bound by the latency of its passes one after another. Comparison counting
// does n^2 comparisons, but each is a couple of integer instructions, every
// SM takes a share, and nothing waits on anything else; the integer ALU is
// what bounds it (bench/results has the measurements).
//
// A block places 32 keys, its targets, one for each lane. Its story:
//   load     every key's ordered bits (the same transform and bit range as
//            the radix passes), complemented, into shared memory; every
//            block reads the whole input
//   count    each warp counts, over its share of the input, the keys that go
//            before its lane's target: smaller ones, and equal ones at earlier
//            positions (which keeps the sort stable)
//   total    the warps' counts summed: the target's place in the output
//   scatter  the target's key and value written at that place
// The output must not be the input (other blocks still read it): in-place
// sorts write to the workspace, and a second kernel copies home.
#pragma once
#include <cstdint>
#include <type_traits>

#include "../common/common.cuh"
#include "block_sort_agent.cuh"  // block_sort_io
#include "params.cuh"
#include "radix/core/ordered_bits.hpp"

namespace radix::cuda_detail {

/// c + (a > x), given y = ~x: the carry out of a + y (a + ~x = a - x - 1
/// reaches 2^w exactly when a > x). Two instructions, where `c += a > x`
/// compiles to three (a compare, an add, a select).
__device__ __forceinline__ unsigned count_above(unsigned c, std::uint32_t a, std::uint32_t y) {
  asm("{\n\t.reg .u32 t;\n\tadd.cc.u32 t, %1, %2;\n\taddc.u32 %0, %0, 0;\n\t}" : "+r"(c) : "r"(a), "r"(y));
  return c;
}
__device__ __forceinline__ unsigned count_above(unsigned c, std::uint64_t a, std::uint64_t y) {
  asm("{\n\t.reg .u32 t;\n\tadd.cc.u32 t, %1, %3;\n\taddc.cc.u32 t, %2, %4;\n\taddc.u32 %0, %0, 0;\n\t}"
      : "+r"(c)
      : "r"(std::uint32_t(a)), "r"(std::uint32_t(a >> 32)), "r"(std::uint32_t(y)), "r"(std::uint32_t(y >> 32)));
  return c;
}

template <class U, class V>
struct rank_sort_agent {
  static constexpr bool has_values = !std::is_same_v<V, no_value>;
  /// Keys of up to 4 bytes compare as 32-bit words: 8- and 16-bit
  /// comparisons are no cheaper, and wider slots keep the loads simple.
  using ordered_t = std::conditional_t<(sizeof(U) <= 4), std::uint32_t, std::uint64_t>;
  static constexpr int targets = 32;  ///< keys a block places: one a lane
  /// Warps that share out a block's comparisons: 32 (1024 threads, two
  /// blocks an SM) give each scheduler 8 to 16 warps to hide the shared-memory latency.
  static constexpr int warps = 32;
  static constexpr int threads = warps * 32;
  /// Keys one 16-byte shared-memory load brings.
  static constexpr int per_load = 16 / int(sizeof(ordered_t));
  /// The most keys the kernel takes: 128 KiB of 64-bit ordered keys, within
  /// any GPU's opt-in shared memory from sm_80 on. sm90_rank_sort_max
  /// (policy.hpp) sets the largest input actually sent here: the work grows as n^2.
  static constexpr int capacity = 16384;

  /// Inputs padded to a whole number of loads a warp; the padding keys are
  /// all ones (stored as zero), after every real key, and at later positions
  /// than any target.
  __host__ __device__ static constexpr int padded(int n) {
    return (n + warps * per_load - 1) / (warps * per_load) * (warps * per_load);
  }
  /// [complemented ordered keys | each warp's count for each target]
  __host__ __device__ static constexpr std::size_t smem_bytes(int n) {
    return std::size_t(padded(n)) * sizeof(ordered_t) + std::size_t(warps) * targets * sizeof(unsigned);
  }
  static constexpr unsigned blocks(std::uint64_t n) { return unsigned((n + targets - 1) / targets); }

  /// Equal keys count as going before a target when they come earlier in the input.
  enum class ties {
    counted,      ///< every compared key is at an earlier position than the block's targets
    not_counted,  ///< every compared key is at a later position
    by_position,  ///< the compared keys straddle the targets: positions decide
  };

  struct alignas(16) load_t {
    ordered_t k[per_load];
  };

  const core::ordered_codec<U> codec;
  const U range_mask;
  const block_sort_io<U, V> io;  ///< kout must not alias kin
  unsigned char* smem;

  /// ~ordered bits of key j, at [j]: the form count_above takes
  __device__ __forceinline__ ordered_t* flipped() const { return reinterpret_cast<ordered_t*>(smem); }
  __device__ __forceinline__ unsigned* counts() const {
    return reinterpret_cast<unsigned*>(smem + std::size_t(padded(io.n)) * sizeof(ordered_t));
  }

  __device__ void process() const {
    const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
    const int target = int(blockIdx.x) * targets + lane;
    load_flipped();
    __syncthreads();
    counts()[warp * targets + lane] = count_before(warp, target);
    __syncthreads();
    pdl_release();  // the next kernel (the copy home) may be scheduled
    if (warp == 0 && target < io.n) scatter(target, total(lane));
  }

  /// Load: every key's ordered bits (in its bit range), complemented, into
  /// shared memory, then the padding. Loads go out four at a time: the
  /// input comes from L2 or DRAM, and one at a time each would wait alone.
  __device__ __forceinline__ void load_flipped() const {
    ordered_t* o = flipped();
    const int n = io.n, all = padded(n);
    constexpr int batch = 4;
    for (int j0 = int(threadIdx.x); j0 < all; j0 += batch * threads) {
      U k[batch];
#pragma unroll
      for (int b = 0; b < batch; ++b) {
        const int j = j0 + b * threads;
        k[b] = j < n ? ld_nc(io.kin + j) : U(0);
      }
#pragma unroll
      for (int b = 0; b < batch; ++b) {
        const int j = j0 + b * threads;
        if (j < all) o[j] = j < n ? ordered_t(~ordered_t(U(codec(k[b]) & range_mask))) : ordered_t(0);
      }
    }
  }

  /// Count: of this warp's share of the input, the keys that go before the lane's target.
  __device__ __forceinline__ unsigned count_before(int warp, int target) const {
    const int share = padded(io.n) / warps;
    const int first = warp * share, end = first + share;
    const int block_first = int(blockIdx.x) * targets;
    // (a target past the end is one of the padding keys: its count is never used)
    const ordered_t mine = ordered_t(~flipped()[target]);
    if (end <= block_first) {
      // x <= mine is mine + 1 > x, except for the largest key, which every key precedes or equals
      if (mine == ordered_t(~ordered_t(0))) return unsigned(end - first);
      return count<ties::counted>(first, end, ordered_t(mine + 1), target);
    }
    if (first >= block_first + targets) return count<ties::not_counted>(first, end, mine, target);
    return count<ties::by_position>(first, end, mine, target);
  }

  /// The keys x of [first, end) that go before the target: with ties
  /// counted, those with bound > x (bound = its key + 1); not counted, those
  /// with bound > x (bound = its key); by position, x < key, or x == key earlier.
  template <ties T>
  __device__ __forceinline__ unsigned count(int first, int end, ordered_t bound, int target) const {
    // (a pointer walked with constant offsets: an index divided per load
    // cost four integer instructions a load, which share the ALU pipe that
    // bounds the counting)
    const load_t* in = reinterpret_cast<const load_t*>(flipped()) + first / per_load;
    const load_t* const in_end = in + (end - first) / per_load;
    unsigned c = 0;
    int j = first;  // (by position only)
#pragma unroll 4
    for (; in != in_end; ++in, j += per_load) {
      const load_t y = *in;  // the same address in every lane: a broadcast
#pragma unroll
      for (int e = 0; e < per_load; ++e) {
        if constexpr (T == ties::by_position) {
          const ordered_t x = ordered_t(~y.k[e]);
          c += x < bound || (x == bound && j + e < target);
        } else {
          c = count_above(c, bound, y.k[e]);  // c += bound > x
        }
      }
    }
    return c;
  }

  /// Total: the target's place, the sum of every warp's count.
  __device__ __forceinline__ unsigned total(int lane) const {
    unsigned place = 0;
#pragma unroll 8
    for (int w = 0; w < warps; ++w) place += counts()[w * targets + lane];
    return place;
  }

  /// Scatter: the target's key and value (an argsort: its index) to its place.
  __device__ __forceinline__ void scatter(int target, unsigned place) const {
    if (io.kout) io.kout[place] = ld_nc(io.kin + target);
    if constexpr (has_values) io.put_value(place, io.vin ? ld_nc(io.vin + target) : index_value<V>(unsigned(target)));
  }
};

}  // namespace radix::cuda_detail
