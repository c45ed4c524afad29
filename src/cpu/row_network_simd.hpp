// Uniform rows of 5 to 64 keys of 4 bytes, keys alone, eight rows at a time
// in the eight 32-bit lanes of AVX2 registers: register i holds key i of
// each of the eight rows, and Batcher's odd-even merge network (the table the
// scalar network and the CUDA row network use) runs as one unsigned min and
// one max per comparator for all eight rows. Without positions: only where
// equal ordered keys are equal keys, so that stability cannot show (the
// CUDA row network's keys-only order, one row a lane as there). Rows of 16
// and 32 sort 1.7-2x faster than by the scalar network of packed words, 64
// 1.4x (its 64 registers spill: AVX2 has 16; bench/results/cpu-segments-2026-11-27-c.md).
#pragma once
#include <cstdint>
#include <utility>

#include "radix/core/ordered_bits.hpp"
#include "radix/core/sorting_network.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define RADIX_CPU_ROWS_AVX2 1
#endif

namespace radix::cpu::network {

#if defined(RADIX_CPU_ROWS_AVX2)

/// Whether this CPU runs AVX2 (asked once).
inline bool rows_avx2() {
  static const bool ok = __builtin_cpu_supports("avx2");
  return ok;
}

namespace rows_detail {

template <int N, int K>
__attribute__((target("avx2"))) inline void comparator(__m256i* r) {
  using core::network::batcher;
  if constexpr (K < batcher<N>.count) {
    constexpr int lo = batcher<N>.lo[K], hi = batcher<N>.hi[K];
    const __m256i x = r[lo], y = r[hi];
    r[lo] = _mm256_min_epu32(x, y);
    r[hi] = _mm256_max_epu32(x, y);
  }
}

template <int N, int First, int... I>
__attribute__((target("avx2"))) inline void chunk(__m256i* r, std::integer_sequence<int, I...>) {
  (comparator<N, First + I>(r), ...);
}

// (no lambda: it would not carry the target attribute, and its calls could
// not be inlined, leaving the registers in memory)
template <int N, int... K>
__attribute__((target("avx2"))) inline void chunks(__m256i* r, std::integer_sequence<int, K...>) {
  (chunk<N, K * 64>(r, std::make_integer_sequence<int, 64>{}), ...);
}

template <int N>
__attribute__((target("avx2"))) inline void sort_network(__m256i* r) {
  chunks<N>(r, std::make_integer_sequence<int, (core::network::batcher<N>.count + 63) / 64>{});
}

/// Eight rows of L <= N keys at `keys` (row j at j * L), sorted in place.
/// Returns false, having written nothing, where a key of the rows is one
/// that the float canonicalisation changes (a -0, a NaN other than the
/// canonical one): the caller sorts those rows stably instead.
template <int N>
__attribute__((target("avx2"))) bool sort_rows8(std::uint32_t* keys, unsigned L,
                                                const core::ordered_codec<std::uint32_t>& c) {
  const __m256i at = _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32(int(L)));
  const __m256i pos_xor = _mm256_set1_epi32(int(c.pos_xor)), sign_xor = _mm256_set1_epi32(int(c.neg_xor ^ c.pos_xor));
  const __m256i flip = _mm256_set1_epi32(int(c.flip)), ones = _mm256_set1_epi32(-1);
  __m256i r[N];
  __m256i changed = _mm256_setzero_si256();
  for (unsigned i = 0; i < L; ++i) {
    const __m256i u = _mm256_i32gather_epi32(reinterpret_cast<const int*>(keys + i), at, 4);
    if (c.canon) {  // -0, or a NaN (magnitude above nan_above) but the canonical 0x7FFFFFFF
      const __m256i mag = _mm256_and_si256(u, _mm256_set1_epi32(0x7FFFFFFF));
      const __m256i nan = _mm256_cmpgt_epi32(mag, _mm256_set1_epi32(int(c.nan_above)));
      const __m256i canonical_nan = _mm256_cmpeq_epi32(u, _mm256_set1_epi32(0x7FFFFFFF));
      const __m256i minus_zero = _mm256_cmpeq_epi32(u, _mm256_set1_epi32(int(0x80000000u)));
      changed = _mm256_or_si256(changed, _mm256_or_si256(minus_zero, _mm256_andnot_si256(canonical_nan, nan)));
    }
    // biased(): u ^ pos_xor ^ (sign mask & (neg_xor ^ pos_xor)) ^ flip
    const __m256i neg = _mm256_srai_epi32(u, 31);
    r[i] = _mm256_xor_si256(_mm256_xor_si256(u, pos_xor), _mm256_xor_si256(_mm256_and_si256(neg, sign_xor), flip));
  }
  if (!_mm256_testz_si256(changed, changed)) return false;
  for (unsigned i = L; i < unsigned(N); ++i) r[i] = ones;  // padding: the largest word, after every key
  sort_network<N>(r);
  // unbiased(): t = o ^ flip; the key is t ^ pos_xor if that is non-negative, else t ^ neg_xor
  alignas(32) std::uint32_t out[N][8];
  const __m256i neg_xor = _mm256_set1_epi32(int(c.neg_xor));
  for (unsigned i = 0; i < L; ++i) {
    const __m256i t = _mm256_xor_si256(r[i], flip);
    const __m256i pos = _mm256_xor_si256(t, pos_xor);
    const __m256i neg = _mm256_srai_epi32(pos, 31);
    const __m256i k = _mm256_xor_si256(pos, _mm256_and_si256(neg, _mm256_xor_si256(pos, _mm256_xor_si256(t, neg_xor))));
    _mm256_store_si256(reinterpret_cast<__m256i*>(out[i]), k);
  }
  for (unsigned j = 0; j < 8; ++j)
    for (unsigned i = 0; i < L; ++i) keys[j * L + i] = out[i][j];
  return true;
}

}  // namespace rows_detail

/// Sorts eight consecutive rows of L (5 <= L <= 64) 4-byte keys alone in
/// place, every bit compared, where this CPU has AVX2 and no key of the
/// rows is one the canonicalisation changes; returns whether it did.
inline bool sort_rows8(std::uint32_t* keys, unsigned L, const core::ordered_codec<std::uint32_t>& c) {
  if (L <= 8) return rows_detail::sort_rows8<8>(keys, L, c);
  if (L <= 16) return rows_detail::sort_rows8<16>(keys, L, c);
  if (L <= 32) return rows_detail::sort_rows8<32>(keys, L, c);
  return rows_detail::sort_rows8<64>(keys, L, c);
}

#else

inline bool rows_avx2() { return false; }
inline bool sort_rows8(std::uint32_t*, unsigned, const core::ordered_codec<std::uint32_t>&) { return false; }

#endif

}  // namespace radix::cpu::network
