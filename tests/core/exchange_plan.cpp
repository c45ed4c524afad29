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

#include "radix/core/exchange_plan.hpp"
#include "radix_test.hpp"

namespace {

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
  std::uint64_t at = 0;
  for (int q = 0; q < ranks; ++q) {
    ASSERT_EQ(out[q].size(), share_begin(all.size(), ranks, q + 1) - share_begin(all.size(), ranks, q)) << "rank " << q;
    for (std::uint64_t i = 0; i < out[q].size(); ++i, ++at)
      ASSERT_EQ(out[q][i], all[at]) << "rank " << q << " element " << i;
  }
  EXPECT_EQ(at, all.size());
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

TEST(ExchangePlan, EveryShapeOverTwoToSixtyFourRanks) {
  for (shape s : {shape::uniform, shape::all_equal, shape::few_unique, shape::zipf, shape::sorted, shape::reversed,
                  shape::one_rank_only, shape::narrow})
    for (int ranks : {1, 2, 3, 4, 7, 8, 16, 64})
      for (std::uint64_t per_rank : {0ull, 1ull, 3ull, 200ull})
        for (int bits : {8, 32, 64}) check_case(s, ranks, per_rank, bits, splitter_search::default_digit_bits);
}

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

TEST(ExchangePlan, RejectsInconsistentCounts) {
  const std::vector<std::uint64_t> counts{2, 2};
  EXPECT_THROW(exchange_plan(counts, std::vector<std::uint64_t>{1}, std::vector<std::uint64_t>{1, 1}),
               radix::invalid_argument);
  EXPECT_THROW(exchange_plan(counts, std::vector<std::uint64_t>{2, 0}, std::vector<std::uint64_t>{1, 0}),
               radix::invalid_argument);
  EXPECT_THROW(splitter_search(65, {0}, 1), radix::invalid_argument);
}

}  // namespace
