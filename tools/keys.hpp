// radix CLI — key types by name, the sort order of the radix contract written
// out independently of the library (the tool's oracle), and a few threads.
//
// The order (README "Semantics", include/radix/options.hpp) as an "ordered
// key": an unsigned integer of the key's width whose unsigned order is the
// ascending sort order.
//   unsigned ints: the key itself
//   signed ints:   the key with its sign bit flipped
//   (u128 / i128 by the same rules, with 128-bit ordered keys)
//   floats:        sign bit clear -> sign bit set; sign bit set -> all bits flipped;
//                  with float_order::numeric, -0.0 is read as +0.0 and every
//                  NaN as all ones (after +inf, NaNs equal to each other)
// A sort with bits [b, e) orders by bits b..e-1 of that ordered key; a
// descending sort orders by the complement. Equal sort keys keep input order.
#pragma once
#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include <radix/radix.hpp>

namespace radix_cli {

enum class key_type { u8, u16, u32, u64, i8, i16, i32, i64, f16, bf16, f32, f64, u128, i128 };

struct key_type_name {
  key_type type;
  const char* name;     ///< the name the CLI prints
  const char* aliases;  ///< other accepted spellings, space-separated
};

inline constexpr key_type_name key_type_names[] = {
    {key_type::u8, "u8", "uint8 uint8_t"},       {key_type::u16, "u16", "uint16 uint16_t"},
    {key_type::u32, "u32", "uint32 uint32_t"},   {key_type::u64, "u64", "uint64 uint64_t"},
    {key_type::i8, "i8", "int8 int8_t"},         {key_type::i16, "i16", "int16 int16_t"},
    {key_type::i32, "i32", "int32 int32_t"},     {key_type::i64, "i64", "int64 int64_t"},
    {key_type::f16, "f16", "half float16"},      {key_type::bf16, "bf16", "bfloat16"},
    {key_type::f32, "f32", "float float32"},     {key_type::f64, "f64", "double float64"},
    {key_type::u128, "u128", "uint128 uint128_t"}, {key_type::i128, "i128", "int128 int128_t"},
};

/// Parses a key type name; throws usage_error listing the names.
key_type parse_key_type(const std::string& s);
const char* key_type_str(key_type t);

/// Calls f(std::type_identity<K>{}) with the C++ type of `t`.
template <class F>
decltype(auto) visit_key_type(key_type t, F&& f) {
  switch (t) {
    case key_type::u8: return f(std::type_identity<std::uint8_t>{});
    case key_type::u16: return f(std::type_identity<std::uint16_t>{});
    case key_type::u32: return f(std::type_identity<std::uint32_t>{});
    case key_type::u64: return f(std::type_identity<std::uint64_t>{});
    case key_type::i8: return f(std::type_identity<std::int8_t>{});
    case key_type::i16: return f(std::type_identity<std::int16_t>{});
    case key_type::i32: return f(std::type_identity<std::int32_t>{});
    case key_type::i64: return f(std::type_identity<std::int64_t>{});
    case key_type::f16: return f(std::type_identity<radix::float16>{});
    case key_type::bf16: return f(std::type_identity<radix::bfloat16>{});
    case key_type::f32: return f(std::type_identity<float>{});
    case key_type::f64: return f(std::type_identity<double>{});
    case key_type::u128: return f(std::type_identity<radix::uint128>{});
    case key_type::i128: return f(std::type_identity<radix::int128>{});
  }
  return f(std::type_identity<std::uint32_t>{});
}

inline int key_type_bits(key_type t) {
  return visit_key_type(t, []<class K>(std::type_identity<K>) { return int(sizeof(K) * 8); });
}

// ---- bits of a key -------------------------------------------------------------

template <std::size_t Bytes> struct uint_of;
template <> struct uint_of<1> { using type = std::uint8_t; };
template <> struct uint_of<2> { using type = std::uint16_t; };
template <> struct uint_of<4> { using type = std::uint32_t; };
template <> struct uint_of<8> { using type = std::uint64_t; };
template <> struct uint_of<16> { using type = radix::uint128; };

/// What ordered and sort keys are held in: 64 bits, or 128 for 128-bit keys.
template <class K>
using ordered_t = std::conditional_t<(sizeof(K) > 8), radix::uint128, std::uint64_t>;

template <class K>
struct key_bits {
  using U = typename uint_of<sizeof(K)>::type;
  static constexpr int width = int(sizeof(K) * 8);
  static constexpr U sign = U(U(1) << (width - 1));
  static constexpr U ones = U(~U(0));
  static constexpr radix::key_kind kind = radix::key_desc_of<K>().kind;
  static constexpr bool is_float = kind == radix::key_kind::floating;
  /// +inf's bit pattern for floats: magnitudes above it are NaN.
  static constexpr U inf = U(radix::key_desc_of<K>().inf_bits);

