// Implementation of lsd_sort (see lsd.hpp for the algorithm). Included only by
// the per-width instantiation files lsd_k1/2/4/8.cpp.
#pragma once
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <atomic>
#include <bit>
#include <memory>
#include <numeric>
#include <vector>

#include "lsd.hpp"
#include "radix/core/environment.hpp"
#include "thread_pool.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace radix::cpu {
namespace lsd_detail {

/// Copies 64 bytes to a 64-byte-aligned destination without reading the
/// destination into the cache (streaming store; SSE2 is x86-64 baseline).
/// The source may be unaligned.
inline void stream_line(void* dst, const void* src) {
#if defined(__SSE2__) && !defined(RADIX_NO_NT)
  auto* d = static_cast<__m128i*>(dst);
  auto* s = static_cast<const __m128i*>(src);
  _mm_stream_si128(d + 0, _mm_loadu_si128(s + 0));
  _mm_stream_si128(d + 1, _mm_loadu_si128(s + 1));
  _mm_stream_si128(d + 2, _mm_loadu_si128(s + 2));
  _mm_stream_si128(d + 3, _mm_loadu_si128(s + 3));
#else
  std::memcpy(dst, src, 64);
#endif
}
/// memcpy for a large block that will not be read again soon: the aligned
/// middle goes out with streaming stores (no read-for-ownership of the
/// destination), the ragged ends with memcpy.
inline void stream_copy(void* dst, const void* src, std::size_t bytes) {
#if defined(__SSE2__) && !defined(RADIX_NO_NT)
  auto* d = static_cast<std::byte*>(dst);
  auto* s = static_cast<const std::byte*>(src);
  if (bytes < 256) return (void)std::memcpy(d, s, bytes);
  const std::size_t head = (64 - reinterpret_cast<std::uintptr_t>(d) % 64) % 64;
  std::memcpy(d, s, head);
  d += head, s += head, bytes -= head;
  for (; bytes >= 64; d += 64, s += 64, bytes -= 64) stream_line(d, s);
  std::memcpy(d, s, bytes);
#else
  std::memcpy(dst, src, bytes);
#endif
}

inline void stream_fence() {
#if defined(__SSE2__)
  _mm_sfence();
#endif
}

/// Write-combining: a bucket's elements gather in a 64-byte line that mirrors
/// the destination's line (slot = (index + skew) % L), and a full line leaves
/// with one streaming store. Only the first line of a bucket can be partial
/// (it may share its cache line with a neighbour), and it is copied plainly.
template <class T, unsigned L>
[[gnu::always_inline]] inline void wc_put(T* line, T* base, unsigned skew, std::uint64_t pos,
                                          const std::uint64_t* start_p, const T& x) {
  const unsigned slot = unsigned((pos + skew) % L);
  line[slot] = x;
  if (slot == L - 1) [[unlikely]] {
    const std::uint64_t start = *start_p;  // read only here: one key in L
    const std::uint64_t first = pos - (L - 1);
    if (first >= start && first <= pos)  // the whole line is ours (and no wrap-around)
      stream_line(base + first, line);
    else
      std::memcpy(base + start, line + (slot - (pos - start)), std::size_t(pos - start + 1) * sizeof(T));
  }
}

/// Writes out what is left in a bucket's line; end is one past its last index.
template <class T, unsigned L>
inline void wc_drain(const T* line, T* base, unsigned skew, std::uint64_t end, std::uint64_t start) {
  if (end == start) return;
  const unsigned filled = unsigned((end + skew) % L);  // slots used in the open line
  if (filled == 0) return;                             // the last line was flushed
  const std::uint64_t first = end - start < filled ? start : end - filled;
  std::memcpy(base + first, line + (first + skew) % L, std::size_t(end - first) * sizeof(T));
}

template <class T>
inline bool wc_usable(const T* p) {
  return reinterpret_cast<std::uintptr_t>(p) % sizeof(T) == 0;
}

/// Sequential chunk bounds: thread t owns [bound[t], bound[t+1]).
inline std::vector<std::uint64_t> chunk_bounds(std::uint64_t n, unsigned t) {
  std::vector<std::uint64_t> b(t + 1);
  for (unsigned i = 0; i <= t; ++i) b[i] = std::uint64_t((unsigned __int128)n * i / t);
  return b;
}

/// RADIX_TRACE=1 prints the time of each phase to stderr (tuning aid).
struct phase_trace {
  bool on = core::env::flag("RADIX_TRACE");
  std::chrono::steady_clock::time_point last{};
  std::string text;
  void mark(const char* phase) {
    if (!on) return;
    const auto now = std::chrono::steady_clock::now();
    if (phase) text += std::string(" ") + phase + "=" + std::to_string(std::chrono::duration<double, std::milli>(now - last).count()).substr(0, 6) + "ms";
    last = now;
  }
  void print(const char* route, std::uint64_t n, int d1) {
    if (on) std::fprintf(stderr, "radix cpu %s n=%llu msd_bits=%d:%s\n", route, (unsigned long long)n, d1, text.c_str());
  }
};

template <class U, class V>
class sorter {
 public:
  using codec_t = core::ordered_codec<U>;
  static constexpr bool has_value = !std::is_same_v<V, no_value>;

  explicit sorter(const lsd_job<U, V>& job) : job_(job), policy_(default_policy()) {}

