// The CPU engine's segmented sort: a batch of independent arrays in one
// buffer. Segments much larger than a thread's share are sorted one after
// another by all threads (the plain LSD sort); the others are dealt out to
// the threads in chunks of about equal element counts, and each thread sorts
// its segments alone, in its cache: the shortest by insertion, the rest by the
// one-thread LSD sort. Every segment uses the plan's workspace at its own
// offsets, so threads never share scratch.
#include <algorithm>
#include <atomic>
#include <cstring>

#include "lsd.hpp"
#include "radix/core/segments.hpp"
#include "thread_pool.hpp"

namespace radix::cpu {
namespace {

/// Why these sizes.
struct segment_constants {
  /// Up to this length a stable insertion sort over ordered keys beats
  /// setting up an LSD sort (histograms, a scan of the keys, the passes).
  static constexpr std::uint64_t insertion_max = 32;
  /// Chunks per thread: enough that a thread finishing early takes more work.
  static constexpr unsigned chunks_per_thread = 16;
  /// A segment of at least this many elements, and of more than a chunk,
  /// is sorted by all threads together (the parallel LSD's per_thread_min).
  static constexpr std::uint64_t parallel_min = std::uint64_t(1) << 17;
};

/// The job restricted to elements [b, b + m): same keys, buffers and scratch
/// at the segment's offset; one thread unless told.
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

/// Stable insertion sort of a short segment by its ordered bits in range.
template <class U, class V>
void insertion_sort(const lsd_job<U, V>& j, U mask) {
  constexpr bool has_value = !std::is_same_v<V, no_value>;
  const std::uint64_t m = j.n;
  U key[segment_constants::insertion_max], ord[segment_constants::insertion_max];
  V val[has_value ? segment_constants::insertion_max : 1];
  for (std::uint64_t i = 0; i < m; ++i) {
    U k = j.keys[i];
    U o = U(j.codec(k) & mask);
    V v{};
    if constexpr (has_value) v = j.pay == payload::values ? j.values[i] : V(i);
    std::uint64_t p = i;
    for (; p > 0 && ord[p - 1] > o; --p) {
      key[p] = key[p - 1], ord[p] = ord[p - 1];
      if constexpr (has_value) val[p] = val[p - 1];
    }
    key[p] = k, ord[p] = o;
    if constexpr (has_value) val[p] = v;
  }
  if (!j.keys_readonly) std::memcpy(j.keys, key, m * sizeof(U));
  if constexpr (has_value)
    if (j.pay != payload::none) std::memcpy(j.values, val, m * sizeof(V));
}

}  // namespace

template <class U, class V>
void sort_segments(const core::sort_plan& p, const sort_request& r, std::span<std::byte> ws) {
  const auto at = p.workspace.carve(ws);
  const lsd_job<U, V> whole = job_of<U, V>(p, r, at);
  const core::segment_view v(r.segs, r.n);
  const U mask = core::bit_range_mask<U>(p.begin_bit, p.end_bit);
  const bool gather = p.route == core::value_route::via_index;
  std::byte* value_copy = gather ? at[p.slice[core::value_copy]] : nullptr;

  // One segment [b, e) by `threads` threads (1: this one alone).
  auto sort_one = [&](std::uint64_t b, std::uint64_t e, unsigned threads) {
    const std::uint64_t m = e - b;
    if (m == 0) return;
    const lsd_job<U, V> j = sub_job(whole, b, m, threads);
    if (m <= segment_constants::insertion_max) insertion_sort(j, mask);
    else lsd_sort<U, V>(j);
    if constexpr (!std::is_same_v<V, no_value>) {
      if (gather) {
        const std::size_t vb = r.value_bytes;
        detail::permute(static_cast<std::byte*>(r.values) + b * vb, vb, m, j.values, std::uint8_t(p.index_bytes),
                        threads, value_copy + b * vb);
      }
    }
  };

  const unsigned pool = threads_for(r.n, r.opts.threads, 1);
  const std::uint64_t chunks = std::uint64_t(pool) * segment_constants::chunks_per_thread;
  const std::uint64_t chunk = std::max<std::uint64_t>(1, (r.n + chunks - 1) / chunks);
  const std::uint64_t big = std::max(segment_constants::parallel_min, chunk + 1);

  // The large segments, each by all threads.
  if (pool > 1)
    v.for_each([&](std::uint64_t, std::uint64_t b, std::uint64_t e) {
      if (e - b >= big) sort_one(b, e, r.opts.threads);
    });

  // The rest, dealt out by chunks of elements: chunk c owns the segments
  // that begin in [c * chunk, (c + 1) * chunk).
  const std::uint64_t count = v.count();
  auto first_at = [&](std::uint64_t x) {  // first segment beginning at or after element x
    if (r.segs.layout == segment_layout::uniform) return std::min(count, (x + r.segs.length - 1) / r.segs.length);
    std::uint64_t lo = 0, hi = count;  // lower bound over begin(s)
    while (lo < hi) {
      const std::uint64_t mid = lo + (hi - lo) / 2;
      if (v.begin(mid) < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const std::uint64_t nchunks = (r.n + chunk - 1) / chunk;
  std::atomic<std::uint64_t> next{0};
  thread_pool::instance().run(pool, [&](unsigned) {
    for (std::uint64_t c; (c = next.fetch_add(1, std::memory_order_relaxed)) < nchunks;) {
      const std::uint64_t s1 = first_at(std::min(r.n, (c + 1) * chunk));
      std::uint64_t b = v.begin(first_at(c * chunk));
      for (std::uint64_t s = first_at(c * chunk); s < s1; ++s) {
        const std::uint64_t e = v.end(s);
        if (pool == 1 || e - b < big) sort_one(b, e, 1);
        b = e;
      }
    }
  });
}

#define RADIX_CPU_INSTANTIATE_SEGMENTS(U)                                                                        \
  template void sort_segments<U, no_value>(const core::sort_plan&, const sort_request&, std::span<std::byte>);      \
  template void sort_segments<U, std::uint8_t>(const core::sort_plan&, const sort_request&, std::span<std::byte>);  \
  template void sort_segments<U, std::uint16_t>(const core::sort_plan&, const sort_request&, std::span<std::byte>); \
  template void sort_segments<U, std::uint32_t>(const core::sort_plan&, const sort_request&, std::span<std::byte>); \
  template void sort_segments<U, std::uint64_t>(const core::sort_plan&, const sort_request&, std::span<std::byte>);
RADIX_CPU_INSTANTIATE_SEGMENTS(std::uint8_t)
RADIX_CPU_INSTANTIATE_SEGMENTS(std::uint16_t)
RADIX_CPU_INSTANTIATE_SEGMENTS(std::uint32_t)
RADIX_CPU_INSTANTIATE_SEGMENTS(std::uint64_t)
#undef RADIX_CPU_INSTANTIATE_SEGMENTS

}  // namespace radix::cpu
