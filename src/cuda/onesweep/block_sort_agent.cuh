// Up to 8192 keys (inputs of 1025 or more, each bucket of the MSD path,
// segments of more than 12 keys a thread): one block sorts them in shared
// memory with thread-private digit counters (Merrill & Grimshaw 2011, "High Performance
// and Scalable Radix Sorting", §4: each thread holds a contiguous run of the
// input and counts its own keys; one raking scan over every thread's
// counters then gives each key its place, stably).
//
// Why not the warp ballots of single_tile_agent: they cost ~60 instructions
// per 32 keys a pass, and one block alone on an SM is bound by the
// instructions it issues. Here a key costs a shared-memory increment and a
// read of its scanned counter. The price is the scan of the counters, 32
// words per thread, so a digit has at most 6 bits (64 counters of 16 bits
// per thread, two to a word) and 32-bit keys take six passes, not four.
//
// A tile's story, per pass:
//   count    each thread bumps its own counter of each of its keys' digits,
//            remembering the count before (the key's rank among its own)
//   scan     one exclusive scan over all counters, digit-major then
//            thread-major: a counter becomes the place of its thread's
//            first key of that digit
//   rank     a key's place = its counter + its rank among its own
//   exchange keys (and 16-bit origins) to their places in shared memory,
//            then each thread reads back its contiguous run for the next pass
// The passes cover only the bits in which some keys differ (bits every key
// shares do not change the order), in digits of at most 6 bits spread evenly.
// Values stay in shared memory from the first read; the last pass's
// exchange leaves the keys sorted, and each value is written once, from its
// key's origin.
#pragma once
#include <cstdint>
#include <type_traits>

#include "../common/common.cuh"
#include "params.cuh"
#include "radix/core/ordered_bits.hpp"
#include "radix/core/pass_plan.hpp"

namespace radix::cuda_detail {

/// What a sort on chip reads and writes: the whole input of a small sort
/// (whole()), or one bucket of the MSD pass (onesweep_buckets_kernel); the
/// comparison-counting sort (rank_sort_agent) reads and writes it the same way.
template <class U, class V>
struct block_sort_io {
  const U* kin = nullptr;
  U* kout = nullptr;          ///< the sorted keys (nullptr: an argsort that does not want them); may be kin
  const V* vin = nullptr;     ///< values (nullptr: generate the indices, argsort); may be vout
  V* vout = nullptr;
  std::uint64_t* vwide = nullptr;  ///< 4-byte indices written 8 bytes wide here instead of to vout
  int n = 0;

  __device__ static block_sort_io whole(const onesweep_params<U, V>& p) {
    block_sort_io io;
    io.kin = p.keys;
    io.kout = p.key_out();
    io.n = int(p.n);
    if constexpr (!std::is_same_v<V, no_value>) {
      io.vin = p.mode == sort_mode::argsort ? nullptr : p.values;
      io.vout = p.values;
      io.vwide = p.wide_values;
    }
    return io;
  }

