// Implementation of lsd_sort (see lsd.hpp for the algorithm). Included only by
// the per-width instantiation files lsd_k1/2/4/8.cpp.
#pragma once
#include <algorithm>
#include <bit>
#include <memory>
#include <numeric>
#include <vector>

#include "lsd.hpp"
#include "thread_pool.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace radix::cpu {
namespace lsd_detail {

/// Copies one 64-byte, 64-byte-aligned line to memory without reading the
/// destination into the cache (streaming store; SSE2 is x86-64 baseline).
inline void stream_line(void* dst, const void* src) {
#if defined(__SSE2__)
  auto* d = static_cast<__m128i*>(dst);
  auto* s = static_cast<const __m128i*>(src);
  _mm_stream_si128(d + 0, _mm_load_si128(s + 0));
  _mm_stream_si128(d + 1, _mm_load_si128(s + 1));
  _mm_stream_si128(d + 2, _mm_load_si128(s + 2));
  _mm_stream_si128(d + 3, _mm_load_si128(s + 3));
#else
  std::memcpy(dst, src, 64);
#endif
}
inline void stream_fence() {
#if defined(__SSE2__)
  _mm_sfence();
#endif
}

/// Per-bucket write-combining lines for one array of T: elements of a bucket
/// gather in a 64-byte line that mirrors the destination's line, and a full
/// line leaves with one streaming store.
template <class T>
struct wc_lines {
  static constexpr unsigned per_line = 64 / sizeof(T);
  T* base = nullptr;          // destination array
  unsigned skew = 0;          // slot of element 0 of base in its line
  std::vector<T, std::allocator<T>> storage;
  T* lines = nullptr;         // [buckets][per_line], 64-byte aligned

