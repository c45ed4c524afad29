// The ordered-bits transform: maps a key's bits to an unsigned integer whose
// unsigned order is the sort order the README's "Semantics" promise. One
// transform serves every engine and the test oracle.
//
// Key kind and direction are run-time masks, not template parameters (the
// vqsort-style firewall): an engine instantiates per key *width* only.
// Follows the float/negative key mapping of Ha, Krüger & Silva 2009, "Fast
// 4-way parallel radix sorting on GPUs", §3, extended with the contract's
// NaN and signed-zero rules.
#pragma once
#include <cstdint>
#include <type_traits>

#include "radix/key_traits.hpp"
#include "radix/options.hpp"
#include "radix/core/config.hpp"

namespace radix::core {

/// Unsigned integer of the same width as a key of `Bytes` bytes.
template <int Bytes> struct uint_of;
template <> struct uint_of<1> { using type = std::uint8_t; };
template <> struct uint_of<2> { using type = std::uint16_t; };
template <> struct uint_of<4> { using type = std::uint32_t; };
template <> struct uint_of<8> { using type = std::uint64_t; };
template <int Bytes> using uint_t = typename uint_of<Bytes>::type;

#if defined(__CUDA_ARCH__)
/// x + (+0) in round-to-nearest without flushing: -0 becomes +0, every other
/// number (subnormals and infinities included) is unchanged, and every NaN,
/// whatever its sign and payload, becomes the one NaN NVIDIA GPUs produce in
/// single precision, 0x7fffffff (positive, so it sorts after +inf). The
/// result, through the biased transform, is what ordered_codec::canonical_masks gives.
/// Not for the CPU: x86 and Arm keep a NaN operand's payload and sign.
__device__ __forceinline__ std::uint32_t gpu_f32_canonical_bits(std::uint32_t u) {
  float f = __uint_as_float(u);
  asm("add.rn.f32 %0, %0, 0f00000000;" : "+f"(f));  // not __fadd_rn: -ftz would flush subnormals
  return __float_as_uint(f);
}
#endif

/// The transform for one key description and one set of options, as masks:
///   ordered(u) = canon(u) ^ (negative(u) ? neg_xor : pos_xor) ^ flip
/// unsigned:     pos_xor = neg_xor = 0
/// signed:       pos_xor = neg_xor = sign bit         (two's complement -> biased)
/// float:        pos_xor = sign bit, neg_xor = ~0      (sign-magnitude -> biased)
/// canon (floats, numeric order only): -0 -> +0, every NaN -> one pattern that
/// sorts after +inf, so NaNs are equal to each other and keep input order.
/// flip = ~0 for descending (a stable descending sort is a stable ascending
/// sort of the complemented key).
template <class U>
struct ordered_codec {
  static_assert(std::is_unsigned_v<U>);
  static constexpr int bits = int(sizeof(U)) * 8;
  static constexpr U sign = U(U(1) << (bits - 1));

  U pos_xor = 0;
  U neg_xor = 0;
  U flip = 0;
  U nan_above = U(~U(0));  // magnitudes above this are NaN (floats only)
  bool canon = false;       // apply the -0 / NaN canonicalisation

  RADIX_HD constexpr U operator()(U u) const { return canon ? canonical(u) : biased(u); }

  /// The transform without the float canonicalisation (integers, totalOrder).
  /// Branch-free, so hot loops that know `canon` is false can call it directly.
  RADIX_HD constexpr U biased(U u) const {
    const U neg = U(U(0) - U(u >> (bits - 1)));  // all ones when the top bit is set
    return U(u ^ pos_xor ^ (neg & U(neg_xor ^ pos_xor)) ^ flip);
  }

  /// The key whose biased() is o (biased is a bijection; canonical is not).
  RADIX_HD constexpr U unbiased(U o) const {
    const U t = U(o ^ flip);
    const U pos = U(t ^ pos_xor);  // the key, if it was a non-negative one
    return (pos & sign) == 0 ? pos : U(t ^ neg_xor);
  }

  /// Integer keys (pos_xor == neg_xor): the transform is one XOR with a
  /// constant, which also commutes with digit extraction.
  RADIX_HD constexpr bool linear() const { return pos_xor == neg_xor && !canon; }
  RADIX_HD constexpr U linear_xor() const { return U(pos_xor ^ flip); }

  /// The transform of keys with u's sign bit, as one XOR (linear()): the same
  /// ordered bits as biased() for every such key.
  RADIX_HD constexpr ordered_codec same_sign_as(U u) const {
    ordered_codec c = *this;
    c.pos_xor = c.neg_xor = (u & sign) ? neg_xor : pos_xor;
    return c;
  }

  /// The transform with -0 -> +0 and every NaN -> one pattern after +inf.
  RADIX_HD constexpr U canonical(U u) const {
#if defined(__CUDA_ARCH__)
    // 32-bit floats on the GPU: one add does what the masks do (see
    // gpu_f32_canonical_bits) in under half the instructions, and the scatter
    // kernels extract each key's digit three times a pass.
    if constexpr (sizeof(U) == 4)
      if (!std::is_constant_evaluated()) return biased(gpu_f32_canonical_bits(u));
#endif
    return canonical_masks(u);
  }

  /// canonical() written with masks rather than branches (NaNs and zeros are
  /// data, not rare cases, in many inputs): the form for the CPU and for
  /// 64-bit floats, and the readable twin the GPU's add is tested against.
  RADIX_HD constexpr U canonical_masks(U u) const {
    const U mag = U(u & U(~sign));
    const U nonzero = U(U(0) - U(mag != 0));     // -0.0 -> +0.0
    const U nan = U(U(0) - U(mag > nan_above));  // NaN -> all ones: after +inf
    return U((biased(U(u & nonzero)) & U(~nan)) | U(nan & U(~flip)));
  }
};

/// Which form of the transform a hot loop may use (a template argument there,
/// picked once per kernel from the codec): linear (integer keys: one XOR),
/// biased (floats without the canonicalisation, or with no key that needs it),
/// canonical (the full transform).
enum class key_form { linear, biased, canonical };

template <key_form F, class U>
RADIX_HD constexpr U ordered_as(const ordered_codec<U>& c, U u) {
  if constexpr (F == key_form::linear) return U(u ^ c.linear_xor());
  else if constexpr (F == key_form::biased) return c.biased(u);
  else return c.canonical(u);
}

/// Builds the codec for a key description and options. The width of U must
/// equal desc.bytes.
template <class U>
constexpr ordered_codec<U> make_codec(key_desc desc, order dir, float_order floats) {
  using C = ordered_codec<U>;
  C c;
  switch (desc.kind) {
    case key_kind::unsigned_int:
    case key_kind::bytes:  // byte strings reach engines as unsigned chunks (src/api/byte_keys.cpp)
      break;
    case key_kind::signed_int: c.pos_xor = c.neg_xor = C::sign; break;
    case key_kind::floating:
      c.pos_xor = C::sign;
      c.neg_xor = U(~U(0));
      if (floats == float_order::numeric) {
        c.canon = true;
        c.nan_above = U(desc.inf_bits);
      }
      break;
  }
  c.flip = dir == order::descending ? U(~U(0)) : U(0);
  return c;
}

/// Mask of the bits [begin, end) of a U.
template <class U>
RADIX_HD constexpr U bit_range_mask(int begin, int end) {
  constexpr int w = int(sizeof(U)) * 8;
  const U hi = end >= w ? U(~U(0)) : U((U(1) << end) - 1);
  const U lo = begin >= w ? U(~U(0)) : U((U(1) << begin) - 1);
  return U(hi & ~lo);
}

}  // namespace radix::core