  void run() {
    const std::uint64_t n = job_.n;
    if (n < 2) {
      if constexpr (has_value)
        if (job_.pay == payload::index && n == 1) job_.values[0] = V(0);
      return;
    }
    threads_ = threads_for(n, job_.threads, policy_.per_thread_min);
    bounds_ = chunk_bounds(n, threads_);
    range_mask_ = core::bit_range_mask<U>(job_.begin_bit, job_.end_bit);

    // 1. One read: which bits vary, and is it sorted already?
    const std::uint64_t elem = sizeof(U) + (has_value ? sizeof(V) : 0);
    const bool hybrid_candidate = job_.digit_bits == 0 && n * elem >= policy_.hybrid_min_bytes;
    if (job_.digit_bits == 0 && n * elem >= policy_.hybrid_min_bytes / 4) choose_spec_window(hybrid_candidate);
    bool sorted = true;
    U varying = 0;
    trace_.mark(nullptr);
    scan(sorted, varying);
    trace_.mark("scan");
    varying &= range_mask_;
    if (sorted || varying == 0) return identity();

    // 2. Plan the passes over the bits that vary (trivial digits skipped).
    const int lo = std::countr_zero(varying);
    const int hi = int(sizeof(U)) * 8 - std::countl_zero(varying);
    int d = job_.digit_bits;
    if (d == 0) {
      d = policy_.digit_bits;
      const int t = hi - lo;
      if (policy_.wide_digit_bits > d &&
          (t + policy_.wide_digit_bits - 1) / policy_.wide_digit_bits < (t + d - 1) / d)
        d = policy_.wide_digit_bits;
    }
    const core::pass_plan plan = core::plan_passes(lo, hi, d);
    std::vector<core::pass> passes;
    for (int i = 0; i < plan.count; ++i)
      if (!core::pass_is_trivial<U>(varying, plan[i])) passes.push_back(plan[i]);

    if (n < policy_.small_n) return small_sort();
    if (hybrid_candidate && hi - lo > policy_.bucket_digit_bits)
      return hybrid(lo, hi, varying);
    sort_passes(passes);
  }

 private:
  U ordered(U k) const { return job_.codec(k); }

  /// The upfront read: which bits vary, is the input sorted, and, once a
  /// thread sees disorder in its chunk, a histogram of the top `spec_bits_`
  /// bits of the key range (the MSD digit of the hybrid route lies there in
  /// most inputs, so its counting read is saved). Sorted inputs stay on the
  /// cheap check alone, which is what makes the early exit fast.
  void scan(bool& sorted, U& varying) {
    if (!job_.codec.canon) return (void)scan_impl<false, false>(sorted, varying);
    // Floats in numeric order: without a -0.0 or a NaN in the data, the plain
    // biased transform orders them exactly as the canonical one, and is
    // cheaper in every later pass. Look for them on the way.
    if (!scan_impl<false, true>(sorted, varying)) {
      job_.codec.canon = false;
      return;
    }
    sorted = true;
    varying = 0;
    scan_impl<true, false>(sorted, varying);
  }

  template <bool Canon>
  static U xform(const codec_t& c, U k) {
    if constexpr (Canon) return c.canonical(k);
    else return c.biased(k);
  }

