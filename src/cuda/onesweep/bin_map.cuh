// Ordered keys onto a few thousand bins where the keys are (the bin sort's
// bins, the split route's row bins). The key space is cut into 256 coarse
// ranges by its top 8 bits, each clipped to the keys' span; a coarse range
// that holds keys gets fine bins in proportion to its keys, spread evenly
// over its part of the span. Floats of both signs, whose ordered span holds
// every exponent between the largest magnitudes and the smallest (nearly
// all of them empty: normally distributed data fill a few octaves), then
// get their bins where they are dense; integers of a narrow range get all
// the bins over that range. The map is monotone: a key's bin never comes
// before a smaller key's.
#pragma once
#include <cstdint>

#include "../block/block_scan.cuh"
#include "../common/common.cuh"

namespace radix::cuda_detail {

template <class U>
struct bin_map {
  static constexpr int coarse_bits = 8, coarse = 1 << coarse_bits;
  static constexpr int key_bits = 8 * int(sizeof(U));
  /// Coarse range c: its part of the span begins at `start`; its fine bins
  /// begin at `base`. A key's offset in the range, shifted right by `pre` to
  /// at most 24 bits, times `scale`, shifted right by `shift`, is its fine
  /// bin: scale / 2^shift is the range's fine bins over its width, so every
  /// fine bin is used and none takes twice its share (as scaling by the
  /// power of two above the width would leave it).
  struct entry {
    U start;
    std::uint32_t scale;
    std::uint16_t base;
    std::uint8_t pre, shift;
  };
  const entry* e;  ///< [coarse], shared memory

  __device__ __forceinline__ static unsigned coarse_of(U ordered) {
    return unsigned(ordered >> (key_bits - coarse_bits));
  }

  __device__ __forceinline__ unsigned operator()(U ordered) const {
    const entry x = e[coarse_of(ordered)];
    const unsigned offset = unsigned(U(ordered - x.start) >> x.pre);
    return x.base + unsigned((std::uint64_t(offset) * x.scale) >> x.shift);
  }

  /// Thread c < 256 gives the keys of coarse range c (the others 0): fills
  /// `out` for n keys spanning [lo, hi] and `bins` fine bins (at least 512).
  /// Every thread of the block (at least 256) calls it; ends synchronised.
  /// A range with keys gets max(1, (bins - 256) x its share): never more
  /// than `bins` in all.
  template <int Threads>
  __device__ static void build(entry* out, unsigned keys_c, U lo, U hi, unsigned n, unsigned bins,
                               typename block_scan<Threads, unsigned>::storage& scan) {
    static_assert(Threads >= coarse, "a thread per coarse range");
    const unsigned c = threadIdx.x;
    unsigned fine = 0;
    if (c < coarse && keys_c > 0) {
      fine = unsigned(std::uint64_t(bins - coarse) * keys_c / n);
      fine = fine > 0 ? fine : 1u;
    }
    const unsigned base = block_scan<Threads, unsigned>::exclusive(fine, scan);
    if (c < coarse) {
      const U first = U(U(c) << (key_bits - coarse_bits)), last = U(first | (U(~U(0)) >> coarse_bits));
      const U start = first > lo ? first : lo, end = last < hi ? last : hi;
      const U width = keys_c > 0 ? U(end - start) : U(0);
      const int wbits = width ? 64 - __clzll((unsigned long long)width) : 0;
      const int pre = wbits > 24 ? wbits - 24 : 0;
      const unsigned w = unsigned(width >> pre);  // the offsets run over [0, w]
      // scale = fine x 2^shift / (w + 1), with shift putting it in [2^30, 2^32): a 32 x 32-bit
      // product. It is computed in single precision rounded down at each step (fine and w + 1 <= 2^24
      // are exact floats; the power of two exact), so it is at most the exact quotient and within
      // 2^-22 of it: offset x scale < fine x 2^shift for every offset <= w (no key passes its range's
      // last bin), and the bins stay evenly filled.
      const int shift = fine ? 31 + (w ? 32 - __clz(w) : 0) - (32 - __clz(fine)) : 0;
      const float quotient = __fdiv_rd(float(fine), float(w) + 1.0f);
      const unsigned scale = fine ? __float2uint_rd(quotient * __int_as_float((127 + shift) << 23)) : 0u;
      out[c] = entry{start, scale, std::uint16_t(base), std::uint8_t(pre), std::uint8_t(shift)};
    }
    __syncthreads();
  }
};

}  // namespace radix::cuda_detail
