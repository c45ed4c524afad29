// Unit tests of the ordered-bits transform and bit_range_mask (src/core), and of the
// test oracle built on them, against a plain readable twin written from the contract.
#include <gtest/gtest.h>

#include "radix_test.hpp"

namespace rt {
namespace {

using radix::core::bit_range_mask;
using radix::core::make_codec;

// ---- bit_range_mask ---------------------------------------------------------------

TEST(BitRangeMask, EdgeCases) {
  EXPECT_EQ(bit_range_mask<std::uint32_t>(0, 32), 0xFFFFFFFFu);
  EXPECT_EQ(bit_range_mask<std::uint32_t>(0, 0), 0u);
  EXPECT_EQ(bit_range_mask<std::uint32_t>(32, 32), 0u);
  EXPECT_EQ(bit_range_mask<std::uint32_t>(5, 5), 0u);
  EXPECT_EQ(bit_range_mask<std::uint32_t>(0, 10), 0x3FFu);
  EXPECT_EQ(bit_range_mask<std::uint32_t>(3, 17), 0x1FFF8u);
  EXPECT_EQ(bit_range_mask<std::uint32_t>(31, 32), 0x80000000u);
  EXPECT_EQ(bit_range_mask<std::uint64_t>(0, 64), ~0ull);
  EXPECT_EQ(bit_range_mask<std::uint64_t>(63, 64), 1ull << 63);
  EXPECT_EQ(bit_range_mask<std::uint64_t>(64, 64), 0ull);
  EXPECT_EQ(bit_range_mask<std::uint64_t>(0, 63), ~0ull >> 1);
  EXPECT_EQ(bit_range_mask<std::uint8_t>(0, 8), 0xFFu);
  EXPECT_EQ(bit_range_mask<std::uint8_t>(7, 8), 0x80u);
  EXPECT_EQ(bit_range_mask<std::uint8_t>(8, 8), 0u);
  EXPECT_EQ(bit_range_mask<std::uint16_t>(0, 16), 0xFFFFu);
  EXPECT_EQ(bit_range_mask<std::uint16_t>(4, 12), 0x0FF0u);
  static_assert(bit_range_mask<std::uint32_t>(0, 32) == 0xFFFFFFFFu);
}

template <class U>
void check_all_masks() {
  constexpr int w = int(sizeof(U)) * 8;
  for (int b = 0; b <= w; ++b)
    for (int e = b; e <= w; ++e) {
      U want = 0;
      for (int i = b; i < e; ++i) want = U(want | U(U(1) << i));
      ASSERT_EQ(bit_range_mask<U>(b, e), want) << "[" << b << "," << e << ") width " << w;
    }
}

TEST(BitRangeMask, EveryRangeOfEveryWidth) {
  check_all_masks<std::uint8_t>();
  check_all_masks<std::uint16_t>();
  check_all_masks<std::uint32_t>();
  check_all_masks<std::uint64_t>();
}

// ---- the codec, value by value ---------------------------------------------------------

TEST(Codec, UnsignedIsIdentityAscendingComplementDescending) {
  const auto a = make_codec<std::uint32_t>(radix::key_desc_of<std::uint32_t>(), radix::order::ascending,
                                           radix::float_order::numeric);
  const auto d = make_codec<std::uint32_t>(radix::key_desc_of<std::uint32_t>(), radix::order::descending,
                                           radix::float_order::numeric);
  for (std::uint32_t x : {0u, 1u, 0x7FFFFFFFu, 0x80000000u, 0xFFFFFFFFu, 12345u}) {
    EXPECT_EQ(a(x), x);
    EXPECT_EQ(d(x), ~x);
  }
  const auto a8 = make_codec<std::uint8_t>(radix::key_desc_of<std::uint8_t>(), radix::order::ascending,
                                           radix::float_order::total);
  EXPECT_EQ(a8(0x80), 0x80);  // float order does not matter for integers
}

TEST(Codec, SignedFlipsTheSignBit) {
  const auto a = make_codec<std::uint16_t>(radix::key_desc_of<std::int16_t>(), radix::order::ascending,
                                           radix::float_order::numeric);
  EXPECT_EQ(a(to_bits(std::int16_t(-32768))), 0x0000);
  EXPECT_EQ(a(to_bits(std::int16_t(-1))), 0x7FFF);
  EXPECT_EQ(a(to_bits(std::int16_t(0))), 0x8000);
  EXPECT_EQ(a(to_bits(std::int16_t(32767))), 0xFFFF);
  const auto d = make_codec<std::uint16_t>(radix::key_desc_of<std::int16_t>(), radix::order::descending,
                                           radix::float_order::numeric);
  EXPECT_EQ(d(to_bits(std::int16_t(-32768))), 0xFFFF);
  EXPECT_EQ(d(to_bits(std::int16_t(32767))), 0x0000);
  const auto a64 = make_codec<std::uint64_t>(radix::key_desc_of<std::int64_t>(), radix::order::ascending,
                                             radix::float_order::total);
  EXPECT_EQ(a64(to_bits(std::int64_t(INT64_MIN))), 0u);
  EXPECT_EQ(a64(to_bits(std::int64_t(-1))), 0x7FFFFFFFFFFFFFFFull);
}

TEST(Codec, FloatNumericCanonicalisesZeroAndNaN) {
  const auto a = make_codec<std::uint32_t>(radix::key_desc_of<float>(), radix::order::ascending,
                                           radix::float_order::numeric);
  const auto d = make_codec<std::uint32_t>(radix::key_desc_of<float>(), radix::order::descending,
                                           radix::float_order::numeric);
  const std::uint32_t pz = 0, nz = 0x80000000u, pinf = 0x7F800000u, ninf = 0xFF800000u;
  const std::uint32_t nan = 0x7FC00000u, nan_p = 0x7F800001u, nnan = 0xFFC00123u;
  EXPECT_EQ(a(pz), a(nz));
  EXPECT_EQ(a(nan), a(nan_p));
  EXPECT_EQ(a(nan), a(nnan));
  EXPECT_EQ(a(nan), 0xFFFFFFFFu) << "NaN after everything, ascending";
  EXPECT_LT(a(pinf), a(nan));
  EXPECT_LT(a(ninf), a(to_bits(-1.0f)));
  EXPECT_LT(a(to_bits(-1.0f)), a(nz));
  EXPECT_LT(a(pz), a(0x00000001u)) << "zero below the smallest denormal";
  EXPECT_EQ(d(nan), 0u) << "NaN before everything, descending";
  EXPECT_EQ(d(nnan), 0u);
  EXPECT_EQ(d(pz), d(nz));
  EXPECT_GT(d(ninf), d(pinf));
}

TEST(Codec, FloatTotalIsIeeeTotalOrder) {
  const auto t = make_codec<std::uint64_t>(radix::key_desc_of<double>(), radix::order::ascending,
                                           radix::float_order::total);
  const std::uint64_t nnan = 0xFFF8000000000000ull, ninf = 0xFFF0000000000000ull, nz = 1ull << 63, pz = 0,
                      pinf = 0x7FF0000000000000ull, snan = 0x7FF0000000000001ull, qnan = 0x7FF8000000000000ull;
  EXPECT_LT(t(nnan), t(ninf));
  EXPECT_LT(t(ninf), t(to_bits(-1.0)));
  EXPECT_LT(t(to_bits(-1.0)), t(nz));
  EXPECT_LT(t(nz), t(pz)) << "-0 < +0 in totalOrder";
  EXPECT_LT(t(pz), t(pinf));
  EXPECT_LT(t(pinf), t(snan));
  EXPECT_LT(t(snan), t(qnan)) << "signalling below quiet for +NaN";
}

// ---- the codec against the readable twin -----------------------------------------------

/// The contract written plainly, on values. Returns whether a sorts strictly before b.
template <class K>
bool twin_less(const K& a, const K& b, const radix::options& o) {
  const bool desc = o.direction == radix::order::descending;
  if constexpr (!is_float_key<K>) {
    // Integers: bits [begin, end) of (value - minimum of the type), an unsigned number.
    const int w = int(sizeof(K)) * 8;
    const int e = end_of(o, w);
    auto field = [&](const K& k) -> std::uint64_t {
      const std::uint64_t biased = std::uint64_t(k) - std::uint64_t(std::numeric_limits<K>::min());
      const std::uint64_t shifted = o.begin_bit >= 64 ? 0 : biased >> o.begin_bit;
      const int len = e - o.begin_bit;
      return len >= 64 ? shifted : shifted & ((std::uint64_t(1) << len) - 1);
    };
    return desc ? field(b) < field(a) : field(a) < field(b);
  } else {
    const double x = float_value(a), y = float_value(b);
    const bool nx = std::isnan(x), ny = std::isnan(y);
    if (o.floats == radix::float_order::numeric) {
      // NaNs are equal to each other and go last ascending, first descending.
      if (nx || ny) return desc ? (nx && !ny) : (!nx && ny);
      return desc ? y < x : x < y;
    }
    // IEEE 754 totalOrder(x, y), from its definition.
    auto total_less = [](const K& p, const K& q) {
      const double u = float_value(p), v = float_value(q);
      const bool nu = std::isnan(u), nv = std::isnan(v);
      const auto pb = to_bits(p), qb = to_bits(q);
      constexpr int W = int(sizeof(K)) * 8;
      const bool sp = (pb >> (W - 1)) & 1, sq = (qb >> (W - 1)) & 1;
      if (!nu && !nv) {
        if (u < v) return true;
        if (v < u) return false;
        return sp && !sq;  // -0 below +0; otherwise equal
      }
      if (nu && nv) {
        if (sp != sq) return sp;  // negative NaN below positive NaN
        const auto mp = decltype(pb)(pb & ~(decltype(pb)(1) << (W - 1)));
        const auto mq = decltype(qb)(qb & ~(decltype(qb)(1) << (W - 1)));
        return sp ? mq < mp : mp < mq;  // larger payload (quiet bit first) further from zero
      }
      if (nu) return sp;  // -NaN below everything, +NaN above
      return !sq;
    };
    return desc ? total_less(b, a) : total_less(a, b);
  }
}

template <class K>
std::vector<radix::options> twin_options() {
  std::vector<radix::options> v;
  for (auto dir : {radix::order::ascending, radix::order::descending})
    for (auto f : {radix::float_order::numeric, radix::float_order::total}) {
      radix::options o;
      o.direction = dir;
      o.floats = f;
      v.push_back(o);
      if constexpr (!is_float_key<K>) {  // the twin also knows bit ranges of integers
        const int w = int(sizeof(K)) * 8;
        for (auto [b, e] : std::vector<std::pair<int, int>>{{0, std::min(10, w)}, {3, std::min(17, w)}, {5, 5},
                                                             {w - 1, w}, {std::max(0, w - 9), w}, {1, w - 1}}) {
          o.begin_bit = b;
          o.end_bit = e;
          v.push_back(o);
        }
      }
    }
  return v;
}

/// Pairwise over special values: codec order == twin order, codec equality == twin equivalence.
template <class K>
void pairwise_against_twin() {
  using U = bits_t<K>;
  rng r(case_seed("twin-pairwise"));
  std::vector<U> vals = special_patterns<U>(radix::key_desc_of<K>(), r);
  for (int i = 0; i < 40; ++i) vals.push_back(U(r()));
  for (const auto& o : twin_options<K>()) {
    SCOPED_TRACE(describe(o));
    const auto codec = make_codec<U>(radix::key_desc_of<K>(), o.direction, o.floats);
    const U mask = bit_range_mask<U>(o.begin_bit, end_of(o, int(sizeof(U)) * 8));
    for (U a : vals)
      for (U b : vals) {
        const K ka = from_bits<K>(a), kb = from_bits<K>(b);
        const U oa = U(codec(a) & mask), ob = U(codec(b) & mask);
        ASSERT_EQ(oa < ob, twin_less(ka, kb, o)) << "a=" << hex(a) << " b=" << hex(b);
        ASSERT_EQ(oa == ob, !twin_less(ka, kb, o) && !twin_less(kb, ka, o)) << "a=" << hex(a) << " b=" << hex(b);
      }
  }
}

/// The oracle's stable permutation == std::stable_sort with the twin comparator.
template <class K>
void permutation_against_twin() {
  for (dist ds : all_dists)
    for (const auto& o : twin_options<K>()) {
      const std::uint64_t seed = case_seed(std::string("twin-perm/") + dist_name(ds) + describe(o));
      SCOPED_TRACE(std::string(dist_name(ds)) + " " + describe(o) + " seed=" + hex(seed));
      const auto keys = generate<K>(ds, 3001, seed, o);
      const auto perm = oracle_perm(keys, o);
      std::vector<std::uint32_t> twin(keys.size());
      std::iota(twin.begin(), twin.end(), 0u);
      std::stable_sort(twin.begin(), twin.end(),
                       [&](std::uint32_t a, std::uint32_t b) { return twin_less(keys[a], keys[b], o); });
      ASSERT_EQ(perm, twin);
    }
}

class Twin : public ::testing::TestWithParam<kt> {};

TEST_P(Twin, CodecOrderEqualsReadableOrderPairwise) {
  visit_kt(GetParam(), [](auto tg) { pairwise_against_twin<typename decltype(tg)::type>(); });
}

TEST_P(Twin, OraclePermutationEqualsStableSortWithReadableComparator) {
  visit_kt(GetParam(), [](auto tg) { permutation_against_twin<typename decltype(tg)::type>(); });
}

INSTANTIATE_TEST_SUITE_P(AllKeyTypes, Twin, ::testing::ValuesIn(all_kts),
                         [](const ::testing::TestParamInfo<kt>& i) { return std::string(kt_name(i.param)); });

/// 16-bit keys, all 65536 patterns: sorted by the codec, consecutive keys are
/// non-decreasing in twin order, and share ordered bits exactly when twin-equivalent.
TEST(Twin16, EveryPatternOfSixteenBitKeys) {
  for (kt t : {kt::u16, kt::i16, kt::f16, kt::bf16})
    visit_kt(t, [&](auto tg) {
      using K = typename decltype(tg)::type;
      if constexpr (sizeof(K) == 2) {
        for (const auto& o : twin_options<K>()) {
          SCOPED_TRACE(std::string(kt_name(t)) + " " + describe(o));
          std::vector<std::uint16_t> all(65536);
          std::iota(all.begin(), all.end(), std::uint16_t(0));
          const auto perm = oracle_perm_bits(all, radix::key_desc_of<K>(), o);
          const auto ord = ordered_masked(all, radix::key_desc_of<K>(), o);
          for (std::size_t i = 1; i < perm.size(); ++i) {
            const K a = from_bits<K>(all[perm[i - 1]]), b = from_bits<K>(all[perm[i]]);
            ASSERT_FALSE(twin_less(b, a, o)) << hex(all[perm[i - 1]]) << " then " << hex(all[perm[i]]);
            ASSERT_EQ(ord[perm[i - 1]] == ord[perm[i]], !twin_less(a, b, o))
                << hex(all[perm[i - 1]]) << " then " << hex(all[perm[i]]);
          }
        }
      }
    });
}

/// Applying the descending codec reverses the order of distinct ascending keys.
TEST(Codec, DescendingReversesAscendingForEveryKind) {
  for (kt t : all_kts)
    visit_kt(t, [&](auto tg) {
      using K = typename decltype(tg)::type;
      using U = bits_t<K>;
      SCOPED_TRACE(kt_name(t));
      for (auto f : {radix::float_order::numeric, radix::float_order::total}) {
        const auto a = make_codec<U>(radix::key_desc_of<K>(), radix::order::ascending, f);
        const auto d = make_codec<U>(radix::key_desc_of<K>(), radix::order::descending, f);
        rng r(7);
        for (int i = 0; i < 2000; ++i) {
          const U x = U(r());
          ASSERT_EQ(d(x), U(~a(x))) << hex(x);
        }
      }
    });
}

/// The cheaper forms the GPU kernels pick (core::key_form) give the codec's
/// bits wherever they are picked: linear for every integer kind and only
/// for them, biased wherever the canonicalisation is off.
TEST(Codec, KeyFormsAgreeWithTheCodecWherePicked) {
  using radix::core::key_form;
  using radix::core::ordered_as;
  for (kt t : all_kts)
    visit_kt(t, [&](auto tg) {
      using K = typename decltype(tg)::type;
      using U = bits_t<K>;
      SCOPED_TRACE(kt_name(t));
      const bool is_float = radix::key_desc_of<K>().kind == radix::key_kind::floating;
      for (auto dir : {radix::order::ascending, radix::order::descending})
        for (auto f : {radix::float_order::numeric, radix::float_order::total}) {
          const auto c = make_codec<U>(radix::key_desc_of<K>(), dir, f);
          ASSERT_EQ(c.linear(), !is_float);
          rng r(11);
          for (int i = 0; i < 4000; ++i) {
            const U x = i < 4 ? U(i == 0 ? U(0) : i == 1 ? U(~U(0)) : i == 2 ? U(U(1) << (sizeof(U) * 8 - 1)) : U(1))
                              : U(r());
            ASSERT_EQ(ordered_as<key_form::canonical>(c, x), c.canonical(x)) << hex(x);
            if (c.linear()) {
              ASSERT_EQ(ordered_as<key_form::linear>(c, x), c(x)) << hex(x);
            }
            if (!c.canon) {
              ASSERT_EQ(ordered_as<key_form::biased>(c, x), c(x)) << hex(x);
            }
          }
        }
    });
}

}  // namespace
}  // namespace rt
