// Printing of options, and the 16-bit float conversions of key_traits.hpp.
#include <bit>
#include <cstring>
#include <ostream>

#include "radix/key_traits.hpp"
#include "radix/options.hpp"

namespace radix {

std::ostream& operator<<(std::ostream& os, order o) { return os << (o == order::ascending ? "ascending" : "descending"); }
std::ostream& operator<<(std::ostream& os, float_order f) { return os << (f == float_order::numeric ? "numeric" : "total"); }
std::ostream& operator<<(std::ostream& os, engine e) {
  switch (e) {
    case engine::automatic: return os << "automatic";
    case engine::cpu: return os << "cpu";
    case engine::cuda: return os << "cuda";
    case engine::opencl: return os << "opencl";
  }
  return os << "?";
}
std::ostream& operator<<(std::ostream& os, algorithm a) {
  switch (a) {
    case algorithm::automatic: return os << "automatic";
    case algorithm::onesweep: return os << "onesweep";
    case algorithm::reduce_then_scan: return os << "reduce_then_scan";
    case algorithm::four_way: return os << "four_way";
    case algorithm::split: return os << "split";
  }
  return os << "?";
}
std::ostream& operator<<(std::ostream& os, memory_use m) {
  switch (m) {
    case memory_use::automatic: return os << "automatic";
    case memory_use::in_place: return os << "in_place";
  }
  return os << "?";
}

std::ostream& operator<<(std::ostream& os, const options& o) {
  return os << "{direction=" << o.direction << ", floats=" << o.floats << ", bits=[" << o.begin_bit << ","
            << o.end_bit << "), digit_bits=" << o.digit_bits << ", engine=" << o.use << ", threads=" << o.threads
            << ", algorithm=" << o.algo << ", memory=" << o.memory << "}";
}

// binary16 <-> binary32, round to nearest even; NaN payload kept where it fits.
float16::float16(float f) {
  const std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  const std::uint32_t sign = (x >> 16) & 0x8000u;
  const std::uint32_t mag = x & 0x7FFFFFFFu;
  std::uint16_t h;
  if (mag >= 0x7F800000u) {  // inf or NaN
    h = std::uint16_t(0x7C00u | (mag > 0x7F800000u ? (0x200u | ((mag >> 13) & 0x3FFu)) : 0u));
  } else if (mag >= 0x477FF000u) {  // rounds to >= 65520: overflow to inf
    h = 0x7C00u;
  } else if (mag < 0x38800000u) {  // subnormal or zero in half
    const int shift = 126 - int(mag >> 23);  // half subnormal: value = m * 2^-24
    if (shift > 24) {
      h = 0;
    } else {
      const std::uint32_t m = (mag & 0x7FFFFFu) | 0x800000u;
      const std::uint32_t r = m >> shift;
      const std::uint32_t rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
      h = std::uint16_t(r + ((rem > half || (rem == half && (r & 1))) ? 1 : 0));
    }
  } else {
    const std::uint32_t e = ((mag >> 23) - 112) << 10, m = (mag >> 13) & 0x3FFu;
    std::uint32_t r = e | m;
    const std::uint32_t rem = mag & 0x1FFFu;
    if (rem > 0x1000u || (rem == 0x1000u && (r & 1))) ++r;
    h = std::uint16_t(r);
  }
  bits = std::uint16_t(h | sign);
}

float16::operator float() const {
  const std::uint32_t sign = std::uint32_t(bits & 0x8000u) << 16;
  std::uint32_t e = (bits >> 10) & 0x1Fu, m = bits & 0x3FFu, x;
  if (e == 0x1F) {
    x = sign | 0x7F800000u | (m << 13);
  } else if (e == 0) {
    if (m == 0) {
      x = sign;
    } else {  // subnormal: normalise
      int s = 0;
      while (!(m & 0x400u)) { m <<= 1; ++s; }
      x = sign | (std::uint32_t(113 - s) << 23) | ((m & 0x3FFu) << 13);
    }
  } else {
    x = sign | ((e + 112) << 23) | (m << 13);
  }
  return std::bit_cast<float>(x);
}

bfloat16::bfloat16(float f) {
  const std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  if ((x & 0x7FFFFFFFu) > 0x7F800000u) {
    bits = std::uint16_t((x >> 16) | 0x40u);  // quiet NaN
  } else {
    bits = std::uint16_t((x + 0x7FFFu + ((x >> 16) & 1u)) >> 16);
  }
}

bfloat16::operator float() const { return std::bit_cast<float>(std::uint32_t(bits) << 16); }

}  // namespace radix
