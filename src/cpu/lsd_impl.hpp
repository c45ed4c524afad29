// Implementation of lsd_sort (see lsd.hpp for the algorithm). Included only by
// the per-width instantiation files lsd_k1/2/4/8.cpp. sorter<U, V> is declared
// in lsd_sorter.hpp and its phases are defined in lsd_scan.hpp, lsd_passes.hpp,
// lsd_hybrid.hpp, lsd_bucket.hpp, lsd_in_place.hpp and lsd_segments.hpp; here
// are its driver and lsd_sort.
#pragma once
#include "lsd_sorter.hpp"
#include "lsd_scan.hpp"
#include "lsd_passes.hpp"
#include "lsd_hybrid.hpp"
#include "lsd_bucket.hpp"
#include "lsd_in_place.hpp"
#include "lsd_segments.hpp"

namespace radix::cpu {
namespace lsd_detail {

/// One sort: the scan, the pass plan over the bits that vary, and the route
/// (nothing to do, small_sort, the counting write-out, in place, hybrid, or
/// the plain LSD passes).
template <class U, class V>
inline void sorter<U, V>::run() {
  const std::uint64_t n = job_.n;
  if (n < 2) {
    if constexpr (has_value)
      if (job_.pay == payload::index && n == 1) job_.values[0] = V(0);
    return;
  }
  const std::uint64_t elem = sizeof(U) + (has_value ? sizeof(V) : 0);
  const bool one_thread = sizeof(U) >= 2 && n * elem <= policy_.single_thread_max_bytes;
  threads_ = one_thread ? 1u : threads_for(n, job_.threads, policy_.per_thread_min);
  bounds_ = chunk_bounds(n, threads_);
  range_mask_ = core::bit_range_mask<U>(job_.begin_bit, job_.end_bit);

  // 1. One read: which bits vary, and is it sorted already?
  stream_ = n * elem >= policy_.stream_min_bytes;
  // No key scratch (the plan's keys_in_place): keys alone, equal keys equal bits.
  const bool in_place = job_.key_scratch[0] == nullptr;
  if (in_place && (has_value || job_.pay != payload::none || job_.keys_readonly || job_.codec.canon))
    throw std::logic_error("radix: internal: an in-place CPU sort of more than keys, or of folded keys");
  // One thread, an input its cache holds: the in-cache route (no speculative histogram needed).
  const bool in_cache_route = !in_place && threads_ == 1 && n * elem <= policy_.in_cache_max_bytes;
  const bool hybrid_candidate = job_.digit_bits == 0 && !in_cache_route && n * elem >= policy_.hybrid_min_bytes;
  if (!in_place && job_.digit_bits == 0 && !in_cache_route && n * elem >= policy_.hybrid_min_bytes / 4)
    choose_spec_window(hybrid_candidate);
  bool sorted = true;
  U varying = 0;
  trace_.mark(nullptr);
  scan(sorted, varying);
  trace_.mark("scan");
  const U all_varying = varying;
  varying &= range_mask_;
  if (sorted || varying == 0) return identity();

  // 2. Plan the passes over the bits that vary (trivial digits skipped).
  const int lo = std::countr_zero(varying);
  const int hi = int(sizeof(U)) * 8 - std::countl_zero(varying);
  int d = job_.digit_bits;
  if (d == 0) {
    d = policy_.digit_bits;
    const int t = hi - lo;
    if (policy_.wide_digit_bits > d && n >= policy_.wide_min_n &&
        (t + policy_.wide_digit_bits - 1) / policy_.wide_digit_bits < (t + d - 1) / d)
      d = policy_.wide_digit_bits;
  }
  const core::pass_plan plan = core::plan_passes(lo, hi, d);
  std::vector<core::pass> passes;
  for (int i = 0; i < plan.count; ++i)
    if (!core::pass_is_trivial<U>(varying, plan[i])) passes.push_back(plan[i]);

  if (n < policy_.small_n) return small_sort();
  if (can_expand(lo, hi, all_varying)) return expand(lo, hi);
  if (in_place) return in_place_route(lo, hi, varying);
  if (in_cache_route) return in_cache(lo, hi, varying);
  if (hybrid_candidate && hi - lo > policy_.bucket_digit_bits)
    return hybrid(lo, hi, varying);
  sort_passes(passes);
}

}  // namespace lsd_detail

template <class U, class V>
void lsd_sort(const lsd_job<U, V>& job) {
  lsd_detail::sorter<U, V>(job).run();
}

}  // namespace radix::cpu
