// The all-digit histogram (the GPUOpen article on Onesweep with a circular
// look-back buffer, "Count in Onesweep"): one read of the
// keys counts the digits of every pass, and finds out whether the keys are
// already in order (by the masked ordered key). The last block to finish
// turns the counts into each pass's digit offsets and plans on the device
// which passes run: none if the input is sorted, and never a pass whose
// digit is the same for every key (one bucket holds all n). Later kernels
// read that plan; the host never waits for it. It also notes whether any float
// key is a NaN or -0: if none is, the scatter kernels skip the canonicalisation.
#pragma once
#include <utility>

#include "../block/block_scan.cuh"
#include "../common/common.cuh"
#include "params.cuh"
#include "radix/core/pass_plan.hpp"

namespace radix::cuda_detail {

template <class U>
struct histogram_params {
  const U* keys = nullptr;
  std::uint64_t n = 0;
  core::ordered_codec<U> codec{};
  U range_mask = 0;
  pass_list passes{};
  control* ctl = nullptr;
  bool byte_digits = false;  ///< the usual plan: pass ps counts byte ps into bins [256 ps, 256 ps + 256)
  bool narrow_ok = false;    ///< the host allows half-width keys between passes (32-bit keys only, end_bit at the top)
  /// Keys a block sorts whole (onesweep_buckets_kernel), or 0: where every
  /// bucket of the top pass's digit holds at most this many, that pass alone
  /// runs and the buckets are sorted block by block (control::msd).
  unsigned bucket_capacity = 0;
  key_inset<U> inset{};  ///< keys of the input that lie elsewhere (params.cuh)
  /// Where the inset's ends go, its keys outside [inner_begin, inner_end) (the
  /// input's own buffer), or nullptr: the scatter then reads the inset
  /// only whole warps' keys at a time (onesweep_run).
  U* inset_home = nullptr;
  std::uint64_t inner_begin = 0, inner_end = 0;
};

template <class U, int Threads, int Vectors, bool Inset = false>
struct histogram_agent {
  static constexpr int per_vec = 16 / int(sizeof(U));
  static constexpr int per_thread = Vectors * per_vec;
  static constexpr std::uint64_t chunk = std::uint64_t(Threads) * per_thread;
  /// Vectors a thread counts at once: at most 16 keys, so that 1- and 2-byte
  /// keys, each held in a register of its own, fit the 80 registers (a
  /// whole chunk, 64 1-byte keys, spilled); 4- and 8-byte keys count the
  /// whole chunk together.
  static constexpr int group_vectors = per_vec >= 16 ? 1 : per_vec >= 8 ? 2 : Vectors;
  static constexpr int group_keys = group_vectors * per_vec;
  static_assert(Vectors % group_vectors == 0);
  using scan = block_scan<Threads, unsigned long long>;

  /// Copies of the histogram for keys counted in runs (count(): a warp's
  /// keys in order): lane groups (lane / 4) % copies pick one, so that lanes
  /// 4 apart (the same digit in sorted input) do not serialise on one shared
  /// address. Keys in no order (count_each) use copy 0: spreading them over
  /// the copies was slower on an H100 (bench/results/cuda-h100-2026-11-23-b.md,
  /// call 6); but where all of a thread's keys
  /// share the pass's digit (one atomic for them all, likely the same digit
  /// in every lane: the high bytes of narrow keys) it takes its group's copy.
  /// Each copy is padded by one word (other banks).
  static constexpr int copies = 4;
  static constexpr int copy_stride = max_bins + 1;

  struct storage {
    unsigned hist[copies * copy_stride];
    typename scan::storage scan_storage;
    bool trivial[max_passes];
    bool buckets_fit;  ///< (the pass planned last: the top one) every bucket within bucket_capacity
    bool last;
  };

  const histogram_params<U>& p;
  storage& s;

  /// Form: the form of the ordered-bits transform (core::key_form; a
  /// template argument, so that integer keys pay one XOR a key and only
  /// floats pay for the canonicalisation; process() branches once).
  template <core::key_form Form>
  __device__ __forceinline__ U ordered(U k) const { return core::ordered_as<Form>(p.codec, k); }
  template <core::key_form Form>
  __device__ __forceinline__ U masked(U k) const { return U(ordered<Form>(k) & p.range_mask); }

