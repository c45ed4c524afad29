// The distributed sort's partition-first exchange (src/distributed/NOTES.md):
// the host-side planning, pure arithmetic on counts, tested with virtual
// ranks on the CPU (tests/core/exchange_plan.cpp) as exchange_plan is.
//
// Before it runs, every rank has ordered its keys by their top digit only
// (one stable pass: the keys of bucket d lie together, in input order) and
// all-gathered its bucket counts. The buckets that hold the first position
// of some rank's share (boundary_buckets) are then sorted whole on every
// rank, so that the splitter search and exchange_plan find the exact cuts
// there: a binary search over keys ordered by top digit counts correctly at
// any bucket's first key, and inside a bucket only where that bucket is
// sorted, which is where the search narrows.
//
// Share q receives its buckets in groups: a group is an aligned block of 2^k
// buckets (top digits [a 2^k, (a + 1) 2^k)), so that its keys agree on the
// top (digit bits - k) bits and one stable sort of the group by the bits
// below those orders it. Every rank sends its part of a group as one run
// (the group's buckets lie together on the sender), the runs in rank order:
// equal keys then arrive by rank, then by position on the rank, which is the
// order a stable sort keeps. No merge, and no key crosses the link twice.
//
// Step j sends every share's group j, so that a share sorts group j while
// group j + 1 travels. Blocks are halved until they hold at most `target`
// elements (or are one bucket); a group must fit `budget` elements (the
// receive slot and the sort's alternates).
#pragma once
#include <algorithm>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "radix/core/exchange_plan.hpp"
#include "radix/error.hpp"

namespace radix::core {

class bucket_exchange {
 public:
  /// One run moved in one step: [source, source + length) of rank `from`'s
  /// bucket-ordered buffer to [target, target + length) of share `to`'s
  /// group. from == to: a local copy.
  struct piece {
    int from = 0, to = 0;
    std::uint64_t source = 0, target = 0, length = 0;
  };
  /// What share q sorts after a step: [begin, end) of its share, whose keys
  /// agree on their top `shared_bits` bits.
  struct group {
    std::uint64_t begin = 0, end = 0;
    int shared_bits = 0;
  };

  /// The buckets (top digits, increasing) that hold the first position of a
  /// share q > 0. counts: rank-major, counts[r * buckets + d] is rank r's
  /// keys with top digit d.
  static std::vector<int> boundary_buckets(std::span<const std::uint64_t> counts, int ranks, int buckets) {
    check_shape(counts, ranks, buckets);
    std::vector<std::uint64_t> start(std::size_t(buckets) + 1, 0);
    for (int d = 0; d < buckets; ++d) {
      std::uint64_t t = 0;
      for (int r = 0; r < ranks; ++r) t += counts[std::size_t(r) * buckets + d];
      start[d + 1] = start[d] + t;
    }
    const std::uint64_t total = start[buckets];
    std::vector<int> out;
    for (int q = 1; q < ranks; ++q) {
      const std::uint64_t t = share_begin(total, ranks, q);
      if (t >= total) break;
      // The bucket d with start[d] <= t < start[d + 1] (it is not empty).
      const int d = int(std::upper_bound(start.begin(), start.end(), t) - start.begin()) - 1;
      if (out.empty() || out.back() != d) out.push_back(d);
    }
    return out;
  }

  /// counts as above, `buckets` a power of two; plan: the cuts found on the
  /// bucket-ordered buffers (each rank's cut(r, q) falls at a bucket's start
  /// or inside a sorted boundary bucket); target, budget: see above.
  bucket_exchange(std::span<const std::uint64_t> counts, int buckets, const exchange_plan& plan, std::uint64_t target,
                  std::uint64_t budget)
      : p_(plan.ranks()), buckets_(buckets), groups_(std::size_t(p_)) {
    check_shape(counts, p_, buckets);
    if (plan.parts() != p_) throw invalid_argument("radix: internal: bucket_exchange needs one share per rank");
    while ((1 << digit_bits_) < buckets) ++digit_bits_;
    if ((1 << digit_bits_) != buckets) throw invalid_argument("radix: internal: bucket_exchange needs 2^k buckets");
    local_.assign(std::size_t(p_) * (buckets + 1), 0);
    for (int r = 0; r < p_; ++r)
      for (int d = 0; d < buckets; ++d)
        start(r, d + 1) = start(r, d) + counts[std::size_t(r) * buckets + d];
    for (int r = 0; r < p_; ++r)
      if (start(r, buckets) != plan.cut(r, p_))
        throw invalid_argument("radix: internal: bucket_exchange counts differ from the plan's");
    for (int q = 0; q < p_; ++q) {
      std::uint64_t at = 0;
      add_block(plan, q, 0, digit_bits_, target, budget, at);
      if (at != plan.received(q)) throw invalid_argument("radix: internal: bucket_exchange lost elements");
    }
  }

  /// Whether every group fits the budget; where one does not (skewed keys: a
  /// bucket larger than the budget), the sort takes another route.
  bool fits() const { return fits_; }
  int steps() const { return int(pieces_.size()); }
  /// Every piece of step j, of all senders and receivers; at most one a
  /// (sender, receiver) pair.
  std::span<const piece> pieces(int step) const { return pieces_[step]; }
  /// Share q's groups, group j received in step j.
  const std::vector<group>& groups(int q) const { return groups_[q]; }

 private:
  static void check_shape(std::span<const std::uint64_t> counts, int ranks, int buckets) {
    if (ranks < 1 || buckets < 1 || counts.size() != std::size_t(ranks) * std::size_t(buckets))
      throw invalid_argument("radix: internal: bucket_exchange count mismatch");
  }
  std::uint64_t& start(int r, int d) { return local_[std::size_t(r) * (buckets_ + 1) + d]; }
  /// Rank r's run of share q within buckets [d0, d1).
  std::pair<std::uint64_t, std::uint64_t> run(const exchange_plan& plan, int r, int q, int d0, int d1) {
    const std::uint64_t lo = std::max(start(r, d0), plan.cut(r, q));
    const std::uint64_t hi = std::min(start(r, d1), plan.cut(r, q + 1));
    return {lo, hi > lo ? hi - lo : 0};
  }
  /// Share q's part of the block of buckets [first, first + 2^k): one group,
  /// or its two halves, in order.
  void add_block(const exchange_plan& plan, int q, int first, int k, std::uint64_t target, std::uint64_t budget,
                 std::uint64_t& at) {
    const int last = first + (1 << k);
    std::uint64_t size = 0;
    for (int r = 0; r < p_; ++r) size += run(plan, r, q, first, last).second;
    if (size == 0) return;
    if (k > 0 && (size > target || size > budget)) {
      add_block(plan, q, first, k - 1, target, budget, at);
      add_block(plan, q, first + (1 << (k - 1)), k - 1, target, budget, at);
      return;
    }
    if (size > budget) fits_ = false;
    const std::size_t step = groups_[q].size();
    if (pieces_.size() <= step) pieces_.resize(step + 1);
    groups_[q].push_back({at, at + size, digit_bits_ - k});
    for (int r = 0; r < p_; ++r) {
      const auto [source, length] = run(plan, r, q, first, last);
      if (length == 0) continue;
      pieces_[step].push_back({r, q, source, at, length});
      at += length;
    }
  }

  int p_;
  int buckets_;
  int digit_bits_ = 0;
  bool fits_ = true;
  std::vector<std::uint64_t> local_;
  std::vector<std::vector<piece>> pieces_;
  std::vector<std::vector<group>> groups_;
};

}  // namespace radix::core
