// CPU LSD sort, phase 1: the upfront read of sorter<U, V> (which bits vary,
// already sorted?, the speculative MSD histogram), the routes that need no
// radix pass (identity, small_sort), and the counting read of the first digit.
#pragma once
#include <type_traits>

#include "lsd_sorter.hpp"

namespace radix::cpu {
namespace lsd_detail {

/// The scan's cheap check, from keys[i] until the first block with a
/// descent (or e): ORs into v each key's ordered bits XOR ref, into bad
/// whether a key is below its predecessor (in the bits of mask), and, with
/// Detect, into sp whether a -0.0 or NaN was seen. Returns where it stopped
/// (a block's end). A block's keys are transformed once into `ord` (in L1),
/// then each is compared with its predecessor there: both loops carry
/// nothing but ORs and vectorise (transforming every key twice in one loop
/// ran floats at half the memory's rate). 64-bit floats keep that one loop:
/// the baseline SIMD has no 64-bit compare, nothing vectorises, and the
/// buffer only added loads and stores. Out of line, so that the buffer does
/// not weigh on the histogram loop that follows in the caller.
template <core::key_form F, bool Detect, class U>
[[gnu::noinline]] std::uint64_t sorted_prefix(const core::ordered_codec<U>& codec, const U* keys, std::uint64_t i,
                                              std::uint64_t e, U mask, U ref, U& v_out, U& bad_out, U& sp_out) {
  constexpr U sign = core::ordered_codec<U>::sign;
  const U nan_above = codec.nan_above;
  constexpr std::uint64_t block = 1024;
  U v = v_out, bad = bad_out, sp = sp_out;  // locals: the outputs might alias the keys
  if constexpr (sizeof(U) == 8 && F != core::key_form::linear) {
    while (i < e && !bad) {
      const std::uint64_t be = std::min(e, i + block);
      for (; i < be; ++i) {
        const U o = core::ordered_as<F>(codec, keys[i]);
        const U p = core::ordered_as<F>(codec, keys[i - 1]);
        v |= U(o ^ ref);
        bad |= U(U(o & mask) < U(p & mask));
        if constexpr (Detect) sp |= U(U(keys[i] == sign) | U(U(keys[i] & U(~sign)) > nan_above));
      }
    }
  } else {
    U ord[block + 1];
    ord[0] = U(core::ordered_as<F>(codec, keys[i - 1]) & mask);  // the key before the block
    while (i < e && !bad) {
      const std::uint64_t m = std::min(e - i, block);
      for (std::uint64_t j = 0; j < m; ++j) {
        const U o = core::ordered_as<F>(codec, keys[i + j]);
        v |= U(o ^ ref);
        ord[j + 1] = U(o & mask);
        if constexpr (Detect) sp |= U(U(keys[i + j] == sign) | U(U(keys[i + j] & U(~sign)) > nan_above));
      }
      for (std::uint64_t j = 0; j < m; ++j) bad |= U(ord[j + 1] < ord[j]);
      ord[0] = ord[m];
      i += m;
    }
  }
  v_out = v, bad_out = bad, sp_out = sp;
  return i;
}

/// Whether keys [i, e) hold a -0.0 or a NaN (bit patterns: `sign` alone, or
/// magnitude bits above `nan_above`). A loop of ORs alone, which vectorises:
/// the scan's counting loops call it on each block they have just counted
/// (in L1 by then), where the same test inside them, key by key, cost 32-bit
/// floats half the scan's speed (bench/results/cpu-2026-11-28-float-scan.md).
/// Where the CPU has AVX2 the loop is compiled for it too (the baseline build
/// vectorises it four keys at a time, with an emulated unsigned compare).
template <class U>
[[gnu::always_inline]] inline U specials_loop(const U* keys, std::uint64_t i, std::uint64_t e, U nan_above) {
  constexpr U sign = core::ordered_codec<U>::sign;
  U sp = 0;
  for (; i < e; ++i) sp |= U(U(keys[i] == sign) | U(U(keys[i] & U(~sign)) > nan_above));
  return sp;
}
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
template <class U>
[[gnu::noinline]] __attribute__((target("avx2"))) U specials_in_avx2(const U* keys, std::uint64_t i, std::uint64_t e,
                                                                     U nan_above) {
  return specials_loop(keys, i, e, nan_above);
}
#endif
template <class U>
[[gnu::noinline]] U specials_in(const U* keys, std::uint64_t i, std::uint64_t e, U nan_above) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  static const bool avx2 = __builtin_cpu_supports("avx2");
  if (avx2) return specials_in_avx2(keys, i, e, nan_above);
#endif
  return specials_loop(keys, i, e, nan_above);
}

/// The scan's histogram counters: 32-bit (flushed into the 64-bit histogram
/// every 2^30 keys), in copies that consecutive keys take in turn, so that a
/// run of equal digits does not wait on one counter; copies are added only
/// while all of them fit in this many bytes, on the stack. Counters that spill
/// out of L1 cost every key more than the copies save the runs, so wider
/// digits (the fine window's 2^16 bins) count straight into the 64-bit
/// histogram (bench/results/cpu-2026-12-04-wc-span.md).
inline constexpr std::size_t scan_counter_bytes = 16 << 10;

/// Adds keys [i, e)'s digits (bits [shift, shift + bits) of the ordered form F)
/// to h, ORs each key's ordered bits XOR ref into v, and, with Detect, into sp
/// whether a -0.0 or NaN was seen (each block checked after it is counted).
/// Counter: std::uint32_t, with `c` C copies of 2^bits counters (zero); or
/// std::uint64_t with C == 1 and c == h.
template <unsigned C, class Counter, core::key_form F, bool Detect, class U>
void count_digits(const core::ordered_codec<U> codec, const U* keys, std::uint64_t i, std::uint64_t e, int shift,
                  int bits, U ref, U nan_above, U& v_out, U& sp_out, Counter* c, std::uint64_t* h) {
  // (the codec by value: a counter's store could otherwise alias its masks, and
  // every key would reload them)
  constexpr bool direct = std::is_same_v<Counter, std::uint64_t>;
  static_assert(!direct || C == 1, "64-bit counters are the histogram itself");
  constexpr std::uint64_t detect_block = 2048;
  constexpr std::uint64_t flush_every = direct ? ~std::uint64_t(0) : std::uint64_t(1) << 30;
  const std::size_t R = std::size_t(1) << bits;
  U v = v_out, sp = sp_out;
  while (i < e) {
    const std::uint64_t stop = i + std::min(e - i, flush_every);
    while (i < stop) {
      const std::uint64_t from = i, to = i + std::min(stop - i, detect_block);
      for (; i + C <= to; i += C)
        for (unsigned j = 0; j < C; ++j) {
          const U o = core::ordered_as<F>(codec, keys[i + j]);
          v |= U(o ^ ref);
          ++c[j * R + core::digit_of<U>(o, shift, bits)];
        }
      for (; i < to; ++i) {
        const U o = core::ordered_as<F>(codec, keys[i]);
        v |= U(o ^ ref);
        ++c[core::digit_of<U>(o, shift, bits)];
      }
      if constexpr (Detect) sp |= specials_in(keys, from, to, nan_above);
    }
    if constexpr (!direct) {
      for (std::size_t d = 0; d < R; ++d)
        for (unsigned j = 0; j < C; ++j) h[d] += c[j * R + d];
      std::fill(c, c + C * R, Counter(0));
    }
  }
  v_out = v, sp_out = sp;
}

/// The upfront read: which bits vary, is the input sorted, and, once a
/// thread sees disorder in its chunk, a histogram of the top `spec_bits_`
/// bits of the key range (the MSD digit of the hybrid route lies there in
/// most inputs, so its counting read is saved). Sorted inputs stay on the
/// cheap check alone, which is what makes the early exit fast.
template <class U, class V>
inline void sorter<U, V>::scan(bool& sorted, U& varying) {
  using core::key_form;
  // Integer keys: the transform is one XOR with a constant; with the biased
  // form's sign-dependent masks the sorted check ran at half the memory's
  // rate (bench/results/cpu-2026-11-28-presorted-scan.md).
  if (!job_.codec.canon)
    return (void)(job_.codec.linear() ? scan_impl<key_form::linear, false>(sorted, varying)
                                      : scan_impl<key_form::biased, false>(sorted, varying));
  // Floats in numeric order: without a -0.0 or a NaN in the data, the plain
  // biased transform orders them exactly as the canonical one, and is
  // cheaper in every later pass. Look for them on the way.
  if (!scan_impl<key_form::biased, true>(sorted, varying)) {
    job_.codec.canon = false;
    return;
  }
  sorted = true;
  varying = 0;
  scan_impl<key_form::canonical, false>(sorted, varying);
}

/// Returns whether a -0.0 or NaN was seen (only looked for with Detect).
/// F: the form of the ordered-bits transform (core::key_form) the codec allows.
template <class U, class V>
template <core::key_form F, bool Detect>
inline bool sorter<U, V>::scan_impl(bool& sorted, U& varying) {
  std::vector<std::uint8_t> unsorted(threads_, 0), specials(threads_, 0);
  const U sign = codec_t::sign, nan_above = job_.codec.nan_above;
  std::vector<U> vary(threads_, 0);
  const U* keys = job_.keys;
  const codec_t codec = job_.codec;
  const U mask = range_mask_;
  const U ref = core::ordered_as<F>(codec, keys[0]);
  const int sb = spec_bits_;
  const int sshift = spec_shift_;
  const unsigned SR = sb > 0 ? 1u << sb : 0;
  spec_hist_.assign(std::size_t(threads_) * SR, 0);
  spec_done_.assign(threads_, 0);
  thread_pool::instance().run(threads_, [&](unsigned t) {
    const std::uint64_t b = bounds_[t], e = bounds_[t + 1];
    std::uint64_t i = std::max<std::uint64_t>(b, 1);
    U v = 0;
    U bad = 0;
    U sp = 0;  // a -0.0 or NaN seen (Detect)
    i = sorted_prefix<F, Detect>(codec, keys, i, e, mask, ref, v, bad, sp);
    if (bad && SR) {  // this chunk is unsorted: count the rest on the way, then the prefix
      std::uint64_t* h = spec_hist_.data() + std::size_t(t) * SR;
      const std::uint64_t prefix_end = i;
      constexpr std::size_t slots = scan_counter_bytes / sizeof(std::uint32_t);
      if (SR <= slots) {
        alignas(64) std::uint32_t c[slots] = {};
        const std::size_t copies = slots / SR;
        auto counted = [&]<unsigned C>() {
          count_digits<C, std::uint32_t, F, Detect>(codec, keys, i, e, sshift, sb, ref, nan_above, v, sp, c, h);
        };
        if (copies >= 4) counted.template operator()<4>();
        else if (copies >= 2) counted.template operator()<2>();
        else counted.template operator()<1>();
      } else {
        count_digits<1, std::uint64_t, F, Detect>(codec, keys, i, e, sshift, sb, ref, nan_above, v, sp, h, h);
      }
      for (std::uint64_t j = b; j < prefix_end; ++j)
        ++h[core::digit_of<U>(core::ordered_as<F>(codec, keys[j]), sshift, sb)];
      spec_done_[t] = 1;
    } else {
      for (; i < e; ++i) {
        v |= U(core::ordered_as<F>(codec, keys[i]) ^ ref);
        if constexpr (Detect) sp |= U(U(keys[i] == sign) | U(U(keys[i] & U(~sign)) > nan_above));
      }
    }
    // keys[0] is compared by no loop when b == 0 (it is the reference).
    if constexpr (Detect)
      if (b == 0) sp |= U(U(keys[0] == sign) | U(U(keys[0] & U(~sign)) > nan_above));
    vary[t] = v;
    unsorted[t] = std::uint8_t(bad != 0);
    specials[t] = std::uint8_t(sp != 0);
  });
  bool special = false;
  for (unsigned t = 0; t < threads_; ++t) {
    varying |= vary[t];
    if (unsorted[t]) sorted = false;
    special |= specials[t] != 0;
  }
  return special;
}

/// Nothing to reorder: keys stay; an argsort's permutation is the identity.
template <class U, class V>
inline void sorter<U, V>::identity() {
  if constexpr (has_value) {
    if (job_.pay != payload::index) return;
    V* out = job_.values;
    thread_pool::instance().run(threads_, [&](unsigned t) {
      for (std::uint64_t i = bounds_[t]; i < bounds_[t + 1]; ++i) out[i] = V(i);
    });
  }
}

/// Keys alone whose bits vary only inside [lo, hi), at most
/// policy.expand_max_bits wide, under a transform that loses nothing (no
/// -0.0 or NaN folded): every key is its window's digit over bits all keys
/// share, and equal keys are indistinguishable, so the sorted keys are the
/// window's histogram written out (a counting sort: one read and one write,
/// where LSD passes read and write the keys once per digit).
template <class U, class V>
inline bool sorter<U, V>::expand_candidate() const {
  return !has_value && job_.pay == payload::none && !job_.keys_readonly && job_.digit_bits == 0 &&
         policy_.expand_max_bits > 0;
}

template <class U, class V>
inline bool sorter<U, V>::can_expand(int lo, int hi, U all_varying) const {
  return expand_candidate() && !job_.codec.canon && hi - lo <= policy_.expand_max_bits &&
         U(all_varying & U(~range_mask_)) == 0 && job_.n >= (std::uint64_t(1) << (hi - lo));
}

template <class U, class V>
inline void sorter<U, V>::expand(int lo, int hi) {
  const core::pass window{lo, hi - lo};
  std::vector<std::uint64_t> hist;
  if (!msd_from_scan(window, hist)) count(job_.keys, window, hist);
  const std::vector<std::uint64_t> start = digit_starts(hist, 1u << window.bits);  // each digit's run
  const codec_t codec = job_.codec;
  const U window_mask = U(((std::uint64_t(1) << window.bits) - 1) << lo);
  const U shared = U(codec.biased(job_.keys[0]) & U(~window_mask));
  trace_.mark("count");
  U* out = job_.keys;
  // each thread writes its own share of the output, run by run
  thread_pool::instance().run(threads_, [&](unsigned t) {
    const std::uint64_t b = bounds_[t], e = bounds_[t + 1];
    auto d = unsigned(std::upper_bound(start.begin(), start.end(), b) - start.begin()) - 1;
    for (std::uint64_t i = b; i < e; ++d) {
      const std::uint64_t run_end = std::min(e, start[d + 1]);
      if (run_end > i) std::fill(out + i, out + run_end, codec.unbiased(U(shared | U(U(d) << lo))));
      i = std::max(i, run_end);
    }
  });
  trace_.mark("write");
  trace_.print("expand", job_.n, window.bits);
}

/// Stable comparison sort for tiny inputs.
template <class U, class V>
inline void sorter<U, V>::small_sort() {
  const std::uint64_t n = job_.n;
  std::vector<std::uint32_t> idx(n);
  std::iota(idx.begin(), idx.end(), 0u);
  const U* keys = job_.keys;
  const U mask = range_mask_;
  std::stable_sort(idx.begin(), idx.end(), [&](std::uint32_t a, std::uint32_t b) {
    return U(ordered(keys[a]) & mask) < U(ordered(keys[b]) & mask);
  });
  if (!job_.keys_readonly) {
    std::vector<U> k(keys, keys + n);
    for (std::uint64_t i = 0; i < n; ++i) job_.keys[i] = k[idx[i]];
  }
  if constexpr (has_value) {
    if (job_.pay == payload::values) {
      std::vector<V> v(job_.values, job_.values + n);
      for (std::uint64_t i = 0; i < n; ++i) job_.values[i] = v[idx[i]];
    } else if (job_.pay == payload::index) {
      for (std::uint64_t i = 0; i < n; ++i) job_.values[i] = V(idx[i]);
    }
  }
}

/// Where each of R digits begins in the output, from per-thread counts
/// (hist[t * R + d]); start[R] is the total.
template <class U, class V>
inline std::vector<std::uint64_t> sorter<U, V>::digit_starts(const std::vector<std::uint64_t>& hist,
                                                             unsigned R) const {
  std::vector<std::uint64_t> start(R + 1, 0);
  for (unsigned d = 0; d < R; ++d) {
    std::uint64_t c = 0;
    for (unsigned t = 0; t < threads_; ++t) c += hist[std::size_t(t) * R + d];
    start[d + 1] = start[d] + c;
  }
  return start;
}

/// Per-thread histogram of one digit over the current layout.
template <class U, class V>
inline void sorter<U, V>::count(const U* keys, const core::pass& ps, std::vector<std::uint64_t>& hist) {
  with_form(job_.codec, [&]<core::key_form F>() { count_impl<F>(keys, ps, hist); });
}

template <class U, class V>
template <core::key_form F>
inline void sorter<U, V>::count_impl(const U* keys, const core::pass& ps, std::vector<std::uint64_t>& hist) {
  const unsigned R = 1u << ps.bits;
  hist.assign(std::size_t(threads_) * R, 0);
  const codec_t codec = job_.codec;
  thread_pool::instance().run(threads_, [&](unsigned t) {
    std::vector<std::uint64_t> h(R, 0);
    for (std::uint64_t i = bounds_[t]; i < bounds_[t + 1]; ++i)
      ++h[core::digit_of<U>(xform<F>(codec, keys[i]), ps.shift, ps.bits)];
    std::copy(h.begin(), h.end(), hist.begin() + std::size_t(t) * R);
  });
}

}  // namespace lsd_detail
}  // namespace radix::cpu
