// A stable merge of k sorted runs on the host, on several threads: what the
// sort over several GPUs does with host data larger than the GPUs (each
// chunk sorted on the GPUs, then the chunks merged here). The output is cut
// into equal parts with the same multi-sequence selection the distributed
// sort uses between ranks (exchange_plan.hpp), so each thread merges its
// part's pieces of every run on its own; ties go to the earlier run.
#pragma once
#include <algorithm>
#include <cstdint>
#include <queue>
#include <thread>
#include <vector>

#include "radix/core/exchange_plan.hpp"
#include "radix/core/merge_path.hpp"
#include "radix/core/sort_plan.hpp"

namespace radix::core {

/// Run r is [starts[r], starts[r + 1]) of `keys` (and `values`), sorted by f.
/// Writes the stable merge of all runs to out_keys (and out_values, unless V
/// is no_value), on `threads` threads. key_bits: the width of f's keys.
template <class U, class V>
void merge_sorted_runs(const U* keys, const V* values, const std::vector<std::uint64_t>& starts,
                       const compare_key<U>& f, int key_bits, U* out_keys, V* out_values, unsigned threads) {
  constexpr bool has_values = !std::is_same_v<V, no_value>;
  const int k = int(starts.size()) - 1;
  if (k <= 0) return;
  const std::uint64_t total = starts.back() - starts.front();
  const int parts = int(std::max<std::uint64_t>(1, std::min<std::uint64_t>(threads ? threads : 1, total / 4096 + 1)));

  // Where each part begins in every run: the bisection of splitter_search,
  // with the runs as its ranks and exact counts by binary search.
  std::vector<std::uint64_t> lengths(k);
  for (int r = 0; r < k; ++r) lengths[r] = starts[r + 1] - starts[r];
  std::vector<std::uint64_t> targets;
  for (int q = 1; q < parts; ++q) targets.push_back(share_begin(total, parts, q));
  splitter_search search(key_bits, targets, total);
  auto below = [&](int r, std::uint64_t c, bool at_most) {
    return count_below<U, std::uint64_t>(keys + starts[r], lengths[r], f, c, at_most);
  };
  while (!search.done()) {
    std::vector<std::uint64_t> sum(search.candidates().size(), 0);
    for (int r = 0; r < k; ++r)
      for (std::size_t i = 0; i < sum.size(); ++i) sum[i] += below(r, search.candidates()[i], false);
    search.advance(sum);
  }
  // The runs play the ranks of exchange_plan, the threads' parts its shares.
  const std::size_t nb = std::size_t(parts - 1);
  std::vector<std::uint64_t> lo(nb * k), hi(nb * k);
  for (int r = 0; r < k; ++r)
    for (std::size_t b = 0; b < nb; ++b) {
      lo[r * nb + b] = below(r, search.key(int(b)), false);
      hi[r * nb + b] = below(r, search.key(int(b)), true);
    }
  const exchange_plan plan(lengths, lo, hi, parts);

  auto merge_part = [&](int q) {
    // A heap of (run, position) ordered by key, then run: stable.
    struct head {
      std::uint64_t key;
      int run;
      std::uint64_t at, end;
    };
    auto later = [](const head& a, const head& b) { return a.key != b.key ? a.key > b.key : a.run > b.run; };
    std::priority_queue<head, std::vector<head>, decltype(later)> heap(later);
    for (int r = 0; r < k; ++r)
      if (plan.send_count(r, q)) heap.push({f(keys[starts[r] + plan.cut(r, q)]), r, plan.cut(r, q), plan.cut(r, q + 1)});
    std::uint64_t o = share_begin(total, parts, q);
    while (!heap.empty()) {
      head h = heap.top();
      heap.pop();
      const std::uint64_t src = starts[h.run] + h.at;
      out_keys[o] = keys[src];
      if constexpr (has_values) out_values[o] = values[src];
      ++o;
      if (++h.at < h.end) {
        h.key = f(keys[starts[h.run] + h.at]);
        heap.push(h);
      }
    }
  };
  std::vector<std::thread> pool;
  for (int q = 1; q < parts; ++q) pool.emplace_back(merge_part, q);
  merge_part(0);
  for (auto& t : pool) t.join();
}

}  // namespace radix::core
