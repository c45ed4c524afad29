// Conformance, operation "segments" (radix::sort_segments, argsort_segments):
// every key type x keys / pairs (4-byte and 12-byte values) / argsort (32- and
// 64-bit indices), over segment shapes that cross every route of an engine
// (empty segments, length 1, the tiny, block and large sizes of the CUDA
// engine, one segment, uniform rows) given as 32- or 64-bit offsets or as a
// uniform length. The oracle sorts each segment alone with std::stable_sort;
// output buffers start poisoned and every element is checked.
#include <numeric>

#include "conformance.hpp"

namespace rt {
namespace {

/// A batch: the lengths of its segments, and how the call describes them.
struct shape {
  const char* name;
  std::vector<std::uint64_t> lengths;
  bool uniform = false;   ///< pass as segments::uniform (all lengths equal)
  bool offsets64 = false; ///< 64-bit offsets (else 32-bit)
};

std::vector<shape> shapes(std::uint64_t seed) {
  rng r(seed);
  auto random_lengths = [&](std::size_t count, std::uint64_t max) {
    std::vector<std::uint64_t> v(count);
    for (auto& x : v) x = r.below(max + 1);
    return v;
  };
  std::vector<shape> s;
  s.push_back({"no segments", {}});
  s.push_back({"one empty segment", {0}});
  s.push_back({"one of length 1", {1}});
  s.push_back({"empty ones around short ones", {0, 0, 3, 0, 1, 0, 2, 0}, false, true});
  s.push_back({"300 of 0..40", random_lengths(300, 40)});
  s.push_back({"40 of 0..3000", random_lengths(40, 3000), false, true});
  s.push_back({"across the block sizes", {1, 31, 32, 33, 255, 256, 257, 1023, 1024, 1025, 4095, 4096, 4097, 9217,
                                          16385, 0, 65537, 2}});
  s.push_back({"across the CPU network's runs and merges", {64, 65, 128, 129, 0, 192, 193, 511, 512, 513, 3}});
  s.push_back({"one of 70001", {70001}});
  s.push_back({"two large and many small", [&] {
                 auto v = random_lengths(100, 20);
                 v.insert(v.begin() + 10, 140000);
                 v.push_back(131073);
                 return v;
               }(), false, true});
  s.push_back({"uniform 512 x 16", std::vector<std::uint64_t>(512, 16), true});
  // rows of 5-64 keys: the CPU's eight rows at a time in SIMD lanes (chunks of whole groups of
  // eight), a last group of fewer than eight
  s.push_back({"uniform 203 x 13", std::vector<std::uint64_t>(203, 13), true});
  s.push_back({"uniform 97 x 32", std::vector<std::uint64_t>(97, 32), true});
  s.push_back({"uniform 41 x 5", std::vector<std::uint64_t>(41, 5), true});
  s.push_back({"uniform 67 x 64", std::vector<std::uint64_t>(67, 64), true});
  s.push_back({"uniform 30 x 33", std::vector<std::uint64_t>(30, 33), true});
  s.push_back({"uniform 64 x 1000", std::vector<std::uint64_t>(64, 1000), true});
  s.push_back({"uniform 3 x 20000", std::vector<std::uint64_t>(3, 20000), true});
  s.push_back({"uniform 100 x 1", std::vector<std::uint64_t>(100, 1), true});
  s.push_back({"uniform 0 x 7", {}, true});
  return s;
}

struct batch {
  std::uint64_t n = 0;
  std::vector<std::uint32_t> off32;
  std::vector<std::uint64_t> off64;
  radix::segments segs;
};

batch make_batch(const shape& sh) {
  batch b;
  b.off64.push_back(0);
  for (auto len : sh.lengths) b.off64.push_back(b.off64.back() + len);
  b.n = b.off64.back();
  for (auto o : b.off64) b.off32.push_back(std::uint32_t(o));
  const std::uint64_t count = sh.lengths.size();
  if (sh.uniform) b.segs = radix::segments::uniform(count, count ? sh.lengths[0] : 7);
  else if (sh.offsets64) b.segs = radix::segments::from_offsets(b.off64.data(), count);
  else b.segs = radix::segments::from_offsets(b.off32.data(), count);
  return b;
}

/// The oracle: every segment's stable permutation, as global positions
/// (perm) and as positions inside the segment (local).
template <class K>
void oracle(const std::vector<K>& in, const batch& b, const radix::options& o, std::vector<std::uint32_t>& perm,
            std::vector<std::uint64_t>& local) {
  perm.assign(b.n, 0);
  local.assign(b.n, 0);
  for (std::size_t s = 0; s + 1 < b.off64.size(); ++s) {
    const std::uint64_t lo = b.off64[s], hi = b.off64[s + 1];
    const std::vector<K> part(in.begin() + lo, in.begin() + hi);
    const auto p = oracle_perm(part, o);
    for (std::uint64_t i = 0; i < p.size(); ++i) {
      perm[lo + i] = std::uint32_t(lo + p[i]);
      local[lo + i] = p[i];
    }
  }
}

struct value12 {
  std::uint32_t w[3];
};

struct seg_case {
  dist ds;
  radix::options o;
};

template <class K>
bool run_case(kt t, const shape& sh, const seg_case& c) {
  const batch b = make_batch(sh);
  const std::uint64_t n = b.n;
  const sort_case sc{c.ds, std::size_t(n), c.o};
  const std::uint64_t seed = seed_for("segments", t, sc) ^ hash_str(sh.name);
  SCOPED_TRACE(case_text("segments", t, sc, seed) + " shape=\"" + sh.name + "\"");
  const std::vector<K> in = generate<K>(c.ds, n, seed, c.o);
  std::vector<std::uint32_t> perm;
  std::vector<std::uint64_t> local;
  oracle(in, b, c.o, perm, local);
  const auto want_keys = gather_bytes(in.data(), sizeof(K), perm);
  bool ok = true;
  auto check = [&](::testing::AssertionResult r) {
    EXPECT_TRUE(r);
    ok = ok && r;
  };

  {  // keys
    guarded kb(n, sizeof(K));
    kb.fill_from(in.data());
    if (!no_throw([&] { radix::sort_segments(std::span<K>(kb.as<K>(), n), b.segs, c.o); }, "sort_segments(keys)"))
      return false;
    check(same_bytes(kb.data(), want_keys.data(), sizeof(K), n, "keys"));
    check(kb.canaries_intact());
  }
  {  // pairs: 4-byte values (native) and 12-byte values (through an index)
    std::vector<std::uint32_t> v4(n);
    std::vector<value12> v12(n);
    for (std::uint64_t i = 0; i < n; ++i) {
      v4[i] = std::uint32_t(i * 2654435761u);
      v12[i] = {{std::uint32_t(i), std::uint32_t(~i), std::uint32_t(i * 7)}};
    }
    guarded kb(n, sizeof(K)), vb(n, 4);
    kb.fill_from(in.data());
    vb.fill_from(v4.data());
    if (!no_throw([&] {
          radix::sort_segments(std::span<K>(kb.as<K>(), n), std::span<std::uint32_t>(vb.as<std::uint32_t>(), n),
                               b.segs, c.o);
        }, "sort_segments(pairs, 4-byte values)"))
      return false;
    check(same_bytes(kb.data(), want_keys.data(), sizeof(K), n, "keys of pairs"));
    const auto want_v4 = gather_bytes(v4.data(), 4, perm);
    check(same_bytes(vb.data(), want_v4.data(), 4, n, "4-byte values"));
    check(vb.canaries_intact());

    guarded kc(n, sizeof(K)), vc(n, sizeof(value12));
    kc.fill_from(in.data());
    vc.fill_from(v12.data());
    if (!no_throw([&] {
          radix::sort_segments(std::span<K>(kc.as<K>(), n), std::span<value12>(vc.as<value12>(), n), b.segs, c.o);
        }, "sort_segments(pairs, 12-byte values)"))
      return false;
    const auto want_v12 = gather_bytes(v12.data(), sizeof(value12), perm);
    check(same_bytes(vc.data(), want_v12.data(), sizeof(value12), n, "12-byte values"));
    check(vc.canaries_intact());
  }
  auto argsort_with = [&](auto itag) {
    using I = typename decltype(itag)::type;
    guarded kb(n, sizeof(K)), ib(n, sizeof(I));
    kb.fill_from(in.data());
    if (!no_throw([&] {
          radix::argsort_segments(std::span<const K>(kb.as<K>(), n), std::span<I>(ib.as<I>(), n), b.segs, c.o);
        }, "argsort_segments"))
      return false;
    std::vector<I> want(local.begin(), local.end());
    check(same_bytes(ib.data(), want.data(), sizeof(I), n, "indices (local to the segment; buffer was poisoned)"));
    check(same_bytes(kb.data(), in.data(), sizeof(K), n, "keys (argsort must not modify them)"));
    check(ib.canaries_intact());
    if constexpr (sizeof(I) == 8) {
      // with the sorted keys written too
      guarded sb(n, sizeof(K)), ib2(n, sizeof(I));
      radix::sort_request r;
      r.op = radix::operation::argsort;
      r.key = radix::key_desc_of<K>();
      r.n = n;
      r.keys = kb.data();
      r.indices = ib2.data();
      r.index_bytes = sizeof(I);
      r.sorted_keys = sb.data();
      r.opts = c.o;
      r.segs = b.segs;
      if (!no_throw([&] { radix::run(r); }, "radix::run(segmented argsort with sorted_keys)")) return false;
      const auto sorted = gather_bytes(in.data(), sizeof(K), perm);
      check(same_bytes(sb.data(), sorted.data(), sizeof(K), n, "sorted_keys (buffer was poisoned)"));
      check(same_bytes(ib2.data(), want.data(), sizeof(I), n, "indices with sorted_keys"));
      check(sb.canaries_intact());
    }
    return true;
  };
  if (!argsort_with(tag<std::uint32_t>{}) || !argsort_with(tag<std::uint64_t>{})) return false;
  return ok;
}

class Segments : public engine_test {
 protected:
  void run_all(const std::vector<seg_case>& cases, bool every_shape = true) {
    failure_budget fb;
    visit_kt(key(), [&](auto tg) {
      using K = typename decltype(tg)::type;
      const auto all = shapes(case_seed("segment shapes"));
      std::size_t i = 0;
      for (const auto& sh : all)
        for (const auto& c : cases) {
          if (!every_shape && i++ % 3 != 0) continue;
          if (!fb.keep_going(run_case<K>(key(), sh, c))) return;
        }
    });
  }
};

TEST_P(Segments, EveryShapeUniformKeys) {
  run_all({{dist::uniform, make_opts(eng(), radix::order::ascending)},
           {dist::uniform, make_opts(eng(), radix::order::descending, radix::float_order::total)}});
}

TEST_P(Segments, Distributions) {
  std::vector<seg_case> cases;
  for (dist d : all_dists) cases.push_back({d, make_opts(eng(), radix::order::ascending)});
  cases.push_back({dist::specials, make_opts(eng(), radix::order::descending)});
  run_all(cases, false);
}

TEST_P(Segments, BitRanges) {
  std::vector<seg_case> cases;
  const int w = visit_kt(key(), [](auto tg) { return radix::key_desc_of<typename decltype(tg)::type>().bits(); });
  for (auto [b, e] : bit_ranges(w)) {
    auto o = make_opts(eng(), radix::order::ascending);
    o.begin_bit = b;
    o.end_bit = e;
    cases.push_back({dist::few_unique, o});
  }
  run_all(cases, false);
}

RADIX_CONFORMANCE_FOR_ALL_ENGINES(Segments);

// ---- errors: named, and nothing touched -------------------------------------------

class SegmentErrors : public engine_only_test {};

TEST_P(SegmentErrors, BadOffsetsAndShapesAreRejected) {
  std::vector<std::uint32_t> keys = {5, 3, 9, 1, 7, 2};
  const auto before = keys;
  auto expect_rejected = [&](const radix::segments& s, const char* words) {
    try {
      radix::sort_segments(std::span<std::uint32_t>(keys), s, opts());
      ADD_FAILURE() << "accepted: " << words;
    } catch (const radix::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
    EXPECT_EQ(keys, before) << "the keys changed although the call was rejected";
  };
  const std::uint32_t not_from_zero[] = {1, 3, 6};
  expect_rejected(radix::segments::from_offsets(not_from_zero, 2), "offsets[0] is 1");
  const std::uint32_t short_end[] = {0, 3, 5};
  expect_rejected(radix::segments::from_offsets(short_end, 2), "offsets[count] is 5 but n is 6");
  const std::uint64_t decreasing[] = {0, 4, 2, 6};
  expect_rejected(radix::segments::from_offsets(decreasing, 3), "offsets decrease at segment 1");
  expect_rejected(radix::segments::uniform(4, 2), "4 segments of length 2 do not make n = 6");
  expect_rejected(radix::segments::uniform(1, 0), "length 0 cannot hold n = 6");
  radix::segments odd = radix::segments::from_offsets(short_end, 2);
  odd.offset_bytes = 2;
  expect_rejected(odd, "offsets must be 4 or 8 bytes");
  radix::segments null_offsets = radix::segments::from_offsets(short_end, 2);
  null_offsets.offsets = nullptr;
  expect_rejected(null_offsets, "offsets is null");
}

TEST_P(SegmentErrors, ArgsortIndicesAreLocalToTheSegment) {
  // The smallest case by hand: two segments, each sorted on its own.
  const std::vector<std::uint32_t> keys = {3, 1, 2, 9, 8};
  const std::uint32_t off[] = {0, 3, 5};
  std::vector<std::uint32_t> idx(5, 0xDEAD);
  radix::argsort_segments(std::span<const std::uint32_t>(keys), std::span<std::uint32_t>(idx),
                          radix::segments::from_offsets(off, 2), opts());
  EXPECT_EQ(idx, (std::vector<std::uint32_t>{1, 2, 0, 1, 0}));
}

TEST_P(SegmentErrors, WideKeysSortPerSegment) {
  // 128-bit keys are wider than any engine's native key: the host API sorts
  // them as two whole-array sorts (by key, then by segment).
  const std::uint64_t seed = case_seed("segments/int128");
  SCOPED_TRACE("seed=" + hex(seed) + " (rerun with RADIX_TEST_SEED=" + hex(base_seed()) + ")");
  rng r(seed);
  const std::uint64_t off[] = {0, 0, 5, 6, 300, 301, 1000};
  const std::uint64_t n = 1000;
  std::vector<radix::int128> keys(n);
  for (auto& k : keys) k = radix::int128((radix::uint128(r()) << 64) | r.below(4));  // ties: stability matters
  std::vector<std::uint32_t> vals(n);
  std::iota(vals.begin(), vals.end(), 0u);
  for (auto dir : {radix::order::ascending, radix::order::descending}) {
    auto k = keys;
    auto v = vals;
    auto o = opts();
    o.direction = dir;
    radix::sort_segments(std::span<radix::int128>(k), std::span<std::uint32_t>(v),
                         radix::segments::from_offsets(off, 6), o);
    for (int s = 0; s < 6; ++s) {
      std::vector<std::uint32_t> want(vals.begin() + off[s], vals.begin() + off[s + 1]);
      std::stable_sort(want.begin(), want.end(), [&](std::uint32_t a, std::uint32_t b) {
        return dir == radix::order::ascending ? keys[a] < keys[b] : keys[b] < keys[a];
      });
      for (std::uint64_t i = off[s]; i < off[s + 1]; ++i) {
        ASSERT_EQ(v[i], want[i - off[s]]) << "segment " << s << " place " << i;
        ASSERT_TRUE(k[i] == keys[v[i]]) << "key of place " << i;
      }
    }
  }
}

RADIX_CONFORMANCE_FOR_ALL_ENGINES_ONLY(SegmentErrors);

}  // namespace
}  // namespace rt
