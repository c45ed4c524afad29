// One Onesweep digit pass, one tile per block (the GPUOpen article on
// Onesweep with a circular look-back buffer, "Reorder in Onesweep"):
//
//   ticket   take the next tile index from an atomic counter, so every tile
//            before this one is already running or held by a block that is
//            finishing a lower one (the look-back cannot wait on a tile that
//            will not start). Blocks are persistent (a grid the GPU holds at
//            once): they take tickets until the pass is done, so a skipped
//            pass costs one short launch and no block-scheduling churn. One
//            helper lane waits until the tile's ring slot is free before it
//            publishes, and after the look-back reports the tile done with
//            the ring (the tail) and takes the next ticket
//   load     the tile's keys, 16-byte loads, warp-striped
//   rank     stable ranks within the tile (warp-level multi-split)
//   publish  the tile's digit counts to the ring (flag `aggregate`), then
//            scan them into each digit's start within the tile
//   stage    keys (and values) to shared memory in digit order
//   look     back over the predecessors for each digit's global start, then
//            publish the inclusive prefix
//   scatter  from shared memory: consecutive threads write consecutive
//            addresses of a digit's run (coalesced), values in the same loop
//
// The pass is skipped (the block returns at once) when the histogram kernel
// planned it away: sorted input, or a digit that is the same for every key.
// Narrow keys (control::narrow, planned by the histogram kernel): when every
// key has the same high half, the passes between the first and the last that
// run store only the low halves (narrow_key_t) and the next pass puts the
// high half back as it loads them, so such a pass moves 6 bytes a 32-bit key
// instead of 8 (u32 keys with 16 random bits: two passes, 4+2 and 2+4 bytes).
//
// EarlyCounts = true (CUB's "early counts"): the tile's digits are counted
// with shared atomics and published and scanned before the ranking, which
// then yields positions in the sorted tile directly, so each key is staged as
// soon as it is ranked and no rank is kept in a register. It costs an atomic
// a key; the registers it saves let 32-bit keys run three blocks per SM. The
// default for 32- and 64-bit keys (sm90_policy); 8- and 16-bit keys rank first.
// PrefetchValues (early counts only): the tile's values are loaded to
// registers with its keys, so their latency passes while the keys are counted.
// LateValues (early counts, no prefetch, values no wider than keys; CUB's
// order): the keys are staged and scattered first, then the values are
// loaded, staged through the keys' shared buffer at the keys' positions (kept
// in registers, two 16-bit ones a register) and scattered. It halves the
// staging memory, which buys longer tiles at two blocks per SM: the sm_90
// default for 4-byte values (u32/u32 pairs 384 x 36: 7 % faster than 512 x 20
// with prefetched values, and 4 % more with the digits kept in registers
// instead of staged; H100: bench/results/cuda-h100-2026-11-23-d.md). Three
// blocks of shorter tiles lost (bench/results/cuda-h100-2026-11-23-b.md).
#pragma once
#include <type_traits>

#include "../block/block_load.cuh"
#include "../block/block_rank.cuh"
#include "../common/common.cuh"
#include "lookback_ring.cuh"
#include "../common/policy.hpp"
#include "params.cuh"
#include "radix/core/pass_plan.hpp"

