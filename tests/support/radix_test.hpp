// Shared helpers of the radix tests: seeds (RADIX_TEST_SEED), key-type dispatch,
// input generators, the stable oracle, guarded/poisoned buffers, byte-exact checks.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <numeric>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "radix/core/ordered_bits.hpp"
#include "radix/radix.hpp"

namespace rt {

// ---- seeds -------------------------------------------------------------------

inline std::uint64_t mix64(std::uint64_t x) {  // splitmix64 finaliser
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

inline std::uint64_t hash_str(std::string_view s) {
  std::uint64_t h = 0xCBF29CE484222325ull;  // FNV-1a
  for (unsigned char c : s) h = (h ^ c) * 0x100000001B3ull;
  return h;
}

/// The base seed: RADIX_TEST_SEED (decimal or 0x-hex) when set, else a fixed one.
inline std::uint64_t base_seed() {
  static const std::uint64_t s = [] {
    const char* e = std::getenv("RADIX_TEST_SEED");
    if (e && *e) return std::uint64_t(std::strtoull(e, nullptr, 0));
    return std::uint64_t(0x5EED20261122ull);
  }();
  return s;
}

/// A case's seed: the base seed mixed with a name for the case.
inline std::uint64_t case_seed(std::string_view tag) { return mix64(base_seed() ^ hash_str(tag)); }

inline std::string hex(std::uint64_t x) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(x));
  return b;
}

/// Fast deterministic generator (splitmix64 stream).
struct rng {
  std::uint64_t s;
  explicit rng(std::uint64_t seed) : s(seed) {}
  std::uint64_t operator()() {
    s += 0x9E3779B97F4A7C15ull;
    std::uint64_t x = s;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
  }
  /// Uniform in [0, n), n > 0.
  std::uint64_t below(std::uint64_t n) { return std::uint64_t((unsigned __int128)(*this)() * n >> 64); }
  double unit() { return double((*this)() >> 11) * 0x1.0p-53; }
};

// ---- key types -----------------------------------------------------------------

enum class kt : std::uint8_t { u8, u16, u32, u64, i8, i16, i32, i64, f16, bf16, f32, f64 };
inline constexpr kt all_kts[] = {kt::u8, kt::u16, kt::u32, kt::u64, kt::i8, kt::i16,
                                 kt::i32, kt::i64, kt::f16, kt::bf16, kt::f32, kt::f64};

inline const char* kt_name(kt t) {
  switch (t) {
    case kt::u8: return "uint8";
    case kt::u16: return "uint16";
    case kt::u32: return "uint32";
    case kt::u64: return "uint64";
    case kt::i8: return "int8";
    case kt::i16: return "int16";
    case kt::i32: return "int32";
    case kt::i64: return "int64";
    case kt::f16: return "float16";
    case kt::bf16: return "bfloat16";
    case kt::f32: return "float";
    case kt::f64: return "double";
  }
  return "?";
}

template <class T> struct tag { using type = T; };

/// Calls f(tag<K>{}) for the key type t names.
template <class F>
decltype(auto) visit_kt(kt t, F&& f) {
  switch (t) {
    case kt::u8: return f(tag<std::uint8_t>{});
    case kt::u16: return f(tag<std::uint16_t>{});
    case kt::u32: return f(tag<std::uint32_t>{});
    case kt::u64: return f(tag<std::uint64_t>{});
    case kt::i8: return f(tag<std::int8_t>{});
    case kt::i16: return f(tag<std::int16_t>{});
    case kt::i32: return f(tag<std::int32_t>{});
    case kt::i64: return f(tag<std::int64_t>{});
    case kt::f16: return f(tag<radix::float16>{});
    case kt::bf16: return f(tag<radix::bfloat16>{});
    case kt::f32: return f(tag<float>{});
    case kt::f64: return f(tag<double>{});
  }
  return f(tag<std::uint32_t>{});
}

template <class K> using bits_t = radix::core::uint_t<int(sizeof(K))>;

template <class K> bits_t<K> to_bits(const K& k) {
  bits_t<K> u;
  std::memcpy(&u, &k, sizeof k);
  return u;
}
template <class K> K from_bits(bits_t<K> u) {
  K k;
  std::memcpy(static_cast<void*>(&k), &u, sizeof k);
  return k;
}

