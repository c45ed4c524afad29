// Conformance, operation "argsort" (radix::argsort): every key type x uint32/uint64 (and
// int32/int64) indices; poisoned index buffers checked element by element; keys left unchanged.
#include <tuple>

#include "conformance.hpp"

namespace rt {
namespace {

template <class I> const char* index_name() {
  if constexpr (std::is_same_v<I, std::uint32_t>) return "uint32";
  else if constexpr (std::is_same_v<I, std::uint64_t>) return "uint64";
  else if constexpr (std::is_same_v<I, std::int32_t>) return "int32";
  else return "int64";
}

template <class K, class... I>
bool run_argsort_case(kt t, const sort_case& c) {
  const std::uint64_t seed = seed_for("argsort", t, c);
  SCOPED_TRACE(case_text("argsort", t, c, seed));
  const std::vector<K> in = generate<K>(c.ds, c.n, seed, c.o);
  const auto perm = oracle_perm(in, c.o);
  bool ok = true;
  auto one = [&](auto itag) {
    using Ix = typename decltype(itag)::type;
    SCOPED_TRACE(std::string("indices=") + index_name<Ix>());
    guarded kb(c.n, sizeof(K)), ib(c.n, sizeof(Ix));  // ib starts poisoned
    kb.fill_from(in.data());
    if (!no_throw([&] { radix::argsort(std::span<const K>(kb.as<K>(), c.n), std::span<Ix>(ib.as<Ix>(), c.n), c.o); },
                  "radix::argsort")) {
      ok = false;
      return;
    }
    std::vector<Ix> want(perm.begin(), perm.end());
    auto ri = same_bytes(ib.data(), want.data(), sizeof(Ix), c.n, "indices (every element, buffer was poisoned)");
    auto rk = same_bytes(kb.data(), in.data(), sizeof(K), c.n, "keys (argsort must not modify them)");
    auto gk = kb.canaries_intact();
    auto gi = ib.canaries_intact();
    EXPECT_TRUE(ri);
    EXPECT_TRUE(rk);
    EXPECT_TRUE(gk) << "keys buffer";
    EXPECT_TRUE(gi) << "indices buffer";
    ok = ok && ri && rk && gk && gi;
    if constexpr (sizeof(Ix) == 8) {
      // with the sorted keys written too (what torch.sort returns)
      guarded sb(c.n, sizeof(K)), ib2(c.n, sizeof(Ix));
      radix::sort_request r;
      r.op = radix::operation::argsort;
      r.key = radix::key_desc_of<K>();
      r.n = c.n;
      r.keys = kb.data();
      r.indices = ib2.data();
      r.index_bytes = sizeof(Ix);
      r.sorted_keys = sb.data();
      r.opts = c.o;
      if (!no_throw([&] { radix::run(r); }, "radix::run(argsort with sorted_keys)")) {
        ok = false;
        return;
      }
      std::vector<K> sorted(c.n);
      for (std::uint64_t i = 0; i < c.n; ++i) sorted[i] = in[perm[i]];
      auto rs = same_bytes(sb.data(), sorted.data(), sizeof(K), c.n, "sorted_keys (every element, buffer was poisoned)");
      auto ri2 = same_bytes(ib2.data(), want.data(), sizeof(Ix), c.n, "indices with sorted_keys");
      auto gs = sb.canaries_intact();
      EXPECT_TRUE(rs);
      EXPECT_TRUE(ri2);
      EXPECT_TRUE(gs) << "sorted_keys buffer";
      ok = ok && rs && ri2 && gs;
    }
  };
  (one(tag<I>{}), ...);
  return ok;
}

class Argsort : public engine_test {
 protected:
  template <class... I>
  void run_all(const std::vector<sort_case>& cases) {
    failure_budget fb;
    visit_kt(key(), [&](auto tg) {
      using K = typename decltype(tg)::type;
      for (const auto& c : cases)
        if (!fb.keep_going(run_argsort_case<K, I...>(key(), c))) break;
    });
  }
  radix::key_desc desc() const {
    return visit_kt(key(), [](auto tg) { return radix::key_desc_of<typename decltype(tg)::type>(); });
  }
};

TEST_P(Argsort, SmallSizesEveryDistribution) {
  run_all<std::uint32_t, std::uint64_t, std::int32_t, std::int64_t>(small_cases(eng(), desc()));
}

TEST_P(Argsort, ThreadChunkBoundaries) { run_all<std::uint32_t, std::uint64_t>(boundary_cases(eng(), desc())); }

TEST_P(Argsort, BitRanges) { run_all<std::uint32_t, std::uint64_t>(range_cases(eng(), desc(), false)); }

TEST_P(Argsort, OverAMillion) {
  run_all<std::uint32_t, std::uint64_t>(
      {{dist::uniform, million_size, make_opts(eng(), radix::order::descending)},
       {dist::few_unique, million_size, make_opts(eng(), radix::order::ascending)},
       {dist::outliers, million_size, make_opts(eng(), radix::order::ascending)}});
}

RADIX_CONFORMANCE_FOR_ALL_ENGINES(Argsort);

class ArgsortByHand : public engine_only_test {};

TEST_P(ArgsortByHand, PermutationWrittenOut) {
  const std::vector<float> k = {2.5f, -1.0f, 2.5f, 0.0f, -0.0f, std::numeric_limits<float>::quiet_NaN(), -7.0f};
  std::vector<std::uint32_t> idx(k.size(), 0xDEADBEEFu);
  radix::argsort(std::span<const float>(k), std::span<std::uint32_t>(idx), opts());
  EXPECT_EQ(idx, (std::vector<std::uint32_t>{6, 1, 3, 4, 0, 2, 5}));
  auto o = opts();
  o.direction = radix::order::descending;
  std::vector<std::uint64_t> idx64(k.size(), ~0ull);
  radix::argsort(std::span<const float>(k), std::span<std::uint64_t>(idx64), o);
  EXPECT_EQ(idx64, (std::vector<std::uint64_t>{5, 0, 2, 3, 4, 1, 6}));
}

/// An argsort of one key writes index 0 (over a poisoned buffer); of none, nothing.
TEST_P(ArgsortByHand, TinyInputs) {
  const std::uint32_t one_key[1] = {42};
  std::uint64_t out[2] = {0xDEADBEEFDEADBEEFull, 0xDEADBEEFDEADBEEFull};
  radix::argsort(std::span<const std::uint32_t>(one_key, 1), std::span<std::uint64_t>(out, 1), opts());
  EXPECT_EQ(out[0], 0u);
  EXPECT_EQ(out[1], 0xDEADBEEFDEADBEEFull);
  radix::argsort(std::span<const std::uint32_t>(one_key, 0), std::span<std::uint64_t>(out + 1, 0), opts());
  EXPECT_EQ(out[1], 0xDEADBEEFDEADBEEFull);
}

RADIX_CONFORMANCE_FOR_ALL_ENGINES_ONLY(ArgsortByHand);

}  // namespace
}  // namespace rt