  static U to(K k) { return std::bit_cast<U>(k); }
  static K from(U u) { return std::bit_cast<K>(u); }
  static bool is_nan(U u) { return is_float && U(u & U(~sign)) > inf; }
  static bool is_inf_or_nan(U u) { return is_float && U(u & U(~sign)) >= inf; }
};

/// The ascending ordered key of `k` (see the top of this file).
template <class K>
ordered_t<K> ordered_key(K k, radix::float_order fo) {
  using B = key_bits<K>;
  using U = typename B::U;
  U u = B::to(k);
  if constexpr (B::kind == radix::key_kind::unsigned_int) {
    return u;
  } else if constexpr (B::kind == radix::key_kind::signed_int) {
    return U(u ^ B::sign);
  } else {
    if (fo == radix::float_order::numeric) {
      const U mag = U(u & U(~B::sign));
      if (mag > B::inf) return B::ones;  // NaN: after +inf, all NaNs equal
      if (mag == 0) u = 0;               // -0.0 reads as +0.0
    }
    return (u & B::sign) ? U(~u) : U(u | B::sign);
  }
}

/// What a sort compares: the ordered key restricted to bits [begin, end),
/// complemented for descending, shifted down by `begin`.
struct sort_spec {
  bool descending = false;
  radix::float_order floats = radix::float_order::numeric;
  int begin_bit = 0;
  int end_bit = 0;  ///< resolved: never -1

  template <class K>
  ordered_t<K> sort_key(K k) const {
    using O = ordered_t<K>;
    constexpr int ow = int(sizeof(O) * 8);
    O o = ordered_key(k, floats);
    if (descending) o = ~o;
    const int w = end_bit - begin_bit;
    const O mask = w >= ow ? ~O(0) : (O(1) << w) - 1;
    return begin_bit >= ow ? 0 : (o >> begin_bit) & mask;
  }
};

// ---- threads -------------------------------------------------------------------

inline unsigned hardware_threads() {
  const unsigned t = std::thread::hardware_concurrency();
  return t ? t : 1;
}

/// Runs f(begin, end) over [0, n) split into contiguous chunks, one per thread.
template <class F>
void parallel_chunks(std::uint64_t n, F&& f) {
  const std::uint64_t min_chunk = 1 << 16;
  const std::uint64_t t = std::min<std::uint64_t>(hardware_threads(), std::max<std::uint64_t>(1, n / min_chunk));
  if (t <= 1) {
    f(std::uint64_t(0), n);
    return;
  }
  std::vector<std::thread> pool;
  for (std::uint64_t i = 0; i < t; ++i) pool.emplace_back([&, i] { f(n * i / t, n * (i + 1) / t); });
  for (auto& th : pool) th.join();
}

// ---- the reference -------------------------------------------------------------

/// The permutation a stable sort under `spec` applies to `keys`: element i of
/// the sorted output is keys[result[i]]. Computed with std::sort over
/// (sort key, input position) pairs, which is std::stable_sort by sort key.
template <class K>
std::vector<std::uint64_t> reference_order(const K* keys, std::uint64_t n, const sort_spec& spec) {
  std::vector<std::uint64_t> order(n);
  if (spec.end_bit - spec.begin_bit <= 32 && n <= 0xFFFFFFFFull) {
    // Pack (sort key, position) into one 64-bit word: sorting words is fast.
    parallel_chunks(n, [&](std::uint64_t b, std::uint64_t e) {
      for (std::uint64_t i = b; i < e; ++i) order[i] = (std::uint64_t(spec.sort_key(keys[i])) << 32) | i;
    });
    std::sort(order.begin(), order.end());
    parallel_chunks(n, [&](std::uint64_t b, std::uint64_t e) {
      for (std::uint64_t i = b; i < e; ++i) order[i] &= 0xFFFFFFFFull;
    });
  } else {
    std::vector<std::pair<ordered_t<K>, std::uint64_t>> kv(n);
    parallel_chunks(n, [&](std::uint64_t b, std::uint64_t e) {
      for (std::uint64_t i = b; i < e; ++i) kv[i] = {spec.sort_key(keys[i]), i};
    });
    std::sort(kv.begin(), kv.end());
    parallel_chunks(n, [&](std::uint64_t b, std::uint64_t e) {
      for (std::uint64_t i = b; i < e; ++i) order[i] = kv[i].second;
    });
  }
  return order;
}

}  // namespace radix_cli