  /// Value j of the output (4-byte indices written 8 bytes wide where asked).
  __device__ __forceinline__ void put_value(std::uint64_t j, V v) const {
    if constexpr (std::is_same_v<V, std::uint32_t>)
      if (vwide) {
        vwide[j] = v;
        return;
      }
    vout[j] = v;
  }
};

/// MaxDigitBits: 6, or 7 (cluster_sort_agent) for blocks of at most 256
/// threads, whose passes of 7-bit digits scan twice the counter words.
template <class U, class V, int MaxDigitBits = 6>
struct block_sort_agent {
  static constexpr bool has_values = !std::is_same_v<V, no_value>;
  /// Keys per thread: with 16, counting a thread's keys costs about as much
  /// as scanning its 32 counter words (CUB's single-tile sort uses 19).
  static constexpr int items = 16;  ///< at most; a thread holds ceil(n / threads) (`per`)
  static_assert(MaxDigitBits == 6 || MaxDigitBits == 7, "thread-private counters: 64 or 128 digits");
  /// __launch_bounds__ (512: 128 registers a thread). A key's counter is a
  /// 16-bit index (at2): 128 digits' counters of 512 threads would pass 2^16.
  static constexpr int max_threads = MaxDigitBits == 6 ? 512 : 256;
  static constexpr int capacity = items * max_threads;
  /// At or below this, single_tile_agent's four warp-ranked passes are the
  /// faster (2^10 keys: 1.01-1.27x as fast on an H200; 2^11: 0.85-0.96x): with a few
  /// keys a thread, six passes' barriers and counter scans dominate.
  static constexpr int fewest = 1024;
  static constexpr int max_digit_bits = MaxDigitBits;
  static constexpr int counter_words = (1 << max_digit_bits) / 2;  ///< a thread's words (two 16-bit counters each)
  /// The words a thread counts a pass's digits of `bits` in: 32 up to 6-bit
  /// digits (a 7-bit table's passes of 6 bits scan only its first half).
  __host__ __device__ static constexpr int words_for(int bits) { return MaxDigitBits > 6 && bits > 6 ? 64 : 32; }
  static_assert(capacity < 65536, "16-bit counters, ranks and origins");
  /// Keys narrower than a word are exchanged in 32-bit slots: lanes then
  /// never share a bank word.
  using slot_t = std::conditional_t<(sizeof(U) < 4), std::uint32_t, U>;
  using origin_t = std::uint16_t;

  struct header {
    unsigned warp_sums[max_threads / 32 + 1];  ///< block scan: warp totals, then the block's total last
    unsigned long long varying;               ///< OR of every key's (ordered ^ first key's ordered)
    /// The outputs, kept here rather than in registers through the passes
    /// (a bucket's pointers are computed, not kernel parameters: held in
    /// registers, they spilled).
    block_sort_io<U, V> io;
  };

  /// Exchange slots: one padding slot every 32, so that a thread's run of
  /// keys starts in a different bank from its neighbour's.
  __host__ __device__ static constexpr int pad(int j) { return j + j / 32; }
  /// Counter words: four padding words every 32, so that a thread's raking
  /// segment (32 words, read and written as 16-byte vectors) is aligned and
  /// eight lanes' vectors fall in distinct banks. A digit's row of `threads`
  /// counters is then 9 / 8 x threads words long, a multiple of 32 when the
  /// block has 256 or 512 threads: a thread's counters of every digit share
  /// its bank, and the counting has no bank conflicts.
  __host__ __device__ static constexpr int counter_row(int threads) { return threads / 8 * 9; }
  /// The row after a pass's (row words_for(bits)) is a spare counter per
  /// thread that keys past the end count into (no branch); it is neither
  /// zeroed nor scanned: garbage by design.
  __host__ __device__ static constexpr int counter_total_words(int threads) { return (counter_words + 1) * counter_row(threads); }
  static_assert(2 * (counter_words + 1) * (max_threads / 8 * 9) <= 65536, "a key's counter is kept as a 16-bit index (at2)");
  /// Vector q (16 bytes) of this thread's raking segment of `words` words:
  /// its words [words x tid, words x tid + words) of the table's order, 36
  /// padded words to each 32.
  __device__ __forceinline__ uint4* segment(int words, int q) const {
    return reinterpret_cast<uint4*>(counters() + 36 * (words / 32 * tid + q / 8) + 4 * (q % 8));
  }
  /// The half of a 64-word segment that this thread takes first: with 72
  /// padded words a segment, threads t and t + 4 start in the same bank,
  /// so every other group of four starts at the second half.
  __device__ __forceinline__ int first_half(int words) const { return words > 32 ? (tid / 4) & 1 : 0; }
  /// Digit d's counter of thread 0 in 16-bit units, for a pass whose
  /// threads count in `words` words each: row d mod words, half d / words.
  /// A thread's own counter adds its offset in row 0 (count_keys).
  __device__ __forceinline__ unsigned counter_of(unsigned d, unsigned words) const {
    return (d % words) * (2u * unsigned(counter_row(threads))) + d / words;
  }
  /// Zeroes this thread's counters of digits of `bits` (not the spare row).
  __device__ __forceinline__ void clear_counters(int bits) const {
    const int words = words_for(bits), flip = 8 * first_half(words);
#pragma unroll
    for (int q = 0; q < counter_words / 4; ++q)
      if (q < words / 4) *segment(words, q ^ flip) = make_uint4(0, 0, 0, 0);
  }
  __host__ __device__ static constexpr std::size_t align16(std::size_t b) { return (b + 15) / 16 * 16; }