  /// Returns whether a -0.0 or NaN was seen (only looked for with Detect).
  template <bool Canon, bool Detect>
  bool scan_impl(bool& sorted, U& varying) {
    std::vector<std::uint8_t> unsorted(threads_, 0), specials(threads_, 0);
    const U sign = codec_t::sign, nan_above = job_.codec.nan_above;
    std::vector<U> vary(threads_, 0);
    const U* keys = job_.keys;
    const codec_t codec = job_.codec;
    const U mask = range_mask_;
    const U ref = xform<Canon>(codec, keys[0]);
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
      // Cheap check in blocks until the first disorder. Each key is compared
      // with its predecessor loaded afresh, so the loop has no carried state
      // but two ORs and vectorises.
      constexpr std::uint64_t block = 4096;
      while (i < e && !bad) {
        const std::uint64_t be = std::min(e, i + block);
        for (; i < be; ++i) {
          const U o = xform<Canon>(codec, keys[i]);
          const U p = xform<Canon>(codec, keys[i - 1]);
          v |= U(o ^ ref);
          bad |= U(U(o & mask) < U(p & mask));
          if constexpr (Detect) sp |= U(U(keys[i] == sign) | U(U(keys[i] & U(~sign)) > nan_above));
        }
      }
      if (bad && SR) {  // this chunk is unsorted: count the rest on the way, then the prefix
        std::uint64_t* h = spec_hist_.data() + std::size_t(t) * SR;
        const std::uint64_t prefix_end = i;
        for (; i < e; ++i) {
          const U o = xform<Canon>(codec, keys[i]);
          v |= U(o ^ ref);
          ++h[core::digit_of<U>(o, sshift, sb)];
          if constexpr (Detect) sp |= U(U(keys[i] == sign) | U(U(keys[i] & U(~sign)) > nan_above));
        }
        for (std::uint64_t j = b; j < prefix_end; ++j) ++h[core::digit_of<U>(xform<Canon>(codec, keys[j]), sshift, sb)];
        spec_done_[t] = 1;
      } else {
        for (; i < e; ++i) {
          v |= U(xform<Canon>(codec, keys[i]) ^ ref);
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
  void identity() {
    if constexpr (has_value) {
      if (job_.pay != payload::index) return;
      V* out = job_.values;
      thread_pool::instance().run(threads_, [&](unsigned t) {
        for (std::uint64_t i = bounds_[t]; i < bounds_[t + 1]; ++i) out[i] = V(i);
      });
    }
  }

  /// Stable comparison sort for tiny inputs.
  void small_sort() {
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

  /// Per-thread histogram of one digit over the current layout.
  void count(const U* keys, const core::pass& ps, std::vector<std::uint64_t>& hist) {
    if (job_.codec.canon) count_impl<true>(keys, ps, hist);
    else count_impl<false>(keys, ps, hist);
  }

  template <bool Canon>
  void count_impl(const U* keys, const core::pass& ps, std::vector<std::uint64_t>& hist) {
    const unsigned R = 1u << ps.bits;
    hist.assign(std::size_t(threads_) * R, 0);
    const codec_t codec = job_.codec;
    thread_pool::instance().run(threads_, [&](unsigned t) {
      std::vector<std::uint64_t> h(R, 0);
      for (std::uint64_t i = bounds_[t]; i < bounds_[t + 1]; ++i)
        ++h[core::digit_of<U>(xform<Canon>(codec, keys[i]), ps.shift, ps.bits)];
      std::copy(h.begin(), h.end(), hist.begin() + std::size_t(t) * R);
    });
  }

  void sort_passes(const std::vector<core::pass>& passes) {
    const std::size_t P = passes.size();
    // Key buffers: sorting in place ping-pongs user <-> scratch[0]; an argsort
    // reads the user's keys once, then ping-pongs scratch[0] <-> scratch[1]
    // and skips writing keys in its last pass.
    const U* ksrc = job_.keys;
    auto key_dst = [&](std::size_t p) -> U* {
      if (job_.keys_readonly) return p + 1 == P ? nullptr : job_.key_scratch[p % 2];
      return p % 2 == 0 ? job_.key_scratch[0] : job_.keys;
    };
    // Payload buffers: the last pass must land in job_.values.
    const V* vsrc = nullptr;
    if constexpr (has_value) vsrc = job_.pay == payload::values ? job_.values : nullptr;
    auto val_dst = [&](std::size_t p) -> V* {
      if constexpr (!has_value) return nullptr;
      else {
        if (job_.pay == payload::values)  // read user first: same parity rule as keys
          return p % 2 == 0 ? job_.value_scratch : job_.values;
        return (P - 1 - p) % 2 == 0 ? job_.values : job_.value_scratch;
      }
    };

    std::vector<std::uint64_t> hist;
    if (!msd_from_scan(passes[0], hist)) count(ksrc, passes[0], hist);
    for (std::size_t p = 0; p < P; ++p) {
      const core::pass* next = p + 1 < P ? &passes[p + 1] : nullptr;
      U* kd = key_dst(p);
      V* vd = val_dst(p);
      const bool gen = job_.pay == payload::index && p == 0;
      std::vector<std::uint64_t> next_hist;
      scatter(ksrc, kd, vsrc, vd, gen, passes[p], next, hist, next_hist);
      hist.swap(next_hist);
      ksrc = kd;
      vsrc = vd;
    }
    // In-place sorts with an odd pass count end in scratch: copy back.
    if (!job_.keys_readonly && P % 2 == 1) {
      copy_back(job_.key_scratch[0], job_.keys);
      if constexpr (has_value)
        if (job_.pay == payload::values) copy_back(job_.value_scratch, job_.values);
    }
  }

  // ---- hybrid: MSD pass into cache-sized buckets, then LSD per bucket --------

  void hybrid(int lo, int hi, U varying) {
    if (fine_ && hi > spec_shift_ && hi <= spec_shift_ + spec_bits_ &&
        std::all_of(spec_done_.begin(), spec_done_.end(), [](std::uint8_t d) { return d != 0; }))
      return hybrid_fine(lo, hi, varying);
    const std::uint64_t n = job_.n;
    const std::uint64_t elem = sizeof(U) + (has_value ? sizeof(V) : 0);
    const std::uint64_t target = std::max<std::uint64_t>(1024, policy_.bucket_bytes / elem);
    const int bits = hi - lo, dd = policy_.bucket_digit_bits;
    // MSD digit: enough bits for buckets of about `target` elements; widened
    // when that saves an in-cache pass and buckets stay >= target / 4.
    int d1 = std::max(1, int(std::bit_width((n - 1) / target)));
    d1 = std::min({d1, policy_.max_msd_bits, bits - 1});
    int p2 = (bits - d1 + dd - 1) / dd;
    const int wider = bits - dd * (p2 - 1);
    if (p2 > 1 && wider <= policy_.max_msd_bits && (n >> wider) >= target / 4) d1 = wider, --p2;
    const core::pass msd{hi - d1, d1};

    // The MSD pass: user -> scratch (keys and payload), indices generated.
    U* kmid = job_.key_scratch[0];
    V* vmid = nullptr;
    if constexpr (has_value) vmid = job_.value_scratch;
    std::vector<std::uint64_t> hist, none;
    if (!msd_from_scan(msd, hist)) count(job_.keys, msd, hist);
    const V* vsrc = nullptr;
    if constexpr (has_value) vsrc = job_.pay == payload::values ? job_.values : nullptr;
    trace_.mark("msd count");
    scatter(job_.keys, kmid, vsrc, vmid, job_.pay == payload::index, msd, nullptr, hist, none);
    trace_.mark("msd scatter");

    sort_buckets(hist, 1u << d1, target, lo, varying, [&](unsigned) { return hi - d1; });
    trace_.mark("buckets");
    trace_.print("hybrid", n, d1);
  }

  /// After the MSD pass (per-thread counts `hist` of R buckets): every bucket,
  /// in parallel, sorted on bits [lo, top(b)) and written to its final place.
  template <class Top>
  void sort_buckets(const std::vector<std::uint64_t>& hist, unsigned R, std::uint64_t target, int lo, U varying,
                    Top top) {
    // Bucket b spans [start[b], start[b + 1]) in scratch.
    std::vector<std::uint64_t> start(R + 1, 0);
    for (unsigned b = 0; b < R; ++b) {
      std::uint64_t c = 0;
      for (unsigned t = 0; t < threads_; ++t) c += hist[std::size_t(t) * R + b];
      start[b + 1] = start[b] + c;
    }
    const std::uint64_t cap = 4 * target;  // larger buckets ping-pong in place
    std::atomic<unsigned> next{0};
    thread_pool::instance().run(threads_, [&](unsigned) {
      bucket_worker w(*this, cap);
      for (unsigned b; (b = next.fetch_add(1, std::memory_order_relaxed)) < R;) {
        const std::uint64_t off = start[b], m = start[b + 1] - off;
        if (m == 0) continue;
        w.sort(off, m, lo, top(b), varying);
      }
      stream_fence();
    });
  }

  /// The hybrid route over a fine window (choose_fine_window): the scan's
  /// bins, in key order, are merged into buckets of about `target` keys and a
  /// table maps bin -> bucket for the MSD pass. A bucket whose keys fall in
  /// bins [a, e] is then sorted on the bits below the window plus the low
  /// bit_width(a ^ e) bits of it (the bits above are the same for all its keys).
  void hybrid_fine(int lo, int hi, U varying) {
    const std::uint64_t n = job_.n;
    const std::uint64_t elem = sizeof(U) + (has_value ? sizeof(V) : 0);
    const std::uint64_t target = std::max<std::uint64_t>(1024, policy_.bucket_bytes / elem);
    const unsigned SR = 1u << spec_bits_;
    std::vector<std::uint64_t> total(SR, 0);
    for (unsigned t = 0; t < threads_; ++t)
      for (unsigned w = 0; w < SR; ++w) total[w] += spec_hist_[std::size_t(t) * SR + w];

    // Greedy merge. A bucket also closes at an aligned block of 64 bins once it
    // holds target / 8 keys, so that a + e differ in few bits (few passes).
    std::vector<std::uint16_t> lut(SR);
    std::vector<unsigned> first, last;  // per bucket: its first and last non-empty bin
    std::uint64_t fill = 0;
    for (unsigned w = 0; w < SR; ++w) {
      const std::uint64_t c = total[w];
      if (first.empty() || (fill > 0 && (fill + c > target || (w % 64 == 0 && fill >= target / 8)))) {
        first.push_back(w);
        last.push_back(w);
        fill = 0;
      }
      lut[w] = std::uint16_t(first.size() - 1);
      if (c == 0) continue;
      if (fill == 0) first.back() = w;
      last.back() = w;
      fill += c;
    }
    const unsigned R = unsigned(first.size());
    std::vector<std::uint64_t> hist(std::size_t(threads_) * R, 0), none;
    for (unsigned t = 0; t < threads_; ++t)
      for (unsigned w = 0; w < SR; ++w) hist[std::size_t(t) * R + lut[w]] += spec_hist_[std::size_t(t) * SR + w];
    trace_.mark("fine plan");

    U* kmid = job_.key_scratch[0];
    V* vmid = nullptr;
    const V* vsrc = nullptr;
    if constexpr (has_value) {
      vmid = job_.value_scratch;
      vsrc = job_.pay == payload::values ? job_.values : nullptr;
    }
    const core::pass window{spec_shift_, spec_bits_};
    scatter(job_.keys, kmid, vsrc, vmid, job_.pay == payload::index, window, nullptr, hist, none, lut.data(), R);
    trace_.mark("msd scatter");

    sort_buckets(hist, R, target, lo, varying, [&](unsigned b) {
      return std::clamp(spec_shift_ + int(std::bit_width(first[b] ^ last[b])), lo, hi);
    });
    trace_.mark("buckets");
    trace_.print(("hybrid-fine buckets=" + std::to_string(R)).c_str(), n, spec_bits_);
  }

  /// Where the scan's speculative histogram looks: at the top of the key range
  /// (the hybrid route's MSD digit), or, when a sample of the first keys says
  /// that few bits vary, around them (the single pass of the plain route).
  /// A wrong guess costs only the counting read it meant to save.
  void choose_spec_window(bool hybrid_candidate) {
    const int width = job_.end_bit - job_.begin_bit;
    const int sb = std::min(policy_.max_msd_bits, width);
    spec_bits_ = sb;
    spec_shift_ = job_.end_bit - sb;
    const std::uint64_t m = std::min<std::uint64_t>(job_.n, 4096);
    U v = 0;
    const U ref = job_.codec(job_.keys[0]);
    for (std::uint64_t i = 1; i < m; ++i) v |= U(job_.codec(job_.keys[i]) ^ ref);
    v &= range_mask_;
    if (v == 0) return;
    const int lo = std::countr_zero(v), hi = int(sizeof(U)) * 8 - std::countl_zero(v);
    if (hybrid_candidate && hi - lo > policy_.bucket_digit_bits) return choose_fine_window(sb);
    spec_shift_ = std::max(job_.begin_bit, std::min(lo, job_.end_bit - sb));
  }

  /// Skewed inputs (floats: most keys share a few exponents; clustered or
  /// Zipf-like integers) put a large share of the keys into a few buckets of
  /// an MSD digit, and each such bucket costs one more out-of-cache pass. A
  /// strided sample decides: when one bin of a `sb`-bit digit would hold more
  /// than ~1/128 of the keys, the scan counts a finer 16-bit window below the
  /// sample's top varying bit, and the MSD pass maps those fine bins onto
  /// buckets of about equal size through a table (hybrid_fine).
  void choose_fine_window(int sb) {
    const int width = job_.end_bit - job_.begin_bit;
    const int fb = std::min(policy_.fine_msd_bits, width);
    if (fb <= sb || job_.n < 4 * sample_size) return;
    // Each thread counts 2^fb bins in the scan: worth it only with a few keys
    // a bin (a many-core machine sorting a few million keys stays coarse).
    if ((job_.n / threads_) >> fb < 4) return;
    const std::uint64_t step = job_.n / sample_size;
    const U ref = job_.codec(job_.keys[0]);
    U v = 0;
    for (std::uint64_t i = 0; i < sample_size; ++i) v |= U(job_.codec(job_.keys[i * step]) ^ ref);
    v &= range_mask_;
    if (v == 0) return;
    const int top = int(sizeof(U)) * 8 - std::countl_zero(v);
    const int shift = std::max(job_.begin_bit, top - sb);
    std::vector<std::uint32_t> h(std::size_t(1) << sb, 0);
    std::uint32_t most = 0;
    for (std::uint64_t i = 0; i < sample_size; ++i)
      most = std::max(most, ++h[core::digit_of<U>(job_.codec(job_.keys[i * step]), shift, sb)]);
    if (most * 128 < sample_size) return;  // no bin with > 1/128 of the sample
    fine_ = true;
    spec_bits_ = fb;
    spec_shift_ = std::max(job_.begin_bit, top - fb);
  }

  /// The MSD pass's per-thread histogram from the scan's speculative one, when
  /// every thread made one and the digit lies inside its window.
  bool msd_from_scan(const core::pass& msd, std::vector<std::uint64_t>& hist) {
    const int sb = spec_bits_;
    if (sb == 0) return false;
    const int sshift = spec_shift_;
    if (msd.shift < sshift || msd.shift + msd.bits > sshift + sb) return false;
    for (unsigned t = 0; t < threads_; ++t)
      if (!spec_done_[t]) return false;
    const unsigned R = 1u << msd.bits, SR = 1u << sb;
    const int down = msd.shift - sshift;
    hist.assign(std::size_t(threads_) * R, 0);
    for (unsigned t = 0; t < threads_; ++t)
      for (unsigned w = 0; w < SR; ++w)
        hist[std::size_t(t) * R + ((w >> down) & (R - 1))] += spec_hist_[std::size_t(t) * SR + w];
    return true;
  }

  /// One thread's sorter of buckets, with its cache-resident ping-pong buffers.
  struct bucket_worker {
    sorter& s;
    std::uint64_t cap;
    std::vector<U> ktmp;
    std::vector<V> vtmp;
    std::vector<std::uint32_t> h32, h32n;
    std::vector<std::uint64_t> h64, h64n;

    bucket_worker(sorter& owner, std::uint64_t c) : s(owner), cap(c) {}

    /// Sorts bucket [off, off + m) of the scratch arrays by bits [lo, hi) and
    /// writes it to its final place.
    void sort(std::uint64_t off, std::uint64_t m, int lo, int hi, U varying) {
      const lsd_job<U, V>& j = s.job_;
      // Buffers: A holds the bucket; F is its final place; P a partner region
      // of the same size outside the cache (F itself, or spare scratch for an
      // argsort's keys).
      U* ka = j.key_scratch[0] + off;
      U* kf = j.keys_readonly ? nullptr : j.keys + off;
      V* va = nullptr;
      V* vf = nullptr;
      if constexpr (has_value) {
        va = j.value_scratch + off;
        vf = j.values + off;
      }
      U* kp = j.keys_readonly ? j.key_scratch[1] + off : kf;
      sort_range(ka, va, kf, vf, kp, vf, m, lo, hi, varying, 0);
    }

    void sort_range(U* ka, V* va, U* kf, V* vf, U* kp, V* vp, std::uint64_t m, int lo, int hi, U varying, int depth) {
      // A bucket too big for the cache (skewed top bits: floats, clustered
      // keys) is split once more by its own MSD pass, into P.
      if (m > cap && depth == 0 && hi - lo > s.policy_.bucket_digit_bits) return split(ka, va, kf, vf, kp, vp, m, lo, hi, varying);
      const bool big = m > cap;
      U* kb;
      V* vb = nullptr;
      if (big) {  // no room in the cache buffers: ping-pong with P
        kb = kp;
        vb = vp;
      } else {
        if (ktmp.size() < m) ktmp.resize(std::max<std::uint64_t>(m, std::min(cap, 2 * m)));
        kb = ktmp.data();
        if constexpr (has_value) {
          if (vtmp.size() < m) vtmp.resize(ktmp.size());
          vb = vtmp.data();
        }
      }
      if (m <= s.policy_.tiny_bucket) return tiny(ka, va, kf, vf, m);

      // LSD passes ping-pong between A and B (both in cache for ordinary
      // buckets); a digit that is the same for the whole bucket is skipped.
      // The result is then copied to F in one sequential sweep, which is far
      // cheaper than scattering into memory that is not in the cache.
      const int dd = std::min<int>(s.policy_.bucket_digit_bits, std::max(4, int(std::bit_width(m)) - 3));
      const core::pass_plan plan = core::plan_passes(lo, hi, dd);
      std::vector<core::pass> passes;
      for (int i = 0; i < plan.count; ++i)
        if (!core::pass_is_trivial<U>(varying, plan[i])) passes.push_back(plan[i]);
      // 32-bit counters keep the histograms small (L1) for every ordinary bucket.
      if (m <= 0xFFFFFFFFull) run_passes(passes, h32, h32n, ka, kb, kf, va, vb, vf, m);
      else run_passes(passes, h64, h64n, ka, kb, kf, va, vb, vf, m);
    }

    /// One MSD pass over the top digit of [lo, hi) from A into P (write-
    /// combined), then each part sorted on the bits below, in place in P, with
    /// A as its out-of-cache partner.
    void split(U* ka, V* va, U* kf, V* vf, U* kp, V* vp, std::uint64_t m, int lo, int hi, U varying) {
      const std::uint64_t elem = sizeof(U) + (has_value ? sizeof(V) : 0);
      const std::uint64_t target = std::max<std::uint64_t>(1024, s.policy_.bucket_bytes / elem);
      int d = std::max(1, int(std::bit_width((m - 1) / target)));
      d = std::min({d, s.policy_.max_msd_bits, hi - lo - 1});
      const core::pass ps{hi - d, d};
      const unsigned R = 1u << d;
      std::vector<std::uint64_t> h(R + 1, 0);
      count_in_cache(ka, m, ps, h);
      for (unsigned b = 0; b < R; ++b)
        if (h[b] == m) return sort_range(ka, va, kf, vf, kp, vp, m, lo, hi - d, varying, 0);  // digit shared by all
      std::vector<std::uint64_t> start(R + 1, 0);
      for (unsigned b = 0; b < R; ++b) start[b + 1] = start[b] + h[b];
      if (s.job_.codec.canon) scatter_one<true>(ka, va, kp, vp, m, ps, start);
      else scatter_one<false>(ka, va, kp, vp, m, ps, start);
      stream_fence();
      for (unsigned b = 0; b < R; ++b) {
        const std::uint64_t o = start[b], c = start[b + 1] - o;
        if (c == 0) continue;
        V* vpo = nullptr;
        V* vao = nullptr;
        V* vfo = nullptr;
        if constexpr (has_value) vpo = vp + o, vao = va + o, vfo = vf + o;
        sort_range(kp + o, vpo, kf ? kf + o : nullptr, vfo, ka + o, vao, c, lo, hi - d, varying, 1);
      }
    }

    /// Single-thread write-combined scatter of m keys (and values) by one digit.
    template <bool Canon>
    void scatter_one(const U* ks, const V* vs, U* kd, V* vd, std::uint64_t m, core::pass ps,
                     const std::vector<std::uint64_t>& start) {
      const unsigned R = 1u << ps.bits;
      constexpr unsigned KL = 64 / sizeof(U);
      constexpr unsigned VL = has_value ? unsigned(64 / sizeof(V)) : 1u;
      std::vector<std::uint64_t> pos(start.begin(), start.begin() + R);
      std::vector<U> kl(std::size_t(R) * KL + KL);
      std::vector<V> vl(has_value ? std::size_t(R) * VL + VL : 0);
      auto align64 = [](auto* p) {
        return reinterpret_cast<decltype(p)>((reinterpret_cast<std::uintptr_t>(p) + 63) & ~std::uintptr_t(63));
      };
      U* kbuf = align64(kl.data());
      V* vbuf = has_value ? align64(vl.data()) : nullptr;
      const bool kwc = wc_usable(kd);
      const unsigned kskew = unsigned((reinterpret_cast<std::uintptr_t>(kd) % 64) / sizeof(U));
      bool vwc = false;
      unsigned vskew = 0;
      if constexpr (has_value) {
        vwc = wc_usable(vd);
        vskew = unsigned((reinterpret_cast<std::uintptr_t>(vd) % 64) / sizeof(V));
      }
      const codec_t c = s.job_.codec;
      for (std::uint64_t i = 0; i < m; ++i) {
        const U k = ks[i];
        const unsigned b = core::digit_of<U>(xform<Canon>(c, k), ps.shift, ps.bits);
        const std::uint64_t p = pos[b]++;
        if (kwc) wc_put<U, KL>(kbuf + std::size_t(b) * KL, kd, kskew, p, start.data() + b, k);
        else kd[p] = k;
        if constexpr (has_value) {
          if (vwc) wc_put<V, VL>(vbuf + std::size_t(b) * VL, vd, vskew, p, start.data() + b, vs[i]);
          else vd[p] = vs[i];
        }
      }
      for (unsigned b = 0; b < R; ++b) {
        if (kwc) wc_drain<U, KL>(kbuf + std::size_t(b) * KL, kd, kskew, pos[b], start[b]);
        if constexpr (has_value)
          if (vwc) wc_drain<V, VL>(vbuf + std::size_t(b) * VL, vd, vskew, pos[b], start[b]);
      }
    }

    template <class C>
    void run_passes(const std::vector<core::pass>& passes, std::vector<C>& hist, std::vector<C>& hist_next, U* ka,
                    U* kb, U* kf, V* va, V* vb, V* vf, std::uint64_t m) {
      U* kc = ka;
      U* ko = kb;
      V* vc = va;
      V* vo = vb;
      bool counted = false;  // hist holds the counts of passes[q]
      for (std::size_t q = 0; q < passes.size(); ++q) {
        const core::pass ps = passes[q];
        if (!counted) count_in_cache(kc, m, ps, hist);
        // A digit the whole bucket shares moves nothing.
        bool trivial = false;
        for (unsigned b = 0, R = 1u << ps.bits; b < R; ++b) trivial |= hist[b] == m;
        counted = false;
        if (trivial) continue;
        const core::pass* next = q + 1 < passes.size() ? &passes[q + 1] : nullptr;
        if (s.job_.codec.canon) pass_in_cache<true>(kc, ko, vc, vo, m, ps, next, hist, hist_next);
        else pass_in_cache<false>(kc, ko, vc, vo, m, ps, next, hist, hist_next);
        counted = next != nullptr;
        hist.swap(hist_next);
        std::swap(kc, ko);
        if constexpr (has_value) std::swap(vc, vo);
      }
      if (kf && kc != kf) stream_copy(kf, kc, std::size_t(m) * sizeof(U));
      if constexpr (has_value)
        if (vc != vf) stream_copy(vf, vc, std::size_t(m) * sizeof(V));
    }

    template <class C>
    void count_in_cache(const U* ks, std::uint64_t m, core::pass ps, std::vector<C>& h) {
      h.assign(std::size_t(1) << ps.bits, 0);
      const codec_t c = s.job_.codec;
      if (c.canon)
        for (std::uint64_t i = 0; i < m; ++i) ++h[core::digit_of<U>(xform<true>(c, ks[i]), ps.shift, ps.bits)];
      else
        for (std::uint64_t i = 0; i < m; ++i) ++h[core::digit_of<U>(xform<false>(c, ks[i]), ps.shift, ps.bits)];
    }

    /// One counting-sort pass of a bucket from (ks, vs) to (kd, vd) with the
    /// counts in `hist`; counts the next pass's digits on the way.
    template <bool Canon, class C>
    void pass_in_cache(const U* ks, U* kd, const V* vs, V* vd, std::uint64_t m, core::pass ps, const core::pass* next,
                       std::vector<C>& hist, std::vector<C>& hist_next) {
      const unsigned Rp = 1u << ps.bits;
      const codec_t c = s.job_.codec;
      C* h = hist.data();
      C run = 0;
      for (unsigned b = 0; b < Rp; ++b) {
        const C n = h[b];
        h[b] = run;
        run += n;
      }
      if (next) {
        hist_next.assign(std::size_t(1) << next->bits, 0);
        C* hn = hist_next.data();
        const core::pass nx = *next;
        for (std::uint64_t i = 0; i < m; ++i) {
          const U k = ks[i];
          const U o = xform<Canon>(c, k);
          const C p = h[core::digit_of<U>(o, ps.shift, ps.bits)]++;
          ++hn[core::digit_of<U>(o, nx.shift, nx.bits)];
          kd[p] = k;
          if constexpr (has_value) vd[p] = vs[i];
        }
      } else {
        for (std::uint64_t i = 0; i < m; ++i) {
          const U k = ks[i];
          const C p = h[core::digit_of<U>(xform<Canon>(c, k), ps.shift, ps.bits)]++;
          kd[p] = k;
          if constexpr (has_value) vd[p] = vs[i];
        }
      }
    }

    /// Stable insertion sort of a tiny bucket from A into F.
    void tiny(const U* ka, const V* va, U* kf, V* vf, std::uint64_t m) {
      const codec_t c = s.job_.codec;
      const U mask = s.range_mask_;
      U kk[64];
      V vv[64];
      U oo[64];
      for (std::uint64_t i = 0; i < m; ++i) {
        const U k = ka[i];
        const U o = U(c(k) & mask);
        V v{};
        if constexpr (has_value) v = va[i];
        std::uint64_t j = i;
        while (j > 0 && oo[j - 1] > o) {
          kk[j] = kk[j - 1];
          oo[j] = oo[j - 1];
          if constexpr (has_value) vv[j] = vv[j - 1];
          --j;
        }
        kk[j] = k;
        oo[j] = o;
        if constexpr (has_value) vv[j] = v;
      }
      if (kf) std::memcpy(kf, kk, std::size_t(m) * sizeof(U));
      if constexpr (has_value) std::memcpy(vf, vv, std::size_t(m) * sizeof(V));
    }
  };

  template <class T>
  void copy_back(const T* from, T* to) {
    thread_pool::instance().run(threads_, [&](unsigned t) {
      stream_copy(to + bounds_[t], from + bounds_[t], std::size_t(bounds_[t + 1] - bounds_[t]) * sizeof(T));
      stream_fence();
    });
  }

  /// One pass: every thread moves its chunk [bound[t], bound[t+1]) of src to
  /// the offsets the histograms give, and, when there is a next pass, counts
  /// the next digit of each key by the chunk its destination falls in.
  /// With a `lut` (hybrid_fine), a key's bucket is lut[digit of ps] and there
  /// are `lut_buckets` of them; there is no next pass then.
  void scatter(const U* ks, U* kd, const V* vs, V* vd, bool gen, const core::pass& ps, const core::pass* next,
               const std::vector<std::uint64_t>& hist, std::vector<std::uint64_t>& next_hist,
               const std::uint16_t* lut = nullptr, unsigned lut_buckets = 0) {
    const unsigned R = lut ? lut_buckets : 1u << ps.bits;
    const unsigned T = threads_;
    // Exclusive offsets: digit-major, then thread (stability).
    std::vector<std::uint64_t> offs(std::size_t(T) * R);
    std::uint64_t run = 0;
    for (unsigned b = 0; b < R; ++b)
      for (unsigned t = 0; t < T; ++t) {
        offs[std::size_t(t) * R + b] = run;
        run += hist[std::size_t(t) * R + b];
      }
    const unsigned Rn = next ? 1u << next->bits : 0;
    std::vector<std::vector<std::uint64_t>> partial(T);
    thread_pool::instance().run(T, [&](unsigned t) {
      std::vector<std::uint64_t>& nh = partial[t];
      nh.assign(std::size_t(T) * Rn, 0);
      const std::uint64_t* off = offs.data() + std::size_t(t) * R;
      const bool keys_out = kd != nullptr;
      const bool vals_out = has_value && vd != nullptr;
      // Dispatch to a loop specialised for what this pass moves and counts.
      auto go = [&](auto count_next, auto move_keys, auto move_vals, auto gen_idx) {
        constexpr bool C = decltype(count_next)::value, K = decltype(move_keys)::value,
                       M = decltype(move_vals)::value, G = decltype(gen_idx)::value;
        const core::pass nx = next ? *next : ps;
        if constexpr (!C) {
          if (lut) {
            if (job_.codec.canon) scatter_chunk<C, K, M, G, true, true>(t, ks, kd, vs, vd, ps, nx, R, lut, off, nh.data());
            else scatter_chunk<C, K, M, G, false, true>(t, ks, kd, vs, vd, ps, nx, R, lut, off, nh.data());
            return;
          }
        }
        if (job_.codec.canon)
          scatter_chunk<C, K, M, G, true, false>(t, ks, kd, vs, vd, ps, nx, R, nullptr, off, nh.data());
        else
          scatter_chunk<C, K, M, G, false, false>(t, ks, kd, vs, vd, ps, nx, R, nullptr, off, nh.data());
      };
      using Y = std::true_type;
      using N = std::false_type;
      if constexpr (has_value) {
        if (next) {
          if (gen) go(Y{}, Y{}, Y{}, Y{});
          else go(Y{}, Y{}, Y{}, N{});
        } else if (!keys_out) {
          if (gen) go(N{}, N{}, Y{}, Y{});
          else go(N{}, N{}, Y{}, N{});
        } else {
          if (gen) go(N{}, Y{}, Y{}, Y{});
          else go(N{}, Y{}, Y{}, N{});
        }
        (void)vals_out;
      } else {
        if (next) go(Y{}, Y{}, N{}, N{});
        else go(N{}, Y{}, N{}, N{});
      }
    });
    if (next) {
      next_hist.assign(std::size_t(T) * Rn, 0);
      for (unsigned t = 0; t < T; ++t)
        for (std::size_t i = 0; i < next_hist.size(); ++i) next_hist[i] += partial[t][i];
    }
  }

  template <bool CountNext, bool MoveKeys, bool MoveVals, bool Gen, bool Canon, bool Lut>
  void scatter_chunk(unsigned t, const U* ks, U* kd, const V* vs, V* vd, const core::pass ps, const core::pass nx,
                     unsigned R, const std::uint16_t* lut, const std::uint64_t* off, std::uint64_t* nh) {
    const std::uint64_t b0 = bounds_[t], b1 = bounds_[t + 1];
    if (b0 == b1) return;
    const codec_t codec = job_.codec;
    const unsigned Rn = CountNext ? 1u << nx.bits : 0;
    const std::uint64_t* bounds = bounds_.data();

    // Per-bucket state as separate arrays: every key touches pos[b]; start[b]
    // is read only when a write-combining line fills; lim/chunk only when
    // counting the next digit by destination chunk.
    std::vector<std::uint64_t> pos_v(off, off + R), start_v(off, off + R), lim_v, chunk_v;
    std::uint64_t* pos = pos_v.data();
    const std::uint64_t* start = start_v.data();
    if constexpr (CountNext) {
      lim_v.resize(R);
      chunk_v.resize(R);
      for (unsigned b = 0; b < R; ++b) {
        unsigned c = 0;
        while (bounds[c + 1] <= off[b] && c + 1 < threads_) ++c;
        chunk_v[b] = std::uint64_t(c) * Rn;
        lim_v[b] = bounds[c + 1];
      }
    }
    std::uint64_t* lim = lim_v.data();
    std::uint64_t* chunk = chunk_v.data();
    // Write-combining lines for keys and values; plain stores where the
    // destination is not aligned to its element size.
    constexpr unsigned KL = 64 / sizeof(U);
    constexpr unsigned VL = has_value ? unsigned(64 / sizeof(V)) : 1u;
    const bool kwc = MoveKeys && wc_usable(kd);
    bool vwc = false;
    if constexpr (MoveVals) vwc = wc_usable(vd);
    std::vector<U> kbuf_store(MoveKeys ? std::size_t(R) * KL + KL : 0);
    std::vector<V> vbuf_store(MoveVals ? std::size_t(R) * VL + VL : 0);
    auto align64 = [](auto* p) {
      return reinterpret_cast<decltype(p)>((reinterpret_cast<std::uintptr_t>(p) + 63) & ~std::uintptr_t(63));
    };
    U* kbuf = MoveKeys ? align64(kbuf_store.data()) : nullptr;
    V* vbuf = MoveVals ? align64(vbuf_store.data()) : nullptr;
    const unsigned kskew = MoveKeys ? unsigned((reinterpret_cast<std::uintptr_t>(kd) % 64) / sizeof(U)) : 0;
    unsigned vskew = 0;
    if constexpr (MoveVals) vskew = unsigned((reinterpret_cast<std::uintptr_t>(vd) % 64) / sizeof(V));

    for (std::uint64_t i = b0; i < b1; ++i) {
      const U k = ks[i];
      const U o = xform<Canon>(codec, k);
      unsigned b = core::digit_of<U>(o, ps.shift, ps.bits);
      if constexpr (Lut) b = lut[b];
      const std::uint64_t p = pos[b]++;
      if constexpr (CountNext) {
        if (p >= lim[b]) [[unlikely]] {
          unsigned c = unsigned(chunk[b] / Rn);
          while (bounds[c + 1] <= p) ++c;
          chunk[b] = std::uint64_t(c) * Rn;
          lim[b] = bounds[c + 1];
        }
        ++nh[chunk[b] + core::digit_of<U>(o, nx.shift, nx.bits)];
      }
      if constexpr (MoveKeys) {
        if (kwc) wc_put<U, KL>(kbuf + std::size_t(b) * KL, kd, kskew, p, start + b, k);
        else kd[p] = k;
      }
      if constexpr (MoveVals) {
        const V v = Gen ? V(i) : vs[i];
        if (vwc) wc_put<V, VL>(vbuf + std::size_t(b) * VL, vd, vskew, p, start + b, v);
        else vd[p] = v;
      }
    }
    for (unsigned b = 0; b < R; ++b) {
      if constexpr (MoveKeys)
        if (kwc) wc_drain<U, KL>(kbuf + std::size_t(b) * KL, kd, kskew, pos[b], start[b]);
      if constexpr (MoveVals)
        if (vwc) wc_drain<V, VL>(vbuf + std::size_t(b) * VL, vd, vskew, pos[b], start[b]);
    }
    stream_fence();
  }

  lsd_job<U, V> job_;
  const lsd_policy& policy_;
  phase_trace trace_;
  static constexpr std::uint64_t sample_size = 4096;  // keys sampled by choose_fine_window
  bool fine_ = false;                      // the scan counts a fine window (choose_fine_window)
  int spec_bits_ = 0;                      // width of the scan's speculative histogram
  int spec_shift_ = 0;                     // its lowest bit
  std::vector<std::uint64_t> spec_hist_;   // [thread][2^spec_bits_]
  std::vector<std::uint8_t> spec_done_;    // thread counted its whole chunk
  unsigned threads_ = 1;
  std::vector<std::uint64_t> bounds_;
  U range_mask_ = 0;
};

}  // namespace lsd_detail

template <class U, class V>
void lsd_sort(const lsd_job<U, V>& job) {
  lsd_detail::sorter<U, V>(job).run();
}

}  // namespace radix::cpu
