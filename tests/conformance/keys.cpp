// Conformance, operation "sort keys" (radix::sort): every key type x sizes x
// distributions x directions x float orders x bit ranges, bit-exact vs the stable oracle.
#include "conformance.hpp"

namespace rt {
namespace {

/// One case: generate, sort a guarded copy, compare bit-exactly with the input
/// permuted by the oracle's stable permutation.
template <class K>
bool run_keys_case(kt t, const sort_case& c) {
  const std::uint64_t seed = seed_for("keys", t, c);
  SCOPED_TRACE(case_text("keys", t, c, seed));
  const std::vector<K> in = generate<K>(c.ds, c.n, seed, c.o);
  const auto perm = oracle_perm(in, c.o);
  const auto want = gather_bytes(in.data(), sizeof(K), perm);
  guarded buf(c.n, sizeof(K));
  buf.fill_from(in.data());
  if (!no_throw([&] { radix::sort(std::span<K>(buf.as<K>(), c.n), c.o); }, "radix::sort")) return false;
  bool ok = true;
  auto r = same_bytes(buf.data(), want.data(), sizeof(K), c.n, "sorted keys");
  EXPECT_TRUE(r);
  ok = ok && r;
  auto g = buf.canaries_intact();
  EXPECT_TRUE(g);
  ok = ok && g;
  // Out of place: the input read only, the result into a poisoned buffer.
  guarded src(c.n, sizeof(K)), dst(c.n, sizeof(K));
  src.fill_from(in.data());
  if (!no_throw([&] { radix::sort(std::span<const K>(src.as<K>(), c.n), std::span<K>(dst.as<K>(), c.n), c.o); },
                "radix::sort(keys, sorted)"))
    return false;
  auto ro = same_bytes(dst.data(), want.data(), sizeof(K), c.n, "keys sorted out of place (buffer was poisoned)");
  auto ri = same_bytes(src.data(), in.data(), sizeof(K), c.n, "input of a sort out of place");
  EXPECT_TRUE(ro);
  EXPECT_TRUE(ri);
  auto go = dst.canaries_intact();
  EXPECT_TRUE(go);
  return ok && ro && ri && go;
}

class Keys : public engine_test {
 protected:
  void run_all(const std::vector<sort_case>& cases) {
    failure_budget fb;
    visit_kt(key(), [&](auto tg) {
      using K = typename decltype(tg)::type;
      for (const auto& c : cases)
        if (!fb.keep_going(run_keys_case<K>(key(), c))) break;
    });
  }
  radix::key_desc desc() const {
    return visit_kt(key(), [](auto tg) { return radix::key_desc_of<typename decltype(tg)::type>(); });
  }
};

TEST_P(Keys, SmallSizesEveryDistribution) { run_all(small_cases(eng(), desc())); }

TEST_P(Keys, ThreadChunkBoundaries) { run_all(boundary_cases(eng(), desc())); }

TEST_P(Keys, BitRanges) { run_all(range_cases(eng(), desc())); }

/// Past 2^20 elements (and 4 MiB of keys, where the CPU engine switches to its
/// MSD + in-cache route): skewed, clustered and special inputs, a bit range.
TEST_P(Keys, OverAMillion) {
  const bool fl = desc().kind == radix::key_kind::floating;
  auto ranged = make_opts(eng(), radix::order::ascending);
  ranged.begin_bit = 3;
  ranged.end_bit = desc().bits() - 2;
  std::vector<sort_case> cases = {
      {dist::uniform, million_size, make_opts(eng(), radix::order::ascending)},
      {dist::zipf, million_size, make_opts(eng(), radix::order::descending)},
      {dist::few_unique, million_size, make_opts(eng(), radix::order::ascending)},
      {dist::outliers, million_size,
       make_opts(eng(), radix::order::descending, fl ? radix::float_order::total : radix::float_order::numeric)},
      {fl ? dist::specials : dist::nearly_sorted, million_size, make_opts(eng(), radix::order::ascending)},
      {dist::uniform, million_size, ranged}};
  if (desc().bytes == 2) {  // 16-bit keys reach 4 MiB at 2^21 elements
    cases.push_back({dist::uniform, (std::size_t(1) << 21) + 7, make_opts(eng(), radix::order::ascending)});
    cases.push_back({dist::outliers, (std::size_t(1) << 21) + 7, make_opts(eng(), radix::order::descending)});
  }
  run_all(cases);
}

RADIX_CONFORMANCE_FOR_ALL_ENGINES(Keys);

/// The contract's float rules spelled out on a small hand-made input, so that a
/// wrong oracle and a wrong engine cannot agree by accident.
class KeysByHand : public engine_only_test {};

TEST_P(KeysByHand, FloatRules) {
  for (kt t : {kt::f16, kt::bf16, kt::f32, kt::f64}) visit_kt(t, [&](auto tg) {
    using K = typename decltype(tg)::type;
    using U = bits_t<K>;
    SCOPED_TRACE(kt_name(t));
    const auto [E, M] = layout_of(radix::key_desc_of<K>());
    const U sign = U(U(1) << (sizeof(U) * 8 - 1)), expo = U(U((U(1) << E) - 1) << M);
    const U one = U(U((U(1) << (E - 1)) - 1) << M), quiet = U(U(1) << (M - 1));
    const U in_bits[] = {
        U(expo | quiet),              // 0: +NaN
        one,                          // 1: 1.0
        sign,                         // 2: -0.0
        U(sign | expo),               // 3: -inf
        U(sign | expo | quiet | 1),   // 4: -NaN with a payload
        U(0),                         // 5: +0.0
        U(1),                         // 6: smallest denormal
        expo,                         // 7: +inf
        sign,                         // 8: -0.0
        U(sign | 1),                  // 9: -smallest denormal
        U(sign | (one + (U(1) << M))) // 10: -2.0
    };
    std::vector<K> in;
    for (U b : in_bits) in.push_back(from_bits<K>(b));
    // Ascending numeric: -inf, -2, -den, the zeros in input order (-0, +0, -0), den, 1, inf, NaNs in input order.
    const std::vector<int> asc = {3, 10, 9, 2, 5, 8, 6, 1, 7, 0, 4};
    // Descending numeric: NaNs first in input order, then inf ... -inf, zeros still in input order.
    const std::vector<int> desc = {0, 4, 7, 1, 6, 2, 5, 8, 9, 10, 3};
    // totalOrder ascending: -NaN, -inf, -2, -den, -0, -0, +0, den, 1, inf, +NaN.
    const std::vector<int> total = {4, 3, 10, 9, 2, 8, 5, 6, 1, 7, 0};
    // totalOrder descending: the reverse, equal keys (the two -0.0) still in input order.
    const std::vector<int> total_desc = {0, 7, 1, 6, 5, 2, 8, 9, 10, 3, 4};
    struct run_t {
      radix::order dir;
      radix::float_order f;
      const std::vector<int>* want;
    } runs[] = {{radix::order::ascending, radix::float_order::numeric, &asc},
                {radix::order::descending, radix::float_order::numeric, &desc},
                {radix::order::ascending, radix::float_order::total, &total},
                {radix::order::descending, radix::float_order::total, &total_desc}};
    for (const auto& r : runs) {
      const auto o = make_opts(eng(), r.dir, r.f);
      SCOPED_TRACE(describe(o));
      std::vector<K> k = in;
      radix::sort(std::span<K>(k), o);
      std::vector<K> want;
      for (int i : *r.want) want.push_back(in[std::size_t(i)]);
      EXPECT_TRUE(same_bytes(k.data(), want.data(), sizeof(K), k.size(), "hand-made float keys"));
      // The oracle agrees with the hand-made answer too.
      const auto perm = oracle_perm(in, o);
      EXPECT_EQ(std::vector<int>(perm.begin(), perm.end()), *r.want);
    }
  });
}

TEST_P(KeysByHand, Integers) {
  std::vector<std::int32_t> in = {5, -1, INT32_MIN, 0, INT32_MAX, -1, 5, 1};
  std::vector<std::int32_t> k = in;
  radix::sort(std::span<std::int32_t>(k), opts());
  EXPECT_EQ(k, (std::vector<std::int32_t>{INT32_MIN, -1, -1, 0, 1, 5, 5, INT32_MAX}));
  auto o = opts();
  o.direction = radix::order::descending;
  k = in;
  radix::sort(std::span<std::int32_t>(k), o);
  EXPECT_EQ(k, (std::vector<std::int32_t>{INT32_MAX, 5, 5, 1, 0, -1, -1, INT32_MIN}));
  // Bits [0, 4) of the biased key: low nibble of the value (bias only flips bit 31).
  o = opts();
  o.end_bit = 4;
  k = {0x13, 0x22, 0x31, 0x40, -16, 0x01};
  radix::sort(std::span<std::int32_t>(k), o);
  EXPECT_EQ(k, (std::vector<std::int32_t>{0x40, -16, 0x31, 0x01, 0x22, 0x13}));
  std::vector<std::uint64_t> u = {~0ull, 0, 1ull << 63, 42, 0};
  radix::sort(std::span<std::uint64_t>(u), opts());
  EXPECT_EQ(u, (std::vector<std::uint64_t>{0, 0, 42, 1ull << 63, ~0ull}));
}

RADIX_CONFORMANCE_FOR_ALL_ENGINES_ONLY(KeysByHand);

}  // namespace
}  // namespace rt
