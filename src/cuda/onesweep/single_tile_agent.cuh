// Small inputs: one block sorts the whole input (n <= one tile) in one launch,
// in shared memory. The same ranking as the Onesweep tile, repeated per pass
// over keys kept in registers; no workspace, no look-back, no extra launch.
// The order check and trivial-digit skipping happen in the block.
#pragma once
#include <type_traits>

#include "../block/block_rank.cuh"
#include "../common/common.cuh"
#include "params.cuh"
#include "radix/core/pass_plan.hpp"

namespace radix::cuda_detail {

template <class U, class V, int Threads, int Items>
struct single_tile_agent {
  static constexpr bool has_values = !std::is_same_v<V, no_value>;
  static constexpr int tile = Threads * Items;
  static constexpr int warp_tile = 32 * Items;
  using rank_t = block_rank<Threads, Items>;

  struct storage {
    typename rank_t::storage rank;
    unsigned long long varying;
  };
  static constexpr std::size_t keys_offset = (sizeof(storage) + 15) / 16 * 16;
  static constexpr std::size_t values_offset = keys_offset + (sizeof(U) * tile + 15) / 16 * 16;
  static constexpr std::size_t smem_bytes = values_offset + (has_values ? sizeof(V) * tile : 0);

  const onesweep_params<U, V>& p;
  const pass_list& passes;
  unsigned char* smem;

  __device__ __forceinline__ storage& st() const { return *reinterpret_cast<storage*>(smem); }
  __device__ __forceinline__ U* tile_keys() const { return reinterpret_cast<U*>(smem + keys_offset); }
  __device__ __forceinline__ V* tile_values() const { return reinterpret_cast<V*>(smem + values_offset); }

  __device__ void process() {
    storage& s = st();
    const int valid = int(p.n);
    const unsigned lane = lane_id();
    // The input spread evenly over the warps, in input order: warp w holds
    // keys [w * 32 * rounds, (w + 1) * 32 * rounds), item i of lane l being
    // key i * 32 + l of that run. A small input so keeps every warp busy for
    // a few rounds instead of one warp ranking hundreds of keys in a row (the
    // ranking is a chain of dependent shared-memory updates, one per round).
    const int rounds = (valid + Threads - 1) / Threads;  // at most Items: n <= tile
    const int warp_base = int(threadIdx.x / 32) * 32 * rounds;
    const auto index = [&](int i) { return warp_base + i * 32 + int(lane); };
    const auto holds = [&](int i) { return i < rounds && index(i) < valid; };
    if (threadIdx.x == 0) s.varying = 0;

    // load, and find out what varies and whether it is in order already
    U keys[Items];
#pragma unroll
    for (int i = 0; i < Items; ++i) keys[i] = holds(i) ? ld_nc(p.keys + index(i)) : U(0);
    const U ref = p.codec(p.keys[0]);
    U vary = 0;
    bool unsorted = false;
#pragma unroll
    for (int i = 0; i < Items; ++i) {
      if (holds(i)) {
        const int j = index(i);
        const U o = p.codec(keys[i]);
        vary |= U(o ^ ref);
        if (j > 0) unsorted |= U(o & p.range_mask) < U(p.codec(p.keys[j - 1]) & p.range_mask);
      }
    }
    __syncthreads();  // s.varying cleared
    if (vary) atomicOr(&s.varying, static_cast<unsigned long long>(vary));
    unsorted = __syncthreads_or(unsorted);
    const U varying = U(s.varying & p.range_mask);

    V vals[has_values ? Items : 1];
    if constexpr (has_values) {
#pragma unroll
      for (int i = 0; i < Items; ++i)
        if (holds(i)) vals[i] = p.mode == sort_mode::argsort ? index_value<V>(index(i)) : ld_nc(p.values + index(i));
    }
    if (!unsorted) {
      if constexpr (has_values) {
        if (p.mode == sort_mode::argsort) {
#pragma unroll
          for (int i = 0; i < Items; ++i)
            if (holds(i)) p.values[index(i)] = vals[i];
        }
      }
      return;
    }

    for (int ps = 0; ps < passes.count; ++ps) {
      const core::pass pass{passes.shift[ps], passes.bits[ps]};
      if (core::pass_is_trivial<U>(varying, pass)) continue;
      rank_t::clear(s.rank, 1 << pass.bits);
      __syncthreads();
      unsigned dig[Items], rank[Items];
#pragma unroll
      for (int i = 0; i < Items; ++i)
        dig[i] = holds(i) ? core::digit_of<U>(p.codec(keys[i]), pass.shift, pass.bits) : rank_t::no_digit;
      {
        unsigned* hist = rank_t::warp_counters(s.rank);
        const unsigned lt = lanemask_lt(), gt = ~(lt | (1u << lane));
#pragma unroll
        for (int i = 0; i < Items; ++i)
          if (i < rounds) rank[i] = rank_t::template rank_one<true>(dig[i], hist, lt, gt);
      }
      __syncthreads();
      rank_t::scan_digits(s.rank, 1 << pass.bits, [](unsigned) {});
#pragma unroll
      for (int i = 0; i < Items; ++i) {
        if (dig[i] != rank_t::no_digit) {
          const unsigned pos = rank_t::local_position(s.rank, dig[i], rank[i]);
          tile_keys()[pos] = keys[i];
          if constexpr (has_values) tile_values()[pos] = vals[i];
        }
      }
      __syncthreads();
#pragma unroll
      for (int i = 0; i < Items; ++i) {
        if (holds(i)) {
          keys[i] = tile_keys()[index(i)];
          if constexpr (has_values) vals[i] = tile_values()[index(i)];
        }
      }
    }

    // write back (in place: every read of the input happened before the first barrier)
#pragma unroll
    for (int i = 0; i < Items; ++i) {
      if (holds(i)) {
        if (p.mode != sort_mode::argsort) p.keys[index(i)] = keys[i];
        if constexpr (has_values) p.values[index(i)] = vals[i];
      }
    }
  }
};

}  // namespace radix::cuda_detail
