// Up to a few thousand keys of wide range (segments of a batch): one block
// sorts them in one step instead of a pass a digit. The keys are counted into
// 2^BinBits bins over their span where they are dense (bin_map.cuh), with
// 8-bit counters; a key's place is its bin's start plus the number of keys
// of its bin that order before it, found by comparing it with them (a bin
// holds at most two keys on average).
// Equal keys keep their input order (the comparison breaks ties by origin),
// so the sort is stable for every key type, pairs and argsort.
//
// A block's story:
//   load     the keys into registers (for a block's later inputs, while
//            it writes the one before: see process)
//   stage    every key and value into shared memory in input order; the
//            ordered keys' smallest and largest (the span)
//   map      the keys counted by their top 8 bits; the bins shared out
//            between those coarse ranges by their keys (bin_map)
//   count    each key bumps its bin's counter (the old count is its arrival)
//   scan     the counters become each bin's start
//   place    the ordered keys and their origins at bin start + arrival
//            (rows of up to 4096: with a note of the key's place in its bin
//            and the bin's size, bin_lookup::noted and noted_apart)
//   finish   each key compares itself with its bin's keys, and it (with its
//            value) goes to bin start + the number before it
// Where some bin holds more than most_in_bin keys (runs of equal keys, a
// skewed span) the comparisons would cost too much: process() returns false
// having written nothing, and the caller sorts that input another way.
#pragma once
#include <cstdint>
#include <type_traits>

#include "../block/block_scan.cuh"
#include "../common/common.cuh"
#include "bin_map.cuh"
#include "block_sort_agent.cuh"  // block_sort_io
#include "radix/core/ordered_bits.hpp"

namespace radix::cuda_detail {

/// How bin_sort_agent::finish finds the bin of a placed key (its start and its
/// number of keys) and compares the bin's keys.
enum class bin_lookup {
  /// place() notes, in 16 bits of shared memory a key, the key's offset in its
  /// bin and the bin's number of keys; count() keeps each key's bin in a
  /// register for place(). Each key's bin is mapped once instead of three
  /// times; it costs 2 bytes of shared memory and a register a key, so it
  /// suits shapes of a few keys a thread, whose rows are short. Keys of up to
  /// 4 bytes only: each is placed with its origin as one 64-bit word (ordered
  /// key << 16 | origin), which orders as the key with ties by origin, so
  /// finish() compares one word with another (one load, two comparisons)
  /// instead of a key and then an origin (two loads, three comparisons).
  noted,
  /// As noted for finish() (it reads each key's note), but count() keeps no
  /// bins (place() maps each key again) and the placed keys and their origins
  /// stay apart: 2 bytes of shared memory a key and no registers, for shapes
  /// of many keys a thread, whose registers and shared memory would not hold
  /// noted's bins and 64-bit words.
  noted_apart,
  /// count(), place() and finish() each map the key (bin_map) and read its
  /// bin's counter word: no shared memory or registers beyond the keys'.
  mapped,
};

/// Whether a row fills the agent's shape: every thread's items exist (no
/// bounds tests), or the row may be shorter.
enum class row_fill { full, partial };

template <class U, class V, int Threads, int Capacity, int BinBits>
struct bin_sort_agent {
  static constexpr bool has_values = !std::is_same_v<V, no_value>;
  static constexpr int items = Capacity / Threads;  ///< keys a thread stages and counts
  static_assert(items * Threads == Capacity && Threads % 32 == 0, "whole rounds of the block");
  /// Half a bin to two bins a key (with_bin_shape in segments/dispatch.cuh
  /// picks BinBits by capacity): few comparisons, and a counter table whose
  /// clearing and scan cost little against the keys.
  static constexpr int bin_bits = BinBits, bins = 1 << bin_bits;
  static constexpr int words = bins / 4;  ///< 8-bit counters, four a word
  static constexpr int words_per_thread = words / Threads;
  static_assert(words_per_thread >= 1 && words_per_thread * Threads == words, "each thread scans whole words");
  /// A key compares itself with every key of its bin: more than this many in
  /// one bin and the input goes to the caller's other sort. Keys spread
  /// evenly (at most two a bin on average) practically never reach it; normal floats,
  /// denser in the middle of each coarse range, reach about 20 in rows of
  /// 16384 (bench/cuda/experiments/bin_map_crowding.py). Under 256: the
  /// 8-bit counters hold it.
  static constexpr unsigned most_in_bin = 32;
  static_assert(Capacity < 65536, "16-bit origins and bin starts");
  static constexpr int warps = Threads / 32;
  /// Four keys of up to 4 bytes a thread (rows of up to 1024): the mapping is
  /// a fair part of a key's work and the notes 2 KiB a block. (8-byte keys
  /// spilled at the shape's 48 registers with kept bins.) Keys of up to 4
  /// bytes in rows of up to 4096: the notes apart (8 KiB a block; the 4096
  /// shape keeps three blocks an SM with 4-byte values, two with 8-byte
  /// ones). The larger shapes, and 8-byte keys, whose blocks are larger,
  /// would lose blocks an SM (or no longer fit one): they map.
  static constexpr bin_lookup lookup = items <= 4 && sizeof(U) <= 4               ? bin_lookup::noted
                                       : Capacity <= 4096 && sizeof(U) <= 4 ? bin_lookup::noted_apart
                                                                            : bin_lookup::mapped;
  static constexpr bool noted = lookup == bin_lookup::noted;
  static constexpr bool has_notes = lookup != bin_lookup::mapped;
  static_assert(!has_notes || most_in_bin < 64, "a note's 6-bit fields");
  static_assert(!noted || (bins <= 65536 && sizeof(U) <= 4),
                "a kept bin in 16 bits; a 32-bit key and a 16-bit origin in a word");
  /// Placed keys: (ordered key, origin) words where noted, else the ordered
  /// keys (their origins apart).
  using placed_t = std::conditional_t<noted, std::uint64_t, U>;

