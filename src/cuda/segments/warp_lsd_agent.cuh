// Short segments (a few dozen to a few thousand keys): one warp sorts a
// whole segment in its own slice of shared memory, LSD, with no block-wide
// barrier. Each warp of a block takes its own segments, so an SM keeps
// dozens of independent sorts in flight and hides the latency of each
// one's chain of shared-memory updates behind the others. (A block per
// segment waits at five barriers a pass, with most of its warps idle when
// the segment is short.) Its story, per segment:
//
//   load           keys (and the values) into the warp's slice; the bits that
//                  vary and whether the segment is out of order
//   for each pass whose digit varies:
//     rank           stable ranks among equal digits (block_rank's warp ranking,
//                    one round of 32 keys at a time, in input order)
//     scan           the warp's digit counts into digit starts (8 a lane)
//     scatter        keys (and their origins) to digit-sorted places in the
//                    other buffer
//   store          keys home; values by their origins (argsort: the origins)
//
// One read and one write of the data. Ranks follow input order: stable.
#pragma once
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "../block/block_rank.cuh"
#include "../common/common.cuh"
#include "radix/core/ordered_bits.hpp"
#include "radix/core/pass_plan.hpp"

namespace radix::cuda_detail {

template <class U, class V>
struct warp_lsd_agent {
  static constexpr bool has_values = !std::is_same_v<V, no_value>;
  /// The warp ranking of the block ranker (its block-wide parts are not used).
  using ranker = block_rank<radix_size, 1>;
  using index_t = std::uint16_t;  ///< origins and ranks: segments of at most 65536 keys

  static constexpr std::size_t align16(std::size_t b) { return (b + 15) / 16 * 16; }
  /// A warp's slice for segments of up to `capacity` keys:
  /// [counters | keys 0 | keys 1 | ranks | origins 0 | origins 1 | values (pairs)].
  struct slice_layout {
    std::size_t keys, ranks, origins, values, bytes;
    __host__ __device__ constexpr slice_layout(unsigned capacity, sort_mode mode)
        : keys(align16(radix_size * sizeof(unsigned))),
          ranks(keys + 2 * align16(capacity * sizeof(U))),
          origins(ranks + align16(capacity * sizeof(index_t))),
          values(origins + (has_values ? 2 * align16(capacity * sizeof(index_t)) : 0)),
          bytes(values + (has_values && mode == sort_mode::pairs ? align16(capacity * sizeof(V)) : 0)) {}
  };

  U* keys;       ///< the segment's keys (read-only for argsort)
  V* values;     ///< its values, or argsort's local indices out
  U* sorted_out; ///< argsort: where its keys go in sorted order too (nullptr: nowhere)
  unsigned n;    ///< its length, at most the slice's capacity
  sort_mode mode;
  core::ordered_codec<U> codec;
  U range_mask;
  const pass_list& passes;
  unsigned char* slice;  ///< this warp's shared memory
  slice_layout at;

  __device__ __forceinline__ unsigned* counters() const { return reinterpret_cast<unsigned*>(slice); }
  __device__ __forceinline__ U* key_buf(int b) const {
    return reinterpret_cast<U*>(slice + at.keys + b * (at.ranks - at.keys) / 2);
  }
  __device__ __forceinline__ index_t* ranks() const { return reinterpret_cast<index_t*>(slice + at.ranks); }
  __device__ __forceinline__ index_t* origin_buf(int b) const {
    return reinterpret_cast<index_t*>(slice + at.origins + b * (at.values - at.origins) / 2);
  }
  __device__ __forceinline__ V* value_buf() const { return reinterpret_cast<V*>(slice + at.values); }
  __device__ __forceinline__ unsigned digit(U k, const core::pass& ps) const {
    return core::digit_of<U>(codec(k), ps.shift, ps.bits);
  }

  __device__ void process() {
    U varying = 0;
    if (!load(varying)) return write_sorted_input();
    int cur = 0;
    for (int p = 0; p < passes.count; ++p) {
      const core::pass ps{passes.shift[p], passes.bits[p]};
      if (core::pass_is_trivial<U>(varying, ps)) continue;
      rank(cur, ps);
      scan_counts();
      scatter(cur, ps);
      cur ^= 1;
    }
    store(cur);
  }

