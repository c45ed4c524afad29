// Stable sort of up to 64 keys of at most 32 bits without branches: each
// key's ordered bits and its position packed into one 64-bit word (so that
// equal keys order by position), sorted by Batcher's odd-even merge network
// (Batcher 1968, "Sorting networks and their applications") padded to 8, 16,
// 32 or 64 words. A segment of 16 random floats sorts about 4x faster than by
// insertion, whose inner loop mispredicts at every key. Up to 512 keys: runs
// of 64 by the network, then merged (sort_packed_merged).
#pragma once
#include <algorithm>
#include <cstdint>
#include <utility>

#include "radix/core/sorting_network.hpp"

namespace radix::cpu::network {

using core::network::comparators;
using core::network::make_comparators;

/// Comparators [First, First + chunk) of the network for N words (the
/// unused ones past its count compile to nothing).
template <int N, int First, int... I>
inline void run_comparators(std::uint64_t* w, std::integer_sequence<int, I...>) {
  constexpr const comparators<N>& c = core::network::batcher<N>;
  const auto exchange = [](std::uint64_t& a, std::uint64_t& b) {
    const std::uint64_t x = a < b ? a : b, y = a < b ? b : a;
    a = x;
    b = y;
  };
  ((First + I < c.count ? exchange(w[c.lo[First + I]], w[c.hi[First + I]]) : void()), ...);
}

/// Sorts w[0..N) ascending; every comparator unrolled (constant indices keep
/// the words in registers, and the compiler emits conditional moves), in
/// chunks of 128 (a fold expression of more nests too deep for Clang).
template <int N>
inline void sort_words(std::uint64_t* w) {
  static_assert(make_comparators<N>().count <= comparators<N>::most);
  constexpr int chunk = 128;
  static_assert(comparators<N>::most % chunk == 0);
  [&]<int... K>(std::integer_sequence<int, K...>) {
    (run_comparators<N, K * chunk>(w, std::make_integer_sequence<int, chunk>{}), ...);
  }(std::make_integer_sequence<int, comparators<N>::most / chunk>{});
}

/// Key and position in one word: equal keys order by position.
template <class O>
inline std::uint64_t pack(O ordered, unsigned position) {
  static_assert(sizeof(O) <= 4, "the key and its position share one 64-bit word");
  return (std::uint64_t(ordered) << 32) | position;
}

/// The position a packed word came from.
inline unsigned position_of(std::uint64_t w) { return static_cast<unsigned>(w); }

/// The most keys sort_packed takes.
inline constexpr unsigned most_keys = 64;

/// Sorts m <= most_keys packed words w[0..m) (w has room for most_keys):
/// padded to 8, 16, 32 or 64 with words that order after every key, then
/// the network.
inline void sort_packed(std::uint64_t* w, unsigned m) {
  const unsigned n = m <= 8 ? 8 : m <= 16 ? 16 : m <= 32 ? 32 : 64;
  for (unsigned i = m; i < n; ++i) w[i] = ~std::uint64_t(0);  // (positions are below 64)
  if (n == 8) sort_words<8>(w);
  else if (n == 16) sort_words<16>(w);
  else if (n == 32) sort_words<32>(w);
  else sort_words<64>(w);
}

/// The most keys sort_packed_merged takes: eight runs of the network, three
/// merges; up to here it beat the bucket sort, which counts digits over the
/// whole segment for each pass (bench/results/cpu-segments-2026-11-27-b.md).
inline constexpr unsigned merged_most = 512;

/// Merges the sorted runs [a, ae) and [b, be) into out. Packed words are
/// distinct (each holds its position), so taking the smaller of the two
/// heads keeps equal keys in position order. Each step is branch-free: which
/// run gives the next word is a coin toss for random keys.
inline void merge_runs(const std::uint64_t* a, const std::uint64_t* ae, const std::uint64_t* b,
                       const std::uint64_t* be, std::uint64_t* out) {
  while (a < ae && b < be) {
    const std::uint64_t x = *a, y = *b;
    const bool take_b = y < x;
    *out++ = take_b ? y : x;
    b += take_b;
    a += !take_b;
  }
  out = std::copy(a, ae, out);
  std::copy(b, be, out);
}

/// Sorts m <= merged_most packed words: runs of most_keys by the network,
/// then merged pairwise, between w and tmp (each with room for merged_most
/// words). Returns the one that holds the sorted words.
inline std::uint64_t* sort_packed_merged(std::uint64_t* w, std::uint64_t* tmp, unsigned m) {
  for (unsigned b = 0; b < m; b += most_keys) sort_packed(w + b, std::min(most_keys, m - b));
  std::uint64_t *from = w, *to = tmp;
  for (unsigned run = most_keys; run < m; run *= 2) {
    for (unsigned b = 0; b < m; b += 2 * run) {
      const unsigned mid = std::min(b + run, m), end = std::min(b + 2 * run, m);
      merge_runs(from + b, from + mid, from + mid, from + end, to + b);
    }
    std::swap(from, to);
  }
  return from;
}

}  // namespace radix::cpu::network