  /// Shared memory: [counters | bin starts | placed ordered keys (noted: with
  /// their origins) | their origins (not noted) | notes (not mapped) | input
  /// keys | input values (pairs only)], each on a 16-byte boundary.
  struct layout {
    static constexpr std::size_t align16(std::size_t b) { return (b + 15) / 16 * 16; }
    static constexpr std::size_t counters = 0;
    static constexpr std::size_t starts = counters + align16(words * 4);
    static constexpr std::size_t placed = starts + align16(words * 2);
    static constexpr std::size_t origins = placed + align16(sizeof(placed_t) * Capacity);
    static constexpr std::size_t notes = origins + (noted ? 0 : align16(2 * Capacity));
    static constexpr std::size_t keys = notes + (has_notes ? align16(2 * Capacity) : 0);
    static constexpr std::size_t values = keys + align16(sizeof(U) * Capacity);
  };
  /// Dynamic shared memory a block needs: input values only where it sorts pairs.
  static constexpr std::size_t smem_bytes(bool pairs) {
    return layout::values + (has_values && pairs ? layout::align16(sizeof(V) * Capacity) : 0);
  }

  /// The block's reductions and its bin map (static shared memory).
  struct storage {
    U lo[warps], hi[warps];
    unsigned sums[warps];
    unsigned coarse[bin_map<U>::coarse];  ///< keys of each coarse range
    typename bin_map<U>::entry map[bin_map<U>::coarse];
    typename block_scan<Threads, unsigned>::storage scan;
  };

  core::ordered_codec<U> codec;
  U range_mask;
  unsigned char* smem;
  storage& s;

  __device__ __forceinline__ unsigned* counters() const { return reinterpret_cast<unsigned*>(smem + layout::counters); }
  __device__ __forceinline__ std::uint16_t* starts() const { return reinterpret_cast<std::uint16_t*>(smem + layout::starts); }
  __device__ __forceinline__ placed_t* placed() const { return reinterpret_cast<placed_t*>(smem + layout::placed); }
  __device__ __forceinline__ std::uint16_t* origins() const { return reinterpret_cast<std::uint16_t*>(smem + layout::origins); }
  __device__ __forceinline__ std::uint16_t* notes() const { return reinterpret_cast<std::uint16_t*>(smem + layout::notes); }
  __device__ __forceinline__ U* keys() const { return reinterpret_cast<U*>(smem + layout::keys); }
  __device__ __forceinline__ V* values() const { return reinterpret_cast<V*>(smem + layout::values); }