  /// The keys (origins, values) into buffer 0; the bits that vary among the
  /// keys in range, and whether any key is smaller than the one before it.
  __device__ __forceinline__ bool load(U& varying) const {
    const unsigned lane = lane_id();
    const U ref = codec(ld_nc(keys));
    U vary = 0;
    for (unsigned j = lane; j < n; j += 32) {
      const U k = ld_nc(keys + j);
      key_buf(0)[j] = k;
      vary |= U(codec(k) ^ ref);
      if constexpr (has_values) {
        origin_buf(0)[j] = index_t(j);
        if (mode == sort_mode::pairs) value_buf()[j] = ld_nc(values + j);
      }
    }
    __syncwarp();
    bool unsorted = false;
    for (unsigned j = lane + 1; j < n; j += 32)
      unsorted |= U(codec(key_buf(0)[j]) & range_mask) < U(codec(key_buf(0)[j - 1]) & range_mask);
    varying = U(warp_or(vary) & range_mask);
    return __any_sync(0xFFFFFFFFu, unsorted);
  }

  /// In order already: only argsort has something to write (the identity).
  __device__ __forceinline__ void write_sorted_input() const {
    if constexpr (has_values)
      if (mode == sort_mode::argsort)
        for (unsigned j = lane_id(); j < n; j += 32) {
          values[j] = index_value<V>(j);
          if (sorted_out) sorted_out[j] = key_buf(0)[j];
        }
  }

  /// Each key's rank among the equal digits before it; the counters end
  /// holding each digit's count.
  __device__ __forceinline__ void rank(int cur, const core::pass& ps) const {
    unsigned* hist = counters();
    for (unsigned i = lane_id(); i < radix_size; i += 32) hist[i] = 0;
    __syncwarp();
    const unsigned lt = lanemask_lt(), gt = ~(lt | (1u << lane_id()));
    const U* src = key_buf(cur);
    for (unsigned base = 0; base < n; base += 32) {  // warp-uniform: the ranking needs every lane
      const unsigned j = base + lane_id();
      const bool mine = j < n;
      const unsigned d = mine ? digit(src[j], ps) : ranker::no_digit;
      const unsigned r = ranker::template rank_one<true>(d, hist, lt, gt);
      if (mine) ranks()[j] = index_t(r);
    }
    __syncwarp();
  }

  /// Exclusive scan of the 256 counts in place: lane l holds digits 8l..8l+7.
  __device__ __forceinline__ void scan_counts() const {
    static_assert(radix_size == 256, "eight digits a lane");
    uint4* mine = reinterpret_cast<uint4*>(counters()) + 2 * lane_id();
    const uint4 a = mine[0], b = mine[1];
    const unsigned c[8] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w};
    unsigned sum = 0;
    for (int i = 0; i < 8; ++i) sum += c[i];
    unsigned incl = sum;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
      const unsigned up = __shfl_up_sync(0xFFFFFFFFu, incl, o);
      if (int(lane_id()) >= o) incl += up;
    }
    unsigned start[8];
    start[0] = incl - sum;
#pragma unroll
    for (int i = 1; i < 8; ++i) start[i] = start[i - 1] + c[i - 1];
    __syncwarp();  // every lane has read its counts
    mine[0] = make_uint4(start[0], start[1], start[2], start[3]);
    mine[1] = make_uint4(start[4], start[5], start[6], start[7]);
    __syncwarp();
  }

  /// Keys (and origins) from buffer cur to their digit-sorted places in the other.
  __device__ __forceinline__ void scatter(int cur, const core::pass& ps) const {
    const U* src = key_buf(cur);
    U* dst = key_buf(cur ^ 1);
    const unsigned* start = counters();
    for (unsigned j = lane_id(); j < n; j += 32) {
      const U k = src[j];
      const unsigned pos = start[digit(k, ps)] + ranks()[j];
      dst[pos] = k;
      if constexpr (has_values) origin_buf(cur ^ 1)[pos] = origin_buf(cur)[j];
    }
    __syncwarp();
  }

  /// The sorted keys home; pairs' values follow their origins, argsort
  /// writes the origins.
  __device__ __forceinline__ void store(int cur) const {
    const U* sorted = key_buf(cur);
    U* out = mode != sort_mode::argsort ? keys : sorted_out;
    for (unsigned j = lane_id(); j < n; j += 32) {
      if (out) out[j] = sorted[j];
      if constexpr (has_values) {
        const index_t o = origin_buf(cur)[j];
        values[j] = mode == sort_mode::argsort ? index_value<V>(o) : value_buf()[o];
      }
    }
    __syncwarp();  // the slice is free for the next segment
  }

  __device__ __forceinline__ static U warp_or(U x) {
    if constexpr (sizeof(U) == 8) {
      const unsigned lo = __reduce_or_sync(0xFFFFFFFFu, unsigned(x));
      const unsigned hi = __reduce_or_sync(0xFFFFFFFFu, unsigned(std::uint64_t(x) >> 32));
      return U((std::uint64_t(hi) << 32) | lo);
    } else {
      return U(__reduce_or_sync(0xFFFFFFFFu, unsigned(x)));
    }
  }
};

}  // namespace radix::cuda_detail
