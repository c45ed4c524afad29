// Block-wide stable ranking of digits (warp-level multi-split).
//
// Each warp ranks its own 32 x Items keys, item by item: the lanes holding
// the same digit find each other with one ballot per digit bit, the highest of
// them bumps the warp's counter for that digit (a plain store: the warp owns
// its row; a __syncwarp per item orders it), and every lane's rank is the
// counter before the bump plus the number of peers in lower lanes. Items are
// warp-striped (item i of lane l is key i*32 + l of the warp's sub-tile), so
// the ranks follow input order: the sort stays stable.
//
// Then, per digit: an exclusive scan over the warps (warp w's keys of digit d
// go after those of warps < w) and an exclusive scan over digits gives each
// key its position in the tile sorted by digit:
//   local = digit_start[d] + warp_prefix[w][d] + rank_in_warp
// (the first two summed once per digit and warp, kept in the warp counters).
#pragma once
#include "../common/common.cuh"
#include "block_scan.cuh"

namespace radix::cuda_detail {

/// Match = true finds peers with __match_any_sync instead of ballots.
template <int Threads, int Items, bool Match = false>
struct block_rank {
  static_assert(Threads % 32 == 0 && Threads >= radix_size, "one thread per digit needed");
  static constexpr int warps = Threads / 32;
  /// Digit value of an item that takes no part (past the end of the input).
  static constexpr unsigned no_digit = radix_size;
  using scan = block_scan<Threads, unsigned>;

  struct storage {
    unsigned warp_hist[warps][radix_size];
    unsigned digit_start[radix_size];
    typename scan::storage scan_storage;
  };

  /// Zeroes the warp counters of `digits` digits (call, then __syncthreads).
  __device__ __forceinline__ static void clear(storage& s, int digits) {
    for (int i = threadIdx.x; i < warps * radix_size; i += Threads) {
      if ((i & (radix_size - 1)) < digits) (&s.warp_hist[0][0])[i] = 0;
    }
  }

  /// Lanes of the warp whose digit equals this lane's: one ballot per digit
  /// bit (plus one for "no digit"). Ballots run on the ALU; the match
  /// instruction (__match_any_sync) is much slower on sm_90.
  template <bool Partial>
  __device__ __forceinline__ static unsigned peers_of(unsigned d) {
    if constexpr (Match) return __match_any_sync(0xFFFFFFFFu, d);
    // Branch-free over all 8 digit bits (and the "no digit" bit when the tile
    // is partial): bits above a narrower digit are 0 in every lane, and their
    // vote changes nothing.
    unsigned peers = 0xFFFFFFFFu;
#pragma unroll
    for (int b = 0; b < (Partial ? max_radix_bits + 1 : max_radix_bits); ++b) peers &= same_bit(d, 1u << b);
    return peers;
  }

  /// The lanes whose digit has the same bit `bit` as ours: the ballot of the
  /// bit, inverted where ours is 0. Written in PTX so that the bit test stays
  /// a predicate (and.b32 + setp, vote, predicated not): four instructions
  /// instead of the six the C++ form compiled to (shift, mask, compare,
  /// decrement, vote, merge), and this runs 8 times per key.
  __device__ __forceinline__ static unsigned same_bit(unsigned d, unsigned bit) {
    unsigned v;
    asm("{\n\t.reg .pred p;\n\t.reg .b32 t;\n\t"
        "and.b32 t, %1, %2;\n\t"
        "setp.ne.u32 p, t, 0;\n\t"
        "vote.sync.ballot.b32 %0, p, 0xffffffff;\n\t"
        "@!p not.b32 %0, %0;\n\t}"
        : "=r"(v)
        : "r"(d), "r"(bit));
    return v;
  }

  /// Ranks within the warp. digit[i] == no_digit marks an item that is not
  /// counted (its rank is meaningless). `bits`: the digit width.
  __device__ __forceinline__ static void rank_warp(const unsigned (&digit)[Items], unsigned (&rank)[Items],
                                                   storage& s, int /*bits*/, bool partial = true) {
    if (partial) rank_warp_impl<true>(digit, rank, s);
    else rank_warp_impl<false>(digit, rank, s);
  }

  template <bool Partial>
  __device__ __forceinline__ static void rank_warp_impl(const unsigned (&digit)[Items], unsigned (&rank)[Items],
                                                        storage& s) {
    unsigned* hist = warp_counters(s);
    const unsigned lt = lanemask_lt();
    const unsigned gt = ~(lt | (1u << lane_id()));
#pragma unroll
    for (int i = 0; i < Items; ++i) rank[i] = rank_one<Partial>(digit[i], hist, lt, gt);
  }

  /// This warp's counter row.
  __device__ __forceinline__ static unsigned* warp_counters(storage& s) { return s.warp_hist[threadIdx.x / 32]; }

  /// Ranks one item of every lane (the whole warp calls it, converged): the
  /// count of digit d before this item plus the peers in lower lanes, and
  /// advances the warp's counter of d. lt / gt: lanemask_lt() and the lanes
  /// above this one.
  template <bool Partial>
  __device__ __forceinline__ static unsigned rank_one(unsigned d, unsigned* hist, unsigned lt, unsigned gt) {
    const unsigned peers = peers_of<Partial>(d);
    // The warp owns its counter row and ranks item by item: every lane of a
    // digit group reads the count (one broadcast), the group's highest lane
    // writes it back advanced. No atomic, no shuffle, no branch. The first
    // __syncwarp orders the group's reads before the write (lanes are
    // converged here, but the memory model does not promise lockstep), the
    // second the write before the next item's reads.
    // (d & (radix_size - 1): a valid address even for no_digit, never written.)
    unsigned* c = hist + (d & (radix_size - 1));
    const unsigned before = *c;
    __syncwarp();
    if ((peers & gt) == 0 && (!Partial || d != no_digit)) *c = before + unsigned(__popc(peers));
    __syncwarp();
    return before + __popc(peers & lt);
  }

  /// After rank_warp (or the early counts of scatter_agent) and a __syncthreads: thread d < digits turns the warp
  /// counters of digit d into exclusive prefixes over warps and returns the
  /// tile's count of digit d (0 for other threads). Ends with digit_start
  /// filled and the block synchronised. `on_count` runs for thread d with the
  /// count as soon as it is known (the look-back publishes it there), before
  /// the digit scan.
  template <class OnCount>
  __device__ __forceinline__ static unsigned scan_digits(storage& s, int digits, OnCount&& on_count) {
    const int d = threadIdx.x;
    unsigned count = 0;
    if (d < digits) {
#pragma unroll
      for (int w = 0; w < warps; ++w) {
        const unsigned c = s.warp_hist[w][d];
        s.warp_hist[w][d] = count;
        count += c;
      }
      on_count(count);
    }
    const unsigned start = scan::exclusive(count, s.scan_storage);
    if (d < digits) {
      s.digit_start[d] = start;
      // fold the digit's start into the warp prefixes: one shared load per key later
#pragma unroll
      for (int w = 0; w < warps; ++w) s.warp_hist[w][d] += start;
    }
    __syncthreads();
    return count;
  }

  /// Position in the digit-sorted tile of an item ranked by rank_warp.
  __device__ __forceinline__ static unsigned local_position(const storage& s, unsigned d, unsigned rank) {
    return s.warp_hist[threadIdx.x / 32][d] + rank;
  }
};

}  // namespace radix::cuda_detail