  /// Calls f(pass) for every pass. Up to one pass a key byte (8-bit digits,
  /// the usual plan) the loop is unrolled, so that each pass's shift, width and
  /// bin offset are constant-bank operands instead of indexed loads per chunk.
  template <class F>
  __device__ __forceinline__ void for_each_pass(F&& f) const {
    constexpr int unrolled = int(sizeof(U));
    if (p.passes.count <= unrolled) {
#pragma unroll
      for (int ps = 0; ps < unrolled; ++ps)
        if (ps < p.passes.count) f(ps);
    } else {
      for (int ps = 0; ps < p.passes.count; ++ps) f(ps);
    }
  }

  /// Where bin i (of all passes' bins) sits in a copy. For 4-byte keys, bits
  /// 5-7 are XORed into bits 0-2: digits that differ only above bit 4 (keys
  /// whose low bits are zero, such as multiples of 16, or evenly spaced
  /// sorted keys) would otherwise fall into one or two of the 32 banks and
  /// serialise their atomics. The map keeps every aligned block of 8 bins in
  /// place (it is its own inverse), so bins stay within the copy. Other key
  /// widths keep the plain layout (not measured with it).
  static __device__ __forceinline__ unsigned slot(unsigned i) {
    static_assert(max_bins % 8 == 0, "slot() keeps bins inside a copy only if it holds whole blocks of 8");
    if constexpr (sizeof(U) == 4) return i ^ ((i >> 5) & 7u);
    else return i;
  }
  /// This thread's copy of the histograms, or copy 0 (in_order false).
  __device__ __forceinline__ unsigned* copy_hist(bool in_order = true) const {
    return s.hist + (in_order ? ((threadIdx.x >> 2) % copies) * copy_stride : 0);
  }

  /// Counts a thread's keys (ordered already) for every pass, merging runs of
  /// equal digits into one shared atomic (sorted and skewed inputs).
  template <int N>
  __device__ __forceinline__ void count(const U (&o)[N], int valid) {
    for_each_pass([&](int ps) {
      const int shift = p.passes.shift[ps], bits = p.passes.bits[ps];
      unsigned* h = copy_hist();
      const unsigned off = p.passes.bin_offset[ps];
      unsigned cur = core::digit_of<U>(o[0], shift, bits), run = 0;
#pragma unroll
      for (int i = 0; i < N; ++i) {
        if (i < valid) {
          const unsigned d = core::digit_of<U>(o[i], shift, bits);
          if (d != cur) {
            atomicAdd(h + slot(off + cur), run);
            cur = d;
            run = 0;
          }
          ++run;
        }
      }
      if (run) atomicAdd(h + slot(off + cur), run);
    });
  }

  /// Counts a thread's keys one atomic each: the cheaper form when runs are
  /// short (the thread's keys are not in order). A pass whose digit is the
  /// same for all of the thread's keys (the high digits of small or narrow
  /// keys) takes one atomic: otherwise every lane of a copy would hit one
  /// address N times, and same-address shared atomics serialise. The bits
  /// where the keys differ are found once (an OR of XORs) for all passes.
  template <int N>
  __device__ __forceinline__ void count_each(const U (&o)[N]) {
    U differ = 0;
#pragma unroll
    for (int i = 1; i < N; ++i) differ |= U(o[i] ^ o[0]);
    if constexpr (sizeof(U) >= 4) {
      if (p.byte_digits) return count_each_bytes(o, differ);
    }
    for_each_pass([&](int ps) {
      const int shift = p.passes.shift[ps], bits = p.passes.bits[ps];
      const unsigned off = p.passes.bin_offset[ps];
      if (core::digit_of<U>(differ, shift, bits) == 0) {
        atomicAdd(copy_hist() + slot(off + core::digit_of<U>(o[0], shift, bits)), unsigned(N));
      } else {
        unsigned* h = copy_hist(false);
#pragma unroll
        for (int i = 0; i < N; ++i) atomicAdd(h + slot(off + core::digit_of<U>(o[i], shift, bits)), 1u);
      }
    });
  }

  /// Byte b of x, as one byte-permute.
  static __device__ __forceinline__ unsigned byte_of(U x, int b) {
    const unsigned word = sizeof(U) == 8 && b >= 4 ? unsigned(std::uint64_t(x) >> 32) : unsigned(x);
    return __byte_perm(word, 0u, 0x4440u + unsigned(b & 3));
  }

