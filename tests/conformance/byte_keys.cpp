// Conformance, byte-string keys (key_kind::bytes, radix::byte_key<L>): keys
// wider than 64 bits compared as unsigned big-endian numbers (memcmp order),
// as the sort benchmarks' 10-byte keys are. Keys, pairs, argsort and records,
// both directions and bit ranges, against std::stable_sort with memcmp.
#include <algorithm>
#include <numeric>

#include "conformance.hpp"

namespace rt {
namespace {

class ByteKeys : public engine_only_test {};

/// Key i: L bytes. Few distinct high parts, so that ties in the most
/// significant chunk are decided by the lower ones (and some keys are equal).
std::vector<std::uint8_t> make_keys(std::size_t L, std::size_t n, int shape, std::uint64_t seed) {
  std::vector<std::uint8_t> k(n * L);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < L; ++j) {
      std::uint64_t r = mix64(seed ^ (i * 131 + j));
      if (shape == 1 && j + 2 < L) r = mix64(seed ^ (mix64(i) % 3) ^ (j << 40));  // 3 prefixes, random tails
      if (shape == 2) r = mix64(seed ^ (i % 5) ^ (j << 40));                       // 5 distinct keys
      k[i * L + j] = std::uint8_t(r);
    }
  return k;
}

/// The stable order of the oracle: memcmp on the key with bits outside
/// [begin, end) of the big-endian number cleared; reversed for descending.
std::vector<std::uint32_t> oracle(const std::vector<std::uint8_t>& keys, std::size_t L, std::size_t n,
                                  const radix::options& o) {
  const int end = o.end_bit < 0 ? int(8 * L) : o.end_bit;
  std::vector<std::uint8_t> m(keys);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < L; ++j) {
      const int lo = int(8 * (L - 1 - j));  // bit position of this byte's lowest bit
      std::uint8_t mask = 0;
      for (int b = 0; b < 8; ++b)
        if (lo + b >= o.begin_bit && lo + b < end) mask |= std::uint8_t(1u << b);
      m[i * L + j] &= mask;
    }
  std::vector<std::uint32_t> p(n);
  std::iota(p.begin(), p.end(), 0u);
  const bool desc = o.direction == radix::order::descending;
  std::stable_sort(p.begin(), p.end(), [&](std::uint32_t a, std::uint32_t b) {
    const int c = std::memcmp(&m[a * L], &m[b * L], L);
    return desc ? c > 0 : c < 0;
  });
  return p;
}

struct bk_case {
  std::size_t L, n;
  int shape;
  radix::order dir;
  int begin, end;
};

std::vector<bk_case> cases() {
  std::vector<bk_case> v;
  for (std::size_t L : {1, 2, 3, 8, 9, 10, 16, 17, 32})
    for (std::size_t n : {0, 1, 2, 3, 257, 4099})
      for (int shape : {0, 1, 2})
        for (auto dir : {radix::order::ascending, radix::order::descending}) v.push_back({L, n, shape, dir, 0, -1});
  // Bit ranges that cut chunks, skip chunks, or are empty.
  for (std::size_t L : {10, 17})
    for (auto [b, e] : std::vector<std::pair<int, int>>{{0, 16}, {8, 72}, {64, 80}, {3, 3}, {60, 70}, {70, int(8 * L)}})
      for (auto dir : {radix::order::ascending, radix::order::descending}) v.push_back({L, 4099, 1, dir, b, e});
  v.push_back({10, 65537 * 3, 1, radix::order::ascending, 0, -1});  // thread-chunk boundaries
  v.push_back({10, 65537, 0, radix::order::descending, 0, -1});
  return v;
}

std::string text(const bk_case& c, std::uint64_t seed) {
  return "L=" + std::to_string(c.L) + " n=" + std::to_string(c.n) + " shape=" + std::to_string(c.shape) +
         (c.dir == radix::order::descending ? " descending" : " ascending") + " bits=" + std::to_string(c.begin) +
         ":" + std::to_string(c.end) + " seed=" + hex(seed) + " (rerun with RADIX_TEST_SEED=" + hex(base_seed()) +
         ")";
}

radix::sort_request request(const bk_case& c, radix::operation op, void* keys, const radix::options& base) {
  radix::sort_request r;
  r.op = op;
  r.key = radix::byte_key_desc(c.L);
  r.n = c.n;
  r.keys = keys;
  r.opts = base;
  r.opts.direction = c.dir;
  r.opts.begin_bit = c.begin;
  r.opts.end_bit = c.end;
  return r;
}