namespace radix::cuda_detail {

/// Shape: a type whose `value` is the scatter_shape (policy.hpp); Linear:
/// integer keys (process()).
template <class U, class V, class Shape, bool Linear = false>
struct scatter_agent {
  static constexpr scatter_shape S = Shape::value;
  static constexpr int Threads = S.threads, Items = S.items, LookbackBatch = S.lookback_batch;
  static constexpr bool EarlyCounts = S.early_counts, PrefetchValues = S.prefetch_values,
                        DirectLoad = S.direct_load, StageDigits = S.stage_digits, LateValues = S.late_values;
  static_assert(!PrefetchValues || EarlyCounts, "values are prefetched only for the early counts' staging");
  static_assert(!LateValues || (EarlyCounts && !PrefetchValues && sizeof(V) <= sizeof(U)),
                "late values: early counts, no prefetch, values staged in the keys' buffer");
  static constexpr bool has_values = !std::is_same_v<V, no_value>;
  static constexpr int tile = Threads * Items;
  static constexpr int warp_tile = 32 * Items;
  using rank_t = block_rank<Threads, Items>;
  using load_t = warp_load<U, Items>;
  /// Narrow passes: keys only (pairs keep their kernels: their registers are
  /// tight, and keys of a small range with values are the rarer case).
  static constexpr bool can_narrow = !std::is_void_v<narrow_key_t<U>> && std::is_same_v<V, no_value>;
  using N = std::conditional_t<can_narrow, narrow_key_t<U>, U>;  ///< half-width keys (narrow passes)

  struct narrow_state {
    bool src, dst;  ///< this pass reads / writes half-width keys
    U high;         ///< the high half every key shares
  };
  struct no_narrow_state {};
  struct storage {
    typename rank_t::storage rank;
    long long shift[radix_size];  ///< global position - tile position, per digit
    int shift32[radix_size];      ///< the same when n < 2^31 (one bank access instead of two)
    unsigned seq[2];  ///< this tile's and the next tile's ticket (by iteration parity)
    /// Narrow passes, in shared memory, not registers, which the ranking
    /// needs (they spilled); nothing where keys are never narrow.
    [[no_unique_address]] std::conditional_t<can_narrow, narrow_state, no_narrow_state> narrow;
  };
  /// Dynamic shared memory: storage, then tile keys, then tile values, then
  /// (StageDigits) each staged key's digit (one byte: the scatter reads it
  /// instead of transforming the key again; without it the scatter recomputes
  /// the digit, trading a shared store and load a key for a few ALU ops, and
  /// with late values the keys' scatter keeps the digits in registers for the
  /// values' scatter: dig4).
  /// Each buffer starts on a 128-byte boundary (one shared-memory wavefront):
  /// the tile 64 bytes off it sorted u32 keys 2 % and u64 keys 2.5 % slower,
  /// 16 bytes off a 32-byte boundary u64 keys 4.5 % (H100:
  /// bench/results/cuda-h100-2026-11-23-c.md and -d.md).
  static constexpr std::size_t smem_align = 128;
  static constexpr std::size_t align_up(std::size_t x) { return (x + smem_align - 1) / smem_align * smem_align; }
  static constexpr std::size_t keys_offset = align_up(sizeof(storage));
  static constexpr std::size_t values_offset = keys_offset + align_up(sizeof(U) * tile);
  static constexpr bool late = LateValues && has_values;
  static constexpr std::size_t digits_offset = align_up(values_offset + (has_values && !late ? sizeof(V) * tile : 0));
  static constexpr std::size_t smem_bytes = digits_offset + (StageDigits ? tile : 0);

  const onesweep_params<U, V> p;  ///< a copy: a reference to a kernel parameter would live in local memory
  int pass;  ///< index into the pass list
  int shift_bits, digit_bits, bin_offset;
  unsigned char* smem;
  unsigned known_tail = 0;  ///< thread 0: the ring's tail as last seen (ring::wait_for_slot)

