// Splitting one global stable order over p ranks, each of which holds a
// sorted slice of the keys: the host-side planning of the distributed sort
// (src/distributed). Pure arithmetic on counts, so that the tests can run it
// with any number of virtual ranks on the CPU.
//
// The global order is by ordered key (the transform of ordered_bits.hpp, cut
// to the bit range), then by rank, then by position on the rank: the order of
// one stable sort of the ranks' inputs laid end to end. Rank q receives the
// global positions [share_begin(q), share_begin(q + 1)): exact balance, and
// the stable tie order holds across rank boundaries.
//
// Finding where those positions fall on every rank is a multi-sequence
// selection (Axtmann, Bingmann, Sanders & Schulz 2015, "Practical Massively
// Parallel Sorting", §4.1, splitter selection by bisection). Here the
// bisection runs over the key space, a digit per round: each round asks every
// rank how many of its keys lie below 2^d - 1 candidates per boundary, sums
// the answers over the ranks (one all-reduce), and keeps the largest
// candidate with at most target keys below it. After ceil(bits / d) rounds
// every boundary knows the key of the element at its target position; one
// more round (per rank: keys below, keys at most that key; an all-gather)
// gives each rank's cut, with the keys equal to it split in rank order.
#pragma once
#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "radix/error.hpp"

namespace radix::core {

/// First global position of rank q's share of `total` elements over `ranks`:
/// floor(q * total / ranks), so that shares differ by at most one element.
inline std::uint64_t share_begin(std::uint64_t total, int ranks, int q) {
  return static_cast<std::uint64_t>(static_cast<unsigned __int128>(total) * unsigned(q) / unsigned(ranks));
}

/// The key-space bisection for the p - 1 boundaries between ranks.
class splitter_search {
 public:
  /// Digit per round: 255 candidates per boundary keep the count kernel one
  /// short launch, and 32-bit keys need four rounds.
  static constexpr int default_digit_bits = 8;

  /// key_bits: width of the compared keys (ordered, cut to the bit range:
  /// values below 2^key_bits). targets: the global position of each boundary
  /// (each below `total`, the sum of the ranks' counts); with total == 0 there
  /// is nothing to search.
  splitter_search(int key_bits, std::vector<std::uint64_t> targets, std::uint64_t total,
                  int digit_bits = default_digit_bits)
      : targets_(std::move(targets)), lo_(targets_.size(), 0), remaining_(key_bits), digit_bits_(digit_bits) {
    if (key_bits < 0 || key_bits > 64 || digit_bits < 1 || digit_bits > 16)
      throw invalid_argument("radix: internal: splitter_search with key_bits " + std::to_string(key_bits) +
                             ", digit_bits " + std::to_string(digit_bits));
    for (auto t : targets_)
      if (t >= total) remaining_ = 0;  // nothing to select (no elements): every boundary is at 0
    if (targets_.empty()) remaining_ = 0;
    plan_round();
  }

  bool done() const { return remaining_ == 0; }
  int boundaries() const { return int(targets_.size()); }
  /// Candidates per boundary this round.
  int per_boundary() const { return per_boundary_; }
  /// This round's candidates, boundary-major: boundary b's are
  /// candidates()[b * per_boundary() + j], increasing in j.
  const std::vector<std::uint64_t>& candidates() const { return candidates_; }

  /// below[i]: how many keys of all ranks together are below candidates()[i].
  void advance(std::span<const std::uint64_t> below) {
    if (done()) throw invalid_argument("radix: internal: splitter_search advanced after it finished");
    if (below.size() != candidates_.size()) throw invalid_argument("radix: internal: splitter_search count mismatch");
    const int shift = remaining_ - round_bits_;
    for (std::size_t b = 0; b < targets_.size(); ++b) {
      // Largest j with below(lo + j << shift) <= target; j = 0 holds by induction.
      std::uint64_t j = 0;
      for (int k = 0; k < per_boundary_; ++k)
        if (below[b * per_boundary_ + k] <= targets_[b]) j = std::uint64_t(k) + 1;
      lo_[b] += j << shift;
    }
    remaining_ = shift;
    plan_round();
  }

  /// After done(): the key of the element at boundary b's target position
  /// (0 when there are no elements).
  std::uint64_t key(int b) const { return lo_[b]; }
  const std::vector<std::uint64_t>& keys() const { return lo_; }
  const std::vector<std::uint64_t>& targets() const { return targets_; }

