// radix — which key types sort, and how the library describes them at run time:
// (u)int8..64, (u)int128 (where the compiler has __int128), float16, bfloat16,
// float, double, and byte_key<L> byte strings.
//
// Highway-vqsort-style compile firewall: the public sort functions are thin
// templates that turn a key type into a run-time `key_desc` and call one
// non-template entry point; key kind and order become bit masks in the
// ordered-bits transform (src/core), never template parameters of an engine.
#pragma once
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace radix {

/// IEEE 754 binary16 stored as its 16 bits. Sorts by value (the float rules
/// of README.md, "Semantics"). Conversions to/from float are provided for convenience.
struct float16 {
  std::uint16_t bits = 0;
  float16() = default;
  static constexpr float16 from_bits(std::uint16_t b) { float16 h; h.bits = b; return h; }
  explicit float16(float f);
  explicit operator float() const;
  friend bool operator==(float16 a, float16 b) { return float(a) == float(b); }
  friend bool operator<(float16 a, float16 b) { return float(a) < float(b); }
};

/// bfloat16 (the top 16 bits of a binary32) stored as its bits.
struct bfloat16 {
  std::uint16_t bits = 0;
  bfloat16() = default;
  static constexpr bfloat16 from_bits(std::uint16_t b) { bfloat16 h; h.bits = b; return h; }
  explicit bfloat16(float f);
  explicit operator float() const;
  friend bool operator==(bfloat16 a, bfloat16 b) { return float(a) == float(b); }
  friend bool operator<(bfloat16 a, bfloat16 b) { return float(a) < float(b); }
};

#if defined(__SIZEOF_INT128__)
#define RADIX_HAS_INT128 1
/// 128-bit integer keys: the compiler's __int128, 16 bytes in the host's byte
/// order (little-endian on x86 and Arm). `__extension__` keeps -pedantic quiet.
__extension__ typedef unsigned __int128 uint128;
__extension__ typedef __int128 int128;
#endif

/// How the bits of a key are read. `bytes` is a fixed-width byte string
/// compared as one unsigned big-endian number (memcmp order; the sort
/// benchmarks' 10-byte keys), 1..255 bytes wide.
enum class key_kind : std::uint8_t { unsigned_int, signed_int, floating, bytes };

/// Run-time description of a key type: its kind and width in bytes (integers
/// 1, 2, 4, 8 or 16; floats 2, 4 or 8; byte strings 1..255).
struct key_desc {
  key_kind kind = key_kind::unsigned_int;
  std::uint8_t bytes = 4;
  constexpr int bits() const { return bytes * 8; }
  /// For floating keys: the exponent-all-ones, mantissa-zero pattern (+inf),
  /// so that the transform can tell NaNs (magnitude above it) from the rest.
  std::uint64_t inf_bits = 0;
  friend constexpr bool operator==(const key_desc&, const key_desc&) = default;
};

/// A byte-string key of L bytes (memcmp order), for keys wider than 64 bits.
/// Sorted LSD over 64-bit chunks of the key, least significant chunk first.
template <std::size_t L>
struct byte_key {
  static_assert(L >= 1 && L <= 255, "byte_key: 1..255 bytes");
  unsigned char b[L];
  friend bool operator==(const byte_key& x, const byte_key& y) { return std::memcmp(x.b, y.b, L) == 0; }
  friend bool operator<(const byte_key& x, const byte_key& y) { return std::memcmp(x.b, y.b, L) < 0; }
};

/// The description of an L-byte byte-string key (records: `record_key::type`).
/// L outside 1..255 gives a width of 0, which every sort call rejects.
constexpr key_desc byte_key_desc(std::size_t L) {
  return key_desc{key_kind::bytes, std::uint8_t(L >= 1 && L <= 255 ? L : 0), 0};
}

template <class K> struct key_traits;  // undefined: not a key type

#define RADIX_KEY_TRAITS(T, KIND, INF)                                          \
  template <> struct key_traits<T> {                                            \
    static constexpr key_desc desc{KIND, sizeof(T), INF};                       \
    static constexpr const char* name = #T;                                     \
  };
RADIX_KEY_TRAITS(std::uint8_t, key_kind::unsigned_int, 0)
RADIX_KEY_TRAITS(std::uint16_t, key_kind::unsigned_int, 0)
RADIX_KEY_TRAITS(std::uint32_t, key_kind::unsigned_int, 0)
RADIX_KEY_TRAITS(std::uint64_t, key_kind::unsigned_int, 0)
RADIX_KEY_TRAITS(std::int8_t, key_kind::signed_int, 0)
RADIX_KEY_TRAITS(std::int16_t, key_kind::signed_int, 0)
RADIX_KEY_TRAITS(std::int32_t, key_kind::signed_int, 0)
RADIX_KEY_TRAITS(std::int64_t, key_kind::signed_int, 0)
#ifdef RADIX_HAS_INT128
RADIX_KEY_TRAITS(uint128, key_kind::unsigned_int, 0)
RADIX_KEY_TRAITS(int128, key_kind::signed_int, 0)
#endif
RADIX_KEY_TRAITS(float16, key_kind::floating, 0x7C00u)
RADIX_KEY_TRAITS(bfloat16, key_kind::floating, 0x7F80u)
RADIX_KEY_TRAITS(float, key_kind::floating, 0x7F800000u)
RADIX_KEY_TRAITS(double, key_kind::floating, 0x7FF0000000000000ull)
#undef RADIX_KEY_TRAITS

// `long long` / `unsigned long long` are distinct from (u)int64_t on LP64
// Linux but have the same representation.
template <> struct key_traits<long long> : key_traits<std::int64_t> {};
template <> struct key_traits<unsigned long long> : key_traits<std::uint64_t> {};
template <> struct key_traits<char> : key_traits<std::conditional_t<std::is_signed_v<char>, std::int8_t, std::uint8_t>> {};

template <std::size_t L>
struct key_traits<byte_key<L>> {
  static constexpr key_desc desc{key_kind::bytes, std::uint8_t(L), 0};
  static constexpr const char* name = "byte_key";
};

/// A type the library sorts directly.
template <class K>
concept sortable_key = requires { key_traits<std::remove_cv_t<K>>::desc; };

template <class K>
constexpr key_desc key_desc_of() { return key_traits<std::remove_cv_t<K>>::desc; }

}  // namespace radix
