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
//   whole    (early counts) a tile whose keys all have one digit skips the
//            ranking and staging: after the look-back it goes out in input
//            order, a straight copy to the digit's place (write_whole_tile)
//
// The pass is skipped (the block returns at once) when the histogram kernel
// planned it away: sorted input, or a digit that is the same for every key.
// Narrow keys (control::narrow, planned by the histogram kernel): when every
// key has the same high half, the passes between the first and the last that
// run store only the low halves (narrow_key_t) and the next pass puts the
// high half back as it loads them, so such a pass moves 6 bytes a 32-bit key
// instead of 8 (u32 keys with 16 random bits: two passes, 4+2 and 2+4 bytes).
//
// rank_order::count_then_rank (CUB's "early counts"): the tile's digits are counted
// with shared atomics and published and scanned before the ranking, which
// then yields positions in the sorted tile directly, so each key is staged as
// soon as it is ranked and no rank is kept in a register. It costs an atomic
// a key; the registers it saves let 32-bit keys run three blocks per SM. The
// default for 32- and 64-bit keys (sm90_policy); 8- and 16-bit keys rank first.
// value_staging::prefetched (early counts only): the tile's values are loaded to
// registers with its keys, so their latency passes while the keys are counted.
// value_staging::late (early counts; CUB's order): the keys are staged
// and scattered first, then the values are loaded, staged through the keys'
// shared buffer (as wide as the wider of the two) at the keys' positions
// (kept in registers, two 16-bit ones a register) and scattered. It halves the
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

/// The forms of the ordered-bits transform (core::key_form) a scatter kernel
/// holds, each a copy of the tile code. A kernel that inlines all three
/// spills (one form at a time fits the registers).
enum class scatter_forms : std::uint8_t {
  linear,  ///< integer keys: one XOR
  floats,  ///< biased and canonical, picked per pass from the histogram's finding (control::canon_used)
  /// One float form alone, picked on the host from the codec: the segmented
  /// sweep's tiles, whose kernel holding both forms spilled at its 80
  /// registers (bench/results/segments-h100-2026-11-27-sweep.md).
  canonical,  ///< floats whose codec canonicalises (numeric order)
  biased,     ///< floats whose codec does not (IEEE total order)
  /// Integer keys alone whose input has keys elsewhere (key_inset), read
  /// there by the first pass that runs: a kernel of its own, so that every
  /// other sort's stays as it was.
  linear_inset,
};

/// Where a tile of a pass lies, as a tile source (below) finds it.
struct tile_place {
  std::uint64_t base;  ///< its first key
  int valid;           ///< its keys
  unsigned index;      ///< its number in its array (tile 0 knows its digits' starts; the look-back stops there)
};

/// Tile source of a plain sort: one array, tile i at i x Tile, the global
/// digit starts from the histogram kernel. (The segmented sort has another,
/// segments/sweep.cuh: many arrays, each with its own starts, and argsort
/// indices that count from each array's first key: local_indices.)
struct whole_input_tiles {
  static constexpr bool local_indices = false;
  template <class P>
  __device__ __forceinline__ unsigned count(const P& p) const { return p.num_tiles; }
  template <int Tile, class P>
  __device__ __forceinline__ tile_place locate(const P& p, unsigned i) const {
    const std::uint64_t base = std::uint64_t(i) * Tile;
    return {base, p.n - base < std::uint64_t(Tile) ? int(p.n - base) : Tile, i};
  }
  /// Digit `bin`'s start for tile `ticket` of the pass, a first tile (index 0).
  template <class P>
  __device__ __forceinline__ unsigned long long digit_start(const P& p, unsigned, int bin) const {
    return p.ctl->offsets[bin];
  }
};

