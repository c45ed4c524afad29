// CPU LSD sort, segmented: lsd_sort_segments and sorter<U, V>::segment_worker.
// A batch of independent arrays: the long ones go through the whole sort with
// all threads, one after another; the others are dealt out to the threads in
// chunks of about equal element counts, and each is sorted by one thread in
// its cache by the hybrid route's bucket sort (the shortest in place by its
// tiny sort: a sorting network, or insertion for 8-byte keys; the rest read
// from scratch and written home).
#pragma once
#include <atomic>

#include "lsd_sorter.hpp"
#include "radix/core/segments.hpp"
#include "row_network_simd.hpp"
#include "sorting_network.hpp"

namespace radix::cpu {
namespace lsd_detail {

/// Why these sizes.
struct segment_constants {
  /// Up to this length the bucket sort's tiny() in place (a sorting network
  /// for keys of up to 4 bytes, insertion for wider ones) beats copying the
  /// segment into scratch and counting digits.
  template <class U>
  static constexpr std::uint64_t tiny_max = sizeof(U) <= 4 ? network::merged_most : 32;
  /// Chunks per thread: enough that a thread finishing early takes more work.
  static constexpr unsigned chunks_per_thread = 16;
  /// A segment of at least this many elements, and of more than a chunk,
  /// is sorted by all threads together (the parallel LSD's per_thread_min).
  static constexpr std::uint64_t parallel_min = std::uint64_t(1) << 17;
};

template <class U, class V>
inline void sorter<U, V>::segment_worker::sort(std::uint64_t off, std::uint64_t m) {
  const lsd_job<U, V>& j = s_.job_;
  V* vf = nullptr;
  if constexpr (has_value) vf = j.values + off;
  U* kf = j.keys_readonly ? nullptr : j.keys + off;
  if (m <= segment_constants::tiny_max<U>) {
    // In place: tiny() reads the whole segment before it writes.
    if constexpr (has_value)
      if (j.pay == payload::index)
        for (std::uint64_t i = 0; i < m; ++i) vf[i] = V(i);
    return w_.tiny(j.keys + off, vf, kf, vf, m);
  }
  s_.stage_in_scratch(off, m);
  // Every bit of the range may vary: the bucket sort skips the digits the
  // whole segment shares after counting them.
  w_.sort(off, m, j.begin_bit, j.end_bit, core::bit_range_mask<U>(j.begin_bit, j.end_bit));
}

/// The job restricted to elements [b, b + m), sorted by `threads` threads.
template <class U, class V>
lsd_job<U, V> sub_job(const lsd_job<U, V>& j, std::uint64_t b, std::uint64_t m, unsigned threads) {
  lsd_job<U, V> s = j;
  s.n = m;
  s.keys += b;
  s.key_scratch[0] += b;
  if (s.key_scratch[1]) s.key_scratch[1] += b;
  if constexpr (!std::is_same_v<V, no_value>) {
    if (s.values) s.values += b;
    if (s.value_scratch) s.value_scratch += b;
  }
  s.threads = threads;
  return s;
}

/// Uniform rows [s, s1) of L keys, eight at a time in SIMD lanes; rows of a
/// group holding a key the canonicalisation changes one at a time, stably.
/// Returns the first row of the last group of fewer than eight. (Out of
/// line: inlined, it slowed the loop of the other segments down.)
template <class U, class V>
[[gnu::noinline]] std::uint64_t sort_row_groups(const lsd_job<U, V>& j, typename sorter<U, V>::segment_worker& w,
                                                unsigned L, std::uint64_t s, std::uint64_t s1) {
  if constexpr (std::is_same_v<U, std::uint32_t> && std::is_same_v<V, no_value>) {
    for (; s + 8 <= s1; s += 8)
      if (!network::sort_rows8(j.keys + s * L, L, j.codec))
        for (unsigned r = 0; r < 8; ++r) w.sort((s + r) * L, L);
  }
  return s;
}

}  // namespace lsd_detail

template <class U, class V>
void lsd_sort_segments(const lsd_job<U, V>& whole, const segments& segs) {
  using namespace lsd_detail;
  using C = segment_constants;
  const std::uint64_t n = whole.n;
  const core::segment_view v(segs, n);
  const unsigned pool = threads_for(n, whole.threads, 1);
  // Uniform rows of 5-64 4-byte keys alone, every bit compared: eight at a
  // time in SIMD lanes where the CPU has AVX2 (row_network_simd.hpp), so
  // chunks hold whole groups of eight rows.
  bool rows8 = false;
  if constexpr (std::is_same_v<U, std::uint32_t> && std::is_same_v<V, no_value>)
    rows8 = segs.layout == segment_layout::uniform && segs.length >= 5 && segs.length <= 64 && !whole.keys_readonly &&
            whole.begin_bit == 0 && whole.end_bit == 32 && network::rows_avx2();
  const std::uint64_t chunks = std::uint64_t(pool) * C::chunks_per_thread;
  const std::uint64_t group = rows8 ? 8 * segs.length : 1;
  const std::uint64_t chunk = (std::max<std::uint64_t>(1, (n + chunks - 1) / chunks) + group - 1) / group * group;
  const std::uint64_t big = std::max(C::parallel_min, chunk + 1);

  // The long segments, each by all threads.
  if (pool > 1)
    v.for_each([&](std::uint64_t, std::uint64_t b, std::uint64_t e) {
      if (e - b >= big) lsd_sort<U, V>(sub_job(whole, b, e - b, whole.threads));
    });

  // The rest, dealt out by chunks of elements: chunk c owns the segments
  // that begin in [c * chunk, (c + 1) * chunk).
  const std::uint64_t count = v.count();
  auto first_at = [&](std::uint64_t x) {  // the first segment beginning at or after element x
    if (segs.layout == segment_layout::uniform) return std::min(count, (x + segs.length - 1) / segs.length);
    std::uint64_t lo = 0, hi = count;
    while (lo < hi) {
      const std::uint64_t mid = lo + (hi - lo) / 2;
      if (v.begin(mid) < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  sorter<U, V> shared(whole);
  shared.prepare_segments();
  const std::uint64_t nchunks = (n + chunk - 1) / chunk;
  std::atomic<std::uint64_t> next{0};
  thread_pool::instance().run(pool, [&](unsigned) {
    typename sorter<U, V>::segment_worker w(shared);
    for (std::uint64_t c; (c = next.fetch_add(1, std::memory_order_relaxed)) < nchunks;) {
      const std::uint64_t s1 = first_at(std::min(n, (c + 1) * chunk));
      std::uint64_t s = first_at(c * chunk);
      if (rows8) s = sort_row_groups(whole, w, unsigned(segs.length), s, s1);
      for (std::uint64_t b = v.begin(s); s < s1; ++s) {
        const std::uint64_t e = v.end(s), m = e - b;
        if (pool == 1 || m < big) w.sort(b, m);
        b = e;
      }
    }
    stream_fence();
  });
}

}  // namespace radix::cpu
