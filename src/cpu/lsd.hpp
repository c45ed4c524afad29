// The CPU engine's parallel LSD radix sort.
//
// Follows the course slides "CUDA LSD Radix Sort" (counting sort per digit: per-thread histograms, global
// offsets by a scan over the thread x digit matrix, scatter) with the early
// exit of Ha, Krüger & Silva 2009, §4.2 (one read first: if the keys are already in order,
// stop) and trivial-digit skipping. Per pass:
//
//   scan (once)  : bits that vary between keys, already-sorted flag
//   count (once) : per-thread histogram of the first digit
//   scatter      : each thread moves its contiguous chunk to its offsets through
//                  per-bucket write-combining spans (four 64 B lines, streamed
//                  with non-temporal stores), and counts the *next* digit of every
//                  key per destination chunk, so later passes need no
//                  separate counting read.
//
// Large inputs (policy.hybrid_min_bytes) take a hybrid route that reads and
// writes main memory fewer times: one MSD pass on the top digit scatters the
// keys into buckets that fit in the L2 cache, then every bucket is LSD-sorted
// on the remaining bits inside the cache, by one thread, and written to its
// final place (a thread prefetches its next bucket while it sorts one, so the
// bucket's first read does not wait on memory). Stable, since every pass is.
// Inputs small enough for one thread and its cache (policy.in_cache_max_bytes)
// are sorted the same way, as one bucket; the plain passes store plainly
// below policy.stream_min_bytes, where the data stay in the caches.
// Skewed inputs (floats, whose keys
// crowd into a few exponents; clustered integers), recognised from a sample,
// count a finer 16-bit window in the scan instead, and the MSD pass maps its
// bins onto buckets of about equal size through a table, so no bucket needs a
// second out-of-cache split (the table takes the raw key's bits where they
// decide the ordered ones, so that pass transforms no key).
//
// Keys alone whose bits vary only inside a window of at most
// policy.expand_max_bits (narrow keys: u8, u16, few-bit integers) take a
// counting route: the scan counts that window, and the output is its
// histogram written out, run by run (each key is its window's digit over bits
// all keys share, and equal keys cannot be told apart). One read and one
// write, where LSD passes read and write once per digit. Not where the
// transform folds keys (-0.0 and +0.0, NaNs: their bits must survive).
//
// Keys alone whose equal keys are equal bits may be sorted in place, with no
// key scratch (the plan's keys_in_place: memory_use::in_place, or keys larger
// than policy.keys_in_place_auto_bytes): the MSD pass distributes them in
// blocks within their own memory, and each bucket is sorted in the cache
// (lsd_in_place.hpp). Not stable, which such keys cannot show.
//
// Keys are read in their original bits and passed through the ordered-bits
// transform (src/core) when a digit is taken, so written-back keys keep their
// exact input bits (a -0.0 stays -0.0, NaN payloads survive).
#pragma once
#include <array>
#include <cstddef>
#include <span>
#include <cstdint>
#include <cstring>
#include <iosfwd>
#if defined(__linux__) || defined(__APPLE__)
#include <unistd.h>
#endif

#include "radix/core/ordered_bits.hpp"
#include "radix/core/pass_plan.hpp"
#include "radix/core/sort_plan.hpp"