  /// count_each() for the usual plan (byte_digits): with the pass's shift, width
  /// and bin offset known at compile time, a key's count for a pass is a
  /// byte-permute, an address and the atomic (the bin offset is the atomic's
  /// immediate), where the general form needs five instructions (u32 keys
  /// 2^28: 531 -> 519 us on an H100; bench/results/cuda-h100-2026-11-23-b.md).
  template <int N>
  __device__ __forceinline__ void count_each_bytes(const U (&o)[N], U differ) {
    const unsigned h = unsigned(__cvta_generic_to_shared(s.hist));
    const unsigned hc = unsigned(__cvta_generic_to_shared(s.hist + ((threadIdx.x >> 2) % copies) * copy_stride));
    count_each_bytes(o, differ, h, hc, std::make_integer_sequence<int, int(sizeof(U))>{});
  }
  template <int N, int... Ps>
  __device__ __forceinline__ void count_each_bytes(const U (&o)[N], U differ, unsigned h, unsigned hc,
                                                   std::integer_sequence<int, Ps...>) {
    (count_pass_bytes<Ps>(o, differ, h, hc), ...);
  }
  template <int Ps, int N>
  __device__ __forceinline__ void count_pass_bytes(const U (&o)[N], U differ, unsigned h, unsigned hc) {
    if ((differ & (U(0xFF) << (8 * Ps))) == 0) {
      shared_add<1024 * Ps>(hc + 4 * slot(byte_of(o[0], Ps)), unsigned(N));
    } else {
#pragma unroll
      for (int i = 0; i < N; ++i) shared_add<1024 * Ps>(h + 4 * slot(byte_of(o[i], Ps)), 1u);
    }
  }
  /// A shared-memory add at address + Offset bytes: in PTX, so that the offset
  /// stays the instruction's immediate (the compiler would fold it into the index).
  template <int Offset>
  static __device__ __forceinline__ void shared_add(unsigned address, unsigned v) {
    asm volatile("red.shared.add.u32 [%0+%1], %2;" ::"r"(address), "n"(Offset), "r"(v) : "memory");
  }

  __device__ void process() {
    if (p.codec.canon) process_impl<core::key_form::canonical>();
    else if (p.codec.linear()) process_impl<core::key_form::linear>();
    else process_impl<core::key_form::biased>();
  }

  /// One full chunk's loads: Vectors coalesced 16-byte loads per thread, and
  /// for lane 0 the key before each of its vectors (the order check's link to
  /// the lane before, which sits in another warp), issued together so that
  /// their latencies overlap.
  struct chunk_regs {
    uint4 v[Vectors];
    U before[Vectors];
  };
  __device__ __forceinline__ void load_chunk(std::uint64_t base, chunk_regs& c) const {
    if constexpr (Inset) {
      // (from the key before the chunk: the order check's first link)
      if (p.inset.meets(base ? base - 1 : 0, chunk + 1)) {
        load_chunk_inset(base, c);
        return;
      }
    }
    const uint4* src = reinterpret_cast<const uint4*>(p.keys + base);
#pragma unroll
    for (int k = 0; k < Vectors; ++k) c.v[k] = __ldg(src + k * Threads + threadIdx.x);
    if ((threadIdx.x & 31u) == 0) {
#pragma unroll
      for (int k = 0; k < Vectors; ++k) {
        const std::uint64_t first = base + (std::uint64_t(k) * Threads + threadIdx.x) * per_vec;
        // the first key has no predecessor: compare it with itself (no raw
        // pattern is below every ordered key: floats, signed, descending)
        c.before[k] = ld_nc(p.keys + (first ? first - 1 : 0));
      }
    }
  }

  /// Input key i (scalar: the last partial chunk, or unaligned keys).
  __device__ __forceinline__ U key_at(const U* keys, std::uint64_t i) const {
    if constexpr (Inset) return p.inset.at(keys, i);
    else return ld_nc(keys + i);
  }

  /// load_chunk() for a chunk that meets the inset, or follows it: vectors
  /// that meet it are gathered key by key (the inset need not be aligned like
  /// the keys), and every key before a vector comes through the inset.
  __device__ __forceinline__ void load_chunk_inset(std::uint64_t base, chunk_regs& c) const {
#pragma unroll
    for (int k = 0; k < Vectors; ++k) {
      const std::uint64_t first = base + (std::uint64_t(k) * Threads + threadIdx.x) * per_vec;
      if (p.inset.meets(first, per_vec)) {
        U raw[per_vec];
#pragma unroll
        for (int j = 0; j < per_vec; ++j) raw[j] = p.inset.at(p.keys, first + j);
        memcpy(&c.v[k], raw, 16);
      } else {
        c.v[k] = __ldg(reinterpret_cast<const uint4*>(p.keys + first));
      }
      if ((threadIdx.x & 31u) == 0) c.before[k] = p.inset.at(p.keys, first ? first - 1 : 0);
    }
  }

