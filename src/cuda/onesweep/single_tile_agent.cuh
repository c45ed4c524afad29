// Small inputs: one block sorts the whole input (n <= one tile) in one launch,
// in shared memory. The same warp ranking as the Onesweep tile, repeated per
// pass; no workspace, no look-back, no extra launch. The order check and
// trivial-digit skipping happen in the block.
//
// The keys live in shared memory (two buffers, ping-pong), and every loop runs
// over the rounds the input needs (n / Threads), not over the Items a full
// tile would hold: the block is alone on one SM, so it is bound by the
// instructions it issues, and fully unrolled register loops issued (predicated
// off) the instructions of all Items in every pass, 2.5x more than 4096 keys
// need. With values, a 16-bit origin index travels with each key instead of
// the value; the values stay in registers and are stored once, at the end.
#pragma once
#include <cstdint>
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
  static_assert(tile <= 65536, "origin indices and ranks are 16-bit");
  using rank_t = block_rank<Threads, Items>;
  using index_t = std::uint16_t;

  struct storage {
    typename rank_t::storage rank;
    unsigned long long varying;
  };
  static constexpr std::size_t align16(std::size_t b) { return (b + 15) / 16 * 16; }
  // [storage | keys 0 | keys 1 | rank of each key | origin 0 | origin 1 (with values)]
  static constexpr std::size_t keys_offset = align16(sizeof(storage));
  static constexpr std::size_t keys_bytes = align16(sizeof(U) * tile);
  static constexpr std::size_t ranks_offset = keys_offset + 2 * keys_bytes;
  static constexpr std::size_t index_bytes = align16(sizeof(index_t) * tile);
  static constexpr std::size_t origin_offset = ranks_offset + index_bytes;
  static constexpr std::size_t smem_bytes = origin_offset + (has_values ? 2 * index_bytes : 0);
  static_assert(smem_bytes <= 227 * 1024, "one block's shared memory on sm_90");

  const onesweep_params<U, V>& p;
  const pass_list& passes;
  unsigned char* smem;

  __device__ __forceinline__ storage& st() const { return *reinterpret_cast<storage*>(smem); }
  __device__ __forceinline__ U* keys_buf(int b) const { return reinterpret_cast<U*>(smem + keys_offset + b * keys_bytes); }
  __device__ __forceinline__ index_t* ranks() const { return reinterpret_cast<index_t*>(smem + ranks_offset); }
  __device__ __forceinline__ index_t* origin_buf(int b) const {
    return reinterpret_cast<index_t*>(smem + origin_offset + b * index_bytes);
  }

  // The input is spread evenly over the warps, in input order: warp w holds
  // keys [w * 32 * rounds, (w + 1) * 32 * rounds), round r of lane l being
  // key r * 32 + l of that run. Every warp so ranks a few rounds instead of
  // one warp ranking hundreds of keys in a row (the ranking is a chain of
  // dependent shared-memory updates, one per round), and ranks follow input
  // order (stable).
  int n = 0, rounds = 0, warp_base = 0;
  __device__ __forceinline__ int index(int r) const { return warp_base + r * 32 + int(lane_id()); }
  __device__ __forceinline__ bool holds(int r) const { return r < rounds && index(r) < n; }

  __device__ void process() {
    n = int(p.n);
    rounds = (n + Threads - 1) / Threads;  // at most Items: n <= tile
    warp_base = int(threadIdx.x / 32) * 32 * rounds;

    V vals[has_values ? Items : 1];
    if constexpr (has_values) load_values(vals);
    U varying = 0;
    if (!load_keys(varying)) return write_sorted_input();

    int cur = 0;
    for (int ps = 0; ps < passes.count; ++ps) {
      const core::pass pass{passes.shift[ps], passes.bits[ps]};
      if (core::pass_is_trivial<U>(varying, pass)) continue;
      rank_keys(cur, pass);
      scatter_keys(cur, pass);
      cur ^= 1;
    }
    store(cur, vals);
  }

  /// Pairs: every value into registers, before anything is written (the sort
  /// is in place). Runs once; its loop over all Items costs little.
  __device__ __forceinline__ void load_values(V (&vals)[has_values ? Items : 1]) const {
    if (p.mode == sort_mode::argsort) return;
#pragma unroll
    for (int i = 0; i < Items; ++i)
      if (holds(i)) vals[i] = ld_nc(p.values + index(i));
  }

  /// Keys (and origin indices) into buffer 0; finds the bits that vary and
  /// whether the input is out of order. Returns false when it is in order.
  __device__ __forceinline__ bool load_keys(U& varying) const {
    storage& s = st();
    if (threadIdx.x == 0) s.varying = 0;
    const U ref = p.codec(p.keys[0]);
    U vary = 0;
    bool unsorted = false;
    for (int r = 0; r < rounds; ++r) {
      if (!holds(r)) continue;
      const int j = index(r);
      const U k = ld_nc(p.keys + j);
      keys_buf(0)[j] = k;
      if constexpr (has_values) origin_buf(0)[j] = index_t(j);
      const U o = p.codec(k);
      vary |= U(o ^ ref);
      if (j > 0) unsorted |= U(o & p.range_mask) < U(p.codec(p.keys[j - 1]) & p.range_mask);
    }
    __syncthreads();  // s.varying cleared
    if (vary) atomicOr(&s.varying, static_cast<unsigned long long>(vary));
    unsorted = __syncthreads_or(unsorted);
    varying = U(s.varying & p.range_mask);
    return unsorted;
  }

  /// In order already: only argsort (the identity, and the keys where it is
  /// asked for them) and keys out of place (a copy) have something to write.
  __device__ __forceinline__ void write_sorted_input() const {
    if (p.out_of_place())
      for (int r = 0; r < rounds; ++r)
        if (holds(r)) p.sorted_keys[index(r)] = keys_buf(0)[index(r)];
    if constexpr (has_values) {
      if (p.mode == sort_mode::argsort)
        for (int r = 0; r < rounds; ++r)
          if (holds(r)) {
            p.values[index(r)] = index_value<V>(index(r));
            if (p.sorted_keys) p.sorted_keys[index(r)] = keys_buf(0)[index(r)];
          }
    }
  }

  __device__ __forceinline__ unsigned digit_at(const U* keys, int j, const core::pass& pass) const {
    return core::digit_of<U>(p.codec(keys[j]), pass.shift, pass.bits);
  }

  /// Each key's rank among the equal digits of its warp, into ranks(); then
  /// the digit scan (block_rank) turns the warp counters into positions.
  __device__ __forceinline__ void rank_keys(int cur, const core::pass& pass) const {
    storage& s = st();
    rank_t::clear(s.rank, 1 << pass.bits);
    __syncthreads();
    unsigned* hist = rank_t::warp_counters(s.rank);
    const unsigned lt = lanemask_lt(), gt = ~(lt | (1u << lane_id()));
    const U* keys = keys_buf(cur);
    for (int r = 0; r < rounds; ++r) {  // warp-uniform: every lane ranks together
      const bool mine = holds(r);
      const unsigned d = mine ? digit_at(keys, index(r), pass) : rank_t::no_digit;
      const unsigned rank = rank_t::template rank_one<true>(d, hist, lt, gt);
      if (mine) ranks()[index(r)] = index_t(rank);
    }
    __syncthreads();
    rank_t::scan_digits(s.rank, 1 << pass.bits, [](unsigned) {});
  }

  /// Keys (and origins) from buffer cur to their digit-sorted places in the other.
  __device__ __forceinline__ void scatter_keys(int cur, const core::pass& pass) const {
    const U* src = keys_buf(cur);
    U* dst = keys_buf(cur ^ 1);
    for (int r = 0; r < rounds; ++r) {
      if (!holds(r)) continue;
      const int j = index(r);
      const U k = src[j];
      const unsigned pos = rank_t::local_position(st().rank, core::digit_of<U>(p.codec(k), pass.shift, pass.bits),
                                                  ranks()[j]);
      dst[pos] = k;
      if constexpr (has_values) origin_buf(cur ^ 1)[pos] = origin_buf(cur)[j];
    }
    __syncthreads();
  }

  /// The sorted keys from buffer cur, written home; values follow their
  /// origins (argsort: the origins are the output).
  __device__ __forceinline__ void store(int cur, const V (&vals)[has_values ? Items : 1]) const {
    const U* keys = keys_buf(cur);
    U* out = p.key_out();
    if (out)
      for (int r = 0; r < rounds; ++r)
        if (holds(r)) out[index(r)] = keys[index(r)];
    if constexpr (has_values) {
      const index_t* origin = origin_buf(cur);
      if (p.mode == sort_mode::argsort) {
        for (int r = 0; r < rounds; ++r)
          if (holds(r)) p.values[index(r)] = index_value<V>(origin[index(r)]);
        return;
      }
      // where each origin went: ranks() is free now
      index_t* dest = ranks();
      for (int r = 0; r < rounds; ++r)
        if (holds(r)) dest[origin[index(r)]] = index_t(index(r));
      __syncthreads();
#pragma unroll
      for (int i = 0; i < Items; ++i)
        if (holds(i)) p.values[dest[index(i)]] = vals[i];
    }
  }
};

}  // namespace radix::cuda_detail