  /// Shared memory for `threads` threads: [header | counters, or (after the
  /// counting) exchanged keys and origins | values]. The counters and the
  /// exchange share their region: a pass reads every counter it needs
  /// before it exchanges.
  struct layout {
    std::size_t counters_bytes, keys_bytes, origins_bytes, region_a, values_offset, values_bytes, total;
    __host__ __device__ constexpr explicit layout(int threads)
        : counters_bytes(align16(sizeof(unsigned) * std::size_t(counter_total_words(threads)))),
          keys_bytes(align16(sizeof(slot_t) * std::size_t(pad(items * threads)))),
          origins_bytes(has_values ? align16(sizeof(origin_t) * std::size_t(pad(items * threads))) : 0),
          region_a(counters_bytes > keys_bytes + origins_bytes ? counters_bytes : keys_bytes + origins_bytes),
          values_offset(align16(sizeof(header)) + region_a),
          values_bytes(has_values ? align16(sizeof(V) * std::size_t(items) * threads) : 0),
          total(values_offset + values_bytes) {}
  };
  static constexpr std::size_t smem_bytes(int threads) { return layout(threads).total; }
  /// Threads for n keys: 256 or 512 (counter_row), at most 16 keys each.
  /// Never fewer than 8 warps: the block is bound by latency (a thread's keys
  /// are counted one after another), and fewer warps leave it exposed (1024
  /// keys as 64 threads x 16 took 19 us on an H100, CUB's 256 x 19 11 us).
  static constexpr int threads_for(std::uint64_t n) { return n <= std::uint64_t(items) * 256 ? 256 : 512; }

  const onesweep_params<U, V>& p;  ///< the codec and the bit range
  const block_sort_io<U, V> io;    ///< read by stage_input; the outputs are read from hdr().io
  unsigned char* smem;
  int n = 0, threads = 0, tid = 0, per = 0;  ///< per: keys a thread holds (the last ones fewer)

  __device__ __forceinline__ header& hdr() const { return *reinterpret_cast<header*>(smem); }
  __device__ __forceinline__ unsigned char* region_a() const { return smem + align16(sizeof(header)); }
  __device__ __forceinline__ unsigned* counters() const { return reinterpret_cast<unsigned*>(region_a()); }
  __device__ __forceinline__ slot_t* xkeys() const { return reinterpret_cast<slot_t*>(region_a()); }
  __device__ __forceinline__ origin_t* xorigins() const {
    return reinterpret_cast<origin_t*>(region_a() + layout(threads).keys_bytes);
  }
  __device__ __forceinline__ V* values() const { return reinterpret_cast<V*>(smem + layout(threads).values_offset); }
  /// Item i of this thread: key tid * per + i of the run being sorted.
  __device__ __forceinline__ bool valid(int i) const { return i < per && tid * per + i < n; }

  /// What a thread holds between passes: its run of keys, and (with values)
  /// where each came from, two 16-bit origins a register.
  struct run {
    U keys[items];
    unsigned origin2[has_values ? items / 2 : 1];
  };

  __device__ void process() {
    n = io.n;
    threads = int(blockDim.x);
    tid = int(threadIdx.x);
    per = (n + threads - 1) / threads;
    if (tid == 0) hdr().io = io;
    stage_input();
    __syncthreads();
    run r;
    read_run(r, true);
    bool canon_needed = false;
    if (!survey(r, canon_needed)) return write_sorted_input();
    if constexpr (sizeof(U) == 1) {
      sort<core::key_form::linear>(r);  // 1-byte keys are integers
    } else {
      if (p.codec.linear()) sort<core::key_form::linear>(r);
      else if (canon_needed) sort<core::key_form::canonical>(r);
      else sort<core::key_form::biased>(r);  // no NaN or -0: the canonical form equals the biased one
    }
    store_output();
  }