  /// Counts one full chunk; returns whether some key is below the one before it.
  template <core::key_form Form>
  __device__ __forceinline__ bool count_chunk(const chunk_regs& c, bool& canon_used) {
    bool descent = false;
#pragma unroll
    for (int g = 0; g < Vectors; g += group_vectors) descent |= count_group<Form>(c, g, canon_used);
    return descent;
  }

  /// Counts vectors g .. g + group_vectors - 1 of a chunk; returns whether
  /// some key of them is below the one before it. Whole warps call it (full
  /// chunks: every thread of the block).
  template <core::key_form Form>
  __device__ __forceinline__ bool count_group(const chunk_regs& c, int g, bool& canon_used) {
    U o[group_keys];
    bool descent = false;  // some key of this thread is below the one before it
#pragma unroll
    for (int k = 0; k < group_vectors; ++k) {
      U raw[per_vec];
      memcpy(raw, &c.v[g + k], 16);
#pragma unroll
      for (int j = 0; j < per_vec; ++j) {
        o[k * per_vec + j] = ordered<Form>(raw[j]);
        if constexpr (Form == core::key_form::canonical) canon_used |= o[k * per_vec + j] != p.codec.biased(raw[j]);
      }
      // Order check: each vector against the key before it (the last key of
      // the lane before; lane 0's was loaded with the chunk).
      const U last = U(o[k * per_vec + per_vec - 1] & p.range_mask);
      U prev = __shfl_up_sync(0xFFFFFFFFu, last, 1);
      if ((threadIdx.x & 31u) == 0) prev = masked<Form>(c.before[g + k]);
#pragma unroll
      for (int j = 0; j < per_vec; ++j) {
        const U m = U(o[k * per_vec + j] & p.range_mask);
        descent |= m < prev;
        prev = m;
      }
    }
    // A warp whose keys are all in order merges runs of equal digits (sorted
    // input would otherwise serialise the warp's atomics on one address);
    // else one atomic a key. Chosen for the whole warp: lanes that went
    // their own ways ran both loops one after the other (nearly sorted
    // input: three times the instructions of either).
    if (__any_sync(0xFFFFFFFFu, descent)) count_each(o);
    else count(o, group_keys);
    return descent;
  }

  /// The inset's ends, copied home by the first block (a few thousand keys at
  /// most); the scatter kernels, which wait for this one, read them there.
  __device__ void copy_inset_ends() const {
    const bool inner = p.inner_end > p.inner_begin;
    const std::uint64_t head_end = inner ? p.inner_begin : p.inset.end;
    for (std::uint64_t i = p.inset.begin + threadIdx.x; i < head_end; i += Threads)
      p.inset_home[i] = ld_nc(p.inset.keys + (i - p.inset.begin));
    if (inner)
      for (std::uint64_t i = p.inner_end + threadIdx.x; i < p.inset.end; i += Threads)
        p.inset_home[i] = ld_nc(p.inset.keys + (i - p.inset.begin));
  }