template <class K> constexpr bool is_float_key = radix::key_desc_of<K>().kind == radix::key_kind::floating;

/// Exponent and mantissa widths of a floating key of `bytes` bytes (16-bit:
/// inf_bits tells binary16 from bfloat16).
struct float_layout {
  int exp_bits = 0, man_bits = 0;
};
inline float_layout layout_of(radix::key_desc d) {
  switch (d.bytes) {
    case 2: return d.inf_bits == 0x7C00u ? float_layout{5, 10} : float_layout{8, 7};
    case 4: return {8, 23};
    default: return {11, 52};
  }
}

// ---- readable decoders (independent of the library's conversions) -------------

inline double half_value(std::uint16_t h) {
  const int s = h >> 15, e = (h >> 10) & 31, m = h & 1023;
  double v;
  if (e == 31) v = m ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  else if (e == 0) v = std::ldexp(double(m), -24);
  else v = std::ldexp(double(1024 + m), e - 25);
  return s ? -v : v;
}
inline double bf16_value(std::uint16_t b) { return double(std::bit_cast<float>(std::uint32_t(b) << 16)); }

/// The numeric value of a floating key (float16 / bfloat16 exactly, via double).
template <class K> double float_value(const K& k) {
  if constexpr (std::is_same_v<K, radix::float16>) return half_value(k.bits);
  else if constexpr (std::is_same_v<K, radix::bfloat16>) return bf16_value(k.bits);
  else return double(k);
}

// ---- options ---------------------------------------------------------------------

inline int end_of(const radix::options& o, int width) { return o.end_bit < 0 ? width : o.end_bit; }

inline std::string describe(const radix::options& o) {
  std::ostringstream s;
  s << o;
  return s.str();
}

// ---- the oracle --------------------------------------------------------------------

/// Ordered bits of every key, masked to the options' bit range, through the
/// shared core transform (make_codec / bit_range_mask).
template <class U>
std::vector<U> ordered_masked(const std::vector<U>& bits, radix::key_desc d, const radix::options& o) {
  const auto codec = radix::core::make_codec<U>(d, o.direction, o.floats);
  const U mask = radix::core::bit_range_mask<U>(o.begin_bit, end_of(o, int(sizeof(U)) * 8));
  std::vector<U> r(bits.size());
  for (std::size_t i = 0; i < bits.size(); ++i) r[i] = U(codec(bits[i]) & mask);
  return r;
}

/// The stable sorting permutation: std::stable_sort of an index permutation
/// by the masked ordered bits. out[i] = in[perm[i]].
template <class U>
std::vector<std::uint32_t> oracle_perm_bits(const std::vector<U>& bits, radix::key_desc d, const radix::options& o) {
  const std::vector<U> ord = ordered_masked(bits, d, o);
  std::vector<std::uint32_t> perm(bits.size());
  std::iota(perm.begin(), perm.end(), 0u);
  std::stable_sort(perm.begin(), perm.end(), [&](std::uint32_t a, std::uint32_t b) { return ord[a] < ord[b]; });
  return perm;
}

template <class K> std::vector<bits_t<K>> bits_of(const std::vector<K>& keys) {
  std::vector<bits_t<K>> b(keys.size());
  if (!keys.empty()) std::memcpy(b.data(), keys.data(), keys.size() * sizeof(K));
  return b;
}

template <class K>
std::vector<std::uint32_t> oracle_perm(const std::vector<K>& keys, const radix::options& o) {
  return oracle_perm_bits(bits_of(keys), radix::key_desc_of<K>(), o);
}

/// out[i] = in[perm[i]] for elements of `elem` bytes.
inline std::vector<std::byte> gather_bytes(const void* in, std::size_t elem, const std::vector<std::uint32_t>& perm) {
  std::vector<std::byte> out(perm.size() * elem);
  auto* src = static_cast<const std::byte*>(in);
  for (std::size_t i = 0; i < perm.size(); ++i) std::memcpy(out.data() + i * elem, src + std::size_t(perm[i]) * elem, elem);
  return out;
}

// ---- input distributions -------------------------------------------------------------