  /// The sum of a word's four 8-bit counters.
  __device__ __forceinline__ static unsigned byte_sum(unsigned x) {
    x = (x & 0x00FF00FFu) + ((x >> 8) & 0x00FF00FFu);
    return (x + (x >> 16)) & 0xFFFFu;
  }

  /// A bin's start and its number of keys, from the scanned starts and the counters.
  __device__ __forceinline__ void bin_range(unsigned bin, unsigned& start, unsigned& count) const {
    const unsigned shift = (bin & 3u) * 8u, word = counters()[bin >> 2];
    start = starts()[bin >> 2] + byte_sum(word & ((1u << shift) - 1u));
    count = (word >> shift) & 255u;
  }

  /// Issues the loads of io's keys into `keys` (a block's first input; the
  /// later ones process() loads while it writes the one before).
  __device__ __forceinline__ void load_keys(const block_sort_io<U, V>& io, U (&keys)[items]) const {
#pragma unroll
    for (int j = 0; j < items; ++j) {
      const int i = int(threadIdx.x) + j * Threads;
      if (i < io.n) keys[j] = io.kin[i];
    }
  }

  /// Sorts io's n keys (n <= Capacity; loaded into `keys` by load_keys or by
  /// the previous call) and returns true, or returns false having written
  /// nothing where some bin is too full. Once `keys` is free it loads
  /// next's keys into it (next.n = 0: none), so that a block's next input
  /// arrives while this one is written. Every thread of the block calls it
  /// and gets the same answer; the caller syncs the block before the shared
  /// memory is used again.
  __device__ bool process(const block_sort_io<U, V>& io, U (&keys)[items], const block_sort_io<U, V>& next) {
    // Full rows of the noted shape (uniform rows of exactly 1024 keys, as
    // torch's rows often are) skip a bounds test and its branch per key and
    // phase; larger shapes keep one copy of the code.
    if constexpr (noted)
      if (io.n == Capacity) return process_row<row_fill::full>(io, keys, next);
    return process_row<row_fill::partial>(io, keys, next);
  }

  /// Whether item i of a row of n keys exists.
  template <row_fill Fill>
  __device__ __forceinline__ static bool exists(int i, int n) {
    return Fill == row_fill::full || i < n;
  }

  template <row_fill Fill>
  __device__ __forceinline__ bool process_row(const block_sort_io<U, V>& io, U (&keys)[items],
                                              const block_sort_io<U, V>& next) {
    const int n = Fill == row_fill::full ? Capacity : io.n, tid = int(threadIdx.x);
    U (&ordered)[items] = keys;  // the raw keys become ordered ones in stage
    U lo, hi;
    stage<Fill>(io, n, tid, ordered, lo, hi);
    if (lo == hi) {  // one key, maybe repeated: the input order is the sorted one
      load_keys(next, keys);
      write_in_input_order(io, n, tid);
      return true;
    }
    const bin_map<U> map = map_bins<Fill>(n, tid, ordered, lo, hi);
    unsigned arrival[arrival_words];
    if (__syncthreads_or(!count<Fill>(n, tid, ordered, map, arrival))) {
      load_keys(next, keys);
      return false;
    }
    scan_counters(tid);
    place<Fill>(n, tid, ordered, map, arrival);
    __syncthreads();
    load_keys(next, keys);
    finish<Fill>(io, n, tid, map);
    return true;
  }

