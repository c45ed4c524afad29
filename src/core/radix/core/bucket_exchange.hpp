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
//
// Everything but the runs of the groups that hold a share boundary follows
// from the bucket counts alone: a share's part of a block of buckets is the
// overlap of the block's global positions with the share's, and away from
// the boundaries each rank sends its whole part of the block. So the plan is
// made in two steps: the constructor plans every group and the pieces of the
// groups away from the boundaries, and puts each share's boundary groups
// last; place_cuts adds their pieces once the splitter search has found the
// cuts. The steps before ready_steps() can run while the search does.
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
  /// agree on their top `shared_bits` bits. A boundary group holds a bucket
  /// where a share begins: its runs wait for the cuts (place_cuts).
  struct group {
    std::uint64_t begin = 0, end = 0;
    int shared_bits = 0;
    bool boundary = false;
  };

  /// The buckets (top digits, increasing) that hold the first position of a
  /// share q > 0. counts: rank-major, counts[r * buckets + d] is rank r's
  /// keys with top digit d.
  static std::vector<int> boundary_buckets(std::span<const std::uint64_t> counts, int ranks, int buckets) {
    check_shape(counts, ranks, buckets);
    const std::vector<std::uint64_t> start = global_starts(counts, ranks, buckets);
    const std::uint64_t total = start[buckets];
    std::vector<int> out;
    for (int q = 1; q < ranks; ++q) {
      const int d = bucket_at(start, share_begin(total, ranks, q));
      if (d < 0) break;
      if (out.empty() || out.back() != d) out.push_back(d);
    }
    return out;
  }

  /// counts as above over `ranks` ranks, `buckets` a power of two; target,
  /// budget: see above. Plans every group, and the pieces of every group
  /// away from a share boundary.
  bucket_exchange(std::span<const std::uint64_t> counts, int ranks, int buckets, std::uint64_t target,
                  std::uint64_t budget)
      : p_(ranks), buckets_(buckets), groups_(std::size_t(std::max(ranks, 0))) {
    check_shape(counts, p_, buckets);
    while ((1 << digit_bits_) < buckets) ++digit_bits_;
    if ((1 << digit_bits_) != buckets) throw invalid_argument("radix: internal: bucket_exchange needs 2^k buckets");
    local_.assign(std::size_t(p_) * (buckets + 1), 0);
    for (int r = 0; r < p_; ++r)
      for (int d = 0; d < buckets; ++d)
        start(r, d + 1) = start(r, d) + counts[std::size_t(r) * buckets + d];
    global_ = global_starts(counts, p_, buckets);
    total_ = global_[buckets];
    std::vector<std::vector<block>> planned(p_);
    for (int q = 0; q < p_; ++q) {
      std::uint64_t at = 0;
      add_block(q, 0, digit_bits_, target, budget, at, planned[q]);
      if (at != share_size(q)) throw invalid_argument("radix: internal: bucket_exchange lost elements");
      // Each share's boundary groups last (stable otherwise), so that the
      // first steps need no cuts.
      std::stable_partition(planned[q].begin(), planned[q].end(), [](const block& b) { return !b.g.boundary; });
    }
    std::size_t steps = 0;
    for (int q = 0; q < p_; ++q) steps = std::max(steps, planned[q].size());
    pieces_.resize(steps);
    ready_.assign(std::size_t(p_), int(steps));
    for (int q = 0; q < p_; ++q)
      for (std::size_t j = 0; j < planned[q].size(); ++j) {
        const block& b = planned[q][j];
        groups_[q].push_back(b.g);
        blocks_.push_back({q, int(j), b.first, b.last});
        if (b.g.boundary) {
          ready_[q] = std::min(ready_[q], int(j));
          continue;
        }
        std::uint64_t at = b.g.begin;
        for (int r = 0; r < p_; ++r) {
          const std::uint64_t length = this->start(r, b.last) - this->start(r, b.first);
          if (length == 0) continue;
          pieces_[j].push_back({r, q, this->start(r, b.first), at, length});
          at += length;
        }
        if (at != b.g.end) throw invalid_argument("radix: internal: bucket_exchange counts disagree");
      }
  }

  /// The same, with the cuts known: every piece planned.
  bucket_exchange(std::span<const std::uint64_t> counts, int buckets, const exchange_plan& plan, std::uint64_t target,
                  std::uint64_t budget)
      : bucket_exchange(counts, plan.ranks(), buckets, target, budget) {
    place_cuts(plan);
  }

  /// The pieces of the boundary groups, from the cuts found on the
  /// bucket-ordered buffers (each rank's cut(r, q) falls at a bucket's start
  /// or inside a sorted boundary bucket). Once.
  void place_cuts(const exchange_plan& plan) {
    if (placed_) throw invalid_argument("radix: internal: bucket_exchange cuts placed twice");
    if (plan.ranks() != p_ || plan.parts() != p_)
      throw invalid_argument("radix: internal: bucket_exchange needs one share per rank");
    for (int r = 0; r < p_; ++r)
      if (start(r, buckets_) != plan.cut(r, p_))
        throw invalid_argument("radix: internal: bucket_exchange counts differ from the plan's");
    for (const placed_block& b : blocks_) {
      const group& g = groups_[b.share][b.step];
      if (!g.boundary) continue;
      std::uint64_t at = g.begin;
      for (int r = 0; r < p_; ++r) {
        const std::uint64_t lo = std::max(start(r, b.first), plan.cut(r, b.share));
        const std::uint64_t hi = std::min(start(r, b.last), plan.cut(r, b.share + 1));
        if (hi <= lo) continue;
        pieces_[b.step].push_back({r, b.share, lo, at, hi - lo});
        at += hi - lo;
      }
      if (at != g.end) throw invalid_argument("radix: internal: bucket_exchange cuts disagree with the counts");
    }
    placed_ = true;
    ready_.assign(std::size_t(p_), steps());
  }

  /// Whether every group fits the budget; where one does not (skewed keys: a
  /// bucket larger than the budget), the sort takes another route.
  bool fits() const { return fits_; }
  int steps() const { return int(pieces_.size()); }
  /// The steps [0, ready_steps()) have all their pieces; after place_cuts, all do.
  int ready_steps() const { return *std::min_element(ready_.begin(), ready_.end()); }
  /// The steps [0, ready_steps(q)) have all the pieces share q receives.
  int ready_steps(int q) const { return ready_[q]; }
  /// Every piece of step j, of all senders and receivers; at most one a
  /// (sender, receiver) pair. Complete for j < ready_steps().
  std::span<const piece> pieces(int step) const { return pieces_[step]; }
  /// Share q's groups, group j received in step j.
  const std::vector<group>& groups(int q) const { return groups_[q]; }

 private:
  struct block {
    group g;
    int first = 0, last = 0;  // buckets [first, last)
  };
  struct placed_block {
    int share = 0, step = 0, first = 0, last = 0;
  };

  static void check_shape(std::span<const std::uint64_t> counts, int ranks, int buckets) {
    if (ranks < 1 || buckets < 1 || counts.size() != std::size_t(ranks) * std::size_t(buckets))
      throw invalid_argument("radix: internal: bucket_exchange count mismatch");
  }
  /// Where each bucket begins in the global order (all ranks' keys).
  static std::vector<std::uint64_t> global_starts(std::span<const std::uint64_t> counts, int ranks, int buckets) {
    std::vector<std::uint64_t> start(std::size_t(buckets) + 1, 0);
    for (int d = 0; d < buckets; ++d) {
      std::uint64_t t = 0;
      for (int r = 0; r < ranks; ++r) t += counts[std::size_t(r) * buckets + d];
      start[d + 1] = start[d] + t;
    }
    return start;
  }
  /// The bucket d with start[d] <= t < start[d + 1] (it is not empty); -1
  /// where t is past the end.
  static int bucket_at(const std::vector<std::uint64_t>& start, std::uint64_t t) {
    if (t >= start.back()) return -1;
    return int(std::upper_bound(start.begin(), start.end(), t) - start.begin()) - 1;
  }
  std::uint64_t& start(int r, int d) { return local_[std::size_t(r) * (buckets_ + 1) + d]; }
  std::uint64_t share_size(int q) const { return share_begin(total_, p_, q + 1) - share_begin(total_, p_, q); }
  /// Share q's part of buckets [d0, d1): the overlap of their global
  /// positions with the share's.
  std::uint64_t part(int q, int d0, int d1) const {
    const std::uint64_t lo = std::max(global_[d0], share_begin(total_, p_, q));
    const std::uint64_t hi = std::min(global_[d1], share_begin(total_, p_, q + 1));
    return hi > lo ? hi - lo : 0;
  }
  /// Whether buckets [d0, d1) hold the bucket where share q or share q + 1
  /// begins (strictly after position 0 and before the end): then some rank's
  /// run of share q there depends on a cut.
  bool holds_boundary(int q, int d0, int d1) const {
    for (int b : {q, q + 1}) {
      if (b == 0 || b == p_) continue;
      const int d = bucket_at(global_, share_begin(total_, p_, b));
      if (d >= d0 && d < d1) return true;
    }
    return false;
  }
  /// Share q's part of the block of buckets [first, first + 2^k): one group,
  /// or its two halves, in order.
  void add_block(int q, int first, int k, std::uint64_t target, std::uint64_t budget, std::uint64_t& at,
                 std::vector<block>& out) {
    const int last = first + (1 << k);
    const std::uint64_t size = part(q, first, last);
    if (size == 0) return;
    if (k > 0 && (size > target || size > budget)) {
      add_block(q, first, k - 1, target, budget, at, out);
      add_block(q, first + (1 << (k - 1)), k - 1, target, budget, at, out);
      return;
    }
    if (size > budget) fits_ = false;
    out.push_back({{at, at + size, digit_bits_ - k, holds_boundary(q, first, last)}, first, last});
    at += size;
  }

  int p_;
  int buckets_;
  int digit_bits_ = 0;
  bool fits_ = true;
  bool placed_ = false;
  std::vector<int> ready_;  // per share
  std::uint64_t total_ = 0;
  std::vector<std::uint64_t> local_;
  std::vector<std::uint64_t> global_;
  std::vector<std::vector<piece>> pieces_;
  std::vector<std::vector<group>> groups_;
  std::vector<placed_block> blocks_;
};

}  // namespace radix::core