  __device__ __forceinline__ storage& st() const { return *reinterpret_cast<storage*>(smem); }
  __device__ __forceinline__ U* tile_keys() const { return reinterpret_cast<U*>(smem + keys_offset); }
  /// Late values: the keys' buffer, once the keys are out.
  __device__ __forceinline__ V* tile_values() const {
    return reinterpret_cast<V*>(smem + (late ? keys_offset : values_offset));
  }
  __device__ __forceinline__ unsigned char* tile_digits() const { return smem + digits_offset; }
  /// This pass reads / writes half-width keys; the high half they lack.
  __device__ __forceinline__ bool narrow_src() const {
    if constexpr (can_narrow) return st().narrow.src;
    else return false;
  }
  __device__ __forceinline__ bool narrow_dst() const {
    if constexpr (can_narrow) return st().narrow.dst;
    else return false;
  }
  __device__ __forceinline__ U narrow_high() const {
    if constexpr (can_narrow) return st().narrow.high;
    else return U(0);
  }
  /// F: the form of the ordered-bits transform (core::key_form), a template
  /// argument (the kernel branches once, uniformly) so that integer keys pay
  /// one XOR a digit, which commutes with the shift and mask (two
  /// instructions in all), and floats pay the canonicalisation only when some
  /// key needs it. The ranking computes digits twice a key.
  template <core::key_form F>
  __device__ __forceinline__ unsigned digit(U key) const {
    if constexpr (F == core::key_form::linear)
      return core::digit_of<U>(key, shift_bits, digit_bits) ^
             core::digit_of<U>(p.codec.linear_xor(), shift_bits, digit_bits);
    else
      return core::digit_of<U>(core::ordered_as<F>(p.codec, key), shift_bits, digit_bits);
  }

  /// Persistent: the block takes tiles by ticket until the pass is done. The
  /// next tile's ticket is taken while the current one scatters (s.seq is
  /// double-buffered by iteration parity), so no warp waits on the atomic.
  __device__ void process() {
    // Linear: the host launched this kernel for integer keys. A kernel that
    // inlines all three forms spills (one form at a time fits the registers).
    if constexpr (Linear) run<core::key_form::linear>();
    // without NaNs and -0 (the histogram kernel looked) canonical == biased
    else if (p.codec.canon && p.ctl->canon_used) run<core::key_form::canonical>();
    else run<core::key_form::biased>();
  }

  /// The thread that keeps the books: takes tickets, reports tiles done
  /// with the ring (the tail) and waits for ring slots. Lane 0 of the last
  /// warp: with more than 256 threads, a warp that has no digit to look back
  /// for, which waits for its slot while the others rank.
  static constexpr unsigned helper = Threads - 32;

  template <core::key_form Form>
  __device__ void run() {
    control* ctl = p.ctl;
    const int e = ctl->pass_eff[pass];  // written by an earlier kernel
    if (e < 0) return;
    const int k = ctl->eff_passes;
    const auto buf = pass_buffers<U, V>::pick(p, e, k);
    const unsigned first_seq = unsigned(e) * p.num_tiles;
    storage& s = st();
    if (threadIdx.x == helper) {
      s.seq[0] = atomicAdd(&ctl->ticket[e], 1u);
      if constexpr (can_narrow) {
        const bool narrow = ctl->narrow;
        s.narrow.src = narrow && e > 0;
        s.narrow.dst = narrow && e < k - 1;
        s.narrow.high = narrow ? U(ctl->narrow_high) : U(0);
      }
    }
    for (unsigned it = 0;; ++it) {
      // __syncthreads() is an *aligned* barrier: a warp must reach it
      // converged, or the hardware may count the whole warp as arrived while
      // a lane still spins. Reconverge after every divergent spin.
      __syncwarp();
      __syncthreads();  // also ends the previous tile's use of shared memory
      const unsigned tile_idx = s.seq[it & 1];
      if (tile_idx >= p.num_tiles) return;
      // a copy of the tile's code for passes that read half-width keys, so
      // that the other passes run the code they ran before (registers)
      if (narrow_src())
        process_tile<Form, can_narrow>(buf, first_seq + tile_idx, tile_idx, e, s.seq[(it + 1) & 1]);
      else
        process_tile<Form, false>(buf, first_seq + tile_idx, tile_idx, e, s.seq[(it + 1) & 1]);
    }
  }

