// CPU LSD sort, hybrid route of sorter<U, V> for large inputs: one MSD pass
// into cache-sized buckets (coarse digit, or a fine window mapped to buckets
// for skewed keys), planned from the scan's histogram, then sort_buckets.
#pragma once
#include <cmath>

#include "lsd_sorter.hpp"

namespace radix::cpu {
namespace lsd_detail {

/// The MSD digit of a hybrid route over `bits` varying bits of n elements:
/// enough bits for buckets of about `target` elements (at most max_msd_bits,
/// leaving one bit below), widened when that saves an in-cache pass and
/// buckets stay >= target / 4.
template <class U, class V>
inline int sorter<U, V>::msd_digit_bits(std::uint64_t n, int bits, std::uint64_t target) const {
  const int dd = policy_.bucket_digit_bits;
  int d1 = std::max(1, int(std::bit_width((n - 1) / target)));
  d1 = std::min({d1, policy_.max_msd_bits, bits - 1});
  const int p2 = (bits - d1 + dd - 1) / dd;
  const int wider = bits - dd * (p2 - 1);
  if (p2 > 1 && wider <= policy_.max_msd_bits && (n >> wider) >= target / 4) d1 = wider;
  return d1;
}

template <class U, class V>
inline void sorter<U, V>::hybrid(int lo, int hi, U varying) {
  if (fine_ && hi > spec_shift_ && hi <= spec_shift_ + spec_bits_ &&
      std::all_of(spec_done_.begin(), spec_done_.end(), [](std::uint8_t d) { return d != 0; }))
    return hybrid_fine(lo, hi, varying);
  const std::uint64_t n = job_.n;
  const std::uint64_t elem = sizeof(U) + (has_value ? sizeof(V) : 0);
  const std::uint64_t target = std::max<std::uint64_t>(1024, policy_.bucket_bytes / elem);
  const int d1 = msd_digit_bits(n, hi - lo, target);
  const core::pass msd{hi - d1, d1};

  // The MSD pass: user -> scratch (keys and payload), indices generated.
  U* kmid = job_.key_scratch[0];
  V* vmid = nullptr;
  if constexpr (has_value) vmid = job_.value_scratch;
  std::vector<std::uint64_t> hist, none;
  const bool from_scan = msd_from_scan(msd, hist);
  if (!from_scan) count(job_.keys, msd, hist);
  const V* vsrc = nullptr;
  if constexpr (has_value) vsrc = job_.pay == payload::values ? job_.values : nullptr;
  trace_.mark(from_scan ? "msd from scan" : "msd count");
  scatter(job_.keys, kmid, vsrc, vmid, job_.pay == payload::index, msd, nullptr, hist, none);
  trace_.mark("msd scatter");

  sort_buckets(hist, 1u << d1, target, lo, varying, [&](unsigned) { return hi - d1; });
  trace_.mark("buckets");
  trace_.print("hybrid", n, d1);
}

/// After the MSD pass (per-thread counts `hist` of R buckets): every bucket,
/// in parallel, sorted on bits [lo, top(b)) and written to its final place.
template <class U, class V>
template <class Top>
inline void sorter<U, V>::sort_buckets(const std::vector<std::uint64_t>& hist, unsigned R, std::uint64_t target,
                                       int lo, U varying, Top top) {
  // Bucket b spans [start[b], start[b + 1]) in scratch.
  const std::vector<std::uint64_t> start = digit_starts(hist, R);
  const std::uint64_t cap = 4 * target;  // larger buckets ping-pong in place
  std::atomic<unsigned> next{0};
  thread_pool::instance().run(threads_, [&](unsigned) {
    bucket_worker w(*this, cap);
    // A thread claims its next bucket before it sorts the one it holds, and
    // asks for the next one's keys then: they come from memory while this
    // one is sorted in the cache.
    for (unsigned b = next.fetch_add(1, std::memory_order_relaxed); b < R;) {
      const unsigned after = next.fetch_add(1, std::memory_order_relaxed);
      if (after < R) w.prefetch(start[after], start[after + 1] - start[after]);
      const std::uint64_t off = start[b], m = start[b + 1] - off;
      if (m > 0) w.sort(off, m, lo, top(b), varying);
      b = after;
    }
    stream_fence();
  });
}

/// The hybrid route over a fine window (choose_fine_window): the scan's
/// bins, in key order, are merged into buckets of about `target` keys and a
/// table maps bin -> bucket for the MSD pass. A bucket whose keys fall in
/// bins [a, e] is then sorted on the bits below the window plus the low
/// bit_width(a ^ e) bits of it (the bits above are the same for all its keys).
template <class U, class V>
inline void sorter<U, V>::hybrid_fine(int lo, int hi, U varying) {
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
  // Where a key's window digit of ordered bits is a function of its raw window
  // digit (one XOR for integer keys; for floats, a sign test the window sees),
  // the table takes the raw digit, and the MSD pass transforms no key.
  bucket_source reads = bucket_source::table;
  const codec_t& c = job_.codec;
  if (!c.canon && (c.linear() || spec_shift_ + spec_bits_ == codec_t::bits)) {
    std::vector<std::uint16_t> raw(SR);
    for (unsigned r = 0; r < SR; ++r)
      raw[r] = lut[core::digit_of<U>(c.biased(U(U(r) << spec_shift_)), spec_shift_, spec_bits_)];
    lut.swap(raw);
    reads = bucket_source::raw_table;
  }
  scatter(job_.keys, kmid, vsrc, vmid, job_.pay == payload::index, window, nullptr, hist, none, lut.data(), R, reads);
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
template <class U, class V>
inline void sorter<U, V>::choose_spec_window(bool hybrid_candidate) {
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
  if (expand_candidate() && hi - lo <= policy_.expand_max_bits) {
    // the counting write-out's histogram (expand), counted by the scan
    spec_bits_ = std::min(policy_.expand_max_bits, width);
    spec_shift_ = std::max(job_.begin_bit, std::min(lo, job_.end_bit - spec_bits_));
    return;
  }
  if (hybrid_candidate && hi - lo > policy_.bucket_digit_bits) return choose_fine_window(sb);
  spec_shift_ = std::max(job_.begin_bit, std::min(lo, job_.end_bit - sb));
}

/// Skewed inputs (floats: most keys share a few exponents; clustered or
/// Zipf-like integers) put a large share of the keys into a few buckets of
/// an MSD digit, and each such bucket costs one more out-of-cache pass. A
/// strided sample decides: when one bin of a `sb`-bit digit would hold more
/// than ~1/128 of the keys, or one bucket of the coarse MSD digit the hybrid
/// route would take clearly more than four times its share, the scan counts a finer
/// 16-bit window reaching four bits above the sample's top varying bit (rare
/// keys the sample missed, such as the zeros among floats in [0, 1), sit
/// there), and the MSD pass maps those fine bins onto buckets of about equal
/// size through a table (hybrid_fine). Otherwise the coarse window ends at
/// the sample's top varying bit, where the hybrid route's MSD digit ends.
template <class U, class V>
inline void sorter<U, V>::choose_fine_window(int sb) {
  const int width = job_.end_bit - job_.begin_bit;
  const int fb = std::min(policy_.fine_msd_bits, width);
  if (job_.n < 4 * sample_size) return;
  const std::uint64_t step = job_.n / sample_size;
  const U ref = job_.codec(job_.keys[0]);
  U v = 0;
  for (std::uint64_t i = 0; i < sample_size; ++i) v |= U(job_.codec(job_.keys[i * step]) ^ ref);
  v &= range_mask_;
  if (v == 0) return;
  const int top = int(sizeof(U)) * 8 - std::countl_zero(v);
  // Keys below the type's top (u32 keys under 2^24, say) have their MSD digit
  // there; a window at the top of the range missed it, and the hybrid route
  // read the keys once more to count it (bench/results/cpu-2026-11-28-fine-window-noise.md).
  // A key above every sampled one costs that read again, nothing else.
  spec_shift_ = std::max(job_.begin_bit, std::min(top, job_.end_bit) - sb);
  if (fb <= sb) return;
  // Each thread counts 2^fb bins in the scan: worth it only with a few keys
  // a bin (a many-core machine sorting a few million keys stays coarse).
  if ((job_.n / threads_) >> fb < 4) return;
  const int shift = std::max(job_.begin_bit, top - sb);
  // the coarse MSD digit hybrid() would choose (before its widening)
  const std::uint64_t elem = sizeof(U) + (has_value ? sizeof(V) : 0);
  const std::uint64_t target = std::max<std::uint64_t>(1024, policy_.bucket_bytes / elem);
  const int d1 = std::min({std::max(1, int(std::bit_width((job_.n - 1) / target))), sb, top - job_.begin_bit});
  const int coarse_shift = std::max(job_.begin_bit, top - d1);
  std::vector<std::uint32_t> h(std::size_t(1) << sb, 0), hc(std::size_t(1) << d1, 0);
  std::uint32_t most = 0, most_coarse = 0;
  for (std::uint64_t i = 0; i < sample_size; ++i) {
    const U k = job_.codec(job_.keys[i * step]);
    most = std::max(most, ++h[core::digit_of<U>(k, shift, sb)]);
    most_coarse = std::max(most_coarse, ++hc[core::digit_of<U>(k, coarse_shift, d1)]);
  }
  const bool fine_bin = most * 128 >= sample_size;  // one bin > 1/128 of the sample
  // One bucket > 4x its share, and beyond what chance gives the largest of 2^d1
  // buckets: with 2^11 buckets of 2 samples each on average (2^27 u32 keys),
  // some bucket of uniform keys holds 8 or more almost always, and the fine
  // route cost such inputs 13-18 % (bench/results/cpu-2026-11-28-fine-window-noise.md).
  const double share = double(sample_size) / double(std::uint64_t(1) << d1);
  const bool big_bucket = double(most_coarse) >= std::max(4 * share, share + 6 * std::sqrt(share) + 6);
  if (!fine_bin && !big_bucket) return;
  fine_ = true;
  spec_bits_ = fb;
  // four bits of headroom: 2^12 bins still outnumber the buckets of up to
  // 2^28 keys, and the window holds the rare keys the sample missed
  const int window_top = std::min(job_.end_bit, top + 4);
  spec_shift_ = std::max(job_.begin_bit, window_top - fb);
}

/// The MSD pass's per-thread histogram from the scan's speculative one, when
/// every thread made one and the digit lies inside its window.
template <class U, class V>
inline bool sorter<U, V>::msd_from_scan(const core::pass& msd, std::vector<std::uint64_t>& hist) {
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

}  // namespace lsd_detail
}  // namespace radix::cpu