/// Shape: a type whose `value` is the scatter_shape (policy.hpp); Forms:
/// the tile code it holds (process()); Tiles: where the tiles lie
/// (whole_input_tiles, or the segmented sort's).
template <class U, class V, class Shape, scatter_forms Forms = scatter_forms::floats, class Tiles = whole_input_tiles>
struct scatter_agent {
  static constexpr scatter_shape S = Shape::value;
  static constexpr int Threads = S.threads, Items = S.items, LookbackBatch = S.lookback_batch;
  static constexpr bool EarlyCounts = S.ranking == rank_order::count_then_rank;
  static constexpr bool StageDigits = S.digits == digit_source::staged;
  static_assert(S.values == value_staging::with_keys || EarlyCounts,
                "prefetched and late values are staged by the early counts' ranking");
  static constexpr bool has_values = !std::is_same_v<V, no_value>;
  static constexpr int tile = Threads * Items;
  static constexpr int warp_tile = 32 * Items;
  using rank_t = block_rank<Threads, Items>;
  using load_t = warp_load<U, Items>;
  /// Narrow passes: keys only (pairs keep their kernels: their registers are
  /// tight, and keys of a small range with values are the rarer case).
  static constexpr bool can_narrow = !std::is_void_v<narrow_key_t<U>> && std::is_same_v<V, no_value>;
  using N = std::conditional_t<can_narrow, narrow_key_t<U>, U>;  ///< half-width keys (narrow passes)
  /// An argsort carrying 4-byte indices may write them 8 bytes wide in its
  /// last pass (onesweep_params::wide_values): no widening pass after it.
  static constexpr bool can_widen = std::is_same_v<V, std::uint32_t>;

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
    /// Early counts: the digit every key of the tile has, else rank_t::no_digit
    /// (set by the digit's thread as the counts are published).
    unsigned whole_digit;
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
  static constexpr bool late = S.values == value_staging::late && has_values;
  static constexpr bool prefetch = S.values == value_staging::prefetched && has_values;
  /// Late values wider than the keys widen the keys' buffer instead.
  static constexpr std::size_t staged_bytes = late && sizeof(V) > sizeof(U) ? sizeof(V) : sizeof(U);
  static constexpr std::size_t keys_offset = align_up(sizeof(storage));
  static constexpr std::size_t values_offset = keys_offset + align_up(staged_bytes * tile);
  static constexpr std::size_t digits_offset = align_up(values_offset + (has_values && !late ? sizeof(V) * tile : 0));
  static constexpr std::size_t smem_bytes = digits_offset + (StageDigits ? tile : 0);