  /// Every key (and value) into shared memory, input order, all loads in flight at once.
  __device__ __forceinline__ void stage_input() const {
    slot_t* xk = xkeys();
#pragma unroll
    for (int i = 0; i < items; ++i) {
      const int j = i * threads + tid;
      if (j < n) xk[pad(j)] = slot_t(ld_nc(io.kin + j));
    }
    if constexpr (has_values) {
      if (io.vin) {
        V* v = values();
#pragma unroll
        for (int i = 0; i < items; ++i) {
          const int j = i * threads + tid;
          if (j < n) v[j] = ld_nc(io.vin + j);
        }
      }
    }
  }

  /// This thread's run from the exchange buffer; the first time, each key's origin is its index.
  __device__ __forceinline__ void read_run(run& r, bool first) const {
    const slot_t* xk = xkeys();
#pragma unroll
    for (int i = 0; i < items; ++i) {
      const int j = tid * per + i;
      r.keys[i] = valid(i) ? U(xk[pad(j)]) : U(0);
    }
    if constexpr (has_values) {
      const origin_t* xo = xorigins();
#pragma unroll
      for (int i = 0; i < items; i += 2) {
        const int j = tid * per + i;
        const unsigned lo = first ? unsigned(j) : (valid(i) ? unsigned(xo[pad(j)]) : 0u);
        const unsigned hi = first ? unsigned(j + 1) : (valid(i + 1) ? unsigned(xo[pad(j + 1)]) : 0u);
        r.origin2[i / 2] = lo | (hi << 16);
      }
    }
  }

  /// The bits in which keys differ, whether the input is out of order, and
  /// whether any key is changed by the float canonicalisation. Returns false
  /// when the input is in order already (nothing to sort).
  __device__ __forceinline__ bool survey(const run& r, bool& canon_needed) {
    header& h = hdr();
    if (tid == 0) h.varying = 0;
    const U ref = U(p.codec(U(xkeys()[0])) & p.range_mask);
    U prev = tid > 0 && tid * per - 1 < n ? U(p.codec(U(xkeys()[pad(tid * per - 1)])) & p.range_mask) : U(0);
    U vary = 0;
    bool unsorted = false, canon = false;
#pragma unroll
    for (int i = 0; i < items; ++i) {
      if (!valid(i)) continue;
      const U o = U(p.codec(r.keys[i]) & p.range_mask);
      vary |= U(o ^ ref);
      if (tid > 0 || i > 0) unsorted |= o < prev;
      prev = o;
      if (p.codec.canon) canon |= p.codec.canonical(r.keys[i]) != p.codec.biased(r.keys[i]);
    }
    unsigned long long v = vary;
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v |= __shfl_xor_sync(0xFFFFFFFFu, v, o);
    __syncthreads();  // h.varying cleared
    if (lane_id() == 0 && v) atomicOr(&h.varying, v);
    canon_needed = __syncthreads_or(canon) != 0;
    return __syncthreads_or(unsorted) != 0;
  }

  /// In order already: what is not where it belongs is copied (keys out of
  /// place, an argsort's keys, a bucket's keys and values from the MSD pass's
  /// alternates), an argsort's indices are the identity.
  __device__ __forceinline__ void write_sorted_input() const {
    const block_sort_io<U, V>& out = hdr().io;
    if (out.kout && out.kout != out.kin)
      for (int j = tid; j < n; j += threads) out.kout[j] = U(xkeys()[pad(j)]);
    if constexpr (has_values) {
      if (!out.vin || out.vwide || out.vout != out.vin)
        for (int j = tid; j < n; j += threads) out.put_value(j, out.vin ? values()[j] : index_value<V>(j));
    }
  }

  template <core::key_form F>
  __device__ __forceinline__ unsigned digit(U key, int shift, int bits) const {
    return core::digit_of<U>(core::ordered_as<F>(p.codec, key), shift, bits);
  }

