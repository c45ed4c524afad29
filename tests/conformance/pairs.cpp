// Conformance, operation "sort pairs" (radix::sort_pairs): every key type x values of
// 1, 2, 4, 8, 12, 16, 40 bytes, odd-size and misaligned; keys and values bit-exact, stable.
#include <tuple>

#include "conformance.hpp"

namespace rt {
namespace {

struct v12 { std::uint32_t a, b, c; };
struct v16 { std::uint64_t a, b; };
template <std::size_t B> struct blob { unsigned char b[B]; };  // alignment 1
static_assert(sizeof(v12) == 12 && sizeof(v16) == 16 && sizeof(blob<3>) == 3 && alignof(blob<8>) == 1);

/// A value type and the misalignment (bytes past a 64-byte boundary) of its array.
template <class V, std::size_t Mis = 0>
struct value_kind {
  using type = V;
  static constexpr std::size_t misalign = Mis;
  const char* name;
};

const auto all_values = std::make_tuple(
    value_kind<std::uint8_t>{"uint8"}, value_kind<std::uint16_t>{"uint16"}, value_kind<std::uint32_t>{"uint32"},
    value_kind<std::uint64_t>{"uint64"}, value_kind<v12>{"struct12"}, value_kind<v16>{"struct16"},
    value_kind<blob<3>>{"odd3"}, value_kind<blob<40>>{"bytes40"}, value_kind<blob<8>, 1>{"misaligned8"},
    value_kind<blob<4>, 2>{"misaligned4"});
const auto some_values = std::make_tuple(value_kind<std::uint32_t>{"uint32"}, value_kind<v12>{"struct12"},
                                         value_kind<blob<3>>{"odd3"}, value_kind<blob<8>, 1>{"misaligned8"});

/// Value i's bytes: its index in the first four (so stability is exact), then hash bytes.
void fill_values(std::byte* p, std::size_t n, std::size_t vb, std::uint64_t seed) {
  for (std::size_t i = 0; i < n; ++i) {
    std::byte* v = p + i * vb;
    const std::uint32_t id = std::uint32_t(i) ^ std::uint32_t(seed);
    std::memcpy(v, &id, std::min<std::size_t>(4, vb));
    for (std::size_t j = 4; j < vb; j += 8) {
      const std::uint64_t h = mix64(seed ^ (i * 0x9E37u) ^ (j << 40));
      std::memcpy(v + j, &h, std::min<std::size_t>(8, vb - j));
    }
  }
}

template <class K, class Kinds>
bool run_pairs_case(kt t, const sort_case& c, const Kinds& kinds) {
  const std::uint64_t seed = seed_for("pairs", t, c);
  SCOPED_TRACE(case_text("pairs", t, c, seed));
  const std::vector<K> in = generate<K>(c.ds, c.n, seed, c.o);
  const auto perm = oracle_perm(in, c.o);
  const auto want_keys = gather_bytes(in.data(), sizeof(K), perm);
  bool ok = true;
  std::apply(
      [&](const auto&... vk) {
        auto one = [&](const auto& kind) {
          using V = typename std::remove_cvref_t<decltype(kind)>::type;
          constexpr std::size_t mis = std::remove_cvref_t<decltype(kind)>::misalign;
          SCOPED_TRACE(std::string("values=") + kind.name + " (" + std::to_string(sizeof(V)) + " bytes, misaligned by " +
                       std::to_string(mis) + ")");
          std::vector<std::byte> vin(c.n * sizeof(V));
          fill_values(vin.data(), c.n, sizeof(V), seed + sizeof(V));
          const auto want_vals = gather_bytes(vin.data(), sizeof(V), perm);
          guarded kb(c.n, sizeof(K)), vb(c.n, sizeof(V), mis);
          kb.fill_from(in.data());
          vb.fill_from(vin.data());
          if (!no_throw([&] { radix::sort_pairs(std::span<K>(kb.as<K>(), c.n), std::span<V>(vb.as<V>(), c.n), c.o); },
                        "radix::sort_pairs")) {
            ok = false;
            return;
          }
          auto rk = same_bytes(kb.data(), want_keys.data(), sizeof(K), c.n, "sorted keys");
          auto rv = same_bytes(vb.data(), want_vals.data(), sizeof(V), c.n, "values (stable permutation)");
          auto gk = kb.canaries_intact();
          auto gv = vb.canaries_intact();
          EXPECT_TRUE(rk);
          EXPECT_TRUE(rv);
          EXPECT_TRUE(gk) << "keys buffer";
          EXPECT_TRUE(gv) << "values buffer";
          ok = ok && rk && rv && gk && gv;
        };
        (one(vk), ...);
      },
      kinds);
  return ok;
}

class Pairs : public engine_test {
 protected:
  template <class Kinds>
  void run_all(const std::vector<sort_case>& cases, const Kinds& kinds) {
    failure_budget fb;
    visit_kt(key(), [&](auto tg) {
      using K = typename decltype(tg)::type;
      for (const auto& c : cases)
        if (!fb.keep_going(run_pairs_case<K>(key(), c, kinds))) break;
    });
  }
  radix::key_desc desc() const {
    return visit_kt(key(), [](auto tg) { return radix::key_desc_of<typename decltype(tg)::type>(); });
  }
};

TEST_P(Pairs, SmallSizesEveryDistribution) { run_all(small_cases(eng(), desc()), all_values); }

/// Every value kind for one key type of each width class; four kinds for the others.
TEST_P(Pairs, ThreadChunkBoundaries) {
  const kt k = key();
  if (k == kt::u32 || k == kt::f64 || k == kt::i8 || k == kt::f16)
    run_all(boundary_cases(eng(), desc(), false), all_values);
  else
    run_all(boundary_cases(eng(), desc(), false), some_values);
}

TEST_P(Pairs, BitRanges) { run_all(range_cases(eng(), desc(), false), some_values); }

/// Past 2^20 pairs: values carried by the scatter (4 and 8 bytes) and through an
/// index (12 bytes, misaligned), on uniform, few-unique and clustered keys.
TEST_P(Pairs, OverAMillion) {
  run_all({{dist::uniform, million_size, make_opts(eng(), radix::order::ascending)}},
          std::make_tuple(value_kind<std::uint32_t>{"uint32"}, value_kind<v12>{"struct12"},
                          value_kind<blob<8>, 1>{"misaligned8"}));
  if (desc().bytes == 1) return;  // 8-bit keys: one pass, no other route to cover
  run_all({{dist::few_unique, million_size, make_opts(eng(), radix::order::descending)}},
          std::make_tuple(value_kind<std::uint64_t>{"uint64"}, value_kind<v12>{"struct12"}));
  run_all({{dist::outliers, million_size, make_opts(eng(), radix::order::ascending)}},
          std::make_tuple(value_kind<std::uint16_t>{"uint16"}));
}

RADIX_CONFORMANCE_FOR_ALL_ENGINES(Pairs);

class PairsByHand : public engine_only_test {};

/// Equal keys keep their values' input order, written out by hand.
TEST_P(PairsByHand, StabilityWrittenOut) {
  std::vector<std::uint16_t> k = {3, 1, 3, 2, 1, 3};
  std::vector<char> v = {'a', 'b', 'c', 'd', 'e', 'f'};
  radix::sort_pairs(std::span<std::uint16_t>(k), std::span<char>(v), opts());
  EXPECT_EQ(k, (std::vector<std::uint16_t>{1, 1, 2, 3, 3, 3}));
  EXPECT_EQ(std::string(v.begin(), v.end()), "bedacf");
  auto o = opts();
  o.direction = radix::order::descending;
  k = {3, 1, 3, 2, 1, 3};
  v = {'a', 'b', 'c', 'd', 'e', 'f'};
  radix::sort_pairs(std::span<std::uint16_t>(k), std::span<char>(v), o);
  EXPECT_EQ(k, (std::vector<std::uint16_t>{3, 3, 3, 2, 1, 1}));
  EXPECT_EQ(std::string(v.begin(), v.end()), "acfdbe");
}

RADIX_CONFORMANCE_FOR_ALL_ENGINES_ONLY(PairsByHand);

}  // namespace
}  // namespace rt
