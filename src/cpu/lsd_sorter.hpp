// The CPU LSD sort's shared pieces (see lsd.hpp for the algorithm): the helpers
// every phase uses (write-combining spans, streaming copies, chunk bounds,
// phase_trace) and the declaration of sorter<U, V>, whose phases are defined
// out of class in the files named below (the layout of ips2ra's Sorter).
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
#include <stdexcept>
#include <thread>
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
/// Asks for [p, p + bytes) in the cache (L2 and outward), a line at a time,
/// without waiting for it.
inline void prefetch_block(const void* p, std::size_t bytes) {
#if defined(__GNUC__) || defined(__clang__)
  const auto* c = static_cast<const char*>(p);
  for (std::size_t o = 0; o < bytes; o += 64) __builtin_prefetch(c + o, 0, 2);
#else
  (void)p, (void)bytes;
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

/// Write-combining: a bucket's elements gather in a span of wc_span_bytes that
/// mirrors the destination's cache lines (slot = (index + skew) % L), and a
/// full span leaves with streaming stores, one per line. Only the first span of
/// a bucket can be partial (it may share a line with a neighbour), and it is
/// copied plainly.
/// The span is four lines, not one: whether a key fills its bucket's span is a
/// branch no predictor learns (taken once in L keys, at random), and its misses
/// cost the scatter more than the larger buffers' cache footprint
/// (bench/results/cpu-2026-12-04-wc-span.md).
inline constexpr std::size_t wc_span_bytes = 256;

template <class T, unsigned L>
[[gnu::always_inline]] inline void wc_put(T* line, T* base, unsigned skew, std::uint64_t pos,
                                          const std::uint64_t* start_p, const T& x) {
  static_assert(L * sizeof(T) % 64 == 0, "a span is whole cache lines");
  constexpr unsigned per_line = unsigned(64 / sizeof(T));
  const unsigned slot = unsigned((pos + skew) % L);
  line[slot] = x;
  if (slot == L - 1) [[unlikely]] {
    const std::uint64_t start = *start_p;  // read only here: one key in L
    const std::uint64_t first = pos - (L - 1);
    if (first >= start && first <= pos) {  // the whole span is ours (and no wrap-around)
      for (unsigned q = 0; q < L; q += per_line) stream_line(base + first + q, line + q);
    } else {
      std::memcpy(base + start, line + (slot - (pos - start)), std::size_t(pos - start + 1) * sizeof(T));
    }
  }
}

/// Writes out what is left in a bucket's span; end is one past its last index.
template <class T, unsigned L>
inline void wc_drain(const T* line, T* base, unsigned skew, std::uint64_t end, std::uint64_t start) {
  if (end == start) return;
  const unsigned filled = unsigned((end + skew) % L);  // slots used in the open span
  if (filled == 0) return;                             // the last span was flushed
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

/// What a scatter pass writes besides the keys.
enum class value_flow : std::uint8_t {
  none,       ///< keys only
  moved,      ///< each key's value (or index) travels with it
  generated,  ///< the value is the key's position: an argsort's first pass writes indices it never read
};
/// Where a key's destination bucket comes from.
enum class bucket_source : std::uint8_t {
  digit,  ///< the pass's digit
  table,  ///< a table of the digit (hybrid_fine: neighbouring digits share a bucket); never with a next pass
  /// a table of the raw key's digit: the transform folded into the table, which
  /// needs a digit of the ordered bits that is a function of the same digit of
  /// the key (integer keys; floats when the window holds the sign bit)
  raw_table,
};
/// One scatter loop's shape, fixed at compile time: sorter::scatter_chunk is
/// one loop per shape, so that a pass pays only for what it does.
struct scatter_shape {
  bool count_next = false;  ///< counts the next pass's digits by destination chunk (another pass follows)
  bool move_keys = true;    ///< writes the keys (an argsort's last pass writes only indices)
  value_flow values = value_flow::none;
  core::key_form transform = core::key_form::biased;  ///< how ordered bits are formed (sorter::with_form)
  bucket_source buckets = bucket_source::digit;
};

template <class U, class V>
class sorter {
 public:
  using codec_t = core::ordered_codec<U>;
  static constexpr bool has_value = !std::is_same_v<V, no_value>;

  explicit sorter(const lsd_job<U, V>& job) : job_(job), policy_(default_policy()) {}

  // ---- lsd_impl.hpp: the driver (scan, plan the passes, pick the route) ------
  void run();

 private:
  U ordered(U k) const { return job_.codec(k); }

  template <core::key_form F>
  static U xform(const codec_t& c, U k) {
    return core::ordered_as<F>(c, k);
  }
  /// Calls fn.template operator()<F>() with the cheapest form the codec
  /// allows: integer keys are one XOR (linear), which leaves the hot loops
  /// three instructions a key shorter than the biased form's sign test.
  template <class Fn>
  static void with_form(const codec_t& c, Fn&& fn) {
    if (c.canon) fn.template operator()<core::key_form::canonical>();
    else if (c.linear()) fn.template operator()<core::key_form::linear>();
    else fn.template operator()<core::key_form::biased>();
  }

  // ---- lsd_scan.hpp: the upfront read, trivial routes, first count ------------
  void scan(bool& sorted, U& varying);
  template <core::key_form F, bool Detect>
  bool scan_impl(bool& sorted, U& varying);
  void identity();
  void small_sort();
  bool expand_candidate() const;
  bool can_expand(int lo, int hi, U all_varying) const;
  void expand(int lo, int hi);
  void count(const U* keys, const core::pass& ps, std::vector<std::uint64_t>& hist);
  std::vector<std::uint64_t> digit_starts(const std::vector<std::uint64_t>& hist, unsigned R) const;
  template <core::key_form F>
  void count_impl(const U* keys, const core::pass& ps, std::vector<std::uint64_t>& hist);

  // ---- lsd_passes.hpp: out-of-cache LSD passes (the plain route) --------------
  void sort_passes(const std::vector<core::pass>& passes);
  void in_cache(int lo, int hi, U varying);
  void stage_in_scratch(std::uint64_t off, std::uint64_t m);
  template <class T>
  void copy_back(const T* from, T* to);
  void scatter(const U* ks, U* kd, const V* vs, V* vd, bool gen, const core::pass& ps, const core::pass* next,
               const std::vector<std::uint64_t>& hist, std::vector<std::uint64_t>& next_hist,
               const std::uint16_t* lut = nullptr, unsigned lut_buckets = 0,
               bucket_source lut_reads = bucket_source::table);
  template <scatter_shape S>
  void scatter_chunk(unsigned t, const U* ks, U* kd, const V* vs, V* vd, const core::pass ps, const core::pass nx,
                     unsigned R, const std::uint16_t* lut, const std::uint64_t* off, std::uint64_t* nh);

  // ---- lsd_in_place.hpp: keys alone with no key scratch ------------------------
  void in_place_route(int lo, int hi, U varying);
  std::vector<std::uint64_t> distribute_in_place(U* a, std::uint64_t m, core::pass ps, unsigned threads);

  // ---- lsd_hybrid.hpp: MSD pass into cache-sized buckets, then LSD per bucket
  int msd_digit_bits(std::uint64_t n, int bits, std::uint64_t target) const;
  void hybrid(int lo, int hi, U varying);
  template <class Top>
  void sort_buckets(const std::vector<std::uint64_t>& hist, unsigned R, std::uint64_t target, int lo, U varying,
                    Top top);
  void hybrid_fine(int lo, int hi, U varying);
  void choose_spec_window(bool hybrid_candidate);
  void choose_fine_window(int sb);
  bool msd_from_scan(const core::pass& msd, std::vector<std::uint64_t>& hist);

  // ---- lsd_bucket.hpp: one thread's in-cache sort of a bucket (its members) --
  /// One thread's sorter of buckets, with its cache-resident ping-pong buffers.
  struct bucket_worker {
    sorter& s;
    std::uint64_t cap;
    std::vector<U> ktmp;
    std::vector<V> vtmp;
    std::vector<std::uint32_t> h32, h32n;
    std::vector<std::uint64_t> h64, h64n;

    /// The transform of the bucket at hand (take_codec): the job's, or its
    /// one-XOR form where every key of the bucket has the same sign.
    codec_t codec;

    bucket_worker(sorter& owner, std::uint64_t c) : s(owner), cap(c), codec(owner.job_.codec) {}

    void take_codec(const U* keys, std::uint64_t m, int hi);

    void sort(std::uint64_t off, std::uint64_t m, int lo, int hi, U varying);
    void sort_in_place(U* a, std::uint64_t m, int lo, int hi, U varying);
    void prefetch(std::uint64_t off, std::uint64_t m) const;
    void sort_range(U* ka, V* va, U* kf, V* vf, U* kp, V* vp, std::uint64_t m, int lo, int hi, U varying, int depth);
    void split(U* ka, V* va, U* kf, V* vf, U* kp, V* vp, std::uint64_t m, int lo, int hi, U varying);
    template <core::key_form F>
    void scatter_one(const U* ks, const V* vs, U* kd, V* vd, std::uint64_t m, core::pass ps,
                     const std::vector<std::uint64_t>& start);
    template <class C>
    void run_passes(const std::vector<core::pass>& passes, std::vector<C>& hist, std::vector<C>& hist_next, U* ka,
                    U* kb, U* kf, V* va, V* vb, V* vf, std::uint64_t m);
    template <class C>
    void count_in_cache(const U* ks, std::uint64_t m, core::pass ps, std::vector<C>& h);
    template <core::key_form F, class C>
    void pass_in_cache(const U* ks, U* kd, const V* vs, V* vd, std::uint64_t m, core::pass ps, const core::pass* next,
                       std::vector<C>& hist, std::vector<C>& hist_next);
    void tiny(const U* ka, const V* va, U* kf, V* vf, std::uint64_t m);
  };

  // ---- lsd_segments.hpp: a batch of short segments, each in one thread's cache
 public:
  /// One thread's sorter of whole segments of the job's arrays: the segment
  /// is copied into scratch at its offset and sorted there by the hybrid
  /// route's in-cache bucket sort, which writes it back in order.
  /// Before segment workers run: what run() sets up that they read.
  void prepare_segments() {
    range_mask_ = core::bit_range_mask<U>(job_.begin_bit, job_.end_bit);
    threads_ = 1;
  }
  class segment_worker {
   public:
    explicit segment_worker(sorter& s) : s_(s), w_(s, s.policy_.bucket_bytes / (sizeof(U) + (has_value ? sizeof(V) : 0))) {}
    void sort(std::uint64_t off, std::uint64_t m);

   private:
    sorter& s_;
    bucket_worker w_;
  };

 private:
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
  bool stream_ = true;                     // passes store through streaming lines (policy.stream_min_bytes)
  std::vector<std::uint64_t> bounds_;
  U range_mask_ = 0;
};

}  // namespace lsd_detail
}  // namespace radix::cpu