TEST_P(ByteKeys, KeysPairsArgsort) {
  failure_budget fb;
  for (const bk_case& c : cases()) {
    const std::uint64_t seed = case_seed("bytes/" + text(c, 0));
    SCOPED_TRACE(text(c, seed));
    const auto in = make_keys(c.L, c.n, c.shape, seed);
    const auto perm = oracle(in, c.L, c.n, request(c, radix::operation::keys, nullptr, opts()).opts);
    const auto want = gather_bytes(in.data(), c.L, perm);
    bool ok = true;

    guarded keys(c.n, c.L, c.L % 8);
    keys.fill_from(in.data());
    ok &= no_throw([&] { radix::run(request(c, radix::operation::keys, keys.data(), opts())); }, "keys");
    ok &= bool(same_bytes(keys.data(), want.data(), c.L, c.n, "keys")) && bool(keys.canaries_intact());

    guarded pk(c.n, c.L), pv(c.n, 4);
    pk.fill_from(in.data());
    for (std::size_t i = 0; i < c.n; ++i) pv.as<std::uint32_t>()[i] = std::uint32_t(i);
    auto pr = request(c, radix::operation::pairs, pk.data(), opts());
    pr.values = pv.data();
    pr.value_bytes = 4;
    ok &= no_throw([&] { radix::run(pr); }, "pairs");
    ok &= bool(same_bytes(pk.data(), want.data(), c.L, c.n, "pairs: keys"));
    ok &= bool(same_bytes(pv.data(), perm.data(), 4, c.n, "pairs: values")) && bool(pv.canaries_intact());

    for (std::uint8_t ib : {std::uint8_t(4), std::uint8_t(8)}) {
      guarded idx(c.n, ib);
      auto ar = request(c, radix::operation::argsort, const_cast<std::uint8_t*>(in.data()), opts());
      ar.indices = idx.data();
      ar.index_bytes = ib;
      ok &= no_throw([&] { radix::run(ar); }, "argsort");
      for (std::size_t i = 0; i < c.n && ok; ++i) {
        const std::uint64_t got = ib == 4 ? idx.as<std::uint32_t>()[i] : idx.as<std::uint64_t>()[i];
        if (got != perm[i]) {
          ADD_FAILURE() << "argsort (" << int(ib) << "-byte indices): [" << i << "] = " << got << ", expected "
                        << perm[i];
          ok = false;
        }
      }
      ok &= bool(idx.canaries_intact());
    }
    EXPECT_TRUE(ok);
    if (!fb.keep_going(ok)) break;
  }
}

TEST_P(ByteKeys, Records) {
  failure_budget fb;
  for (const bk_case& c : cases()) {
    if (c.L != 10 && c.L != 3 && c.L != 17) continue;
    const std::uint64_t seed = case_seed("bytes-records/" + text(c, 0));
    SCOPED_TRACE(text(c, seed));
    const auto in = make_keys(c.L, c.n, c.shape, seed);
    radix::options o = request(c, radix::operation::keys, nullptr, opts()).opts;
    const auto perm = oracle(in, c.L, c.n, o);
    // 100-byte records with the key first (the sort benchmarks' format), and
    // odd-size records with the key at an odd offset.
    for (auto [rb, off] : std::vector<std::pair<std::size_t, std::size_t>>{{100, 0}, {c.L + 7, 5}}) {
      std::vector<std::byte> recs(c.n * rb);
      for (std::size_t i = 0; i < c.n; ++i)
        for (std::size_t j = 0; j < rb; ++j)
          recs[i * rb + j] = j >= off && j < off + c.L ? std::byte(in[i * c.L + j - off]) : std::byte(mix64(i ^ (j << 32)));
      const auto want = gather_bytes(recs.data(), rb, perm);
      guarded buf(c.n, rb, 3);
      buf.fill_from(recs.data());
      bool ok = no_throw(
          // (init-captures: Clang 14 cannot capture structured bindings themselves)
          [&, rb = rb, off = off] {
            radix::sort_records(buf.data(), rb, c.n, radix::record_key{off, radix::byte_key_desc(c.L)}, o);
          },
          "sort_records");
      ok = ok && same_bytes(buf.data(), want.data(), rb, c.n, "records") && buf.canaries_intact();
      EXPECT_TRUE(ok) << "record_bytes=" << rb << " offset=" << off;
      if (!fb.keep_going(ok)) return;
    }
  }
}

TEST_P(ByteKeys, TemplateApi) {
  // radix::byte_key<L> through the typed calls.
  const std::size_t n = 5000;
  const auto in = make_keys(10, n, 1, case_seed("bytes-template"));
  std::vector<radix::byte_key<10>> k(n);
  std::memcpy(k.data(), in.data(), in.size());
  auto want = k;
  std::stable_sort(want.begin(), want.end());
  ASSERT_TRUE(no_throw([&] { radix::sort(std::span(k), opts()); }, "radix::sort"));
  EXPECT_TRUE(std::equal(k.begin(), k.end(), want.begin()));
  struct row {
    std::uint32_t id;
    radix::byte_key<10> key;
  };
  std::vector<row> rows(n);
  for (std::size_t i = 0; i < n; ++i) rows[i] = {std::uint32_t(i), {}}, std::memcpy(rows[i].key.b, &in[i * 10], 10);
  ASSERT_TRUE(no_throw([&] { radix::sort_records(std::span(rows), [](const row& r) { return r.key; }, opts()); },
                       "sort_records(key_of)"));
  const auto perm = oracle(in, 10, n, opts());
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(rows[i].id, perm[i]) << "at " << i;
}

TEST_P(ByteKeys, Errors) {
  std::uint8_t b[4] = {};
  auto r = request({4, 1, 0, radix::order::ascending, 0, 40}, radix::operation::keys, b, opts());
  EXPECT_THROW(radix::run(r), radix::invalid_argument);  // end_bit beyond 32 bits
  r.key.bytes = 0;
  r.opts.end_bit = -1;
  EXPECT_THROW(radix::run(r), radix::invalid_argument);
  r.key = radix::byte_key_desc(300);  // too wide: must not wrap to 44 bytes
  EXPECT_THROW(radix::run(r), radix::invalid_argument);
}

RADIX_CONFORMANCE_FOR_ALL_ENGINES_ONLY(ByteKeys);

}  // namespace
}  // namespace rt