enum class dist : std::uint8_t {
  uniform,          ///< random bits (floats: includes NaNs with random payloads, infs, denormals)
  sorted,           ///< ascending (numeric order)
  reverse,          ///< descending
  all_equal,        ///< one random value repeated
  few_unique,       ///< 1..16 distinct random values
  narrow,           ///< values in a narrow range (only low bits vary)
  zipf,             ///< Zipf-like skew over 1024 distinct values
  specials,         ///< floats: NaNs (payloads, signs), +-0, +-inf, denormals; ints: extremes
  signed_zeros,     ///< floats: +0.0 and -0.0 mixed (all equal under numeric order)
  nearly_sorted,    ///< sorted, then the last key swapped with the one before n/2 (a chunk boundary)
  presorted_range,  ///< already in order under the case's options (bit range, direction)
  outliers,         ///< a narrow cluster plus ~0.1% random values (one huge bucket, many tiny ones)
};
inline const char* dist_name(dist d) {
  switch (d) {
    case dist::uniform: return "uniform";
    case dist::sorted: return "sorted";
    case dist::reverse: return "reverse";
    case dist::all_equal: return "all_equal";
    case dist::few_unique: return "few_unique";
    case dist::narrow: return "narrow";
    case dist::zipf: return "zipf";
    case dist::specials: return "specials";
    case dist::signed_zeros: return "signed_zeros";
    case dist::nearly_sorted: return "nearly_sorted";
    case dist::presorted_range: return "presorted_range";
    case dist::outliers: return "outliers";
  }
  return "?";
}
inline constexpr dist all_dists[] = {dist::uniform,    dist::sorted,  dist::reverse,  dist::all_equal,
                                     dist::few_unique, dist::narrow,  dist::zipf,     dist::specials,
                                     dist::signed_zeros, dist::nearly_sorted, dist::presorted_range,
                                     dist::outliers};

/// Special bit patterns of a key type (floats: the IEEE classes; ints: extremes).
template <class U>
std::vector<U> special_patterns(radix::key_desc d, rng& r) {
  constexpr int W = int(sizeof(U)) * 8;
  const U sign = U(U(1) << (W - 1));
  std::vector<U> p;
  if (d.kind != radix::key_kind::floating) {
    const U all = U(~U(0));
    p = {U(0), U(1), all, U(all - 1), sign, U(sign + 1), U(sign - 1), U(sign - 2), U(2), U(all >> 1)};
    p.push_back(U(r()));
    return p;
  }
  const auto [E, M] = layout_of(d);
  const U man = U((U(1) << M) - 1);
  const U expo = U(U((U(1) << E) - 1) << M);
  const U quiet = U(U(1) << (M - 1));
  const U one = U(U((U(1) << (E - 1)) - 1) << M);
  const std::vector<U> mags = {
      U(0),                          // zero
      expo,                          // inf
      U(expo | quiet),               // canonical quiet NaN
      U(expo | quiet | 1),           // quiet NaN, payload 1
      U(expo | man),                 // quiet NaN, all payload bits
      U(expo | 1),                   // signalling NaN
      U(expo | (quiet >> 1)),        // another signalling NaN
      U(1),                          // smallest denormal
      man,                           // largest denormal
      U(U(1) << M),                  // smallest normal
      U(expo - 1),                   // largest finite
      one,                           // 1.0
      U(one | 1),                    // 1.0 + ulp
  };
  for (U m : mags) {
    p.push_back(m);
    p.push_back(U(m | sign));
  }
  for (int i = 0; i < 4; ++i) {  // ordinary finite numbers
    U x = U(r());
    if ((x & expo) == expo) x = U(x & ~(U(1) << (W - 2)));
    p.push_back(x);
  }
  return p;
}

/// Random bits of a finite (non-NaN, non-inf) float of the given layout.
template <class U>
U finite_bits(radix::key_desc d, rng& r) {
  const auto [E, M] = layout_of(d);
  const U expo = U(U((U(1) << E) - 1) << M);
  for (;;) {
    const U x = U(r());
    if ((x & expo) != expo) return x;
  }
}

