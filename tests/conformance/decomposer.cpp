// Conformance, the decomposer API (radix::sort(span<T>, decomposer)): tuples of one to
// three members (values and references), every key type as a member, both directions.
#include <tuple>

#include "conformance.hpp"

namespace rt {
namespace {

template <class K>
struct item {
  K a;
  float b;
  std::int16_t c;
  std::uint32_t id;
};

/// Ordered bits (whole key, the case's direction and float order) of a column.
template <class M>
std::vector<std::uint64_t> ordered_column(const std::vector<M>& col, const radix::options& o) {
  radix::options full = o;
  full.begin_bit = 0;
  full.end_bit = -1;
  const auto ob = ordered_masked(bits_of(col), radix::key_desc_of<M>(), full);
  return std::vector<std::uint64_t>(ob.begin(), ob.end());
}

/// Stable lexicographic oracle over member columns, most significant first.
std::vector<std::uint32_t> lex_oracle(const std::vector<std::vector<std::uint64_t>>& cols, std::size_t n) {
  std::vector<std::uint32_t> perm(n);
  std::iota(perm.begin(), perm.end(), 0u);
  std::stable_sort(perm.begin(), perm.end(), [&](std::uint32_t x, std::uint32_t y) {
    for (const auto& c : cols)
      if (c[x] != c[y]) return c[x] < c[y];
    return false;
  });
  return perm;
}

template <class K>
std::vector<item<K>> make_items(const sort_case& c, std::uint64_t seed) {
  const std::vector<K> a = generate<K>(c.ds, c.n, seed, {});
  const float nan2 = std::bit_cast<float>(0xFFC00123u);  // negative NaN with a payload
  const float bs[] = {1.5f, -0.0f, 0.0f, std::numeric_limits<float>::quiet_NaN(), nan2,
                      -std::numeric_limits<float>::infinity(), -2.25f, 1e-40f /* denormal */};
  rng r(seed ^ 0xB);
  std::vector<item<K>> v(c.n);
  for (std::size_t i = 0; i < c.n; ++i) {
    std::memset(static_cast<void*>(&v[i]), 0, sizeof(item<K>));
    v[i].a = a[i];
    v[i].b = bs[r.below(8)];
    v[i].c = std::int16_t(int(r.below(7)) - 3);
    v[i].id = std::uint32_t(i);
  }
  return v;
}

/// Sorts a guarded copy of the items with `dec` and compares with the oracle's
/// permutation of the columns `cols` (most significant first).
template <class K, class D>
bool check_decomposer(const char* what, const std::vector<item<K>>& in, D dec,
                      const std::vector<std::vector<std::uint64_t>>& cols, const radix::options& o) {
  SCOPED_TRACE(std::string("decomposer=") + what);
  const auto perm = lex_oracle(cols, in.size());
  const auto want = gather_bytes(in.data(), sizeof(item<K>), perm);
  guarded buf(in.size(), sizeof(item<K>));
  buf.fill_from(in.data());
  if (!no_throw([&] { radix::sort(std::span<item<K>>(buf.as<item<K>>(), in.size()), dec, o); },
                "radix::sort(span, decomposer)"))
    return false;
  auto r = same_bytes(buf.data(), want.data(), sizeof(item<K>), in.size(), "items (stable permutation)");
  auto g = buf.canaries_intact();
  EXPECT_TRUE(r);
  EXPECT_TRUE(g);
  return r && g;
}

template <class K>
bool run_decomposer_case(kt t, const sort_case& c) {
  const std::uint64_t seed = seed_for("decomposer", t, c);
  SCOPED_TRACE(case_text("decomposer", t, c, seed));
  const auto in = make_items<K>(c, seed);
  std::vector<K> a(c.n);
  std::vector<float> b(c.n);
  std::vector<std::int16_t> cc(c.n);
  for (std::size_t i = 0; i < c.n; ++i) {
    a[i] = in[i].a;
    b[i] = in[i].b;
    cc[i] = in[i].c;
  }
  const auto oa = ordered_column(a, c.o), ob = ordered_column(b, c.o), oc = ordered_column(cc, c.o);
  bool ok = true;
  ok &= check_decomposer<K>("tuple(a)", in, [](const item<K>& x) { return std::tuple(x.a); }, {oa}, c.o);
  ok &= check_decomposer<K>("tuple(a, b)", in, [](const item<K>& x) { return std::tuple(x.a, x.b); }, {oa, ob}, c.o);
  ok &= check_decomposer<K>("tie(c, a)", in, [](const item<K>& x) { return std::tie(x.c, x.a); }, {oc, oa}, c.o);
  ok &= check_decomposer<K>("tuple(b, c, a)", in, [](const item<K>& x) { return std::tuple(x.b, x.c, x.a); },
                            {ob, oc, oa}, c.o);
  return ok;
}

class Decomposer : public engine_test {
 protected:
  void run_all(const std::vector<sort_case>& cases) {
    failure_budget fb;
    visit_kt(key(), [&](auto tg) {
      using K = typename decltype(tg)::type;
      for (const auto& c : cases)
        if (!fb.keep_going(run_decomposer_case<K>(key(), c))) break;
    });
  }
};

TEST_P(Decomposer, SizesDistributionsDirections) {
  std::vector<sort_case> cases;
  for (std::size_t n : small_sizes())
    for (dist d : {dist::uniform, dist::few_unique, dist::specials, dist::all_equal, dist::zipf})
      for (auto dir : {radix::order::ascending, radix::order::descending})
        for (auto f : {radix::float_order::numeric, radix::float_order::total})
          cases.push_back({d, n, make_opts(eng(), dir, f)});
  // Past the thread-chunk boundary, a few cases.
  cases.push_back({dist::few_unique, 131073, make_opts(eng(), radix::order::ascending)});
  cases.push_back({dist::zipf, 65537, make_opts(eng(), radix::order::descending, radix::float_order::total)});
  run_all(cases);
}

RADIX_CONFORMANCE_FOR_ALL_ENGINES(Decomposer);

class DecomposerByHand : public engine_only_test {};

/// NaN-free data: the result equals std::stable_sort with std::tuple's operator<.
TEST_P(DecomposerByHand, MatchesTupleComparison) {
  struct p {
    std::int32_t cell;
    double depth;
    std::uint8_t k;
  };
  rng r(case_seed("decomposer-by-hand"));
  std::vector<p> v(3000);
  for (auto& x : v) x = {std::int32_t(r.below(9)) - 4, double(std::int64_t(r.below(5)) - 2) * 0.5, std::uint8_t(r())};
  auto key = [](const p& x) { return std::tuple(x.cell, x.depth); };
  auto want = v;
  std::stable_sort(want.begin(), want.end(), [&](const p& x, const p& y) { return key(x) < key(y); });
  auto got = v;
  radix::sort(std::span<p>(got), key, opts());
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(got[i].cell, want[i].cell) << "at " << i;
    ASSERT_EQ(got[i].depth, want[i].depth) << "at " << i;
    ASSERT_EQ(got[i].k, want[i].k) << "at " << i << " (stability)";
  }
  auto o = opts();
  o.direction = radix::order::descending;
  got = v;
  radix::sort(std::span<p>(got), key, o);
  // Descending and stable: equal tuples keep input order, so compare against a
  // stable sort of the input (not of the ascending result).
  want = v;
  std::stable_sort(want.begin(), want.end(), [&](const p& x, const p& y) { return key(y) < key(x); });
  for (std::size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(got[i].cell, want[i].cell) << "at " << i;
    ASSERT_EQ(got[i].depth, want[i].depth) << "at " << i;
    ASSERT_EQ(got[i].k, want[i].k) << "at " << i << " (stability)";
  }
}

TEST_P(DecomposerByHand, OverAMillion) {
  const sort_case c{dist::few_unique, 1000003, make_opts(eng(), radix::order::ascending)};
  for (kt t : {kt::f64})
    visit_kt(t, [&](auto tg) { EXPECT_TRUE(run_decomposer_case<typename decltype(tg)::type>(t, c)); });
}

/// A bit range has no meaning across members: rejected, items untouched.
TEST_P(DecomposerByHand, BitRangeRejected) {
  std::vector<item<std::uint32_t>> v = {{5, 1.0f, 1, 0}, {3, 2.0f, 2, 1}};
  const auto before = v;
  auto o = opts();
  o.end_bit = 8;
  try {
    radix::sort(std::span<item<std::uint32_t>>(v), [](const item<std::uint32_t>& x) { return std::tuple(x.a); }, o);
    ADD_FAILURE() << "no exception";
  } catch (const radix::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("bit range"), std::string::npos) << e.what();
  }
  EXPECT_EQ(std::memcmp(v.data(), before.data(), sizeof(v[0]) * v.size()), 0);
}

RADIX_CONFORMANCE_FOR_ALL_ENGINES_ONLY(DecomposerByHand);

}  // namespace
}  // namespace rt
