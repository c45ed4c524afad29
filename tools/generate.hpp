// radix CLI — input generation: N keys of a type from a named distribution,
// reproducible from a seed (counter-based: the same seed gives the same keys
// whatever the thread count).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "keys.hpp"

namespace radix_cli {

enum class distribution { uniform, sorted, reversed, nearly_sorted, all_equal, few_unique, zipf, low_bits };

struct dist_spec {
  distribution kind = distribution::uniform;
  int param = 0;  ///< few-unique: distinct values (default 16); bits:K: K
};

/// Parses "uniform", "sorted", "reversed", "nearly-sorted", "all-equal",
/// "few-unique" / "few-unique:M", "zipf", "bits:K". K is checked against the
/// key width later (check_dist). Throws usage_error.
dist_spec parse_distribution(const std::string& s);
/// The name as the user would type it ("bits:10").
std::string dist_str(const dist_spec& d);
/// Throws usage_error when the distribution does not fit the key type.
void check_dist(const dist_spec& d, int key_bits);

/// One paragraph per distribution, for --help.
extern const char* const dist_help;

/// splitmix64: a good 64-bit mix; the generator is splitmix64(seed_stream + i).
inline std::uint64_t mix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/// `U`-wide random bits from one 64-bit draw: 128-bit keys take a second,
/// derived word for the high half (narrower keys keep their old values).
template <class U>
U random_bits(std::uint64_t r) {
  if constexpr (sizeof(U) > 8) return (U(mix64(r ^ 0x48696768ull)) << 64) | U(r);
  else return U(r);
}

/// A key with every bit random, except that floats never get an inf or NaN
/// pattern (those are redrawn): every finite value pattern equally likely.
template <class K>
K random_key(std::uint64_t r) {
  using B = key_bits<K>;
  using U = typename B::U;
  U u = random_bits<U>(r);
  while (B::is_inf_or_nan(u)) {
    r = mix64(r);
    u = random_bits<U>(r);
  }
  return B::from(u);
}

/// Whether keys of `d` can be made piece by piece (generate_keys with first > 0):
/// every key depends only on its index. Sorted kinds need the whole array.
inline bool generated_per_index(const dist_spec& d) {
  return d.kind != distribution::sorted && d.kind != distribution::reversed && d.kind != distribution::nearly_sorted;
}

/// Fills keys[0..n) per `d`. Returns whether any key is a NaN. For files made
/// piece by piece, keys[0] is key number `first` of a sequence of `total`
/// (0: n) keys; only per-index distributions allow first > 0.
template <class K>
bool generate_keys(K* keys, std::uint64_t n, const dist_spec& d, std::uint64_t seed, std::uint64_t first = 0,
                   std::uint64_t total = 0) {
  using B = key_bits<K>;
  using U = typename B::U;
  if (total == 0) total = n;
  const std::uint64_t stream = mix64(seed ^ 0x5261646978536f72ull) + first;  // per-seed offset
  const auto rnd = [stream](std::uint64_t i) { return mix64(stream + i); };
  constexpr radix::float_order numeric = radix::float_order::numeric;
  const auto ascending = [](K a, K b) { return ordered_key(a, numeric) < ordered_key(b, numeric); };

  switch (d.kind) {
    case distribution::uniform:
    case distribution::sorted:
    case distribution::reversed:
    case distribution::nearly_sorted:
      parallel_chunks(n, [&](std::uint64_t b, std::uint64_t e) {
        for (std::uint64_t i = b; i < e; ++i) keys[i] = random_key<K>(rnd(i));
      });
      if (d.kind == distribution::uniform) break;
      std::sort(keys, keys + n, ascending);
      if (d.kind == distribution::reversed) std::reverse(keys, keys + n);
      if (d.kind == distribution::nearly_sorted && n > 1) {
        // 1% of the positions swapped with a random other position.
        const std::uint64_t swaps = std::max<std::uint64_t>(1, n / 100);
        for (std::uint64_t s = 0; s < swaps; ++s) {
          const std::uint64_t r = mix64(stream ^ (0xA5A5A5A5ull + s));
          std::swap(keys[r % n], keys[(r >> 32) % n]);
        }
      }
      break;
    case distribution::all_equal: {
      const K v = random_key<K>(mix64(stream - first + ~std::uint64_t(0)));
      std::fill(keys, keys + n, v);
      break;
    }
    case distribution::few_unique: {
      std::vector<K> pool(std::size_t(d.param));
      for (std::size_t j = 0; j < pool.size(); ++j) pool[j] = random_key<K>(mix64((stream - first) ^ (0xF00Dull << 32) ^ j));
      parallel_chunks(n, [&](std::uint64_t b, std::uint64_t e) {
        for (std::uint64_t i = b; i < e; ++i) keys[i] = pool[rnd(i) % pool.size()];
      });
      break;
    }
    case distribution::zipf: {
      // Zipf with s = 1 over N ranks (continuous approximation: rank r is
      // drawn with probability about proportional to 1/r); each rank gets a
      // random value, so the skew is in how often values repeat, not where
      // they lie.
      const double log_range = std::log(double(total) + 1.0);
      parallel_chunks(n, [&](std::uint64_t b, std::uint64_t e) {
        for (std::uint64_t i = b; i < e; ++i) {
          const double u = double(rnd(i) >> 11) * 0x1.0p-53;
          const std::uint64_t rank = std::uint64_t(std::exp(u * log_range)) - 1;
          keys[i] = random_key<K>(mix64((stream - first) ^ 0x5A1Full ^ (rank * 0x9E3779B97F4A7C15ull)));
        }
      });
      break;
    }
    case distribution::low_bits: {
      const U mask = d.param >= B::width ? B::ones : U((U(1) << d.param) - 1);
      parallel_chunks(n, [&](std::uint64_t b, std::uint64_t e) {
        for (std::uint64_t i = b; i < e; ++i) keys[i] = B::from(U(random_bits<U>(rnd(i)) & mask));
      });
      break;
    }
  }

  if constexpr (B::is_float) {
    for (std::uint64_t i = 0; i < n; ++i)
      if (B::is_nan(B::to(keys[i]))) return true;
  }
  return false;
}

}  // namespace radix_cli
