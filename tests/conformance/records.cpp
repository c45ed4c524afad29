// Conformance, operation "sort records": the byte-offset API (key at any offset,
// little- or big-endian, any record size) and the key-extracting-callable template.
#include "conformance.hpp"

namespace rt {
namespace {

struct layout {
  std::size_t record_bytes;  // 0 = the key's size
  std::size_t offset;
  bool big_endian;
};

/// Record layouts for a key of kb bytes: key alone, misaligned inside odd-size
/// records, at the end, 16-byte and 129-byte records, big- and little-endian.
std::vector<layout> layouts(std::size_t kb, std::size_t n) {
  if (n > 5000) return {{kb + 5, 3, true}, {37, 11, false}};  // large inputs: two layouts (time)
  return {{kb, 0, false},      {kb, 0, true},        {kb + 5, 3, true},   {kb + 16, 16, false},
          {16, 16 - kb, true}, {37, 11, false},      {37, 37 - kb, true}, {129, 60, false}};
}

/// Records: the key's bytes at the offset (reversed when big-endian), the record
/// index in the first other bytes, hash bytes elsewhere.
std::vector<std::byte> make_records(const std::byte* keys, std::size_t kb, std::size_t n, const layout& l,
                                    std::uint64_t seed) {
  std::vector<std::byte> r(n * l.record_bytes);
  for (std::size_t i = 0; i < n; ++i) {
    std::byte* rec = r.data() + i * l.record_bytes;
    std::uint64_t h = mix64(seed ^ i);
    std::size_t other = 0;
    for (std::size_t j = 0; j < l.record_bytes; ++j) {
      if (j >= l.offset && j < l.offset + kb) continue;
      rec[j] = other < 4 ? std::byte((i >> (8 * other)) & 0xFF) : std::byte(h >> (8 * (other % 8)));
      ++other;
    }
    for (std::size_t j = 0; j < kb; ++j)
      rec[l.offset + j] = keys[i * kb + (l.big_endian ? kb - 1 - j : j)];
  }
  return r;
}

template <class K>
bool run_records_case(kt t, const sort_case& c) {
  const std::uint64_t seed = seed_for("records", t, c);
  SCOPED_TRACE(case_text("records", t, c, seed));
  const std::vector<K> in = generate<K>(c.ds, c.n, seed, c.o);
  const auto perm = oracle_perm(in, c.o);
  bool ok = true;
  for (const layout& l : layouts(sizeof(K), c.n)) {
    SCOPED_TRACE("record_bytes=" + std::to_string(l.record_bytes) + " offset=" + std::to_string(l.offset) +
                 (l.big_endian ? " big-endian" : " little-endian"));
    const auto recs = make_records(reinterpret_cast<const std::byte*>(in.data()), sizeof(K), c.n, l, seed);
    const auto want = gather_bytes(recs.data(), l.record_bytes, perm);
    guarded buf(c.n, l.record_bytes, l.record_bytes % 8);
    buf.fill_from(recs.data());
    const radix::record_key rk{l.offset, radix::key_desc_of<K>(), l.big_endian};
    if (!no_throw([&] { radix::sort_records(buf.data(), l.record_bytes, c.n, rk, c.o); }, "radix::sort_records")) {
      ok = false;
      continue;
    }
    auto r = same_bytes(buf.data(), want.data(), l.record_bytes, c.n, "records (stable permutation)");
    auto g = buf.canaries_intact();
    EXPECT_TRUE(r);
    EXPECT_TRUE(g);
    ok = ok && r && g;
  }
  return ok;
}

/// A record type for the template API: the key among other members.
template <class K>
struct rec {
  std::uint32_t id;
  std::uint8_t tag;
  K key;
  std::uint16_t more;
};

template <class K>
bool run_callable_case(kt t, const sort_case& c) {
  const std::uint64_t seed = seed_for("records<callable>", t, c);
  SCOPED_TRACE(case_text("records<callable>", t, c, seed));
  const std::vector<K> keys = generate<K>(c.ds, c.n, seed, c.o);
  const auto perm = oracle_perm(keys, c.o);
  std::vector<rec<K>> in(c.n);
  for (std::size_t i = 0; i < c.n; ++i) {
    std::memset(static_cast<void*>(&in[i]), 0, sizeof(rec<K>));  // padding too, so records compare bytewise
    in[i].id = std::uint32_t(i);
    in[i].tag = std::uint8_t(mix64(seed + i));
    in[i].key = keys[i];
    in[i].more = std::uint16_t(i * 7);
  }
  const auto want = gather_bytes(in.data(), sizeof(rec<K>), perm);
  guarded buf(c.n, sizeof(rec<K>));
  buf.fill_from(in.data());
  std::size_t calls = 0;
  if (!no_throw(
          [&] {
            radix::sort_records(std::span<rec<K>>(buf.as<rec<K>>(), c.n),
                                [&calls](const rec<K>& r) {
                                  ++calls;
                                  return r.key;
                                },
                                c.o);
          },
          "radix::sort_records(span, key_of)"))
    return false;
  auto r = same_bytes(buf.data(), want.data(), sizeof(rec<K>), c.n, "records (stable permutation)");
  auto g = buf.canaries_intact();
  EXPECT_TRUE(r);
  EXPECT_TRUE(g);
  EXPECT_GE(calls, c.n) << "key_of must be called for every record";
  return r && g;
}

class Records : public engine_test {
 protected:
  template <bool Callable>
  void run_all(const std::vector<sort_case>& cases) {
    failure_budget fb;
    visit_kt(key(), [&](auto tg) {
      using K = typename decltype(tg)::type;
      for (const auto& c : cases) {
        const bool ok = Callable ? run_callable_case<K>(key(), c) : run_records_case<K>(key(), c);
        if (!fb.keep_going(ok)) break;
      }
    });
  }
  radix::key_desc desc() const {
    return visit_kt(key(), [](auto tg) { return radix::key_desc_of<typename decltype(tg)::type>(); });
  }
};

TEST_P(Records, ByteOffsetSmallSizes) { run_all<false>(small_cases(eng(), desc())); }
TEST_P(Records, ByteOffsetThreadChunkBoundaries) { run_all<false>(boundary_cases(eng(), desc(), false)); }
TEST_P(Records, ByteOffsetBitRanges) { run_all<false>(range_cases(eng(), desc(), false)); }

TEST_P(Records, CallableSmallSizes) { run_all<true>(small_cases(eng(), desc())); }
TEST_P(Records, CallableThreadChunkBoundaries) { run_all<true>(boundary_cases(eng(), desc(), false)); }
TEST_P(Records, CallableBitRanges) { run_all<true>(range_cases(eng(), desc(), false)); }

RADIX_CONFORMANCE_FOR_ALL_ENGINES(Records);

class RecordsByHand : public engine_only_test {};

/// Over a million records, for one key type of each width (both APIs).
TEST_P(RecordsByHand, OverAMillion) {
  for (kt t : {kt::u8, kt::i32, kt::f64, kt::bf16})
    visit_kt(t, [&](auto tg) {
      using K = typename decltype(tg)::type;
      EXPECT_TRUE(run_records_case<K>(t, {dist::uniform, 1000003, make_opts(eng(), radix::order::ascending)}));
    });
  for (kt t : {kt::u32, kt::f32})
    visit_kt(t, [&](auto tg) {
      using K = typename decltype(tg)::type;
      EXPECT_TRUE(run_callable_case<K>(t, {dist::zipf, million_size, make_opts(eng(), radix::order::descending)}));
    });
}

/// Big-endian keys written out by hand: the bytes 00 01 sort before 01 00.
TEST_P(RecordsByHand, BigEndianWrittenOut) {
  // Records of 3 bytes: a 16-bit big-endian key at offset 1, a tag at 0.
  std::vector<unsigned char> r = {'a', 0x01, 0x00,   // 256
                                  'b', 0x00, 0x02,   // 2
                                  'c', 0x00, 0x01,   // 1
                                  'd', 0x01, 0x00};  // 256
  radix::sort_records(r.data(), 3, 4, radix::record_key{1, radix::key_desc_of<std::uint16_t>(), true}, opts());
  EXPECT_EQ(r, (std::vector<unsigned char>{'c', 0x00, 0x01, 'b', 0x00, 0x02, 'a', 0x01, 0x00, 'd', 0x01, 0x00}));
  // The same bytes read little-endian: 0x0001 = 1, 0x0200 = 512, 0x0100 = 256.
  r = {'a', 0x01, 0x00, 'b', 0x00, 0x02, 'c', 0x00, 0x01, 'd', 0x01, 0x00};
  radix::sort_records(r.data(), 3, 4, radix::record_key{1, radix::key_desc_of<std::uint16_t>(), false}, opts());
  EXPECT_EQ(r, (std::vector<unsigned char>{'a', 0x01, 0x00, 'd', 0x01, 0x00, 'c', 0x00, 0x01, 'b', 0x00, 0x02}));
}

/// A callable that computes its key (not a member), of another type than the record's fields.
TEST_P(RecordsByHand, ComputedKey) {
  struct pt {
    float x, y;
    int id;
  };
  std::vector<pt> v = {{3, 4, 0}, {1, 1, 1}, {0, 2, 2}, {-1, 1, 3}, {2, 0, 4}};
  radix::sort_records(std::span<pt>(v), [](const pt& p) { return p.x * p.x + p.y * p.y; }, opts());
  std::vector<int> ids;
  for (const auto& p : v) ids.push_back(p.id);
  EXPECT_EQ(ids, (std::vector<int>{1, 3, 2, 4, 0}));  // 2, 2, 4, 4, 25: ties keep input order
}

RADIX_CONFORMANCE_FOR_ALL_ENGINES_ONLY(RecordsByHand);

}  // namespace
}  // namespace rt