/// n keys (as bits) of the distribution. `o` only matters for presorted_range.
template <class U>
std::vector<U> generate_bits(dist ds, radix::key_desc d, std::size_t n, std::uint64_t seed, const radix::options& o) {
  rng r(seed);
  std::vector<U> v(n);
  const bool fl = d.kind == radix::key_kind::floating;
  constexpr int W = int(sizeof(U)) * 8;
  auto sort_numeric = [&](std::vector<U>& x, bool descending) {
    radix::options so;
    so.direction = descending ? radix::order::descending : radix::order::ascending;
    const auto perm = oracle_perm_bits(x, d, so);
    std::vector<U> y(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) y[i] = x[perm[i]];
    x.swap(y);
  };
  switch (ds) {
    case dist::uniform:
      for (auto& x : v) x = U(r());
      break;
    case dist::sorted:
    case dist::reverse:
    case dist::nearly_sorted:
      for (auto& x : v) x = U(r());
      sort_numeric(v, ds == dist::reverse);
      if (ds == dist::nearly_sorted && n >= 4)  // the largest key just before the n/2 chunk boundary
        std::swap(v[n / 2 - 1], v[n - 1]);
      break;
    case dist::all_equal: {
      const U x = U(r());
      std::fill(v.begin(), v.end(), x);
      break;
    }
    case dist::few_unique: {
      std::vector<U> pool(1 + r.below(16));
      for (auto& x : pool) x = U(r());
      for (auto& x : v) x = pool[r.below(pool.size())];
      break;
    }
    case dist::narrow:
    case dist::outliers: {
      if (ds == dist::outliers) {  // cluster first, then scatter the outliers
        radix::options no;
        v = generate_bits<U>(dist::narrow, d, n, seed ^ 0x07u, no);
        for (auto& x : v)
          if (r.below(1000) == 0) x = U(r());
        if (n) v[r.below(n)] = U(r());
        break;
      }
      if (fl) {
        const U base = U(finite_bits<U>(d, r) & ~U(0xFF));
        for (auto& x : v) x = U(base + r.below(64));
      } else {
        const std::uint64_t span = W >= 16 ? 100 : 16;
        const U base = U(r.below((W == 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << W) - 1) - span));
        for (auto& x : v) x = U(base + r.below(span));
      }
      break;
    }
    case dist::zipf: {
      constexpr int ranks = 1024;
      std::vector<U> pool(ranks);
      for (auto& x : pool) x = U(r());
      std::vector<double> cdf(ranks);
      double s = 0;
      for (int k = 0; k < ranks; ++k) cdf[k] = (s += 1.0 / double(k + 1));
      for (auto& x : v) {
        const double u = r.unit() * s;
        const auto it = std::upper_bound(cdf.begin(), cdf.end(), u);
        x = pool[std::min<std::size_t>(std::size_t(it - cdf.begin()), ranks - 1)];
      }
      break;
    }
    case dist::specials: {
      const std::vector<U> pool = special_patterns<U>(d, r);
      for (auto& x : v) x = pool[r.below(pool.size())];
      break;
    }
    case dist::signed_zeros: {
      const U sign = U(U(1) << (W - 1));
      for (auto& x : v) x = (r() & 1) ? sign : U(0);
      if (!fl)  // integers: 0 and the sign-bit pattern (most negative / 2^(W-1))
        for (auto& x : v) x = (r() & 3) ? x : U(1);
      break;
    }
    case dist::presorted_range: {
      for (auto& x : v) x = U(r());
      const auto perm = oracle_perm_bits(v, d, o);
      std::vector<U> y(n);
      for (std::size_t i = 0; i < n; ++i) y[i] = v[perm[i]];
      v.swap(y);
      break;
    }
  }
  return v;
}

template <class K>
std::vector<K> generate(dist ds, std::size_t n, std::uint64_t seed, const radix::options& o = {}) {
  const auto b = generate_bits<bits_t<K>>(ds, radix::key_desc_of<K>(), n, seed, o);
  std::vector<K> k(n);
  if (n) std::memcpy(static_cast<void*>(k.data()), b.data(), n * sizeof(K));
  return k;
}

// ---- buffers ----------------------------------------------------------------------

inline constexpr std::byte poison_byte(std::size_t i) { return std::byte(0xA5u ^ unsigned(i * 0x3Bu)); }

/// Fills bytes with the recognisable poison pattern.
inline void poison(void* p, std::size_t bytes) {
  auto* b = static_cast<std::byte*>(p);
  for (std::size_t i = 0; i < bytes; ++i) b[i] = poison_byte(i);
}

