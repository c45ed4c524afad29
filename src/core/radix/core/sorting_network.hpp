// Batcher's odd-even merge sort as a list of comparators (Batcher 1968,
// "Sorting networks and their applications"), computed at compile time.
// Shared by the CPU engine's tiny segments and the CUDA engine's row network,
// which both unroll it over words held in registers.
#pragma once

namespace radix::core::network {

/// The comparators of Batcher's odd-even merge sort of N words, in order:
/// each orders words lo[i] < hi[i]. 19 for 8 words, 63 for 16, 191 for 32,
/// 543 for 64 (bitonic sort needs 24, 80, 240, 672).
template <int N>
struct comparators {
  static constexpr int most = 640;  ///< 543 for 64 words, rounded up to whole chunks of 128
  int count = 0;
  unsigned char lo[most] = {}, hi[most] = {};
};

template <int N>
constexpr comparators<N> make_comparators() {
  static_assert(N >= 1 && N <= 64 && (N & (N - 1)) == 0, "a power of two up to 64");
  comparators<N> c{};
  for (int p = 1; p < N; p <<= 1)
    for (int k = p; k >= 1; k >>= 1)
      for (int j = k % p; j + k < N; j += 2 * k)
        for (int i = 0; i < k && i + j + k < N; ++i)
          if ((i + j) / (2 * p) == (i + j + k) / (2 * p)) {
            c.lo[c.count] = static_cast<unsigned char>(i + j);
            c.hi[c.count] = static_cast<unsigned char>(i + j + k);
            ++c.count;
          }
  return c;
}

/// The network for N words, evaluated once per N.
template <int N>
inline constexpr comparators<N> batcher = make_comparators<N>();

}  // namespace radix::core::network