  /// NarrowSrc: this pass reads half-width keys (narrow_key_t).
  template <core::key_form Form, bool NarrowSrc>
  __device__ __forceinline__ void process_tile(const pass_buffers<U, V>& buf, unsigned seq, unsigned tile_idx, int e,
                                               unsigned& next_ticket) {
    storage& s = st();
    control* ctl = p.ctl;
    const int digits = 1 << digit_bits;
    rank_t::clear(s.rank, digits);
    const std::uint64_t base = std::uint64_t(tile_idx) * tile;
    const int valid = p.n - base < std::uint64_t(tile) ? int(p.n - base) : tile;

    // load
    const unsigned warp = threadIdx.x / 32, lane = lane_id();
    const int warp_base = int(warp) * warp_tile;
    U keys[Items];
    auto load_keys = [&] {
      if constexpr (DirectLoad) load_t::striped_direct(buf.ksrc + base + warp_base, valid - warp_base, keys, U(0));
      else load_t::striped(buf.ksrc + base + warp_base, valid - warp_base, keys, tile_keys() + warp_base, U(0));
    };
    if constexpr (NarrowSrc) {
      // the low halves; the high half every key shares is put back
      load_t::striped_widen(reinterpret_cast<const N*>(buf.ksrc) + base + warp_base, valid - warp_base, keys,
                            tile_keys() + warp_base, narrow_high(), U(0));
    } else {
      load_keys();
    }
    // PrefetchValues: the values' loads are in flight while the keys are
    // counted, instead of one exposed load per key when it is staged
    constexpr bool prefetch = PrefetchValues && has_values;
    V vals[prefetch ? Items : 1];
    if constexpr (prefetch) load_values_striped(buf.vsrc, base, warp_base, valid, vals);
    __syncthreads();  // counters cleared

    unsigned long long* my_slot = ring::slot(p.ring, seq, p.ring_cfg);
    const unsigned d = threadIdx.x;
    // publish the tile's counts (tile 0 knows its prefix: the digit's global start)
    auto publish = [&](unsigned c) {
      if (tile_idx == 0)
        ring::publish(my_slot, seq, d, ring::flag_prefix, ctl->offsets[bin_offset + d] + c, p.ring_cfg);
      else
        ring::publish(my_slot, seq, d, ring::flag_aggregate, c, p.ring_cfg);
    };
    // Registers are what limits the tile here: keys stay in registers, two
    // 16-bit ranks share one, and digits are recomputed from the keys where
    // needed (a shift and a mask) instead of being kept.
    unsigned* hist = rank_t::warp_counters(s.rank);
    auto item_valid = [&](int i) { return warp_base + i * 32 + int(lane) < valid; };
    unsigned count = 0;
    if constexpr (EarlyCounts) {
      // CUB's "early counts": count (shared atomics), publish and scan before
      // ranking; the ranks are then positions in the digit-sorted tile.
      if (valid < tile) {
#pragma unroll
        for (int i = 0; i < Items; ++i)
          if (item_valid(i)) atomicAdd(hist + digit<Form>(keys[i]), 1u);
      } else {
#pragma unroll
        for (int i = 0; i < Items; ++i) atomicAdd(hist + digit<Form>(keys[i]), 1u);
      }
      if (threadIdx.x == helper) ring::wait_for_slot(ctl, seq, p.ring_cfg, known_tail);  // before publishing
      __syncwarp();
      __syncthreads();
      count = rank_t::scan_digits(s.rank, digits, publish);  // ends with a barrier: every warp has read its keys
    }
    // stage one key (and its value) at its place in the digit-sorted tile;
    // late values: keep the place for the value
    unsigned pos2[late ? (Items + 1) / 2 : 1] = {};
    auto stage_one = [&](int i, unsigned dg, unsigned pos) {
      tile_keys()[pos] = keys[i];
      if constexpr (StageDigits) tile_digits()[pos] = static_cast<unsigned char>(dg);
      if constexpr (late) {
        pos2[i / 2] = (i & 1) ? (pos2[i / 2] | (pos << 16)) : pos;
      } else if constexpr (prefetch) {
        tile_values()[pos] = vals[i];
      } else if constexpr (has_values) {
        tile_values()[pos] = source_value(buf.vsrc, base + warp_base + i * 32 + lane);
      }
    };
    const unsigned lt = lanemask_lt();
    const unsigned gt = ~(lt | (1u << lane));
    if constexpr (EarlyCounts) {
      // rank and stage at once: with the warp prefixes already scanned, a
      // rank is the key's place in the sorted tile, so no rank is kept (the
      // registers this frees are what lets three blocks share an SM)
      if (valid < tile) {
#pragma unroll
        for (int i = 0; i < Items; ++i) {
          const bool ok = item_valid(i);
          const unsigned dg = ok ? digit<Form>(keys[i]) : rank_t::no_digit;
          const unsigned r = rank_t::template rank_one<true>(dg, hist, lt, gt);
          if (ok) stage_one(i, dg, r);
        }
      } else {
#pragma unroll
        for (int i = 0; i < Items; ++i) {
          const unsigned dg = digit<Form>(keys[i]);
          stage_one(i, dg, rank_t::template rank_one<false>(dg, hist, lt, gt));
        }
      }
    } else {
      // rank: stable ranks within the warp, two 16-bit ranks a register
      constexpr int pairs = (Items + 1) / 2;
      unsigned rank2[pairs];
      if (valid < tile) {
#pragma unroll
        for (int i = 0; i < Items; ++i) {
          const unsigned r = rank_t::template rank_one<true>(item_valid(i) ? digit<Form>(keys[i]) : rank_t::no_digit,
                                                             hist, lt, gt);
          rank2[i / 2] = (i & 1) ? (rank2[i / 2] | (r << 16)) : (r & 0xFFFFu);
        }
      } else {
#pragma unroll
        for (int i = 0; i < Items; ++i) {
          const unsigned r = rank_t::template rank_one<false>(digit<Form>(keys[i]), hist, lt, gt);
          rank2[i / 2] = (i & 1) ? (rank2[i / 2] | (r << 16)) : r;
        }
      }
      if (threadIdx.x == helper) ring::wait_for_slot(ctl, seq, p.ring_cfg, known_tail);  // before publishing
      __syncwarp();
      __syncthreads();
      count = rank_t::scan_digits(s.rank, digits, publish);
      // stage keys and values in digit order (full tiles: no per-item check)
      auto stage_items = [&](auto full) {
#pragma unroll
        for (int i = 0; i < Items; ++i) {
          if (decltype(full)::value || item_valid(i)) {
            const unsigned dg = digit<Form>(keys[i]);
            const unsigned r = (i & 1) ? rank2[i / 2] >> 16 : rank2[i / 2] & 0xFFFFu;
            stage_one(i, dg, rank_t::local_position(s.rank, dg, r));
          }
        }
      };
      if (valid == tile) stage_items(std::true_type{});
      else stage_items(std::false_type{});
    }

    // look back
    if (int(d) < digits) {
      unsigned long long start;
      if (tile_idx == 0) {
        start = ctl->offsets[bin_offset + d];
      } else {
        start = ring::look_back<LookbackBatch>(p.ring, seq, tile_idx, d, p.ring_cfg);
        ring::publish(my_slot, seq, d, ring::flag_prefix, start + count, p.ring_cfg);
      }
      s.shift[d] = static_cast<long long>(start) - static_cast<long long>(s.rank.digit_start[d]);
      s.shift32[d] = static_cast<int>(s.shift[d]);
    }
    __syncwarp();  // reconverge the look-back's spinning lanes before the barrier
    __syncthreads();
    // The helper takes the next ticket now, not earlier: a ticket taken long
    // before its tile starts keeps the tiles after it waiting for its counts
    // (taken during the look-back, it cost 20 %). The round trip hides
    // behind the scatter: the result is stored after it. Then the block is
    // done with the ring (its reads and writes happened before the barrier).
    unsigned ticket = 0;
    if (threadIdx.x == helper) {
      ticket = atomicAdd(&ctl->ticket[e], 1u);
      ring::advance_tail(ctl, seq, p.ring_cfg);
    }

    // scatter (full tiles without a bounds check per item)
    unsigned dig4[dig_words] = {};  // late values, digits not staged: the keys' scatter keeps them here
    auto scatter_as = [&](auto what, auto narrow) {
      constexpr int W = decltype(what)::value;
      constexpr bool Nw = decltype(narrow)::value;
      if (p.n < (std::uint64_t(1) << 31)) {
        if (valid == tile) scatter<Form, true, true, W, Nw>(buf, valid, dig4);
        else scatter<Form, true, false, W, Nw>(buf, valid, dig4);
      } else {
        scatter<Form, false, false, W, Nw>(buf, valid, dig4);
      }
    };
    auto scatter_all = [&](auto what) {
      if (can_narrow && (decltype(what)::value & scatter_keys) && narrow_dst())
        scatter_as(what, std::integral_constant<bool, can_narrow>{});
      else
        scatter_as(what, std::false_type{});
    };
    if constexpr (late) {
      scatter_all(std::integral_constant<int, scatter_keys>{});
      V vals_late[Items];
      load_values_striped(buf.vsrc, base, warp_base, valid, vals_late);
      __syncthreads();  // every key is out of the shared buffer
#pragma unroll
      for (int i = 0; i < Items; ++i)
        if (item_valid(i)) tile_values()[(i & 1) ? pos2[i / 2] >> 16 : pos2[i / 2] & 0xFFFFu] = vals_late[i];
      __syncthreads();
      scatter_all(std::integral_constant<int, scatter_values>{});
    } else {
      scatter_all(std::integral_constant<int, scatter_keys | scatter_values>{});
    }
    if (threadIdx.x == helper) next_ticket = ticket;
  }