  void init(T* dst, unsigned buckets) {
    base = dst;
    skew = unsigned((reinterpret_cast<std::uintptr_t>(dst) % 64) / sizeof(T));
    storage.resize(std::size_t(buckets) * per_line + per_line);
    auto p = reinterpret_cast<std::uintptr_t>(storage.data());
    lines = reinterpret_cast<T*>((p + 63) & ~std::uintptr_t(63));
  }
  /// Puts x at destination index pos (bucket b, whose first index for this
  /// thread is start); flushes the line when it fills.
  inline void put(unsigned b, std::uint64_t pos, std::uint64_t start, const T& x) {
    const unsigned slot = unsigned((pos + skew) % per_line);
    T* line = lines + std::size_t(b) * per_line;
    line[slot] = x;
    if (slot == per_line - 1) {
      const std::uint64_t first = pos - (per_line - 1);
      if (first >= start && first <= pos)  // whole line is ours (and no wrap)
        stream_line(base + first, line);
      else
        std::memcpy(base + start, line + (slot - (pos - start)), std::size_t(pos - start + 1) * sizeof(T));
    }
  }
  /// Writes out what is left in bucket b's line; end is one past the last index.
  inline void drain(unsigned b, std::uint64_t end, std::uint64_t start) {
    if (end == start) return;
    const unsigned filled = unsigned((end + skew) % per_line);  // slots used in the open line
    if (filled == 0) return;                                    // last line was flushed
    const std::uint64_t first = end - start < filled ? start : end - filled;
    const T* line = lines + std::size_t(b) * per_line;
    std::memcpy(base + first, line + (first + skew) % per_line, std::size_t(end - first) * sizeof(T));
  }
};

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
    bool sorted = true;
    U varying = 0;
    scan(sorted, varying);
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
    sort_passes(passes);
  }

 private:
  U ordered(U k) const { return job_.codec(k); }

  void scan(bool& sorted, U& varying) {
    std::vector<std::uint8_t> unsorted(threads_, 0);
    std::vector<U> vary(threads_, 0);
    const U* keys = job_.keys;
    const codec_t codec = job_.codec;
    const U mask = range_mask_;
    const U ref = codec(keys[0]);
    thread_pool::instance().run(threads_, [&](unsigned t) {
      std::uint64_t i = bounds_[t], e = bounds_[t + 1];
      U prev = i ? U(codec(keys[i - 1]) & mask) : U(0);
      U v = 0;
      unsigned bad = 0;
      for (; i < e; ++i) {
        const U o = codec(keys[i]);
        v |= U(o ^ ref);
        const U m = U(o & mask);
        bad |= unsigned(m < prev);
        prev = m;
      }
      vary[t] = v;
      unsorted[t] = std::uint8_t(bad);
    });
    for (unsigned t = 0; t < threads_; ++t) {
      varying |= vary[t];
      if (unsorted[t]) sorted = false;
    }
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
    const unsigned R = 1u << ps.bits;
    hist.assign(std::size_t(threads_) * R, 0);
    const codec_t codec = job_.codec;
    thread_pool::instance().run(threads_, [&](unsigned t) {
      std::vector<std::uint64_t> h(R, 0);
      for (std::uint64_t i = bounds_[t]; i < bounds_[t + 1]; ++i)
        ++h[core::digit_of<U>(codec(keys[i]), ps.shift, ps.bits)];
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
    count(ksrc, passes[0], hist);
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

  template <class T>
  void copy_back(const T* from, T* to) {
    thread_pool::instance().run(threads_, [&](unsigned t) {
      std::memcpy(to + bounds_[t], from + bounds_[t], std::size_t(bounds_[t + 1] - bounds_[t]) * sizeof(T));
    });
  }

  /// One pass: every thread moves its chunk [bound[t], bound[t+1]) of src to
  /// the offsets the histograms give, and, when there is a next pass, counts
  /// the next digit of each key by the chunk its destination falls in.
  void scatter(const U* ks, U* kd, const V* vs, V* vd, bool gen, const core::pass& ps, const core::pass* next,
               const std::vector<std::uint64_t>& hist, std::vector<std::uint64_t>& next_hist) {
    const unsigned R = 1u << ps.bits;
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
      if (next)
        scatter_chunk<true>(t, ks, kd, vs, vd, gen, ps, *next, off, R, nh.data());
      else
        scatter_chunk<false>(t, ks, kd, vs, vd, gen, ps, ps, off, R, nullptr);
    });
    if (next) {
      next_hist.assign(std::size_t(T) * Rn, 0);
      for (unsigned t = 0; t < T; ++t)
        for (std::size_t i = 0; i < next_hist.size(); ++i) next_hist[i] += partial[t][i];
    }
  }

  template <bool CountNext>
  void scatter_chunk(unsigned t, const U* ks, U* kd, const V* vs, V* vd, bool gen, const core::pass ps,
                     const core::pass nx, const std::uint64_t* off, unsigned R, std::uint64_t* nh) {
    const std::uint64_t b0 = bounds_[t], b1 = bounds_[t + 1];
    if (b0 == b1) return;
    const codec_t codec = job_.codec;
    const unsigned Rn = CountNext ? 1u << nx.bits : 0;
    // Per-bucket state: next index, first index, destination chunk and its end.
    std::vector<std::uint64_t> pos(off, off + R), start(off, off + R), lim(R);
    std::vector<unsigned> chunk(R);
    if constexpr (CountNext) {
      for (unsigned b = 0; b < R; ++b) {
        unsigned c = 0;
        while (bounds_[c + 1] <= pos[b] && c + 1 < threads_) ++c;
        chunk[b] = c;
        lim[b] = bounds_[c + 1];
      }
    }
    const bool wc_keys = kd && wc_usable(kd);
    bool wc_vals = false;
    wc_lines<U> kl;
    wc_lines<V> vl;
    if (wc_keys) kl.init(kd, R);
    if constexpr (has_value) {
      wc_vals = vd && wc_usable(vd);
      if (wc_vals) vl.init(vd, R);
    }

    for (std::uint64_t i = b0; i < b1; ++i) {
      const U k = ks[i];
      const U o = codec(k);
      const unsigned b = core::digit_of<U>(o, ps.shift, ps.bits);
      const std::uint64_t p = pos[b]++;
      if constexpr (CountNext) {
        if (p >= lim[b]) {
          unsigned c = chunk[b];
          while (bounds_[c + 1] <= p) ++c;
          chunk[b] = c;
          lim[b] = bounds_[c + 1];
        }
        ++nh[std::size_t(chunk[b]) * Rn + core::digit_of<U>(o, nx.shift, nx.bits)];
      }
      if (kd) {
        if (wc_keys) kl.put(b, p, start[b], k);
        else kd[p] = k;
      }
      if constexpr (has_value) {
        if (vd) {
          const V v = gen ? V(i) : vs[i];
          if (wc_vals) vl.put(b, p, start[b], v);
          else vd[p] = v;
        }
      }
    }
    for (unsigned b = 0; b < R; ++b) {
      if (wc_keys) kl.drain(b, pos[b], start[b]);
      if constexpr (has_value)
        if (wc_vals) vl.drain(b, pos[b], start[b]);
    }
    stream_fence();
  }

  lsd_job<U, V> job_;
  const lsd_policy& policy_;
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