  /// LSD over the bits that vary, least significant first: the exchange
  /// buffer ends with every key (and origin) at its sorted place.
  template <core::key_form F>
  __device__ __forceinline__ void sort(run& r) {
    const unsigned long long v = hdr().varying;  // non-zero: the input is out of order
    const int lo = __ffsll(static_cast<long long>(v)) - 1, hi = 64 - __clzll(static_cast<long long>(v));
    const core::even_passes plan(lo, hi, max_digit_bits);
    for (int ps = 0; ps < plan.count; ++ps) {
      const core::pass pass = plan[ps];
      rank_pass<F>(r, pass.shift, pass.bits);
      if (ps + 1 < plan.count) read_run(r, false);
    }
  }

  /// One pass: count, scan, rank, exchange.
  template <core::key_form F>
  __device__ __forceinline__ void rank_pass(run& r, int shift, int bits) const {
    __syncthreads();  // every thread has read its run: the region holds counters now
    clear_counters(bits);
    __syncthreads();
    unsigned at2[items / 2], rank2[items / 2];
    count_keys<F>(r, shift, bits, at2, rank2);
    __syncthreads();
    scan_counters(bits);
    __syncthreads();
    place_keys(at2, rank2);
    __syncthreads();  // every counter is read: the region holds the exchange now
    exchange(r, rank2);
    __syncthreads();
  }

  /// Count: each key bumps its thread's counter of its digit (counter_of);
  /// the count before is the key's rank among its own. at2 keeps each key's counter (a 16-bit index);
  /// keys past the end count in the spare row.
  template <core::key_form F>
  __device__ __forceinline__ void count_keys(const run& r, int shift, int bits, unsigned (&at2)[items / 2],
                                             unsigned (&rank2)[items / 2]) const {
    std::uint16_t* c16 = reinterpret_cast<std::uint16_t*>(counters());
    const unsigned row2 = 2u * unsigned(counter_row(threads));        // a row, in 16-bit counters
    const unsigned mine = 2u * unsigned(tid + 4 * (tid / 32));        // this thread's counter in row 0
    const unsigned words = unsigned(words_for(bits));
    const unsigned spare = words * row2 + mine;  // the row after the pass's (garbage by design)
#pragma unroll
    for (int i = 0; i < items; ++i) {
      const unsigned d = digit<F>(r.keys[i], shift, bits);
      const unsigned at = valid(i) ? counter_of(d, words) + mine : spare;
      const unsigned before = c16[at];
      c16[at] = std::uint16_t(before + 1);
      if (i & 1) at2[i / 2] |= at << 16, rank2[i / 2] |= before << 16;
      else at2[i / 2] = at, rank2[i / 2] = before;
    }
  }

  /// Exclusive scan of all counters of digits of `bits` in digit-major,
  /// thread-major order. With w = words_for(bits), thread t rakes the w
  /// consecutive words [w t, w t + w) of that order (segment). Two counters
  /// share a word and are scanned together (no count reaches 2^16), and
  /// digits w..2w-1 (the high halves) start after all of digits 0..w-1.
  __device__ __forceinline__ void scan_counters(int bits) const {
    const int words = words_for(bits), flip = 8 * first_half(words);
    unsigned taken_first = 0, taken_second = 0;  // the halves' sums, in the order this thread reads them
#pragma unroll
    for (int q = 0; q < counter_words / 4; ++q) {
      if (q >= words / 4) break;
      const uint4 w = *segment(words, q ^ flip);
      (q < 8 ? taken_first : taken_second) += w.x + w.y + w.z + w.w;
    }
    unsigned total;
    unsigned running = block_exclusive_sum(taken_first + taken_second, total);
    running += (total & 0xFFFFu) << 16;
    // the segment's second half starts after its first, whichever is taken first
    const unsigned start = running;
    if (flip) running += taken_second;
    // read again rather than kept: 32 registers more spilled with values
#pragma unroll
    for (int q = 0; q < counter_words / 4; ++q) {
      if (q >= words / 4) break;
      if (q == 8 && flip) running = start;
      uint4* seg = segment(words, q ^ flip);
      const uint4 w = *seg;
      uint4 o;
      o.x = running, running += w.x;
      o.y = running, running += w.y;
      o.z = running, running += w.z;
      o.w = running, running += w.w;
      *seg = o;
    }
  }