  static constexpr int scatter_keys = 1, scatter_values = 2;
  /// Late values without staged digits: the keys' scatter computes each key's
  /// digit and keeps it, four to a register, for the values' scatter.
  static constexpr bool digits_in_registers = late && !StageDigits;
  static constexpr int dig_words = digits_in_registers ? (Items + 3) / 4 : 1;
  /// What: scatter_keys and/or scatter_values (late values: keys first, then
  /// values, each staged in the same buffer; a value's digit is the staged one,
  /// or the one the keys' scatter left in dig4).
  /// Narrow: the keys' low halves are written (narrow_key_t).
  template <core::key_form Form, bool Small, bool Full, int What, bool Narrow>
  __device__ __forceinline__ void scatter(const pass_buffers<U, V>& buf, int valid, unsigned (&dig4)[dig_words]) {
    static_assert(StageDigits || digits_in_registers || (What & scatter_keys), "values alone need the keys' digits");
    storage& s = st();
#pragma unroll
    for (int i = 0; i < Items; ++i) {
      const int j = i * Threads + int(threadIdx.x);
      if (Full || j < valid) {
        U key{};
        if constexpr (What & scatter_keys) key = tile_keys()[j];
        unsigned dg;
        if constexpr (StageDigits) {
          dg = unsigned(tile_digits()[j]);
        } else if constexpr (What & scatter_keys) {
          dg = digit<Form>(key);
          if constexpr (digits_in_registers) dig4[i / 4] |= dg << (8 * (i % 4));
        } else {
          dg = (dig4[i / 4] >> (8 * (i % 4))) & 0xFFu;
        }
        const std::uint64_t dst = Small ? static_cast<std::uint64_t>(static_cast<unsigned>(s.shift32[dg] + j))
                                        : static_cast<std::uint64_t>(s.shift[dg] + j);
        if constexpr ((What & scatter_keys) && Narrow) reinterpret_cast<N*>(buf.kdst)[dst] = N(key);
        else if constexpr (What & scatter_keys)
          if (buf.kdst) buf.kdst[dst] = key;
        if constexpr (has_values && (What & scatter_values)) buf.vdst[dst] = tile_values()[j];
      }
    }
  }
};

}  // namespace radix::cuda_detail
