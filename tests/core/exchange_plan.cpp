// Unit tests of the distributed sort's planning (src/core/radix/core/exchange_plan.hpp)
// with 1 to 64 virtual ranks on the CPU: the splitter search and the exchange
// plan, run as the ranks run them (the sums and gathers done here by loops),
// must give each rank exactly its share of the global stable order.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "radix/core/bucket_exchange.hpp"
#include "radix/core/exchange_plan.hpp"
#include "radix_test.hpp"

namespace {

using radix::core::bucket_exchange;
using radix::core::exchange_plan;
using radix::core::share_begin;
using radix::core::splitter_search;

struct element {
  std::uint64_t key;
  int rank;
  std::uint64_t index;  // position in the rank's input
  bool operator==(const element&) const = default;
};

enum class shape { uniform, all_equal, few_unique, zipf, sorted, reversed, one_rank_only, narrow };

const char* name(shape s) {
  switch (s) {
    case shape::uniform: return "uniform";
    case shape::all_equal: return "all_equal";
    case shape::few_unique: return "few_unique";
    case shape::zipf: return "zipf";
    case shape::sorted: return "sorted";
    case shape::reversed: return "reversed";
    case shape::one_rank_only: return "one_rank_only";
    case shape::narrow: return "narrow";
  }
  return "?";
}

/// Each rank's input (unsorted), keys below 2^bits.
std::vector<std::vector<std::uint64_t>> make_input(shape s, int ranks, std::uint64_t per_rank, int bits,
                                                   std::uint64_t seed) {
  rt::rng r(seed);
  const std::uint64_t limit = bits == 64 ? ~0ull : (1ull << bits) - 1;
  std::vector<std::vector<std::uint64_t>> in(ranks);
  std::uint64_t next = 0;
  for (int q = 0; q < ranks; ++q) {
    // Uneven counts: some ranks hold nothing.
    std::uint64_t n = per_rank == 0 ? 0 : r.below(2 * per_rank + 1);
    if (s == shape::one_rank_only) n = q == ranks / 2 ? per_rank * ranks : 0;
    for (std::uint64_t i = 0; i < n; ++i) {
      std::uint64_t k = 0;
      switch (s) {
        case shape::uniform:
        case shape::one_rank_only: k = r() & limit; break;
        case shape::all_equal: k = limit / 3; break;
        case shape::few_unique: k = (r.below(4) * (limit / 5)) & limit; break;
        case shape::zipf: k = std::uint64_t(std::pow(2.0, 20 * r.unit() * r.unit())) & limit; break;
        case shape::sorted: k = std::min(next++, limit); break;
        case shape::reversed: k = limit - std::min(next++, limit); break;
        case shape::narrow: k = (r() & 0xF) << (bits > 8 ? bits - 8 : 0) & limit; break;
      }
      in[q].push_back(k);
    }
  }
  return in;
}

/// Runs the protocol over virtual ranks; returns each rank's output.
std::vector<std::vector<element>> distribute(const std::vector<std::vector<element>>& sorted, int bits,
                                             int digit_bits, int* rounds_out = nullptr) {
  const int p = int(sorted.size());
  std::vector<std::uint64_t> counts(p);
  std::uint64_t total = 0;
  for (int q = 0; q < p; ++q) total += counts[q] = sorted[q].size();
  std::vector<std::uint64_t> targets;
  for (int q = 1; q < p; ++q) targets.push_back(share_begin(total, p, q));

  auto below = [&](int q, std::uint64_t key) {
    return std::uint64_t(std::lower_bound(sorted[q].begin(), sorted[q].end(), key,
                                          [](const element& e, std::uint64_t k) { return e.key < k; }) -
                         sorted[q].begin());
  };
  auto at_most = [&](int q, std::uint64_t key) {
    return std::uint64_t(std::upper_bound(sorted[q].begin(), sorted[q].end(), key,
                                          [](std::uint64_t k, const element& e) { return k < e.key; }) -
                         sorted[q].begin());
  };

  splitter_search search(bits, targets, total, digit_bits);
  int rounds = 0;
  while (!search.done()) {
    std::vector<std::uint64_t> sum(search.candidates().size(), 0);  // the all-reduce
    for (int q = 0; q < p; ++q)
      for (std::size_t i = 0; i < sum.size(); ++i) sum[i] += below(q, search.candidates()[i]);
    search.advance(sum);
    ++rounds;
  }
  if (rounds_out) *rounds_out = rounds;
  std::vector<std::uint64_t> lo(std::size_t(p) * (p - 1)), hi(lo.size());  // the all-gather
  for (int q = 0; q < p; ++q)
    for (int b = 0; b < p - 1; ++b) {
      lo[std::size_t(q) * (p - 1) + b] = below(q, search.key(b));
      hi[std::size_t(q) * (p - 1) + b] = at_most(q, search.key(b));
    }
  const exchange_plan plan(counts, lo, hi);

  // The exchange, then a stable merge of the runs in rank order.
  std::vector<std::vector<element>> out(p);
  for (int q = 0; q < p; ++q) {
    for (int r = 0; r < p; ++r) {
      EXPECT_EQ(plan.recv_offset(q, r), out[q].size());
      out[q].insert(out[q].end(), sorted[r].begin() + plan.cut(r, q), sorted[r].begin() + plan.cut(r, q + 1));
    }
    std::stable_sort(out[q].begin(), out[q].end(), [](const element& a, const element& b) { return a.key < b.key; });
    EXPECT_EQ(plan.received(q), out[q].size());
  }
  return out;
}

/// Each rank's output is exactly its share of the global stable order `all`.
void expect_shares(const std::vector<std::vector<element>>& out, const std::vector<element>& all) {
  const int ranks = int(out.size());
  std::uint64_t at = 0;
  for (int q = 0; q < ranks; ++q) {
    ASSERT_EQ(out[q].size(), share_begin(all.size(), ranks, q + 1) - share_begin(all.size(), ranks, q)) << "rank " << q;
    for (std::uint64_t i = 0; i < out[q].size(); ++i, ++at)
      ASSERT_EQ(out[q][i], all[at]) << "rank " << q << " element " << i;
  }
  EXPECT_EQ(at, all.size());
}

void check_case(shape s, int ranks, std::uint64_t per_rank, int bits, int digit_bits) {
  const std::uint64_t seed = rt::case_seed(std::string(name(s)) + std::to_string(ranks) + "/" +
                                           std::to_string(per_rank) + "/" + std::to_string(bits));
  SCOPED_TRACE(std::string(name(s)) + " ranks " + std::to_string(ranks) + " per rank " + std::to_string(per_rank) +
               " bits " + std::to_string(bits) + " digit " + std::to_string(digit_bits) + " seed " + rt::hex(seed));
  const auto in = make_input(s, ranks, per_rank, bits, seed);
  std::vector<element> all;
  std::vector<std::vector<element>> sorted(ranks);
  for (int q = 0; q < ranks; ++q) {
    for (std::uint64_t i = 0; i < in[q].size(); ++i) sorted[q].push_back({in[q][i], q, i});
    all.insert(all.end(), sorted[q].begin(), sorted[q].end());
    std::stable_sort(sorted[q].begin(), sorted[q].end(), [](const element& a, const element& b) { return a.key < b.key; });
  }
  std::stable_sort(all.begin(), all.end(), [](const element& a, const element& b) { return a.key < b.key; });

  int rounds = 0;
  const auto out = distribute(sorted, bits, digit_bits, &rounds);
  if (!all.empty() && ranks > 1) {
    EXPECT_EQ(rounds, (bits + digit_bits - 1) / digit_bits);
  }
  expect_shares(out, all);
}

TEST(ExchangePlan, ShareBeginSplitsEvenly) {
  EXPECT_EQ(share_begin(10, 4, 0), 0u);
  EXPECT_EQ(share_begin(10, 4, 1), 2u);
  EXPECT_EQ(share_begin(10, 4, 2), 5u);
  EXPECT_EQ(share_begin(10, 4, 4), 10u);
  // No overflow near 2^64.
  EXPECT_EQ(share_begin(~0ull, 2, 1), ~0ull / 2);
  EXPECT_EQ(share_begin(~0ull, 64, 64), ~0ull);
}

/// Every shape, share size and key width over these rank counts.
static void every_shape_plan(std::initializer_list<int> rank_counts) {
  for (shape s : {shape::uniform, shape::all_equal, shape::few_unique, shape::zipf, shape::sorted, shape::reversed,
                  shape::one_rank_only, shape::narrow})
    for (int ranks : rank_counts)
      for (std::uint64_t per_rank : {0ull, 1ull, 3ull, 200ull})
        for (int bits : {8, 32, 64}) check_case(s, ranks, per_rank, bits, splitter_search::default_digit_bits);
}
TEST(ExchangePlan, EveryShapeOverOneToEightRanks) { every_shape_plan({1, 2, 3, 4, 7, 8}); }
// (the sanitizer jobs leave these out: most of the file's time)
TEST(ExchangePlan, EveryShapeOverSixteenAndSixtyFourRanks) { every_shape_plan({16, 64}); }

TEST(ExchangePlan, OtherDigitWidthsAndOddKeyWidths) {
  for (int digit_bits : {1, 3, 11, 16})
    for (int bits : {1, 5, 17, 63}) check_case(shape::few_unique, 5, 100, bits, digit_bits);
}

TEST(ExchangePlan, FewerElementsThanRanks) {
  for (int ranks : {2, 8, 64}) check_case(shape::uniform, ranks, 0, 32, 8);
  // One element in all: it lands on the last rank (floor shares).
  std::vector<std::vector<element>> sorted(4);
  sorted[1].push_back({7, 1, 0});
  const auto out = distribute(sorted, 32, 8);
  EXPECT_TRUE(out[0].empty() && out[1].empty() && out[2].empty());
  ASSERT_EQ(out[3].size(), 1u);
  EXPECT_EQ(out[3][0], (element{7, 1, 0}));
}

/// The partition-first protocol over virtual ranks (core/bucket_exchange.hpp),
/// as src/distributed runs it: a stable pass by the top digit, the plan from
/// the bucket counts, the steps that need no cuts (run here before anything
/// else, so that a piece read from a boundary bucket, which the GPUs sort
/// meanwhile, fails the check below), the boundary buckets sorted whole, the
/// splitter search by binary search over those buffers (each search must
/// meet a partitioned buffer), the cuts placed, the other steps, and a stable
/// sort of each received group. Returns each rank's output, or nothing where
/// the buckets do not fit the budget.
std::vector<std::vector<element>> distribute_partition_first(const std::vector<std::vector<element>>& input, int bits,
                                                             std::uint64_t target, std::uint64_t budget, bool& fits,
                                                             int& steps, int* ready = nullptr) {
  const int p = int(input.size());
  const int top = std::min(bits, splitter_search::default_digit_bits);
  const int shift = bits - top;
  const int buckets = 1 << top;
  auto digit = [&](const element& e) { return int(e.key >> shift); };
  std::vector<std::vector<element>> local = input;
  std::vector<std::uint64_t> counts(std::size_t(p) * buckets, 0), starts(std::size_t(p) * (buckets + 1), 0);
  for (int r = 0; r < p; ++r) {
    std::stable_sort(local[r].begin(), local[r].end(),
                     [&](const element& a, const element& b) { return digit(a) < digit(b); });
    for (const auto& e : local[r]) ++counts[std::size_t(r) * buckets + digit(e)];
    for (int d = 0; d < buckets; ++d)
      starts[std::size_t(r) * (buckets + 1) + d + 1] =
          starts[std::size_t(r) * (buckets + 1) + d] + counts[std::size_t(r) * buckets + d];
  }
  const std::vector<int> boundary = bucket_exchange::boundary_buckets(counts, p, buckets);
  std::vector<std::uint64_t> n(p);
  std::uint64_t total = 0;
  for (int r = 0; r < p; ++r) total += n[r] = local[r].size();
  bucket_exchange ex(counts, p, buckets, target, budget);
  fits = ex.fits();
  steps = ex.steps();
  if (!fits) return {};
  EXPECT_LE(ex.ready_steps(), ex.steps());
  if (boundary.empty()) {
    EXPECT_EQ(ex.ready_steps(), ex.steps());
  }

  // The steps: every position of every share written exactly once, each
  // group whole once its step has run; then it is sorted.
  std::vector<std::vector<element>> out(p);
  std::vector<std::vector<int>> written(p);
  for (int q = 0; q < p; ++q) {
    out[q].resize(share_begin(total, p, q + 1) - share_begin(total, p, q));
    written[q].assign(out[q].size(), 0);
  }
  // Share q's part of step j: its runs pulled from the senders (as the
  // copy engines do), then its group j sorted.
  auto run_step = [&](int j, int q, bool before_cuts) {
    std::vector<int> pairs(std::size_t(p), 0);
    for (const auto& pc : ex.pieces(j)) {
      if (pc.to != q) continue;
      EXPECT_EQ(++pairs[pc.from], 1) << "two runs from " << pc.from << " to " << pc.to;
      // A piece of step j lands inside its share's group j.
      EXPECT_LT(std::size_t(j), ex.groups(pc.to).size()) << "share " << pc.to << " has no group " << j;
      if (std::size_t(j) < ex.groups(pc.to).size()) {
        EXPECT_GE(pc.target, ex.groups(pc.to)[j].begin);
        EXPECT_LE(pc.target + pc.length, ex.groups(pc.to)[j].end);
        if (before_cuts) {
          EXPECT_FALSE(ex.groups(pc.to)[j].boundary) << "step " << j;
        }
      }
      EXPECT_LE(pc.source + pc.length, local[pc.from].size());
      EXPECT_LE(pc.target + pc.length, out[pc.to].size());
      if (before_cuts)  // (the sender may be sorting its boundary buckets now)
        for (int d : boundary) {
          const std::uint64_t b0 = starts[std::size_t(pc.from) * (buckets + 1) + d];
          const std::uint64_t b1 = starts[std::size_t(pc.from) * (buckets + 1) + d + 1];
          EXPECT_TRUE(pc.source + pc.length <= b0 || pc.source >= b1)
              << "step " << j << " reads rank " << pc.from << "'s boundary bucket " << d << " before the cuts";
        }
      for (std::uint64_t i = 0; i < pc.length; ++i) {
        out[pc.to][pc.target + i] = local[pc.from][pc.source + i];
        ++written[pc.to][pc.target + i];
      }
    }
    {
      if (std::size_t(j) >= ex.groups(q).size()) return;
      const auto& g = ex.groups(q)[j];
      EXPECT_LE(g.end - g.begin, budget);
      EXPECT_LT(g.begin, g.end);
      EXPECT_TRUE(g.shared_bits >= 0 && g.shared_bits <= top);
      for (std::uint64_t i = g.begin; i < g.end; ++i) EXPECT_EQ(written[q][i], 1) << "share " << q << " at " << i;
      // The group's keys agree on their top shared_bits bits: one stable
      // sort by the bits below orders the group.
      const auto b = out[q].begin() + g.begin, e = out[q].begin() + g.end;
      const int below_shared = bits - g.shared_bits;
      for (auto it = b; it != e; ++it)
        if (below_shared < 64) {
          EXPECT_EQ(it->key >> below_shared, b->key >> below_shared);
        }
      std::stable_sort(b, e, [](const element& x, const element& y) { return x.key < y.key; });
    }
  };
  // Each share pulls what it can before the cuts: the steps before
  // ready_steps(q) hold no boundary group of share q.
  for (int q = 0; q < p; ++q) {
    EXPECT_GE(ex.ready_steps(q), ex.ready_steps());
    // (a share has at most two boundary groups: where it begins and where the next does)
    EXPECT_GE(ex.ready_steps(q) + 2, int(ex.groups(q).size())) << "share " << q;
    for (int j = 0; j < ex.ready_steps(q); ++j) run_step(j, q, true);
  }
  if (ready) *ready = ex.ready_steps();

  for (int d : boundary)
    for (int r = 0; r < p; ++r)
      std::stable_sort(local[r].begin() + starts[std::size_t(r) * (buckets + 1) + d],
                       local[r].begin() + starts[std::size_t(r) * (buckets + 1) + d + 1],
                       [](const element& a, const element& b) { return a.key < b.key; });

  auto below = [&](int r, std::uint64_t key, bool at_most) {
    auto pred = [&](const element& e) { return at_most ? e.key <= key : e.key < key; };
    // The claim that makes a binary search right here: a key the search
    // asks about is a bucket's first possible key, or lies in a sorted bucket.
    const bool bucket_start = !at_most && (key & ((std::uint64_t(1) << shift) - 1)) == 0;
    EXPECT_TRUE(local[r].empty() || bucket_start || std::find(boundary.begin(), boundary.end(), digit({key, 0, 0})) != boundary.end())
        << "rank " << r << " key " << key;
    if (local[r].size() <= 64 && p <= 8) {
      EXPECT_TRUE(std::is_partitioned(local[r].begin(), local[r].end(), pred));
    }
    return std::uint64_t(std::partition_point(local[r].begin(), local[r].end(), pred) - local[r].begin());
  };
  std::vector<std::uint64_t> targets;
  for (int q = 1; q < p; ++q) targets.push_back(share_begin(total, p, q));
  splitter_search search(bits, targets, total);
  while (!search.done()) {
    std::vector<std::uint64_t> sum(search.candidates().size(), 0);
    for (int r = 0; r < p; ++r)
      for (std::size_t i = 0; i < sum.size(); ++i) sum[i] += below(r, search.candidates()[i], false);
    search.advance(sum);
  }
  std::vector<std::uint64_t> lo(std::size_t(p) * (p - 1)), hi(lo.size());
  for (int r = 0; r < p; ++r)
    for (int b = 0; b < p - 1; ++b) {
      lo[std::size_t(r) * (p - 1) + b] = below(r, search.key(b), false);
      hi[std::size_t(r) * (p - 1) + b] = below(r, search.key(b), true);
    }
  const exchange_plan plan(n, lo, hi);
  for (int q = 0; q < p; ++q) EXPECT_EQ(plan.received(q), out[q].size());
  std::vector<int> first_unready(p);
  for (int q = 0; q < p; ++q) first_unready[q] = ex.ready_steps(q);
  ex.place_cuts(plan);
  EXPECT_EQ(ex.ready_steps(), ex.steps());
  EXPECT_THROW(ex.place_cuts(plan), radix::invalid_argument);
  // Every run, planned from the counts or from the cuts, lies inside what
  // its sender sends its receiver by the cuts.
  for (int j = 0; j < ex.steps(); ++j)
    for (const auto& pc : ex.pieces(j)) {
      EXPECT_GE(pc.source, plan.cut(pc.from, pc.to)) << "step " << j;
      EXPECT_LE(pc.source + pc.length, plan.cut(pc.from, pc.to + 1)) << "step " << j;
    }
  // Planned in one go (the cuts known from the start), the same runs.
  const bucket_exchange whole(counts, buckets, plan, target, budget);
  EXPECT_EQ(whole.steps(), ex.steps());
  for (int j = 0; j < ex.steps() && j < whole.steps(); ++j) {
    EXPECT_EQ(whole.pieces(j).size(), ex.pieces(j).size()) << "step " << j;
    for (std::size_t i = 0; i < ex.pieces(j).size() && i < whole.pieces(j).size(); ++i) {
      const auto &a = whole.pieces(j)[i], &b = ex.pieces(j)[i];
      EXPECT_TRUE(a.from == b.from && a.to == b.to && a.source == b.source && a.target == b.target &&
                  a.length == b.length)
          << "step " << j << " piece " << i;
    }
  }
  for (int q = 0; q < p; ++q)
    for (int j = first_unready[q]; j < ex.steps(); ++j) run_step(j, q, false);
  for (int q = 0; q < p; ++q)
    for (std::size_t i = 0; i < written[q].size(); ++i) EXPECT_EQ(written[q][i], 1) << "share " << q << " at " << i;
  return out;
}

void check_partition_first(shape s, int ranks, std::uint64_t per_rank, int bits, std::uint64_t target,
                           std::uint64_t budget, bool must_fit) {
  const std::uint64_t seed = rt::case_seed(std::string("pf/") + name(s) + std::to_string(ranks) + "/" +
                                           std::to_string(per_rank) + "/" + std::to_string(bits));
  SCOPED_TRACE(std::string("partition first ") + name(s) + " ranks " + std::to_string(ranks) + " per rank " +
               std::to_string(per_rank) + " bits " + std::to_string(bits) + " target " + std::to_string(target) +
               " budget " + std::to_string(budget) +
               " seed " + rt::hex(seed));
  const auto in = make_input(s, ranks, per_rank, bits, seed);
  std::vector<element> all;
  std::vector<std::vector<element>> input(ranks);
  for (int q = 0; q < ranks; ++q) {
    for (std::uint64_t i = 0; i < in[q].size(); ++i) input[q].push_back({in[q][i], q, i});
    all.insert(all.end(), input[q].begin(), input[q].end());
  }
  std::stable_sort(all.begin(), all.end(), [](const element& a, const element& b) { return a.key < b.key; });
  bool fits = false;
  int steps = 0;
  const auto out = distribute_partition_first(input, bits, target, budget, fits, steps);
  if (must_fit) {
    EXPECT_TRUE(fits);
  }
  if (!fits) return;
  expect_shares(out, all);
}

/// Partition first over every shape, share size, key width and budget, over these rank counts.
static void every_shape_partition_first(std::initializer_list<int> rank_counts) {
  for (shape s : {shape::uniform, shape::all_equal, shape::few_unique, shape::zipf, shape::sorted, shape::reversed,
                  shape::one_rank_only, shape::narrow})
    for (int ranks : rank_counts)
      for (std::uint64_t per_rank : {0ull, 1ull, 3ull, 100ull, 3000ull})
        for (int bits : {12, 32, 64})
          for (std::uint64_t budget : {std::uint64_t(-1), per_rank / 4 + 1}) {
            if (per_rank == 3000 && ranks > 8) continue;  // (time)
            // Uniform keys over many buckets fit a quarter of a share.
            const bool must_fit =
                budget == std::uint64_t(-1) || (s == shape::uniform && per_rank >= 3000 && ranks <= 4);
            // Groups of single buckets, of a few, and of everything a budget allows.
            for (std::uint64_t target : {std::uint64_t(1), per_rank / 16 + 1, std::uint64_t(-1)})
              if (per_rank < 3000 || target == per_rank / 16 + 1)  // (time)
                check_partition_first(s, ranks, per_rank, bits, target, budget, must_fit);
          }
}
TEST(BucketExchange, EveryShapeOverOneToEightRanks) { every_shape_partition_first({1, 2, 3, 4, 7, 8}); }
TEST(BucketExchange, EveryShapeOverSixteenAndSixtyFourRanks) { every_shape_partition_first({16, 64}); }

TEST(BucketExchange, GroupsFollowTheBudget) {
  // 2 ranks, 4096 uniform keys each: about 32 keys a bucket, 128 buckets a
  // share.
  rt::rng r(0xB0C4E7ull);
  std::vector<std::vector<element>> input(2);
  for (int q = 0; q < 2; ++q)
    for (std::uint64_t i = 0; i < 4096; ++i) input[q].push_back({r() & 0xFFFFFFFFull, q, i});
  bool fits = false;
  int steps = 0;
  (void)distribute_partition_first(input, 32, ~0ull, 300, fits, steps);
  EXPECT_TRUE(fits);
  // Blocks are halved down to 8 buckets (about 256 keys, at most 300).
  EXPECT_GE(steps, 4096 / 300);
  EXPECT_LE(steps, 4096 / 100);
  // A target of one element: a group a bucket, 128 (and the boundary bucket) a share.
  int ready = 0;
  (void)distribute_partition_first(input, 32, 1, 300, fits, steps, &ready);
  EXPECT_TRUE(fits);
  EXPECT_GE(steps, 128);
  EXPECT_LE(steps, 130);
  // Only the groups that hold the boundary bucket (one a share, last in
  // its share's order; the shares' counts of groups differ by one) wait.
  EXPECT_GE(ready, steps - 2);
}

TEST(BucketExchange, BoundaryBuckets) {
  // 2 ranks, 4 buckets: totals 3, 0, 5, 2 (starts 0, 3, 3, 8; 10 in all).
  const std::vector<std::uint64_t> counts{1, 0, 5, 0, 2, 0, 0, 2};
  EXPECT_EQ(bucket_exchange::boundary_buckets(counts, 2, 4), (std::vector<int>{2}));  // position 5
  // 4 shares of 10: positions 2, 5, 7 lie in buckets 0, 2, 2.
  const std::vector<std::uint64_t> four(16, 0);
  EXPECT_TRUE(bucket_exchange::boundary_buckets(four, 4, 4).empty());
  std::vector<std::uint64_t> c4(16, 0);
  c4[0] = 3;   // rank 0, bucket 0
  c4[6] = 5;   // rank 1, bucket 2
  c4[11] = 2;  // rank 2, bucket 3
  EXPECT_EQ(bucket_exchange::boundary_buckets(c4, 4, 4), (std::vector<int>{0, 2}));
  EXPECT_THROW(bucket_exchange::boundary_buckets(c4, 3, 4), radix::invalid_argument);
}

TEST(ExchangePlan, RejectsInconsistentCounts) {
  const std::vector<std::uint64_t> counts{2, 2};
  EXPECT_THROW(exchange_plan(counts, std::vector<std::uint64_t>{1}, std::vector<std::uint64_t>{1, 1}),
               radix::invalid_argument);
  EXPECT_THROW(exchange_plan(counts, std::vector<std::uint64_t>{2, 0}, std::vector<std::uint64_t>{1, 0}),
               radix::invalid_argument);
  EXPECT_THROW(splitter_search(65, {0}, 1), radix::invalid_argument);
}

}  // namespace
