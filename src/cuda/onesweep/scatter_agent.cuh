// One Onesweep digit pass, one tile per block (seed 004, "Reorder"):
//
//   ticket   take the next tile index from an atomic counter, so every tile
//            before this one is already running (the look-back cannot wait on
//            a tile that has not started); wait until the ring slot is free
//   load     the tile's keys, 16-byte loads, warp-striped
//   rank     stable ranks within the tile (warp-level multi-split)
//   publish  the tile's digit counts to the ring (flag `aggregate`)
//   stage    keys (and values) to shared memory in digit order
//   look     back over the predecessors for each digit's global start, then
//            publish the inclusive prefix; advance the ring's tail
//   scatter  from shared memory: consecutive threads write consecutive
//            addresses of a digit's run (coalesced), values in the same loop
//
// The pass is skipped (the block returns at once) when the histogram kernel
// planned it away: sorted input, or a digit that is the same for every key.
#pragma once
#include <type_traits>

#include "../block/block_load.cuh"
#include "../block/block_rank.cuh"
#include "../common.cuh"
#include "lookback_ring.cuh"
#include "params.cuh"
#include "radix/core/pass_plan.hpp"

namespace radix::cuda_detail {

template <class U, class V, int Threads, int Items>
struct scatter_agent {
  static constexpr bool has_values = !std::is_same_v<V, no_value>;
  static constexpr int tile = Threads * Items;
  static constexpr int warp_tile = 32 * Items;
  using rank_t = block_rank<Threads, Items>;
  using load_t = warp_load<U, Items>;

  struct storage {
    typename rank_t::storage rank;
    long long shift[radix_size];  ///< global position - tile position, per digit
    unsigned seq;
  };
  /// Dynamic shared memory: storage, then tile keys, then tile values.
  static constexpr std::size_t keys_offset = (sizeof(storage) + 15) / 16 * 16;
  static constexpr std::size_t values_offset = keys_offset + (sizeof(U) * tile + 15) / 16 * 16;
  static constexpr std::size_t smem_bytes = values_offset + (has_values ? sizeof(V) * tile : 0);

  const onesweep_params<U, V>& p;
  int pass;  ///< index into the pass list
  int shift_bits, digit_bits, bin_offset;
  unsigned char* smem;

  __device__ __forceinline__ storage& st() const { return *reinterpret_cast<storage*>(smem); }
  __device__ __forceinline__ U* tile_keys() const { return reinterpret_cast<U*>(smem + keys_offset); }
  __device__ __forceinline__ V* tile_values() const { return reinterpret_cast<V*>(smem + values_offset); }
  __device__ __forceinline__ unsigned digit(U key) const {
    return core::digit_of<U>(p.codec(key), shift_bits, digit_bits);
  }

  __device__ void process() {
    control* ctl = p.ctl;
    const int e = ctl->pass_eff[pass];  // written by an earlier kernel
    if (e < 0) return;
    const int k = ctl->eff_passes;
    const auto buf = pass_buffers<U, V>::pick(p, e, k);
    storage& s = st();
    const int digits = 1 << digit_bits;

    // ticket
    if (threadIdx.x == 0) {
      const unsigned seq = atomicAdd(&ctl->ticket, 1u);
      ring::wait_for_slot(ctl, seq, p.ring_cfg);
      s.seq = seq;
    }
    rank_t::clear(s.rank, digits);
    __syncthreads();
    const unsigned seq = s.seq;
    const unsigned tile_idx = seq - unsigned(e) * p.num_tiles;
    const std::uint64_t base = std::uint64_t(tile_idx) * tile;
    const int valid = p.n - base < std::uint64_t(tile) ? int(p.n - base) : tile;

    // load
    const unsigned warp = threadIdx.x / 32, lane = lane_id();
    const int warp_base = int(warp) * warp_tile;
    U keys[Items];
    load_t::striped(buf.ksrc + base + warp_base, valid - warp_base, keys, tile_keys() + warp_base, U(0));

    // rank
    unsigned dig[Items], rank[Items];
#pragma unroll
    for (int i = 0; i < Items; ++i)
      dig[i] = warp_base + i * 32 + int(lane) < valid ? digit(keys[i]) : rank_t::no_digit;
    rank_t::rank_warp(dig, rank, s.rank);
    __syncthreads();

    // publish the tile's counts (tile 0 knows its prefix: the digit's global start)
    unsigned long long* my_slot = ring::slot(p.ring, seq, p.ring_cfg);
    const unsigned d = threadIdx.x;
    const unsigned count = rank_t::scan_digits(s.rank, digits, [&](unsigned c) {
      if (tile_idx == 0)
        ring::publish(my_slot, seq, d, ring::flag_prefix, ctl->offsets[bin_offset + d] + c, p.ring_cfg);
      else
        ring::publish(my_slot, seq, d, ring::flag_aggregate, c, p.ring_cfg);
    });

    // stage keys and values in digit order
    unsigned pos[Items];
#pragma unroll
    for (int i = 0; i < Items; ++i) {
      pos[i] = dig[i] != rank_t::no_digit ? rank_t::local_position(s.rank, dig[i], rank[i]) : 0u;
      if (dig[i] != rank_t::no_digit) tile_keys()[pos[i]] = keys[i];
    }
    if constexpr (has_values) {
#pragma unroll
      for (int i = 0; i < Items; ++i) {
        if (dig[i] != rank_t::no_digit) {
          const std::uint64_t src = base + warp_base + i * 32 + lane;
          V v;
          if (buf.vsrc) v = ld_nc(buf.vsrc + src);
          else v = index_value<V>(src);  // argsort: the index, generated here
          tile_values()[pos[i]] = v;
        }
      }
    }

    // look back
    if (int(d) < digits) {
      unsigned long long start;
      if (tile_idx == 0) {
        start = ctl->offsets[bin_offset + d];
      } else {
        start = ring::look_back(p.ring, seq, tile_idx, d, p.ring_cfg);
        ring::publish(my_slot, seq, d, ring::flag_prefix, start + count, p.ring_cfg);
      }
      s.shift[d] = static_cast<long long>(start) - static_cast<long long>(s.rank.digit_start[d]);
    }
    __syncthreads();
    if (threadIdx.x == 0) ring::advance_tail(ctl, seq, p.ring_cfg);

    // scatter
#pragma unroll
    for (int i = 0; i < Items; ++i) {
      const int j = i * Threads + int(threadIdx.x);
      if (j < valid) {
        const U key = tile_keys()[j];
        const std::uint64_t dst = static_cast<std::uint64_t>(s.shift[digit(key)] + j);
        if (buf.kdst) buf.kdst[dst] = key;
        if constexpr (has_values) buf.vdst[dst] = tile_values()[j];
      }
    }
  }
};

}  // namespace radix::cuda_detail