  template <core::key_form Form>
  __device__ void process_impl() {
    if constexpr (Inset)
      if (p.inset_home && blockIdx.x == 0) copy_inset_ends();
    for (int i = threadIdx.x; i < copies * copy_stride; i += Threads) s.hist[i] = 0;
    __syncthreads();
    const U* keys = p.keys;
    const std::uint64_t n = p.n;
    const bool aligned = (reinterpret_cast<std::uintptr_t>(keys) & 15u) == 0;
    bool unsorted = false;
    bool canon_used = false;  // some key is a NaN or -0: the scatter kernels need the canonicalisation
    const std::uint64_t stride = std::uint64_t(gridDim.x) * chunk;
    std::uint64_t base = std::uint64_t(blockIdx.x) * chunk;
    // Full chunks, software-pipelined: the next chunk's loads are in flight
    // while this one is counted (the count is shared-atomic bound, and
    // without this a block waits for each chunk's loads with nothing to do).
    const std::uint64_t full_end = aligned ? n / chunk * chunk : 0;
    if (base < full_end) {
      chunk_regs cur;
      load_chunk(base, cur);
      for (;;) {
        const std::uint64_t next = base + stride;
        const bool more = next < full_end;
        chunk_regs ahead;
        if (more) load_chunk(next, ahead);
        unsorted |= count_chunk<Form>(cur, canon_used);
        base = next;
        if (!more) break;
        cur = ahead;
      }
    }
    // The rest (the last, partial chunk, or every chunk of unaligned keys):
    // scalar, strided.
    for (; base < n; base += stride) {
      const std::uint64_t end = base + chunk < n ? base + chunk : n;
      for (std::uint64_t i0 = base; i0 < end; i0 += std::uint64_t(Threads) * group_keys) {
        U o[group_keys];
        int valid = 0;
#pragma unroll
        for (int j = 0; j < group_keys; ++j) {
          const std::uint64_t i = i0 + std::uint64_t(j) * Threads + threadIdx.x;
          if (i < end) {
            const U raw = key_at(keys, i);
            o[j] = ordered<Form>(raw);
            if constexpr (Form == core::key_form::canonical) canon_used |= o[j] != p.codec.biased(raw);
            if (i > 0) unsorted |= U(o[j] & p.range_mask) < masked<Form>(key_at(keys, i - 1));
            valid = j + 1;
          }
        }
        if (valid) count(o, valid);
      }
    }
    if (__syncthreads_or(unsorted) && threadIdx.x == 0) atomicOr(&p.ctl->unsorted, 1u);
    if constexpr (Form == core::key_form::canonical)
      if (__syncthreads_or(canon_used) && threadIdx.x == 0) atomicOr(&p.ctl->canon_used, 1u);
    for (int i = threadIdx.x; i < p.passes.total_bins; i += Threads)
    {
      unsigned c = 0;
#pragma unroll
      for (int k = 0; k < copies; ++k) c += s.hist[k * copy_stride + slot(i)];
      if (c) atomicAdd(&p.ctl->counts[i], static_cast<unsigned long long>(c));
    }

    // The last block plans the passes.
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) s.last = atomicAdd(&p.ctl->hist_done, 1u) == gridDim.x - 1;
    __syncthreads();
    if (!s.last) return;
    __threadfence();
    plan();
  }

  __device__ void plan() {
    control* ctl = p.ctl;
    for (int ps = 0; ps < p.passes.count; ++ps) {
      const int bins = 1 << p.passes.bits[ps];
      const int off = p.passes.bin_offset[ps];
      unsigned long long c = 0;
      if (int(threadIdx.x) < bins) c = __ldcg(&ctl->counts[off + threadIdx.x]);
      const bool trivial = __syncthreads_or(c == p.n);
      const bool buckets_fit = __syncthreads_and(c <= p.bucket_capacity);
      const unsigned long long start = scan::exclusive(c, s.scan_storage);
      if (int(threadIdx.x) < bins) ctl->offsets[off + threadIdx.x] = start;
      if (threadIdx.x == 0) s.trivial[ps] = trivial, s.buckets_fit = buckets_fit;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
      const bool unsorted = __ldcg(&ctl->unsorted) != 0;
      const int top = p.passes.count - 1;
      // (a trivial top pass has one bucket of n keys: more than fit)
      if (unsorted && p.bucket_capacity > 0 && s.buckets_fit) {
        for (int ps = 0; ps < top; ++ps) ctl->pass_eff[ps] = -1;
        ctl->pass_eff[top] = 0;
        ctl->eff_passes = 1;
        ctl->msd = 1;
        return;
      }
      int k = 0;
      for (int ps = 0; ps < p.passes.count; ++ps) ctl->pass_eff[ps] = (unsorted && !s.trivial[ps]) ? k++ : -1;
      ctl->eff_passes = k;
      ctl->narrow = narrow(k);
      if (ctl->narrow) ctl->narrow_high = static_cast<unsigned long long>(p.keys[0] & high_half);
    }
  }

  static constexpr int half_bits = int(sizeof(U)) * 4;
  static constexpr U high_half = U(~U(0) << half_bits);

  /// Whether the passes between the first and the last that run can keep
  /// half-width keys (narrow_key_t): every pass that runs lies in the low
  /// half, so each digit of the high half is the same for all keys (its
  /// pass is skipped as trivial, and end_bit at the top puts all of the high
  /// half in range). That holds for the original keys, not just their ordered
  /// bits, unless the float canonicalisation merged keys (-0 with +0, NaNs):
  /// every other form of the transform is an XOR with a mask that the high
  /// half fixes. The high half is then key 0's.
  __device__ bool narrow(int k) const {
    if (!p.narrow_ok || k < 2) return false;
    if (p.codec.canon && __ldcg(&p.ctl->canon_used)) return false;
    for (int ps = 0; ps < p.passes.count; ++ps)
      if (!s.trivial[ps] && p.passes.shift[ps] + p.passes.bits[ps] > half_bits) return false;
    return true;
  }
};

}  // namespace radix::cuda_detail