  const onesweep_params<U, V> p;  ///< a copy: a reference to a kernel parameter would live in local memory
  int pass;  ///< index into the pass list
  int shift_bits, digit_bits, bin_offset;
  unsigned char* smem;
  unsigned known_tail = 0;  ///< thread 0: the ring's tail as last seen (ring::wait_for_slot)
  Tiles tiles{};

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
    using core::key_form;
    if constexpr (Forms == scatter_forms::linear || Forms == scatter_forms::linear_inset) {
      run<key_form::linear>();
    } else if constexpr (Forms == scatter_forms::canonical) {
      run<key_form::canonical>();
    } else if constexpr (Forms == scatter_forms::biased) {
      run<key_form::biased>();
    } else {
      // without NaNs and -0 (the histogram kernel looked) canonical == biased
      const bool canonical = p.codec.canon && p.ctl->canon_used;
      if (canonical) run<key_form::canonical>();
      else run<key_form::biased>();
    }
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
    const auto buf = pass_buffers<U, V>::pick(p, e, k, has_values && ctl->msd);
    const unsigned num_tiles = tiles.count(p);
    const unsigned first_seq = unsigned(e) * num_tiles;
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
      if (tile_idx >= num_tiles) return;
      // a copy of the tile's code for passes that read half-width keys, so
      // that the other passes run the code they ran before (registers)
      if (narrow_src())
        process_tile<Form, can_narrow>(buf, first_seq + tile_idx, tile_idx, e, s.seq[(it + 1) & 1]);
      else
        process_tile<Form, false>(buf, first_seq + tile_idx, tile_idx, e, s.seq[(it + 1) & 1]);
    }
  }

  static constexpr int scatter_keys = 1, scatter_values = 2;
  /// Late values without staged digits: the keys' scatter computes each key's
  /// digit and keeps it, four to a register, for the values' scatter.
  static constexpr bool digits_in_registers = late && !StageDigits;
  static constexpr int dig_words = digits_in_registers ? (Items + 3) / 4 : 1;
  /// Where a tile lies and which part of it this thread's warp holds.
  struct tile_span {
    unsigned seq;         ///< the tile's number in the whole sort (its ring slot)
    unsigned index;       ///< the tile's number in its array (tile_place::index)
    unsigned ticket;      ///< its number in this pass
    std::uint64_t base;   ///< its first key
    int valid;            ///< its keys (tile, but for the last)
    int warp_base;        ///< the warp's first key in the tile
    __device__ __forceinline__ bool full() const { return valid == tile; }
    /// Written as warp_base + i * 32 + lane < valid, the items' positions were loop invariants that the
    /// compiler kept across tiles, and spilled in the 32-bit float kernel of keys alone.
    __device__ __forceinline__ bool item_valid(int i) const { return i * 32 < valid - warp_base - int(lane_id()); }
  };

  /// What a thread holds of its tile, in registers.
  struct tile_regs {
    U keys[Items];
    V vals[prefetch ? Items : 1];              ///< prefetched values
    unsigned pos2[late ? (Items + 1) / 2 : 1] = {};  ///< late values: the keys' staged places, two 16-bit ones a register
  };

  /// One tile: the story of the pass. NarrowSrc: the pass reads half-width
  /// keys (narrow_key_t).
  template <core::key_form Form, bool NarrowSrc>
  __device__ __forceinline__ void process_tile(const pass_buffers<U, V>& buf, unsigned seq, unsigned tile_idx, int e,
                                               unsigned& next_ticket) {
    begin_tile();
    const tile_span t = span_of(seq, tile_idx);
    tile_regs r;
    load_keys<NarrowSrc>(buf, t, r, e);
    if constexpr (prefetch) load_values_striped(buf.vsrc, value_base(buf, t), t.warp_base, t.valid, r.vals);
    __syncthreads();  // counters cleared
    const unsigned count = rank_and_stage<Form>(buf, t, r);  // publishes the tile's counts on the way
    look_back(t, count);
    const unsigned ticket = next_ticket_and_release(e, seq);
    if (!whole_tile()) scatter_tile<Form>(buf, t, r);
    else if (t.full()) write_whole_tile<true>(buf, t);
    else write_whole_tile<false>(buf, t);
    if (threadIdx.x == helper) next_ticket = ticket;
  }

  /// Counters zeroed (and, with the early counts, no whole digit yet); the
  /// caller's barrier follows.
  __device__ __forceinline__ void begin_tile() {
    rank_t::clear(st().rank, 1 << digit_bits);
    if constexpr (EarlyCounts)
      if (threadIdx.x == 0) st().whole_digit = rank_t::no_digit;
  }

  /// Every key of the tile has the same digit (the early counts found one
  /// digit counting them all): the tile goes out as it came in, so ranking and
  /// staging are skipped; the look-back still runs. Common after the first
  /// pass over inputs with few distinct keys, or long runs of equal ones
  /// (CUB's onesweep agent calls it a short circuit).
  __device__ __forceinline__ bool whole_tile() const {
    if constexpr (EarlyCounts) return st().whole_digit != rank_t::no_digit;
    else return false;
  }

  __device__ __forceinline__ tile_span span_of(unsigned seq, unsigned tile_idx) const {
    const tile_place at = tiles.template locate<tile>(p, tile_idx);
    tile_span t;
    t.seq = seq;
    t.index = at.index;
    t.ticket = tile_idx;
    t.base = at.base;
    t.valid = at.valid;
    t.warp_base = int(threadIdx.x / 32) * warp_tile;
    return t;
  }

  /// Where the tile's values start in their source, or (argsort, no source)
  /// the index of its first key in its array.
  __device__ __forceinline__ static std::uint64_t value_base(const pass_buffers<U, V>& buf, const tile_span& t) {
    return buf.vsrc ? t.base : index_base(t);
  }
  __device__ __forceinline__ static std::uint64_t index_base(const tile_span& t) {
    if constexpr (Tiles::local_indices) return std::uint64_t(t.index) * tile;
    else return t.base;
  }

  /// Load: the warp's keys, warp-striped, through shared memory (cp.async).
  /// The first pass that runs (e = 0) reads the input, some of whose keys
  /// may lie elsewhere (key_inset, scatter_forms::linear_inset; its ends
  /// fall between warps' keys, onesweep_run sees to it).
  template <bool NarrowSrc>
  __device__ __forceinline__ void load_keys(const pass_buffers<U, V>& buf, const tile_span& t, tile_regs& r, int e) {
    if constexpr (NarrowSrc) {
      // the low halves; the high half every key shares is put back
      load_t::striped_widen(reinterpret_cast<const N*>(buf.ksrc) + t.base + t.warp_base, t.valid - t.warp_base, r.keys,
                            tile_keys() + t.warp_base, narrow_high(), U(0));
    } else {
      const std::uint64_t first = t.base + t.warp_base;
      const U* src = buf.ksrc + first;
      if constexpr (Forms == scatter_forms::linear_inset)
        if (e == 0 && first >= p.inset.begin && first < p.inset.end) src = p.inset.keys + (first - p.inset.begin);
      load_t::striped(src, t.valid - t.warp_base, r.keys, tile_keys() + t.warp_base, U(0));
    }
  }

  /// Publish one digit's count to the ring: tile 0 knows its prefix (the
  /// digit's global start), the others their aggregate.
  __device__ __forceinline__ void publish(const tile_span& t, unsigned d, unsigned c) const {
    unsigned long long* slot = ring::slot(p.ring, t.seq, p.ring_cfg);
    if (t.index == 0)
      ring::publish(slot, t.seq, d, ring::flag_prefix, tiles.digit_start(p, t.ticket, bin_offset + d) + c, p.ring_cfg);
    else
      ring::publish(slot, t.seq, d, ring::flag_aggregate, c, p.ring_cfg);
  }

  /// Before the first publish: the helper waits until the tile's ring slot is free.
  __device__ __forceinline__ void wait_for_ring_slot(const tile_span& t) {
    if (threadIdx.x == helper) ring::wait_for_slot(p.ctl, t.seq, p.ring_cfg, known_tail);
    __syncwarp();
    __syncthreads();
  }

  /// Rank: stable places of the keys in the digit-sorted tile; the tile's
  /// counts are published (and scanned into digit starts) on the way; keys
  /// (and values) are staged in shared memory at their places. Returns this
  /// thread's digit's count (threads past the digits: 0).
  template <core::key_form Form>
  __device__ __forceinline__ unsigned rank_and_stage(const pass_buffers<U, V>& buf, const tile_span& t, tile_regs& r) {
    if constexpr (EarlyCounts) return count_then_rank<Form>(buf, t, r);
    else return rank_then_count<Form>(buf, t, r);
  }

  /// CUB's "early counts": count (shared atomics), publish and scan before
  /// ranking; a rank is then the key's place in the sorted tile, so no rank is
  /// kept (the registers this frees let three blocks share an SM).
  template <core::key_form Form>
  __device__ __forceinline__ unsigned count_then_rank(const pass_buffers<U, V>& buf, const tile_span& t, tile_regs& r) {
    storage& s = st();
    unsigned* hist = rank_t::warp_counters(s.rank);
    if (t.full()) {
#pragma unroll
      for (int i = 0; i < Items; ++i) atomicAdd(hist + digit<Form>(r.keys[i]), 1u);
    } else {
#pragma unroll
      for (int i = 0; i < Items; ++i)
        if (t.item_valid(i)) atomicAdd(hist + digit<Form>(r.keys[i]), 1u);
    }
    wait_for_ring_slot(t);
    // ends with a barrier: every warp has read its counters, and whole_digit is set
    const unsigned count = rank_t::scan_digits(s.rank, 1 << digit_bits, [&](unsigned c) {
      publish(t, threadIdx.x, c);
      if (c == unsigned(t.valid) && p.whole_tiles) s.whole_digit = threadIdx.x;
    });
    if (whole_tile()) {  // nothing to rank: write_whole_tile
      keep_in_input_order(t, r);
      return count;
    }
    const unsigned lt = lanemask_lt(), gt = ~(lt | (1u << lane_id()));
    if (t.full()) {
#pragma unroll
      for (int i = 0; i < Items; ++i) {
        const unsigned dg = digit<Form>(r.keys[i]);
        stage(buf, t, r, i, dg, rank_t::template rank_one<false>(dg, hist, lt, gt));
      }
    } else {
#pragma unroll
      for (int i = 0; i < Items; ++i) {
        const bool ok = t.item_valid(i);
        const unsigned dg = ok ? digit<Form>(r.keys[i]) : rank_t::no_digit;
        const unsigned place = rank_t::template rank_one<true>(dg, hist, lt, gt);
        if (ok) stage(buf, t, r, i, dg, place);
      }
    }
    return count;
  }

  /// Ranks first: stable ranks within the warp (two 16-bit ranks a
  /// register), then the counts are published and scanned, then each key is
  /// staged at its digit's start plus its rank.
  template <core::key_form Form>
  __device__ __forceinline__ unsigned rank_then_count(const pass_buffers<U, V>& buf, const tile_span& t, tile_regs& r) {
    storage& s = st();
    unsigned* hist = rank_t::warp_counters(s.rank);
    const unsigned lt = lanemask_lt(), gt = ~(lt | (1u << lane_id()));
    unsigned rank2[(Items + 1) / 2];
    if (t.full()) {
#pragma unroll
      for (int i = 0; i < Items; ++i) {
        const unsigned rk = rank_t::template rank_one<false>(digit<Form>(r.keys[i]), hist, lt, gt);
        rank2[i / 2] = (i & 1) ? (rank2[i / 2] | (rk << 16)) : rk;
      }
    } else {
#pragma unroll
      for (int i = 0; i < Items; ++i) {
        const unsigned rk =
            rank_t::template rank_one<true>(t.item_valid(i) ? digit<Form>(r.keys[i]) : rank_t::no_digit, hist, lt, gt);
        rank2[i / 2] = (i & 1) ? (rank2[i / 2] | (rk << 16)) : (rk & 0xFFFFu);
      }
    }
    wait_for_ring_slot(t);
    const unsigned count = rank_t::scan_digits(s.rank, 1 << digit_bits, [&](unsigned c) { publish(t, threadIdx.x, c); });
    const auto stage_all = [&](auto full) {
#pragma unroll
      for (int i = 0; i < Items; ++i) {
        if (decltype(full)::value || t.item_valid(i)) {
          const unsigned dg = digit<Form>(r.keys[i]);
          const unsigned rk = (i & 1) ? rank2[i / 2] >> 16 : rank2[i / 2] & 0xFFFFu;
          stage(buf, t, r, i, dg, rank_t::local_position(s.rank, dg, rk));
        }
      }
    };
    if (t.full()) stage_all(std::true_type{});
    else stage_all(std::false_type{});
    return count;
  }

  /// Stage one key (and its value, or for late values its place) at its
  /// place in the digit-sorted tile.
  __device__ __forceinline__ void stage(const pass_buffers<U, V>& buf, const tile_span& t, tile_regs& r, int i,
                                        unsigned dg, unsigned place) {
    tile_keys()[place] = r.keys[i];
    if constexpr (StageDigits) tile_digits()[place] = static_cast<unsigned char>(dg);
    if constexpr (late) {
      r.pos2[i / 2] = (i & 1) ? (r.pos2[i / 2] | (place << 16)) : place;
    } else if constexpr (prefetch) {
      tile_values()[place] = r.vals[i];
    } else if constexpr (has_values) {
      tile_values()[place] = source_value(buf.vsrc, value_base(buf, t) + t.warp_base + i * 32 + lane_id());
    }
  }

  /// Look back: each digit's global start from the predecessors' counts
  /// (then this tile's inclusive prefix is published), kept as the shift
  /// from a staged place to the output position.
  __device__ __forceinline__ void look_back(const tile_span& t, unsigned count) {
    storage& s = st();
    const unsigned d = threadIdx.x;
    if (int(d) < (1 << digit_bits)) {
      unsigned long long start;
      if (t.index == 0) {
        start = tiles.digit_start(p, t.ticket, bin_offset + d);
      } else {
        start = ring::look_back<LookbackBatch>(p.ring, t.seq, t.index, d, p.ring_cfg);
        ring::publish(ring::slot(p.ring, t.seq, p.ring_cfg), t.seq, d, ring::flag_prefix, start + count, p.ring_cfg);
      }
      s.shift[d] = static_cast<long long>(start) - static_cast<long long>(s.rank.digit_start[d]);
      s.shift32[d] = static_cast<int>(s.shift[d]);
    }
    __syncwarp();  // reconverge the look-back's spinning lanes before the barrier
    __syncthreads();
  }

  /// The helper takes the next ticket now, not earlier: a ticket taken long
  /// before its tile starts keeps the tiles after it waiting for its counts
  /// (taken during the look-back, it cost 20 %). The round trip hides behind
  /// the scatter. Then the block is done with the ring (its reads and writes
  /// happened before the look-back's barrier).
  __device__ __forceinline__ unsigned next_ticket_and_release(int e, unsigned seq) {
    unsigned ticket = 0;
    if (threadIdx.x == helper) {
      ticket = atomicAdd(&p.ctl->ticket[e], 1u);
      ring::advance_tail(p.ctl, seq, p.ring_cfg);
    }
    return ticket;
  }

  /// A whole tile of one digit: the keys (and prefetched values) go back to
  /// shared memory in input order, so that no register holds them through
  /// the look-back (loads that fell back to scalar ones left no copy there).
  __device__ __forceinline__ void keep_in_input_order(const tile_span& t, const tile_regs& r) {
#pragma unroll
    for (int i = 0; i < Items; ++i) {
      const int j = t.warp_base + i * 32 + int(lane_id());
      tile_keys()[j] = r.keys[i];
      if constexpr (prefetch) tile_values()[j] = r.vals[i];
    }
  }

  /// Writes a whole tile of one digit: tile position j goes to the digit's
  /// start plus j (its staged place would be j). Keys from shared memory;
  /// values after them, from there (prefetched) or, warp-striped, from their
  /// source (as the late values' scatter loads them).
  template <bool Full>
  __device__ __forceinline__ void write_whole_tile(const pass_buffers<U, V>& buf, const tile_span& t) {
    const long long shift = st().shift[st().whole_digit];
    const bool narrow = can_narrow && narrow_dst();
#pragma unroll
    for (int i = 0; i < Items; ++i) {
      const int j = i * Threads + int(threadIdx.x);
      if (!Full && j >= t.valid) continue;
      const std::uint64_t dst = static_cast<std::uint64_t>(shift + j);
      const U key = tile_keys()[j];
      if (narrow) reinterpret_cast<N*>(buf.kdst)[dst] = N(key);
      else if (buf.kdst) buf.kdst[dst] = key;
      if constexpr (prefetch) store_value(buf, dst, tile_values()[j]);
    }
    if constexpr (has_values && !prefetch) {
      const long long first = shift + t.warp_base + int(lane_id());  // item i goes 32 i further
      if constexpr (can_widen) {
        if (buf.vwide) {
          write_values_striped<Full>(buf.vsrc, buf.vwide + first, t);
          return;
        }
      }
      write_values_striped<Full>(buf.vsrc, buf.vdst + first, t);
    }
  }

  /// A lane's warp-striped values from their source to out[32 i], half a
  /// tile's worth at a time (loading them all at once spilled where the
  /// tiles are long), from one base address (the offsets are the stores'
  /// immediates).
  template <bool Full, class W>
  __device__ __forceinline__ static void write_values_striped(const V* vsrc, W* out, const tile_span& t) {
    // the source decided once: per value, the test compiled to a branch around each load
    if (vsrc) copy_values_striped<Full, true>(vsrc, out, t);
    else copy_values_striped<Full, false>(vsrc, out, t);
  }
  /// Load: values from vsrc, else (argsort) their indices.
  template <bool Full, bool Load, class W>
  __device__ __forceinline__ static void copy_values_striped(const V* vsrc, W* out, const tile_span& t) {
    constexpr int half = (Items + 1) / 2;
#pragma unroll 1
    for (int h = 0; h < Items; h += half) {
      V vals[half];
#pragma unroll
      for (int b = 0; b < half; ++b) {
        const int j = t.warp_base + (h + b) * 32 + int(lane_id());
        if (h + b < Items && (Full || j < t.valid)) vals[b] = Load ? ld_nc(vsrc + t.base + j) : index_value<V>(index_base(t) + j);
        else vals[b] = V{};
      }
#pragma unroll
      for (int b = 0; b < half; ++b)
        if (h + b < Items && (Full || t.item_valid(h + b))) out[(h + b) * 32] = vals[b];
    }
  }

  /// A value to its output position (an argsort's widening last pass: 8 bytes wide).
  __device__ __forceinline__ static void store_value(const pass_buffers<U, V>& buf, std::uint64_t dst, const V& v) {
    if constexpr (can_widen) {
      if (buf.vwide) {
        buf.vwide[dst] = v;
        return;
      }
    }
    buf.vdst[dst] = v;
  }

  /// Scatter: keys and values from shared memory to their output positions
  /// (late values: the keys first, then the values staged in their buffer).
  template <core::key_form Form>
  __device__ __forceinline__ void scatter_tile(const pass_buffers<U, V>& buf, const tile_span& t, tile_regs& r) {
    unsigned dig4[dig_words] = {};  // late values, digits not staged: the keys' scatter keeps them here
    if constexpr (late) {
      scatter_pass<Form, scatter_keys>(buf, t, dig4);
      V vals[Items];
      load_values_striped(buf.vsrc, value_base(buf, t), t.warp_base, t.valid, vals);
      __syncthreads();  // every key is out of the shared buffer
      if (t.full()) stage_values<true>(t, r, vals);
      else stage_values<false>(t, r, vals);
      __syncthreads();
      scatter_pass<Form, scatter_values>(buf, t, dig4);
    } else {
      scatter_pass<Form, scatter_keys | scatter_values>(buf, t, dig4);
    }
  }

  /// Late values: each to its key's staged place. A full tile tests no item
  /// (the tests, kept as predicates through the loads, crowded the registers).
  template <bool Full>
  __device__ __forceinline__ void stage_values(const tile_span& t, const tile_regs& r, const V (&vals)[Items]) {
#pragma unroll
    for (int i = 0; i < Items; ++i)
      if (Full || t.item_valid(i)) tile_values()[(i & 1) ? r.pos2[i / 2] >> 16 : r.pos2[i / 2] & 0xFFFFu] = vals[i];
  }

  /// One sweep of the staged tile, with the variant of scatter() for the
  /// tile (full or not), the size of the output (32-bit positions) and the
  /// keys' width on the way out (narrow passes).
  template <core::key_form Form, int What>
  __device__ __forceinline__ void scatter_pass(const pass_buffers<U, V>& buf, const tile_span& t,
                                               unsigned (&dig4)[dig_words]) {
    const auto as = [&](auto narrow, auto wide) {
      constexpr bool Nw = decltype(narrow)::value, Wd = decltype(wide)::value;
      if (p.n < (std::uint64_t(1) << 31)) {
        if (t.full()) scatter<Form, true, true, What, Nw, Wd>(buf, t.valid, dig4);
        else scatter<Form, true, false, What, Nw, Wd>(buf, t.valid, dig4);
      } else {
        scatter<Form, false, false, What, Nw, Wd>(buf, t.valid, dig4);
      }
    };
    if constexpr (can_widen && (What & scatter_values))
      if (buf.vwide) return as(std::false_type{}, std::true_type{});
    if (can_narrow && (What & scatter_keys) && narrow_dst()) as(std::integral_constant<bool, can_narrow>{}, std::false_type{});
    else as(std::false_type{}, std::false_type{});
  }

  /// What: scatter_keys and/or scatter_values (late values: keys first, then
  /// values, each staged in the same buffer; a value's digit is the staged one,
  /// or the one the keys' scatter left in dig4).
  /// Narrow: the keys' low halves are written (narrow_key_t). Wide: an
  /// argsort's last pass writes its 4-byte indices as 8-byte ones (vwide).
  template <core::key_form Form, bool Small, bool Full, int What, bool Narrow, bool Wide>
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
        if constexpr (has_values && (What & scatter_values)) {
          if constexpr (Wide) buf.vwide[dst] = tile_values()[j];
          else buf.vdst[dst] = tile_values()[j];
        }
      }
    }
  }
};

}  // namespace radix::cuda_detail
