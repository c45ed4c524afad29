// Pass planning and digit extraction for LSD radix sorting (Helluy 2011, "A
// portable implementation of the radix sort algorithm in OpenCL", §2: free
// choice of key bits b and radix bits r; R-bit counting passes as in the
// course slides "CUDA LSD Radix Sort").
// Shared by every engine and by the tests.
#pragma once
#include <cstdint>

#include "radix/core/config.hpp"

namespace radix::core {

/// One counting pass: the digit is bits [shift, shift + bits) of the ordered key.
struct pass {
  int shift = 0;
  int bits = 0;
  friend constexpr bool operator==(const pass&, const pass&) = default;
};

/// Digit of an ordered key for one pass.
template <class U>
RADIX_HD constexpr unsigned digit_of(U ordered, int shift, int bits) {
  return unsigned((ordered >> shift) & ((U(1) << bits) - 1));
}

/// The passes that sort bits [begin_bit, end_bit) with digits of at most
/// `digit_bits` bits, least significant first. The bits are spread evenly
/// (10 bits with 8-bit digits -> two passes of 5 bits, as Helluy's PIC case),
/// which keeps the histograms of every pass as small as possible.
struct pass_plan {
  static constexpr int max_passes = 128;  // 128-bit keys with 1-bit digits
  int count = 0;
  pass passes[max_passes] = {};

  RADIX_HD constexpr const pass& operator[](int i) const { return passes[i]; }
};

/// The same plan pass by pass, without the array (device code): pass i of
/// `count`, the first `extra` passes one bit wider than `base`.
struct even_passes {
  int begin = 0, count = 0, base = 0, extra = 0;
  RADIX_HD constexpr even_passes(int begin_bit, int end_bit, int digit_bits) : begin(begin_bit) {
    const int total = end_bit - begin_bit;
    if (total <= 0 || digit_bits <= 0) return;
    count = (total + digit_bits - 1) / digit_bits;
    if (count > pass_plan::max_passes) count = pass_plan::max_passes;
    base = total / count;
    extra = total % count;
  }
  RADIX_HD constexpr pass operator[](int i) const {
    return pass{begin + i * base + (i < extra ? i : extra), base + (i < extra ? 1 : 0)};
  }
};

RADIX_HD constexpr pass_plan plan_passes(int begin_bit, int end_bit, int digit_bits) {
  pass_plan p;
  const even_passes e(begin_bit, end_bit, digit_bits);
  p.count = e.count;
  for (int i = 0; i < p.count; ++i) p.passes[i] = e[i];
  return p;
}

/// A pass is trivial (can be skipped) when every key has the same digit: then
/// no bit of the digit differs between keys. `varying` is the OR over all keys
/// of (ordered ^ first ordered key), i.e. the bits that are not constant.
template <class U>
RADIX_HD constexpr bool pass_is_trivial(U varying, const pass& ps) {
  return digit_of<U>(varying, ps.shift, ps.bits) == 0;
}

}  // namespace radix::core
