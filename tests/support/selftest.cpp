// Self-test of the test support: the checks can fail (byte comparison, canaries), the
// oracle is stable, and every input distribution has the property its name promises.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "radix_test.hpp"

namespace rt {
namespace {

TEST(SupportSelfTest, SameBytesFindsASingleFlippedBit) {
  std::vector<std::uint32_t> a(1000), b;
  std::iota(a.begin(), a.end(), 0u);
  b = a;
  EXPECT_TRUE(same_bytes(a.data(), b.data(), 4, a.size(), "equal"));
  b[777] ^= 0x100;
  const auto r = same_bytes(a.data(), b.data(), 4, a.size(), "one flipped bit");
  EXPECT_FALSE(r);
  EXPECT_NE(std::string(r.message()).find("[777]"), std::string::npos) << r.message();
  EXPECT_NE(std::string(r.message()).find("1 of 1000"), std::string::npos) << r.message();
}

TEST(SupportSelfTest, CanariesCatchWritesOutsideTheBuffer) {
  for (std::size_t mis : {std::size_t(0), std::size_t(1), std::size_t(7)}) {
    {
      guarded g(10, 8, mis);
      EXPECT_TRUE(g.canaries_intact());
      std::memset(g.data(), 0, g.bytes());  // inside: fine
      EXPECT_TRUE(g.canaries_intact());
      g.data()[g.bytes()] = std::byte(~unsigned(g.data()[g.bytes()]));  // one past the end
      EXPECT_FALSE(g.canaries_intact());
    }
    {
      guarded g(10, 8, mis);
      g.data()[-1] = std::byte(~unsigned(g.data()[-1]));  // one before the start
      EXPECT_FALSE(g.canaries_intact());
    }
    guarded g(3, 4, mis);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(g.data()) % 64, mis);
  }
}

TEST(SupportSelfTest, OracleIsStableInBothDirectionsAndHonoursBitRanges) {
  const std::vector<std::uint8_t> k = {5, 3, 5, 1, 3, 5};
  radix::options o;
  EXPECT_EQ(oracle_perm(k, o), (std::vector<std::uint32_t>{3, 1, 4, 0, 2, 5}));
  o.direction = radix::order::descending;
  EXPECT_EQ(oracle_perm(k, o), (std::vector<std::uint32_t>{0, 2, 5, 1, 4, 3}));
  o = {};
  o.begin_bit = 1;  // 5 = 0b101 -> 2, 3 = 0b011 -> 1, 1 -> 0
  o.end_bit = 2;    // bit 1 only: 5 -> 0, 3 -> 1, 1 -> 0
  EXPECT_EQ(oracle_perm(k, o), (std::vector<std::uint32_t>{0, 2, 3, 5, 1, 4}));
  o.begin_bit = o.end_bit = 4;  // empty range: identity
  EXPECT_EQ(oracle_perm(k, o), (std::vector<std::uint32_t>{0, 1, 2, 3, 4, 5}));
}

template <class K>
void check_distributions() {
  using U = bits_t<K>;
  const radix::key_desc d = radix::key_desc_of<K>();
  const std::size_t n = 5000;
  radix::options asc;
  for (dist ds : all_dists) {
    SCOPED_TRACE(dist_name(ds));
    const auto a = generate_bits<U>(ds, d, n, 42, asc);
    const auto b = generate_bits<U>(ds, d, n, 42, asc);
    ASSERT_EQ(a, b) << "same seed, same input";
    const auto c = generate_bits<U>(ds, d, n, 43, asc);
    const std::set<U> distinct(a.begin(), a.end());
    const auto ord = ordered_masked(a, d, asc);
    switch (ds) {
      case dist::sorted:
      case dist::presorted_range:
        EXPECT_TRUE(std::is_sorted(ord.begin(), ord.end()));
        break;
      case dist::reverse:
        EXPECT_TRUE(std::is_sorted(ord.rbegin(), ord.rend()));
        break;
      case dist::nearly_sorted:
        EXPECT_FALSE(std::is_sorted(ord.begin(), ord.end()));
        EXPECT_TRUE(std::is_sorted(ord.begin(), ord.begin() + n / 2 - 1));
        break;
      case dist::all_equal:
        EXPECT_EQ(distinct.size(), 1u);
        break;
      case dist::few_unique:
        EXPECT_LE(distinct.size(), 16u);
        break;
      case dist::zipf: {
        EXPECT_LE(distinct.size(), 1024u);
        std::map<U, int> count;
        for (U x : a) ++count[x];
        int top = 0;
        for (auto& [x, m] : count) top = std::max(top, m);
        EXPECT_GT(top, int(n / 20)) << "the most frequent value should dominate";
        break;
      }
      case dist::signed_zeros:
        if constexpr (is_float_key<K>) {
          EXPECT_EQ(distinct, (std::set<U>{U(0), U(U(1) << (sizeof(U) * 8 - 1))}));
        }
        break;
      case dist::specials:
        if constexpr (is_float_key<K>) {
          bool pos_nan = false, neg_nan = false, neg_zero = false, denorm = false, inf = false;
          const auto [E, M] = layout_of(d);
          const U man = U((U(1) << M) - 1), expo = U(U((U(1) << E) - 1) << M);
          for (U x : distinct) {
            const double v = float_value(from_bits<K>(x));
            const bool neg = x >> (sizeof(U) * 8 - 1);
            pos_nan |= std::isnan(v) && !neg;
            neg_nan |= std::isnan(v) && neg;
            neg_zero |= v == 0 && neg;
            denorm |= (x & expo) == 0 && (x & man) != 0;
            inf |= std::isinf(v);
          }
          EXPECT_TRUE(pos_nan && neg_nan && neg_zero && denorm && inf);
          std::set<U> nans;
          for (U x : distinct)
            if (std::isnan(float_value(from_bits<K>(x)))) nans.insert(x);
          EXPECT_GE(nans.size(), 8u) << "NaNs with several payloads and both signs";
        }
        break;
      case dist::uniform:
        EXPECT_GT(distinct.size(), sizeof(U) == 1 ? 200u : 4000u);
        EXPECT_NE(a, c) << "another seed, another input";
        break;
      case dist::narrow: {
        const auto [lo, hi] = std::minmax_element(ord.begin(), ord.end());
        EXPECT_LT(std::uint64_t(*hi - *lo), 256u);
        break;
      }
      case dist::outliers: {
        // Within 256 of the median ordered key: the cluster; beyond: outliers.
        std::vector<U> sorted_ord = ord;
        std::sort(sorted_ord.begin(), sorted_ord.end());
        const U med = sorted_ord[n / 2];
        std::size_t near = 0;
        for (U o : ord) near += (o > med ? std::uint64_t(o - med) : std::uint64_t(med - o)) < 256;
        EXPECT_GT(near, n * 95 / 100) << "one cluster";
        if (sizeof(U) > 1) {
          EXPECT_LT(near, n) << "and some outliers";
        }
        break;
      }
    }
  }
}

TEST(SupportSelfTest, DistributionsHaveTheirProperties) {
  for (kt t : all_kts) {
    SCOPED_TRACE(kt_name(t));
    visit_kt(t, [](auto tg) { check_distributions<typename decltype(tg)::type>(); });
  }
}

/// Negative control: the comparison used by the conformance suite rejects a real
/// engine result checked against the wrong expectation (other direction, or a
/// permutation that breaks stability), so a broken engine cannot pass.
TEST(SupportSelfTest, ConformanceCheckRejectsWrongExpectations) {
  const auto keys = generate<std::uint16_t>(dist::few_unique, 3000, 7);
  std::vector<std::uint16_t> k = keys;
  std::vector<std::uint32_t> v(k.size());
  std::iota(v.begin(), v.end(), 0u);
  radix::sort_pairs(std::span<std::uint16_t>(k), std::span<std::uint32_t>(v));
  radix::options o;
  auto perm = oracle_perm(keys, o);
  EXPECT_TRUE(same_bytes(v.data(), perm.data(), 4, v.size(), "right expectation"));
  o.direction = radix::order::descending;
  EXPECT_FALSE(same_bytes(v.data(), oracle_perm(keys, o).data(), 4, v.size(), "other direction"));
  // Swap two equal keys' positions in the expected permutation: unstable.
  for (std::size_t i = 1; i < perm.size(); ++i)
    if (keys[perm[i]] == keys[perm[i - 1]]) {
      std::swap(perm[i], perm[i - 1]);
      break;
    }
  EXPECT_TRUE(same_bytes(k.data(), gather_bytes(keys.data(), 2, perm).data(), 2, k.size(), "keys cannot tell"));
  EXPECT_FALSE(same_bytes(v.data(), perm.data(), 4, v.size(), "unstable permutation"));
}

TEST(SupportSelfTest, SeedsDependOnTheCase) {
  EXPECT_NE(case_seed("a"), case_seed("b"));
  EXPECT_EQ(case_seed("a"), case_seed("a"));
  if (const char* e = std::getenv("RADIX_TEST_SEED"); e && *e) {
    EXPECT_EQ(base_seed(), std::strtoull(e, nullptr, 0));
  } else {
    EXPECT_EQ(base_seed(), 0x5EED20261122ull);
  }
}

}  // namespace
}  // namespace rt