namespace radix::cpu {

/// The machine's physical memory in bytes (0 where it cannot be told).
inline std::uint64_t physical_memory_bytes() {
#if defined(__linux__) || defined(__APPLE__)
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  if (pages > 0 && page > 0) return std::uint64_t(pages) * std::uint64_t(page);
#endif
  return 0;
}

/// Tuning of the CPU LSD sort, as data (printable, one place).
struct lsd_policy {
  int digit_bits = 8;              ///< digit width of out-of-cache LSD passes
  int wide_digit_bits = 11;        ///< used instead when it saves passes (0 = never)
  /// ... and only from this many keys: below, clearing and scanning 2^11
  /// counters a pass costs more than the pass it saves
  std::uint64_t wide_min_n = std::uint64_t(1) << 14;
  std::uint64_t small_n = 256;     ///< below this, a stable comparison sort
  int expand_max_bits = 16;        ///< keys alone varying in at most this many bits: counting write-out (0 = off)
  std::uint64_t per_thread_min = std::uint64_t(1) << 16;  ///< elements per extra thread
  /// Inputs (keys and values) of at most this many bytes, keys of 2 bytes or
  /// more: one thread, whatever per_thread_min allows. Half an L2's worth sorts
  /// faster by the in-cache route of one thread than split over two (4- and
  /// 2-byte keys at 2^17); 1 MiB (8-byte keys, pairs at 2^17) and 1-byte keys
  /// (counted, not passed over) sort faster on two.
  std::uint64_t single_thread_max_bytes = std::uint64_t(512) << 10;
  /// Out-of-cache passes store through write-combining lines with streaming
  /// stores, which send every line to memory. Inputs (keys and values)
  /// smaller than this stay in the caches from pass to pass: their passes
  /// store plainly.
  std::uint64_t stream_min_bytes = std::uint64_t(4) << 20;
  /// Inputs one thread sorts (fewer than 2 x per_thread_min elements) of at
  /// most this many bytes: copied into scratch and sorted there by the
  /// hybrid's in-cache bucket sort, which writes them back in order.
  std::uint64_t in_cache_max_bytes = std::uint64_t(1) << 20;
  // Hybrid: one MSD pass into cache-sized buckets, then LSD inside each bucket.
  std::uint64_t hybrid_min_bytes = std::uint64_t(512) << 10;  ///< smaller inputs: plain LSD
  std::uint64_t bucket_bytes = std::uint64_t(256) << 10;    ///< target bucket size (L2 share)
  int max_msd_bits = 12;           ///< widest MSD digit
  int fine_msd_bits = 16;          ///< skewed inputs: fine MSD window mapped onto buckets (0 = off)
  int bucket_digit_bits = 11;      ///< digit width of the in-cache passes
  std::uint64_t tiny_bucket = 48;  ///< buckets up to this size: the tiny sort (a network, or insertion)
  /// Keys alone of at least this many bytes whose equal keys are equal bits
  /// sort in place even when not asked to (memory_use::automatic): their
  /// scratch would take more of the machine than a sort should. The in-place
  /// route (lsd_in_place.hpp) moves blocks within the keys' own memory, so
  /// the workspace holds no key scratch. Default: a quarter of the physical
  /// memory (0 = only when asked for).
  std::uint64_t keys_in_place_auto_bytes = physical_memory_bytes() / 4;
};
std::ostream& operator<<(std::ostream&, const lsd_policy&);
const lsd_policy& default_policy();

/// Payload type of a keys-only sort.
using no_value = core::no_value;

/// Index payload of an argsort or of pairs with values of unusual size.
enum class payload : std::uint8_t { none, values, index };

/// One LSD sort of keys of type U (an unsigned integer as wide as the key) with
/// an optional payload of type V moved along (values, or indices generated in
/// the first pass). All pointers are element pointers.
template <class U, class V>
struct lsd_job {
  std::uint64_t n = 0;
  U* keys = nullptr;              ///< input keys; sorted result written here unless keys_readonly
  bool keys_readonly = false;     ///< argsort: input keys are not modified
  U* key_scratch[2] = {nullptr, nullptr};  ///< [1] only needed when keys_readonly
  payload pay = payload::none;
  V* values = nullptr;            ///< payload::values: input and output; payload::index: output
  V* value_scratch = nullptr;
  core::ordered_codec<U> codec{};
  int begin_bit = 0, end_bit = int(sizeof(U)) * 8;
  int digit_bits = 0;             ///< 0 = policy
  unsigned threads = 0;           ///< 0 = all
};

/// The workspace of a plan, carved into its slices.
using workspace_slices = std::array<std::byte*, core::workspace_layout::max_slices>;

/// The plan's whole-array LSD job (cpu_engine.cpp).
template <class U, class V>
lsd_job<U, V> job_of(const core::sort_plan& p, const sort_request& r, const workspace_slices& at);

/// A segmented request (r.segs): every segment sorted on its own
/// (segments.cpp, over lsd_sort_segments).
template <class U, class V>
void sort_segments(const core::sort_plan& p, const sort_request& r, std::span<std::byte> ws);

/// Every segment of the whole-array job `whole` sorted on its own: segments
/// much longer than a thread's share by all threads, one after another; the
/// others dealt out to the threads, each sorted by one thread in its cache
/// (lsd_segments.hpp). An index payload numbers positions inside the segment.
template <class U, class V>
void lsd_sort_segments(const lsd_job<U, V>& whole, const segments& segs);

/// Sorts as the job says. Defined in lsd_impl.hpp, instantiated per key width
/// in lsd_k<bytes>.cpp.
template <class U, class V>
void lsd_sort(const lsd_job<U, V>& job);

/// The instantiations for keys of type U: every payload core::with_types can
/// name (nothing, 1-, 2-, 4- or 8-byte values or indices).
#define RADIX_CPU_INSTANTIATE_LSD_V(U, V)                                       \
  template void lsd_sort<U, V>(const lsd_job<U, V>&);                         \
  template void lsd_sort_segments<U, V>(const lsd_job<U, V>&, const segments&);
#define RADIX_CPU_INSTANTIATE_LSD(U)                 \
  RADIX_CPU_INSTANTIATE_LSD_V(U, no_value)           \
  RADIX_CPU_INSTANTIATE_LSD_V(U, std::uint8_t)       \
  RADIX_CPU_INSTANTIATE_LSD_V(U, std::uint16_t)      \
  RADIX_CPU_INSTANTIATE_LSD_V(U, std::uint32_t)      \
  RADIX_CPU_INSTANTIATE_LSD_V(U, std::uint64_t)

}  // namespace radix::cpu