  /// Keys (in `ordered` as loaded, raw) and values into shared memory in
  /// input order; the ordered keys into registers; the counters cleared; the
  /// span found. The values' loads are all issued before the first is used:
  /// 4- and 8-byte values by cp.async (global to shared, no registers held),
  /// narrower ones through registers.
  template <row_fill Fill>
  __device__ __forceinline__ void stage(const block_sort_io<U, V>& io, int n, int tid, U (&ordered)[items], U& lo,
                                        U& hi) const {
    if constexpr (has_values && (sizeof(V) == 4 || sizeof(V) == 8))
      if (io.vin) {
#pragma unroll
        for (int j = 0; j < items; ++j) {
          const int i = tid + j * Threads;
          if (exists<Fill>(i, n)) copy_async(values() + i, io.vin + i);
        }
        asm volatile("cp.async.commit_group;\n" ::: "memory");
      }
    if constexpr (has_values && sizeof(V) < 4)
      if (io.vin) {
        V v[items];
#pragma unroll
        for (int j = 0; j < items; ++j)
          if (exists<Fill>(tid + j * Threads, n)) v[j] = io.vin[tid + j * Threads];
#pragma unroll
        for (int j = 0; j < items; ++j)
          if (exists<Fill>(tid + j * Threads, n)) values()[tid + j * Threads] = v[j];
      }
    for (int w = tid; w < words; w += Threads) counters()[w] = 0u;
    if (tid < bin_map<U>::coarse) s.coarse[tid] = 0u;
    lo = U(~U(0));
    hi = U(0);
#pragma unroll
    for (int j = 0; j < items; ++j) {
      const int i = tid + j * Threads;
      if (exists<Fill>(i, n)) {
        keys()[i] = ordered[j];
        ordered[j] = U(codec(ordered[j]) & range_mask);
        lo = ordered[j] < lo ? ordered[j] : lo;
        hi = ordered[j] > hi ? ordered[j] : hi;
      }
    }
    warp_span(lo, hi);
    if ((tid & 31) == 0) s.lo[tid / 32] = lo, s.hi[tid / 32] = hi;
    if constexpr (has_values && (sizeof(V) == 4 || sizeof(V) == 8))
      if (io.vin) asm volatile("cp.async.wait_all;\n" ::: "memory");  // the barrier below publishes them
    __syncthreads();
#pragma unroll
    for (int w = 0; w < warps; ++w) {
      lo = s.lo[w] < lo ? s.lo[w] : lo;
      hi = s.hi[w] > hi ? s.hi[w] : hi;
    }
  }

  /// One 4- or 8-byte value from global to shared memory without registers.
  __device__ __forceinline__ static void copy_async(V* to, const V* from) {
    const unsigned d = unsigned(__cvta_generic_to_shared(to));
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(d), "l"(from), "n"(int(sizeof(V))) : "memory");
  }

  /// The keys' coarse ranges counted, then the map built from them.
  template <row_fill Fill>
  __device__ __forceinline__ bin_map<U> map_bins(int n, int tid, const U (&ordered)[items], U lo, U hi) const {
#pragma unroll
    for (int j = 0; j < items; ++j)
      if (exists<Fill>(tid + j * Threads, n)) atomicAdd(&s.coarse[bin_map<U>::coarse_of(ordered[j])], 1u);
    __syncthreads();
    bin_map<U>::template build<Threads>(s.map, tid < bin_map<U>::coarse ? s.coarse[tid] : 0u, lo, hi, unsigned(n),
                                        unsigned(bins), s.scan);
    return bin_map<U>{s.map};
  }

  /// Registers a thread keeps from count() to place(): each key's arrival in
  /// its bin, four to a word (bin_lookup::noted: with its bin, a word a key).
  static constexpr int arrival_words = noted ? items : (items + 3) / 4;

  /// Each key's counter bumped; its old value (the key's arrival in its bin)
  /// kept in `arrival`. False where this thread saw a bin too full.
  template <row_fill Fill>
  __device__ __forceinline__ bool count(int n, int tid, const U (&ordered)[items], const bin_map<U>& bin_of,
                                        unsigned (&arrival)[arrival_words]) const {
    bool fits = true;
#pragma unroll
    for (int q = 0; q < arrival_words; ++q) arrival[q] = 0u;
#pragma unroll
    for (int j = 0; j < items; ++j) {
      if (exists<Fill>(tid + j * Threads, n)) {
        const unsigned bin = bin_of(ordered[j]), shift8 = (bin & 3u) * 8u;
        const unsigned before = (atomicAdd(&counters()[bin >> 2], 1u << shift8) >> shift8) & 255u;
        fits &= before < most_in_bin;
        if constexpr (noted) arrival[j] = bin | before << 16;
        else arrival[j / 4] |= before << ((j % 4) * 8);
      }
    }
    return fits;
  }

