// Conformance, 128-bit integer keys (radix::uint128, radix::int128): keys,
// pairs, argsort and records (little- and big-endian keys at odd offsets),
// both directions, bit ranges inside either 64-bit chunk, across bit 64 and
// over the sign bit, sizes around the thread-chunk boundaries. The oracle is
// std::stable_sort comparing the keys as 128-bit integers, written here from
// the contract without the library's ordered-bits transform.
#include <algorithm>
#include <numeric>
#include <tuple>

#include "conformance.hpp"

namespace rt {
namespace {

using u128 = radix::uint128;
using i128 = radix::int128;

constexpr u128 word(std::uint64_t hi, std::uint64_t lo) { return (u128(hi) << 64) | lo; }
constexpr u128 top_bit = u128(1) << 127;

std::string hex128(u128 v) { return hex(std::uint64_t(v >> 64)) + "_" + hex(std::uint64_t(v)); }

enum class wdist : std::uint8_t {
  uniform,    ///< all 128 bits random
  sorted,     ///< ascending by value
  reversed,   ///< descending by value
  all_equal,  ///< one value
  few_unique, ///< 1..16 values
  high_only,  ///< one low word; values differ only in the high word
  low_only,   ///< one high word; values differ only in the low word
  few_high,   ///< 3 high words, random low words: the low chunk decides ties
  sign_mix,   ///< signed: small negatives and positives, around +-2^64, extremes; unsigned: extremes
};
constexpr wdist all_wdists[] = {wdist::uniform,  wdist::sorted,   wdist::reversed, wdist::all_equal, wdist::few_unique,
                                wdist::high_only, wdist::low_only, wdist::few_high, wdist::sign_mix};
const char* wdist_name(wdist d) {
  switch (d) {
    case wdist::uniform: return "uniform";
    case wdist::sorted: return "sorted";
    case wdist::reversed: return "reversed";
    case wdist::all_equal: return "all_equal";
    case wdist::few_unique: return "few_unique";
    case wdist::high_only: return "high_only";
    case wdist::low_only: return "low_only";
    case wdist::few_high: return "few_high";
    case wdist::sign_mix: return "sign_mix";
  }
  return "?";
}

/// Whether a < b as the key type's integers (signed: two's complement).
bool value_less(u128 a, u128 b, bool sgn) { return sgn ? i128(a) < i128(b) : a < b; }

/// n keys (as their bits) of a distribution.
std::vector<u128> make_keys(wdist d, bool sgn, std::size_t n, std::uint64_t seed) {
  rng r(seed);
  auto any = [&] { return word(r(), r()); };
  std::vector<u128> v(n);
  switch (d) {
    case wdist::uniform:
    case wdist::sorted:
    case wdist::reversed:
      for (auto& x : v) x = any();
      if (d != wdist::uniform)
        std::sort(v.begin(), v.end(),
                  [&](u128 a, u128 b) { return d == wdist::sorted ? value_less(a, b, sgn) : value_less(b, a, sgn); });
      break;
    case wdist::all_equal: std::fill(v.begin(), v.end(), any()); break;
    case wdist::few_unique: {
      std::vector<u128> pool(1 + r.below(16));
      for (auto& x : pool) x = any();
      for (auto& x : v) x = pool[r.below(pool.size())];
      break;
    }
    case wdist::high_only: {
      const std::uint64_t lo = r();
      for (auto& x : v) x = word(r(), lo);
      break;
    }
    case wdist::low_only: {
      const std::uint64_t hi = r();
      for (auto& x : v) x = word(hi, r());
      break;
    }
    case wdist::few_high: {
      const std::uint64_t his[3] = {r(), r(), ~std::uint64_t(0)};
      for (auto& x : v) x = word(his[r.below(3)], r.below(4) == 0 ? r.below(8) : r());
      break;
    }
    case wdist::sign_mix: {
      const u128 pool[] = {0, 1, ~u128(0), ~u128(0) - 1, top_bit, top_bit + 1, top_bit - 1, u128(1) << 64,
                           (u128(1) << 64) - 1, u128(0) - (u128(1) << 64), u128(0) - ((u128(1) << 64) + 1)};
      for (auto& x : v) {
        const std::uint64_t k = r.below(4);
        if (k == 0) x = pool[r.below(std::size(pool))];
        else if (k == 1) x = u128(i128(std::int64_t(r()) >> r.below(63)));  // sign-extended 64-bit values
        else x = u128(i128(std::int64_t(r()) >> 8) * i128(std::int64_t(r.below(1 << 20)) - (1 << 19)));
      }
      break;
    }
  }
  return v;
}

/// The contract: bits [begin, end) of the ordered key (the sign bit flipped
/// for signed keys), compared as unsigned; the whole key compares as the
/// integers themselves. Stable; descending reverses the comparison only.
std::vector<std::uint32_t> oracle(const std::vector<u128>& keys, bool sgn, const radix::options& o) {
  const int end = o.end_bit < 0 ? 128 : o.end_bit;
  const bool whole = o.begin_bit == 0 && end == 128;
  const u128 hi = end >= 128 ? ~u128(0) : (u128(1) << end) - 1;
  const u128 mask = o.begin_bit >= 128 ? 0 : hi & ~((u128(1) << o.begin_bit) - 1);
  auto less = [&](u128 a, u128 b) {
    if (whole) return value_less(a, b, sgn);
    const u128 flip = sgn ? top_bit : 0;
    return ((a ^ flip) & mask) < ((b ^ flip) & mask);
  };
  std::vector<std::uint32_t> p(keys.size());
  std::iota(p.begin(), p.end(), 0u);
  const bool desc = o.direction == radix::order::descending;
  std::stable_sort(p.begin(), p.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return desc ? less(keys[b], keys[a]) : less(keys[a], keys[b]); });
  return p;
}

struct w_case {
  bool sgn;
  wdist d;
  std::size_t n;
  radix::order dir;
  int begin = 0, end = -1;
  unsigned threads = 0;
};

std::string text(const w_case& c, std::uint64_t seed) {
  return std::string(c.sgn ? "int128" : "uint128") + " n=" + std::to_string(c.n) + " dist=" + wdist_name(c.d) +
         (c.dir == radix::order::descending ? " descending" : " ascending") + " bits=" + std::to_string(c.begin) +
         ":" + std::to_string(c.end) + " threads=" + std::to_string(c.threads) + " seed=" + hex(seed) +
         " (rerun with RADIX_TEST_SEED=" + hex(base_seed()) + ")";
}

/// Bit ranges: inside the low chunk, inside the high chunk, across bit 64,
/// exactly one chunk, empty, the sign bit alone, the top bits with it.
const std::vector<std::pair<int, int>> ranges = {{0, 10},  {3, 17},   {0, 64},  {64, 128}, {64, 80},
                                                 {70, 128}, {60, 70}, {63, 65}, {5, 5},    {0, 0},
                                                 {128, 128}, {127, 128}, {1, 127}, {100, 127}, {8, 120}};

std::vector<w_case> cases() {
  std::vector<w_case> v;
  for (bool sgn : {false, true}) {
    for (std::size_t n : {0, 1, 2, 3, 5, 13, 61, 255, 256, 257, 1021})
      for (wdist d : all_wdists)
        for (auto dir : {radix::order::ascending, radix::order::descending}) v.push_back({sgn, d, n, dir});
    for (auto [b, e] : ranges)
      for (wdist d : {wdist::uniform, wdist::few_high, wdist::sign_mix, wdist::low_only})
        for (auto dir : {radix::order::ascending, radix::order::descending}) v.push_back({sgn, d, 4099, dir, b, e});
    // Thread-chunk boundaries of the CPU engine (2^16 elements per thread).
    int i = 0;
    for (std::size_t n : boundary_sizes()) {
      const wdist d = all_wdists[std::size_t(i) % std::size(all_wdists)];
      const auto dir = i % 2 ? radix::order::descending : radix::order::ascending;
      v.push_back({sgn, i % 3 == 0 ? wdist::uniform : d, n, dir});
      ++i;
    }
    v.push_back({sgn, wdist::few_high, 196609, radix::order::ascending, 0, -1, 3});
    v.push_back({sgn, wdist::sign_mix, 65537, radix::order::descending, 60, 128});
  }
  return v;
}

class Int128 : public engine_only_test {
 protected:
  radix::options case_opts(const w_case& c) const {
    radix::options o = opts();
    o.direction = c.dir;
    o.begin_bit = c.begin;
    o.end_bit = c.end;
    o.threads = c.threads;
    return o;
  }
};

radix::sort_request request(const w_case& c, radix::operation op, void* keys, const radix::options& o) {
  radix::sort_request r;
  r.op = op;
  r.key = c.sgn ? radix::key_desc_of<i128>() : radix::key_desc_of<u128>();
  r.n = c.n;
  r.keys = keys;
  r.opts = o;
  return r;
}

/// Keys, pairs and argsort (4- and 8-byte indices) of one case.
bool run_case(const w_case& c, const radix::options& o) {
  const std::uint64_t seed = case_seed("int128/" + text(c, 0));
  SCOPED_TRACE(text(c, seed));
  const auto in = make_keys(c.d, c.sgn, c.n, seed);
  const auto perm = oracle(in, c.sgn, o);
  const auto want = gather_bytes(in.data(), 16, perm);
  bool ok = true;
  // Reports a failed check here, inside the case's trace (seed, options).
  const auto check = [](const ::testing::AssertionResult& r) {
    EXPECT_TRUE(r);
    return bool(r);
  };

  // Keys 8 bytes off a 16-byte boundary: the library must not assume __int128 alignment.
  guarded keys(c.n, 16, 8);
  keys.fill_from(in.data());
  ok &= no_throw([&] { radix::run(request(c, radix::operation::keys, keys.data(), o)); }, "keys");
  ok &= check(same_bytes(keys.data(), want.data(), 16, c.n, "keys")) && check(keys.canaries_intact());

  guarded pk(c.n, 16), pv(c.n, 4);
  pk.fill_from(in.data());
  for (std::size_t i = 0; i < c.n; ++i) pv.as<std::uint32_t>()[i] = std::uint32_t(i);
  auto pr = request(c, radix::operation::pairs, pk.data(), o);
  pr.values = pv.data();
  pr.value_bytes = 4;
  ok &= no_throw([&] { radix::run(pr); }, "pairs");
  ok &= check(same_bytes(pk.data(), want.data(), 16, c.n, "pairs: keys")) && check(pk.canaries_intact());
  ok &= check(same_bytes(pv.data(), perm.data(), 4, c.n, "pairs: values")) && check(pv.canaries_intact());

  for (std::uint8_t ib : {std::uint8_t(4), std::uint8_t(8)}) {
    guarded idx(c.n, ib);  // poisoned: every index must be written
    guarded ak(c.n, 16);
    ak.fill_from(in.data());
    auto ar = request(c, radix::operation::argsort, ak.data(), o);
    ar.indices = idx.data();
    ar.index_bytes = ib;
    ok &= no_throw([&] { radix::run(ar); }, "argsort");
    for (std::size_t i = 0; i < c.n && ok; ++i) {
      const std::uint64_t got = ib == 4 ? idx.as<std::uint32_t>()[i] : idx.as<std::uint64_t>()[i];
      if (got != perm[i]) {
        ADD_FAILURE() << "argsort (" << int(ib) << "-byte indices): [" << i << "] = " << got << ", expected " << perm[i]
                      << " (key " << hex128(in[perm[i]]) << ")";
        ok = false;
      }
    }
    ok &= check(same_bytes(ak.data(), in.data(), 16, c.n, "argsort: keys unchanged"));
    ok &= check(idx.canaries_intact()) && check(ak.canaries_intact());
  }
  return ok;
}

TEST_P(Int128, KeysPairsArgsort) {
  failure_budget fb;
  for (const w_case& c : cases()) {
    const bool ok = run_case(c, case_opts(c));  // reports its own failures
    if (!fb.keep_going(ok)) break;
  }
}

TEST_P(Int128, Records) {
  failure_budget fb;
  for (const w_case& c : cases()) {
    if (c.n > 70000 || (c.n < 200 && c.d != wdist::few_high && c.d != wdist::sign_mix)) continue;
    const radix::options o = case_opts(c);
    const std::uint64_t seed = case_seed("int128-records/" + text(c, 0));
    SCOPED_TRACE(text(c, seed));
    const auto in = make_keys(c.d, c.sgn, c.n, seed);
    const auto perm = oracle(in, c.sgn, o);
    // 32-byte records with the key at offset 8, and 21-byte records with the
    // key at odd offset 5; each stored little- and big-endian.
    for (auto [rb, off] : std::vector<std::pair<std::size_t, std::size_t>>{{32, 8}, {21, 5}})
      for (bool be : {false, true}) {
        std::vector<std::byte> recs(c.n * rb);
        for (std::size_t i = 0; i < c.n; ++i) {
          for (std::size_t j = 0; j < rb; ++j) recs[i * rb + j] = std::byte(mix64(seed ^ i ^ (j << 32)));
          std::byte* k = &recs[i * rb + off];
          std::memcpy(k, &in[i], 16);
          if (be) std::reverse(k, k + 16);
        }
        const auto want = gather_bytes(recs.data(), rb, perm);
        guarded buf(c.n, rb, 3);
        buf.fill_from(recs.data());
        const radix::record_key rk{off, c.sgn ? radix::key_desc_of<i128>() : radix::key_desc_of<u128>(), be};
        // (an init-capture: Clang 14 cannot capture a structured binding itself)
        bool ok = no_throw([&, rb = rb] { radix::sort_records(buf.data(), rb, c.n, rk, o); }, "sort_records");
        SCOPED_TRACE("record_bytes=" + std::to_string(rb) + " offset=" + std::to_string(off) +
                     (be ? " big-endian" : " little-endian"));
        const auto same = same_bytes(buf.data(), want.data(), rb, c.n, "records");
        EXPECT_TRUE(same);
        const auto intact = buf.canaries_intact();
        EXPECT_TRUE(intact);
        ok = ok && same && intact;
        if (!fb.keep_going(ok)) return;
      }
  }
}

/// The typed calls on radix::int128 / uint128: sort, sort_pairs, argsort,
/// sort_records with a key function, a sorter, and a decomposer member.
TEST_P(Int128, TemplateApi) {
  const std::size_t n = 5000;
  const std::uint64_t seed = case_seed("int128-template");
  SCOPED_TRACE("seed=" + hex(seed) + " (rerun with RADIX_TEST_SEED=" + hex(base_seed()) + ")");
  const auto bits = make_keys(wdist::sign_mix, true, n, seed);
  std::vector<i128> s(n);
  for (std::size_t i = 0; i < n; ++i) s[i] = i128(bits[i]);
  auto want = s;
  std::stable_sort(want.begin(), want.end());
  auto k = s;
  ASSERT_TRUE(no_throw([&] { radix::sort(std::span(k), opts()); }, "radix::sort(int128)"));
  EXPECT_TRUE(k == want);

  std::vector<u128> u(n);
  for (std::size_t i = 0; i < n; ++i) u[i] = bits[i] ^ (u128(i % 7) << 64);
  std::vector<std::uint64_t> ids(n);
  std::iota(ids.begin(), ids.end(), 0);
  radix::options desc = opts();
  desc.direction = radix::order::descending;
  const auto perm = oracle(u, false, desc);
  auto uk = u;
  ASSERT_TRUE(no_throw([&] { radix::sort_pairs(std::span(uk), std::span(ids), desc); }, "sort_pairs(uint128)"));
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(ids[i], perm[i]) << "at " << i;
  std::vector<std::int64_t> idx(n, -1);
  radix::sorter so(desc);
  ASSERT_TRUE(no_throw([&] { so.argsort(std::span<const u128>(u), std::span(idx)); }, "sorter::argsort(uint128)"));
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(std::uint64_t(idx[i]), perm[i]) << "at " << i;

  struct row {
    std::uint32_t id;
    i128 key;
    std::uint16_t tag;
  };
  std::vector<row> rows(n);
  for (std::size_t i = 0; i < n; ++i) rows[i] = {std::uint32_t(i), s[i], std::uint16_t(bits[i] % 3)};
  auto by_key = rows;
  ASSERT_TRUE(no_throw([&] { radix::sort_records(std::span(by_key), [](const row& r) { return r.key; }, opts()); },
                       "sort_records(key_of)"));
  const auto sperm = oracle(bits, true, opts());
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(by_key[i].id, sperm[i]) << "at " << i;

  // Decomposer: by tag, then by the 128-bit key.
  auto dec = rows;
  ASSERT_TRUE(no_throw(
      [&] { radix::sort(std::span(dec), [](const row& r) { return std::tuple(r.tag, r.key); }, opts()); }, "decomposer"));
  auto ref = rows;
  std::stable_sort(ref.begin(), ref.end(),
                   [](const row& a, const row& b) { return std::tie(a.tag, a.key) < std::tie(b.tag, b.key); });
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(dec[i].id, ref[i].id) << "at " << i;
}

/// A hand-made case, so that a wrong oracle and a wrong engine cannot agree.
TEST_P(Int128, ByHand) {
  const i128 big = i128(u128(1) << 100), min = i128(top_bit), max = i128(top_bit - 1);
  const std::vector<i128> in = {5, -1, min, 0, max, -big, big, -1, i128(1) << 64, -(i128(1) << 64), 5};
  auto k = in;
  radix::sort(std::span(k), opts());
  EXPECT_TRUE(k == (std::vector<i128>{min, -big, -(i128(1) << 64), -1, -1, 0, 5, 5, i128(1) << 64, big, max}));
  // Bits [64, 128) of the ordered key: the high word, sign flipped; ties keep input order.
  auto o = opts();
  o.begin_bit = 64;
  std::vector<u128> u = {word(2, 9), word(1, 7), word(2, 1), word(0, ~0ull), word(1, 0)};
  radix::sort(std::span(u), o);
  EXPECT_TRUE(u == (std::vector<u128>{word(0, ~0ull), word(1, 7), word(1, 0), word(2, 9), word(2, 1)}));
  // The sign bit alone, descending: non-negative keys (ordered bit 127 set) first.
  o = opts();
  o.begin_bit = 127;
  o.direction = radix::order::descending;
  k = {-3, 4, -1, 0, min, 2};
  radix::sort(std::span(k), o);
  EXPECT_TRUE(k == (std::vector<i128>{4, 0, 2, -3, -1, min}));
}

RADIX_CONFORMANCE_FOR_ALL_ENGINES_ONLY(Int128);

}  // namespace
}  // namespace rt