/// n elements of `elem` bytes at a chosen misalignment from 64 bytes, between two
/// poisoned canary zones of `zone` bytes (a multiple of 64) that must survive a sort.
class guarded {
 public:
  guarded(std::size_t n, std::size_t elem, std::size_t misalign = 0, std::size_t zone = 64)
      : n_(n), elem_(elem), zone_(zone), store_(n * elem + 2 * zone + misalign + 128) {
    auto a = (reinterpret_cast<std::uintptr_t>(store_.data()) + 63) & ~std::uintptr_t(63);
    pre_ = reinterpret_cast<std::byte*>(a);
    data_ = pre_ + zone_ + misalign;
    poison(pre_, zone_ + misalign);
    poison(data_ + bytes(), zone_);
    poison(data_, bytes());
  }
  guarded(const guarded&) = delete;
  std::byte* data() { return data_; }
  const std::byte* data() const { return data_; }
  template <class T> T* as() { return reinterpret_cast<T*>(data_); }
  std::size_t size() const { return n_; }
  std::size_t bytes() const { return n_ * elem_; }
  void fill_from(const void* src) {
    if (bytes()) std::memcpy(data_, src, bytes());
  }
  /// Both canary zones still hold the poison pattern.
  ::testing::AssertionResult canaries_intact() const {
    const std::size_t lead = std::size_t(data_ - pre_);
    for (std::size_t i = 0; i < lead; ++i)
      if (pre_[i] != poison_byte(i))
        return ::testing::AssertionFailure() << "write before the buffer, " << (lead - i) << " bytes before it";
    for (std::size_t i = 0; i < zone_; ++i)
      if (data_[bytes() + i] != poison_byte(i))
        return ::testing::AssertionFailure() << "write past the end of the buffer, at byte " << i << " after it";
    return ::testing::AssertionSuccess();
  }

 private:
  std::size_t n_, elem_, zone_;
  std::vector<std::byte> store_;
  std::byte* pre_ = nullptr;
  std::byte* data_ = nullptr;
};

inline std::string hex_bytes(const std::byte* p, std::size_t n) {
  std::string s;
  char b[4];
  for (std::size_t i = n; i-- > 0;) {  // most significant byte first (little endian)
    std::snprintf(b, sizeof b, "%02x", unsigned(p[i]));
    s += b;
  }
  return s;
}

/// Element-wise byte comparison; names the first mismatch and the count.
inline ::testing::AssertionResult same_bytes(const void* got, const void* want, std::size_t elem, std::size_t n,
                                             const char* what) {
  auto* g = static_cast<const std::byte*>(got);
  auto* w = static_cast<const std::byte*>(want);
  if (n == 0 || std::memcmp(g, w, n * elem) == 0) return ::testing::AssertionSuccess();
  std::size_t first = n, count = 0;
  for (std::size_t i = 0; i < n; ++i)
    if (std::memcmp(g + i * elem, w + i * elem, elem) != 0) {
      if (first == n) first = i;
      ++count;
    }
  auto f = ::testing::AssertionFailure();
  f << what << ": " << count << " of " << n << " elements differ; first at [" << first << "]: got 0x"
    << hex_bytes(g + first * elem, elem) << ", expected 0x" << hex_bytes(w + first * elem, elem);
  if (first + 1 < n)
    f << " (next: got 0x" << hex_bytes(g + (first + 1) * elem, elem) << ", expected 0x"
      << hex_bytes(w + (first + 1) * elem, elem) << ")";
  return f;
}

/// Runs f(); returns false, reporting the exception, if it throws.
template <class F>
bool no_throw(F&& f, const char* what) {
  try {
    f();
    return true;
  } catch (const std::exception& e) {
    ADD_FAILURE() << what << " threw: " << e.what();
  } catch (...) {
    ADD_FAILURE() << what << " threw a non-std exception";
  }
  return false;
}

/// Counts failing cases of a test and stops the loop after a few (the first
/// failures, with their seeds, are what one needs).
struct failure_budget {
  int bad = 0;
  int limit = 3;
  /// Call with whether the case passed; false = stop iterating.
  bool keep_going(bool ok) {
    if (ok) return true;
    if (++bad < limit) return true;
    ADD_FAILURE() << "stopping this test after " << bad << " failing cases";
    return false;
  }
};

}  // namespace rt