  /// Exclusive scan of the counters: each word's start (its bins' starts
  /// follow from the word's own counters). Ends with a block barrier.
  __device__ __forceinline__ void scan_counters(int tid) const {
    unsigned sums[words_per_thread], total = 0;
#pragma unroll
    for (int q = 0; q < words_per_thread; ++q) {
      const unsigned c = byte_sum(counters()[tid * words_per_thread + q]);
      sums[q] = total;
      total += c;
    }
    const int lane = tid & 31, warp = tid / 32;
    unsigned inclusive = total;
#pragma unroll
    for (int o = 1; o < 32; o *= 2) {
      const unsigned y = __shfl_up_sync(0xFFFFFFFFu, inclusive, o);
      if (lane >= o) inclusive += y;
    }
    if (lane == 31) s.sums[warp] = inclusive;
    __syncthreads();
    unsigned base = inclusive - total;
#pragma unroll
    for (int w = 0; w < warps; ++w) base += w < warp ? s.sums[w] : 0u;
#pragma unroll
    for (int q = 0; q < words_per_thread; ++q) starts()[tid * words_per_thread + q] = std::uint16_t(base + sums[q]);
    __syncthreads();
  }

  /// The ordered keys and their origins at their bins, in arrival order
  /// (bin_lookup::noted and noted_apart: with each key's note, its arrival and
  /// its bin's size in 6 bits each).
  template <row_fill Fill>
  __device__ __forceinline__ void place(int n, int tid, const U (&ordered)[items], const bin_map<U>& bin_of,
                                        const unsigned (&arrival)[arrival_words]) const {
#pragma unroll
    for (int j = 0; j < items; ++j) {
      const int i = tid + j * Threads;
      if (exists<Fill>(i, n)) {
        unsigned start, size;
        if constexpr (noted) {
          bin_range(arrival[j] & 0xFFFFu, start, size);
          const unsigned before = arrival[j] >> 16;
          notes()[start + before] = std::uint16_t(before | size << 6);
          placed()[start + before] = std::uint64_t(ordered[j]) << 16 | unsigned(i);
        } else {
          bin_range(bin_of(ordered[j]), start, size);
          const unsigned before = (arrival[j / 4] >> ((j % 4) * 8)) & 255u;
          if constexpr (has_notes) notes()[start + before] = std::uint16_t(before | size << 6);
          placed()[start + before] = ordered[j];
          origins()[start + before] = std::uint16_t(i);
        }
      }
    }
  }

  /// Each placed key's place among its bin's keys (those ordering before
  /// it, ties by origin), and out it goes with its value.
  template <row_fill Fill>
  __device__ __forceinline__ void finish(const block_sort_io<U, V>& io, int n, int tid, const bin_map<U>& bin_of) const {
    if constexpr (Fill == row_fill::full) {
#pragma unroll
      for (int j = 0; j < items; ++j) finish_one(io, tid + j * Threads, bin_of);
    } else {
      for (int at = tid; at < n; at += Threads) finish_one(io, at, bin_of);
    }
  }

  __device__ __forceinline__ void finish_one(const block_sort_io<U, V>& io, int at, const bin_map<U>& bin_of) const {
    unsigned origin, start, count, before = 0;
    if constexpr (noted) {
      const std::uint64_t mine = placed()[at];
      const unsigned note = notes()[at];
      origin = unsigned(mine) & 0xFFFFu;
      start = unsigned(at) - (note & 63u);
      count = note >> 6;
      for (unsigned q = start; q < start + count; ++q) before += placed()[q] < mine;
    } else {
      const U mine = placed()[at];
      origin = origins()[at];
      if constexpr (has_notes) {
        const unsigned note = notes()[at];
        start = unsigned(at) - (note & 63u);
        count = note >> 6;
      } else {
        bin_range(bin_of(mine), start, count);
      }
      for (unsigned q = start; q < start + count; ++q) {
        const U other = placed()[q];
        before += (other < mine) | ((other == mine) & (origins()[q] < origin));
      }
    }
    const unsigned to = start + before;
    if (io.kout) io.kout[to] = keys()[origin];
    if constexpr (has_values) io.put_value(to, io.vin ? values()[origin] : index_value<V>(origin));
  }

  /// Every key equal: the input as it was (argsort: the identity).
  __device__ __forceinline__ void write_in_input_order(const block_sort_io<U, V>& io, int n, int tid) const {
    for (int i = tid; i < n; i += Threads) {
      if (io.kout) io.kout[i] = keys()[i];
      if constexpr (has_values) io.put_value(i, io.vin ? values()[i] : index_value<V>(i));
    }
  }
};

}  // namespace radix::cuda_detail