 private:
  void plan_round() {
    candidates_.clear();
    per_boundary_ = 0;
    round_bits_ = 0;
    if (done()) return;
    round_bits_ = std::min(remaining_, digit_bits_);
    per_boundary_ = (1 << round_bits_) - 1;
    const int shift = remaining_ - round_bits_;
    candidates_.reserve(targets_.size() * per_boundary_);
    for (std::size_t b = 0; b < targets_.size(); ++b)
      for (int k = 1; k <= per_boundary_; ++k) candidates_.push_back(lo_[b] + (std::uint64_t(k) << shift));
  }

  std::vector<std::uint64_t> targets_;
  std::vector<std::uint64_t> lo_;  // per boundary: largest key known to have at most target keys below it
  std::vector<std::uint64_t> candidates_;
  int remaining_;                  // low bits of the keys still unknown
  int digit_bits_;
  int round_bits_ = 0;
  int per_boundary_ = 0;
};

/// Who sends what to whom, once every rank's cuts are known. The output is
/// cut into `parts` shares (one per rank in the distributed sort; one per
/// thread when a host merge splits its output, multiway_merge.hpp).
class exchange_plan {
 public:
  /// counts[r]: rank r's elements. below[r * (parts - 1) + b] and
  /// at_most[r * (parts - 1) + b]: how many of rank r's keys are below, and
  /// at most, boundary b's key (splitter_search::key). Every rank computes
  /// the same plan from the same all-gathered numbers.
  exchange_plan(std::span<const std::uint64_t> counts, std::span<const std::uint64_t> boundary_keys_below,
                std::span<const std::uint64_t> boundary_keys_at_most, int parts = 0)
      : p_(int(counts.size())), parts_(parts > 0 ? parts : int(counts.size())),
        cut_(std::size_t(p_) * (parts_ + 1), 0) {
    const int nb = parts_ - 1;
    if (boundary_keys_below.size() != std::size_t(p_) * nb || boundary_keys_at_most.size() != std::size_t(p_) * nb)
      throw invalid_argument("radix: internal: exchange_plan count mismatch");
    std::uint64_t total = 0;
    for (auto c : counts) total += c;
    total_ = total;
    for (int r = 0; r < p_; ++r) cut(r, parts_) = counts[r];
    for (int b = 0; b < nb; ++b) {
      const std::uint64_t target = share_begin(total, parts_, b + 1);
      std::uint64_t below_all = 0;
      for (int r = 0; r < p_; ++r) below_all += boundary_keys_below[std::size_t(r) * nb + b];
      // Keys equal to the boundary's key that precede the target go first
      // to the lowest ranks: the stable order of equal keys.
      std::uint64_t equal_before = target >= below_all ? target - below_all : 0;
      for (int r = 0; r < p_; ++r) {
        const std::uint64_t lo = boundary_keys_below[std::size_t(r) * nb + b];
        const std::uint64_t hi = boundary_keys_at_most[std::size_t(r) * nb + b];
        if (hi < lo || hi > counts[r]) throw invalid_argument("radix: internal: exchange_plan counts out of range");
        const std::uint64_t take = std::min(hi - lo, equal_before);
        cut(r, b + 1) = lo + take;
        equal_before -= take;
      }
    }
    for (int r = 0; r < p_; ++r)
      for (int q = 0; q < parts_; ++q)
        if (cut(r, q) > cut(r, q + 1)) throw invalid_argument("radix: internal: exchange_plan cuts not monotone");
  }

  int ranks() const { return p_; }
  int parts() const { return parts_; }
  std::uint64_t total() const { return total_; }
  /// First of rank r's sorted elements that goes to share q (cut(r, parts) == counts[r]).
  std::uint64_t cut(int r, int q) const { return cut_[std::size_t(r) * (parts_ + 1) + q]; }
  /// Elements rank r sends to share q (q == r: those it keeps).
  std::uint64_t send_count(int r, int q) const { return cut(r, q + 1) - cut(r, q); }
  /// Where, in share q's receive buffer, the run from rank r starts: the runs
  /// lie in rank order, each sorted.
  std::uint64_t recv_offset(int q, int r) const {
    std::uint64_t off = 0;
    for (int s = 0; s < r; ++s) off += send_count(s, q);
    return off;
  }
  /// Elements share q holds afterwards.
  std::uint64_t received(int q) const { return recv_offset(q, p_); }

 private:
  std::uint64_t& cut(int r, int q) { return cut_[std::size_t(r) * (parts_ + 1) + q]; }
  int p_;
  int parts_;
  std::vector<std::uint64_t> cut_;
  std::uint64_t total_ = 0;
};

}  // namespace radix::core
