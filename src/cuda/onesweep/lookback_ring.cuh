// Decoupled look-back over a fixed-size circular buffer (seed 004).
//
// Each tile publishes, per digit, first its own count (flag `aggregate`),
// then, once its look-back is done, the inclusive prefix (flag `prefix`). A
// tile's entries live in slot seq mod 2^log2 of the ring; an entry carries the
// generation seq >> log2 as a tag, so a reader can tell the tile it wants
// from the older tile that used the slot before (and from a zeroed slot).
//
// Entry (64 bits): value [0,40) | flag [40,42) | tag [42,64).
//
// Reuse is safe because a look-back goes back at most L tiles, and a tile
// may take a slot only when every tile that could still read the slot's old
// entries is done looking back: seq < tail + 2^log2 - L, where `tail` is the
// tail iterator (listing 3). The tail counts tiles that are done with the
// ring; tiles of one group of 2^tail_bits may bump it in any order, but a
// group waits for the groups before it (listing 2), so the count rounded
// down to a group boundary is a number of tiles that are all done.
#pragma once
#include "../common.cuh"
#include "params.cuh"

namespace radix::cuda_detail::ring {

constexpr unsigned long long value_mask = (1ull << 40) - 1;
constexpr unsigned flag_aggregate = 1, flag_prefix = 2;
constexpr unsigned tag_mask = (1u << 22) - 1;

__device__ __forceinline__ unsigned long long pack(unsigned tag, unsigned flag, unsigned long long value) {
  return (static_cast<unsigned long long>(tag & tag_mask) << 42) | (static_cast<unsigned long long>(flag) << 40) |
         (value & value_mask);
}
__device__ __forceinline__ unsigned tag_of(unsigned long long e) { return unsigned(e >> 42); }
__device__ __forceinline__ unsigned flag_of(unsigned long long e) { return unsigned(e >> 40) & 3u; }
__device__ __forceinline__ unsigned long long value_of(unsigned long long e) { return e & value_mask; }

__device__ __forceinline__ unsigned long long* slot(unsigned long long* ring, unsigned seq, const ring_config& c) {
  return ring + static_cast<std::size_t>(seq & ((1u << c.log2) - 1)) * radix_size;
}

/// Listing 3: one thread waits until tile `seq` may overwrite its slot.
/// `known_done`: a tail value the caller has already seen (it only grows),
/// which usually answers without a read.
__device__ __forceinline__ void wait_for_slot(control* ctl, unsigned seq, const ring_config& c,
                                              unsigned known_done = 0) {
  const unsigned size = 1u << c.log2;
  if (seq < size) return;  // first use of the slot (the ring was zeroed)
  const unsigned group = ~((1u << c.tail_bits) - 1);
  if (seq < (known_done & group) + size - c.lookback) return;
  while (true) {
    const unsigned done = ld_acquire(&ctl->tail) & group;
    if (seq < done + size - c.lookback) break;
    __nanosleep(32);
  }
}

/// Listing 2: one thread reports that tile `seq` is done with the ring
/// (after a __syncthreads that follows the block's last ring read). Returns
/// the tail it saw (a hint for wait_for_slot).
__device__ __forceinline__ unsigned advance_tail(control* ctl, unsigned seq, const ring_config& c) {
  const unsigned group = ~((1u << c.tail_bits) - 1);
  unsigned t;
  while (((t = ld_acquire(&ctl->tail)) & group) != (seq & group)) __nanosleep(32);
  __threadfence();
  atomicAdd(&ctl->tail, 1u);  // result unused: a fire-and-forget reduction
  return t;
}

__device__ __forceinline__ void publish(unsigned long long* my_slot, unsigned seq, unsigned d, unsigned flag,
                                        unsigned long long value, const ring_config& c) {
  st_relaxed(my_slot + d, pack(seq >> c.log2, flag, value));
}

/// Sum of digit d's counts over the tiles before tile `tile` of this pass
/// (tile seq is its ticket), plus the inclusive prefix of the nearest one
/// that has it: the digit's global start for this tile. Reads up to
/// `batch` predecessors at once (independent loads), then walks them in order.
template <int Batch = 8>
__device__ __forceinline__ unsigned long long look_back(unsigned long long* ring, unsigned seq, unsigned tile,
                                                        unsigned d, const ring_config& c) {
  unsigned long long sum = 0;
  unsigned back = 1;  // distance of the nearest predecessor not yet summed
  const unsigned limit = tile < c.lookback ? tile : c.lookback;  // never past tile 0 or L
  while (true) {
    unsigned long long e[Batch];
#pragma unroll
    for (int b = 0; b < Batch; ++b) {
      const unsigned dist = back + b;
      e[b] = dist <= limit ? ld_relaxed(slot(ring, seq - dist, c) + d) : 0ull;
    }
    const unsigned first = back;
#pragma unroll
    for (int b = 0; b < Batch; ++b) {
      const unsigned dist = first + b;
      if (dist > limit) break;
      const unsigned s = seq - dist;
      const unsigned flag = flag_of(e[b]);
      if (flag == 0 || tag_of(e[b]) != ((s >> c.log2) & tag_mask)) break;  // not published yet: reload from here
      if (flag == flag_prefix) return sum + value_of(e[b]);
      // An aggregate: use it and go further back, unless that is the limit
      // (L, or tile 0, which always publishes a prefix): then wait on it.
      if (dist == limit) break;
      sum += value_of(e[b]);
      back = dist + 1;
    }
  }
}

}  // namespace radix::cuda_detail::ring
