// The pieces of the distributed sort's kernels that decide where each key
// goes, written once for the device and for the CPU tests that check them
// (tests/core/merge_path.cpp): the compared key, counting below a key in a
// sorted run, and the stable merge path of two sorted runs (Green, McColl &
// Bader 2012, "GPU Merge Path"), ties taking the left run first.
#pragma once
#include <cstdint>

#include "radix/core/config.hpp"
#include "radix/core/ordered_bits.hpp"

namespace radix::core {

/// The key as the sort compares it: ordered bits cut to the bit range
/// [begin, end), as an unsigned number (what every engine's passes order by).
template <class U>
struct compare_key {
  ordered_codec<U> codec;
  U mask;
  int shift;
  RADIX_HD std::uint64_t operator()(U raw) const { return std::uint64_t(U(codec(raw) & mask) >> shift); }
};

template <class U>
compare_key<U> make_compare_key(key_desc key, order direction, float_order floats, int begin, int end) {
  return {make_codec<U>(key, direction, floats), bit_range_mask<U>(begin, end), begin};
}

/// In a run sorted by f: how many keys compare below c (at_most: at most c).
template <class U, class Index>
RADIX_HD Index count_below(const U* keys, Index n, const compare_key<U>& f, std::uint64_t c, bool at_most) {
  Index lo = 0, hi = n;
  while (lo < hi) {
    const Index mid = lo + (hi - lo) / 2;
    const std::uint64_t k = f(keys[mid]);
    if (at_most ? k <= c : k < c) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/// How many of the first k elements of the stable merge of a and b come
/// from a (a's keys before b's equal ones).
template <class U, class Index>
RADIX_HD Index co_rank(const U* a, Index na, const U* b, Index nb, Index k, const compare_key<U>& f) {
  Index lo = k > nb ? k - nb : 0;
  Index hi = k < na ? k : na;
  while (lo < hi) {
    const Index mid = lo + (hi - lo) / 2;
    if (f(a[mid]) <= f(b[k - 1 - mid])) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/// One thread's share of a tile's merge: a = in[0, la), b = in[la, la + lb);
/// writes merged elements d .. d + items - 1 (those below la + lb) to
/// out[] and, for each, its position in `in` to from[].
template <class U, class From>
RADIX_HD void merge_steps(const U* in, int la, int lb, int d, int items, const compare_key<U>& f, U* out,
                          From* from) {
  const int len = la + lb;
  if (d >= len) return;
  int i = co_rank<U, int>(in, la, in + la, lb, d, f);
  int j = d - i;
  for (int it = 0; it < items && d + it < len; ++it) {
    const bool take_a = j >= lb || (i < la && f(in[i]) <= f(in[la + j]));
    const int src = take_a ? i : la + j;
    out[d + it] = in[src];
    from[d + it] = From(src);
    if (take_a) ++i;
    else ++j;
  }
}

}  // namespace radix::core
