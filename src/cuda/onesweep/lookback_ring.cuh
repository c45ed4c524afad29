// Decoupled look-back over a fixed-size circular buffer (the GPUOpen article
// on Onesweep with a circular look-back buffer, which extends Adinets &
// Merrill's Onesweep).
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
// entries is done looking back: tiles up to seq - 2^log2 + L. The tail
// iterator (the GPUOpen article, listings 2 and 3) tracks that, in groups of
// 2^tail_bits tiles. Listing 2 makes each finishing tile wait until the
// groups before its own are done, so that one counter stays exact; here a
// finishing tile only bumps its group's counter and never waits, and the tail
// (the number of groups known finished, in order) is advanced by the tiles
// that need it, when they take a slot (listing 3). With 264 tiles in flight
// and groups of 256, listing 2's in-order wait stalled tiles on the
// stragglers of the group before theirs.
//
// Group g's counter is group_done[g % ring_groups], shared with groups
// g + ring_groups, ...: a tile of group g + ring_groups takes its slot only
// after group g is known finished (the ring holds fewer than ring_groups - 1
// groups), so the counter reads 2^tail_bits * (g / ring_groups + 1) exactly
// when group g is finished, never earlier.
#pragma once
#include "../common/common.cuh"
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
/// `known`: the tail this thread saw last (it only grows), which usually
/// answers without a read; updated here.
__device__ __forceinline__ void wait_for_slot(control* ctl, unsigned seq, const ring_config& c, unsigned& known) {
  const unsigned size = 1u << c.log2;
  if (seq < size) return;  // first use of the slot (the ring was zeroed)
  // groups 0 .. last must be finished: they hold every tile up to seq - size + L
  const unsigned last = (seq - size + c.lookback) >> c.tail_bits;
  if (known > last) return;
  unsigned g = ld_acquire(&ctl->tail);
  if (g < known) g = known;
  while (g <= last) {
    const unsigned want = (1u << c.tail_bits) * (g / ring_groups + 1);
    if (ld_acquire(&ctl->group_done[g % ring_groups]) >= want) {
      ++g;
      atomicMax(&ctl->tail, g);
    } else {
      __nanosleep(32);
    }
  }
  known = g;
}

/// Listing 2, without its wait: one thread reports that tile `seq` is done
/// with the ring (after a __syncthreads that follows the block's last ring
/// read).
__device__ __forceinline__ void advance_tail(control* ctl, unsigned seq, const ring_config& c) {
  // a release reduction: the block's ring reads and writes (ordered before it
  // by the barrier) happen before any later tile that sees the count reuses the slot
  unsigned* at = &ctl->group_done[(seq >> c.tail_bits) % ring_groups];
  asm volatile("red.release.gpu.global.add.u32 [%0], 1;" ::"l"(at) : "memory");
}

__device__ __forceinline__ void publish(unsigned long long* my_slot, unsigned seq, unsigned d, unsigned flag,
                                        unsigned long long value, const ring_config& c) {
  st_relaxed(my_slot + d, pack(seq >> c.log2, flag, value));
}

/// Sum of digit d's counts over the tiles before tile `tile` of this pass
/// (tile seq is its ticket), plus the inclusive prefix of the nearest one
/// that has it: the digit's global start for this tile. Reads up to
/// `batch` predecessors at once (independent loads), then walks them in order.
///
/// A look-back goes back about (load round trip / time between two tiles'
/// starts) tiles, 15-25 on the H100, whatever the batch: its instructions
/// are per entry, and they were a quarter of the scatter kernel's. So the
/// common batch (one lap of the ring, short of the limit) takes a cheap
/// path: one address, constant offsets, one tag for all, and a branch-free
/// walk. The loop after it is the plain form of the same walk, which the
/// other batches take (kernel_lookback_ring_wraps tests both: tiny rings wrap
/// in most batches).
template <int Batch = 8>
__device__ __forceinline__ unsigned long long look_back(unsigned long long* ring, unsigned seq, unsigned tile,
                                                        unsigned d, const ring_config& c) {
  unsigned long long sum = 0;
  unsigned back = 1;  // distance of the nearest predecessor not yet summed
  const unsigned limit = tile < c.lookback ? tile : c.lookback;  // never past tile 0 or L
  while (true) {
    const unsigned newest = seq - back, oldest = seq - (back + Batch - 1);
    if (back + Batch - 1 < limit && (newest >> c.log2) == (oldest >> c.log2)) {
      const unsigned long long* p0 = slot(ring, newest, c) + d;
      // entry >> 40 is tag << 2 | flag; published entries of this lap carry this tag
      const unsigned tag2 = ((newest >> c.log2) & tag_mask) << 2;
      unsigned long long e[Batch];
#pragma unroll
      for (int b = 0; b < Batch; ++b) e[b] = ld_relaxed(p0 - b * radix_size);
      bool go = true, found = false;
      unsigned took = 0;
#pragma unroll
      for (int b = 0; b < Batch; ++b) {
        const unsigned tf = unsigned(e[b] >> 40);
        const bool take = go && tf - tag2 - 1u < 2u;  // flag aggregate or prefix, this lap
        const bool prefix = tf == (tag2 | flag_prefix);
        if (take) {
          sum += value_of(e[b]);
          ++took;
        }
        found |= take && prefix;
        go = take && !prefix;
      }
      if (found) return sum;
      back += took;
      if (took == 0) __nanosleep(64);  // nothing new: back off (issue slots belong to the other blocks)
      continue;
    }
    const unsigned before = back;
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
    // Nothing new was published: back off before polling again, so that the
    // spin does not take issue slots from the other blocks on this SM.
    if (back == before) __nanosleep(64);
  }
}

}  // namespace radix::cuda_detail::ring