  /// Exclusive prefix sum over the block (blockDim.x threads, at most
  /// max_threads); `total` gets the block's sum. Not block_scan's: there the
  /// width is a template argument and every thread adds up all warp totals,
  /// which here (16 of them, at 128 registers) spilled; warp 0 scans them instead.
  __device__ __forceinline__ unsigned block_exclusive_sum(unsigned x, unsigned& total) const {
    header& h = hdr();
    const unsigned lane = lane_id(), warp = unsigned(tid) / 32, warps = unsigned(threads) / 32;
    unsigned inc = x;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
      const unsigned y = __shfl_up_sync(0xFFFFFFFFu, inc, o);
      if (lane >= unsigned(o)) inc += y;
    }
    if (lane == 31) h.warp_sums[warp] = inc;
    __syncthreads();
    if (warp == 0) {
      const unsigned t = lane < warps ? h.warp_sums[lane] : 0u;
      unsigned ti = t;
#pragma unroll
      for (int o = 1; o < 32; o <<= 1) {
        const unsigned y = __shfl_up_sync(0xFFFFFFFFu, ti, o);
        if (lane >= unsigned(o)) ti += y;
      }
      if (lane < warps) h.warp_sums[lane] = ti - t;
      if (lane == 31) h.warp_sums[max_threads / 32] = ti;
    }
    __syncthreads();
    total = h.warp_sums[max_threads / 32];
    return h.warp_sums[warp] + inc - x;
  }

  /// Rank: a key's place is its thread's scanned counter of its digit plus
  /// its rank among its own (rank2 becomes the places).
  __device__ __forceinline__ void place_keys(const unsigned (&at2)[items / 2], unsigned (&rank2)[items / 2]) const {
    const std::uint16_t* c16 = reinterpret_cast<const std::uint16_t*>(counters());
#pragma unroll
    for (int i = 0; i < items; i += 2) {
      // (keys past the end read their spare counter: their places are never used)
      const unsigned lo = c16[at2[i / 2] & 0xFFFFu], hi = c16[at2[i / 2] >> 16];
      // no carry for keys in range (a place is below 2^16); a key past the
      // end read its spare counter, whose garbage may carry into the next
      // half: that key is past the end too (valid() is a prefix), never used
      rank2[i / 2] += lo | (hi << 16);
    }
  }

  /// Exchange: keys (and origins) to their places.
  __device__ __forceinline__ void exchange(const run& r, const unsigned (&place2)[items / 2]) const {
    slot_t* xk = xkeys();
#pragma unroll
    for (int i = 0; i < items; ++i) {
      if (!valid(i)) continue;
      const int at = pad(int((i & 1) ? place2[i / 2] >> 16 : place2[i / 2] & 0xFFFFu));
      xk[at] = slot_t(r.keys[i]);
      if constexpr (has_values)
        xorigins()[at] = origin_t((i & 1) ? r.origin2[i / 2] >> 16 : r.origin2[i / 2] & 0xFFFFu);
    }
  }

  /// The sorted keys from the exchange buffer, written home coalesced;
  /// values follow their origins (argsort: the origins are the output).
  __device__ __forceinline__ void store_output() const {
    const block_sort_io<U, V>& out = hdr().io;
    const slot_t* xk = xkeys();
#pragma unroll
    for (int i = 0; i < items; ++i) {
      const int j = i * threads + tid;
      if (j >= n) continue;
      if (out.kout) out.kout[j] = U(xk[pad(j)]);
      if constexpr (has_values) {
        const unsigned o = xorigins()[pad(j)];
        out.put_value(j, out.vin ? values()[o] : index_value<V>(o));
      }
    }
  }
};

}  // namespace radix::cuda_detail
