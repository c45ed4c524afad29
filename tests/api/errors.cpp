// Error handling of the public API: every invalid argument throws radix::invalid_argument
// naming what was wrong, with the caller's data byte-identical; unavailable engines; n > 2^32.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "radix_test.hpp"

namespace rt {
namespace {

static_assert(std::is_base_of_v<radix::error, radix::invalid_argument>);
static_assert(std::is_base_of_v<radix::error, radix::out_of_memory>);
static_assert(std::is_base_of_v<radix::error, radix::engine_unavailable>);
static_assert(std::is_base_of_v<radix::error, radix::device_error>);
static_assert(std::is_base_of_v<std::runtime_error, radix::error>);

/// f() must throw E (caught as radix::error too) whose message contains `needle`.
template <class E, class F>
void expect_error(F&& f, const std::string& needle) {
  SCOPED_TRACE("expecting a message containing \"" + needle + "\"");
  try {
    f();
    ADD_FAILURE() << "no exception thrown";
  } catch (const E& e) {
    const radix::error& base = e;  // every library error is a radix::error
    EXPECT_NE(std::string(base.what()).find(needle), std::string::npos) << "message was: " << e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong exception type; message: " << e.what();
  }
}

/// The inputs every test case works on, and a byte snapshot to prove they survive.
struct data {
  std::vector<std::uint32_t> keys;
  std::vector<std::uint16_t> vals;
  std::vector<std::uint32_t> idx;
  std::vector<std::byte> recs;  // 8-byte records, key at offset 0
  std::vector<std::uint64_t> recs2;
  data() {
    rng r(case_seed("errors"));
    keys.resize(1000);
    for (auto& k : keys) k = std::uint32_t(r());
    vals.resize(1000);
    for (auto& v : vals) v = std::uint16_t(r());
    idx.assign(1000, 0xDEADBEEFu);
    recs.resize(8000);
    for (auto& b : recs) b = std::byte(r());
    recs2.resize(1000);
    for (auto& x : recs2) x = r();
  }
  friend bool operator==(const data& a, const data& b) {
    return a.keys == b.keys && a.vals == b.vals && a.idx == b.idx && a.recs == b.recs && a.recs2 == b.recs2;
  }
};

/// Every public entry point taking options, on 32-bit keys.
std::vector<std::pair<std::string, std::function<void(data&, const radix::options&)>>> entry_points() {
  using K = std::uint32_t;
  return {
      {"sort", [](data& d, const radix::options& o) { radix::sort(std::span<K>(d.keys), o); }},
      {"sort_pairs",
       [](data& d, const radix::options& o) {
         radix::sort_pairs(std::span<K>(d.keys), std::span<std::uint16_t>(d.vals), o);
       }},
      {"argsort",
       [](data& d, const radix::options& o) {
         radix::argsort(std::span<const K>(d.keys), std::span<std::uint32_t>(d.idx), o);
       }},
      {"sort_records(bytes)",
       [](data& d, const radix::options& o) {
         radix::sort_records(d.recs.data(), 8, 1000, radix::record_key{2, radix::key_desc_of<K>(), true}, o);
       }},
      {"sort_records(callable)",
       [](data& d, const radix::options& o) {
         radix::sort_records(std::span<std::uint64_t>(d.recs2), [](std::uint64_t x) { return K(x >> 7); }, o);
       }},
      {"sorter.sort", [](data& d, const radix::options& o) { radix::sorter(o).sort(std::span<K>(d.keys)); }},
      {"sorter.sort_pairs",
       [](data& d, const radix::options& o) {
         radix::sorter(o).sort_pairs(std::span<K>(d.keys), std::span<std::uint16_t>(d.vals));
       }},
      {"sorter.argsort",
       [](data& d, const radix::options& o) {
         radix::sorter(o).argsort(std::span<const K>(d.keys), std::span<std::uint32_t>(d.idx));
       }},
      {"workspace_bytes",
       [](data& d, const radix::options& o) {
         radix::sort_request r;
         r.key = radix::key_desc_of<K>();
         r.n = d.keys.size();
         r.keys = d.keys.data();
         r.opts = o;
         (void)radix::workspace_bytes(r);
       }},
  };
}

struct bad_option {
  const char* what;
  radix::options o;
  std::string needle;
};

std::vector<bad_option> bad_options_for_32_bit_keys() {
  std::vector<bad_option> v;
  auto add = [&](const char* what, auto set, std::string needle) {
    radix::options o;
    set(o);
    v.push_back({what, o, std::move(needle)});
  };
  add("begin_bit beyond the key", [](radix::options& o) { o.begin_bit = 40; }, "begin_bit 40 > key width 32");
  add("end_bit beyond the key", [](radix::options& o) { o.end_bit = 33; }, "end_bit 33 > key width 32");
  add("begin_bit > end_bit", [](radix::options& o) { o.begin_bit = 10; o.end_bit = 5; }, "begin_bit 10 > end_bit 5");
  add("negative begin_bit", [](radix::options& o) { o.begin_bit = -1; }, "begin_bit -1 < 0");
  add("negative end_bit", [](radix::options& o) { o.end_bit = -2; }, "end_bit -2 < 0");
  add("digit_bits 17", [](radix::options& o) { o.digit_bits = 17; }, "digit_bits 17");
  add("digit_bits -1", [](radix::options& o) { o.digit_bits = -1; }, "digit_bits -1");
  add("begin_bit beyond the key, with a range end",
      [](radix::options& o) { o.begin_bit = 33; o.end_bit = 32; }, "begin_bit 33 > key width 32");
  return v;
}

TEST(Errors, BadOptionsThrowFromEveryEntryPointAndLeaveDataAlone) {
  for (const auto& [name, call] : entry_points())
    for (const auto& b : bad_options_for_32_bit_keys()) {
      SCOPED_TRACE(name + ": " + b.what + " " + describe(b.o));
      data d;
      const data before = d;
      // (an init-capture: Clang 14 cannot capture a structured binding itself)
      expect_error<radix::invalid_argument>([&, &call = call] { call(d, b.o); }, b.needle);
      EXPECT_TRUE(d == before) << "the caller's data changed although the call was rejected";
    }
}

TEST(Errors, KeyWidthInMessagesFollowsTheKeyType) {
  std::vector<std::uint8_t> k8(10, 1);
  std::vector<std::int64_t> k64(10, 1);
  std::vector<radix::float16> kh(10);
  radix::options o;
  o.end_bit = 9;
  expect_error<radix::invalid_argument>([&] { radix::sort(std::span<std::uint8_t>(k8), o); }, "end_bit 9 > key width 8");
  o.end_bit = 17;
  expect_error<radix::invalid_argument>([&] { radix::sort(std::span<radix::float16>(kh), o); },
                                        "end_bit 17 > key width 16");
  o = {};
  o.begin_bit = 65;
  expect_error<radix::invalid_argument>([&] { radix::sort(std::span<std::int64_t>(k64), o); },
                                        "begin_bit 65 > key width 64");
  // The limits themselves are fine.
  o = {};
  o.begin_bit = 64;
  o.end_bit = 64;
  EXPECT_NO_THROW(radix::sort(std::span<std::int64_t>(k64), o));
  o = {};
  o.digit_bits = 16;
  EXPECT_NO_THROW(radix::sort(std::span<std::int64_t>(k64), o));
  o.digit_bits = 1;
  EXPECT_NO_THROW(radix::sort(std::span<std::int64_t>(k64), o));
}

/// 128-bit integers are keys (wide: two 64-bit chunks); 16-byte floats are
/// not, and bit ranges stop at bit 128. Rejected calls leave the keys alone.
TEST(Errors, WideIntegerKeys) {
  std::vector<radix::uint128> u(10);
  std::vector<radix::int128> s(10);
  for (std::size_t i = 0; i < u.size(); ++i) u[i] = (radix::uint128(i) << 64) | (99 - i), s[i] = -radix::int128(i);
  const auto u0 = u;
  const auto s0 = s;
  radix::options o;
  o.end_bit = 129;
  expect_error<radix::invalid_argument>([&] { radix::sort(std::span<radix::uint128>(u), o); },
                                        "end_bit 129 > key width 128");
  o = {};
  o.begin_bit = 129;
  expect_error<radix::invalid_argument>([&] { radix::sort(std::span<radix::int128>(s), o); },
                                        "begin_bit 129 > key width 128");
  o = {};
  o.begin_bit = 70;
  o.end_bit = 65;
  expect_error<radix::invalid_argument>([&] { radix::sort(std::span<radix::int128>(s), o); },
                                        "begin_bit 70 > end_bit 65");
  EXPECT_TRUE(u == u0 && s == s0);
  std::vector<std::uint32_t> idx(10, 7);
  o = {};
  o.end_bit = 130;
  expect_error<radix::invalid_argument>(
      [&] { radix::argsort(std::span<const radix::uint128>(u), std::span<std::uint32_t>(idx), o); },
      "end_bit 130 > key width 128");
  EXPECT_EQ(idx, std::vector<std::uint32_t>(10, 7));
  // 16-byte floats (and other widths) are not key types.
  radix::sort_request r;
  r.key = radix::key_desc{radix::key_kind::floating, 16, 0};
  r.n = u.size();
  r.keys = u.data();
  expect_error<radix::invalid_argument>([&] { radix::run(r); }, "float keys of 16 bytes are not supported (2, 4 or 8)");
  r.key = radix::key_desc{radix::key_kind::signed_int, 12, 0};
  expect_error<radix::invalid_argument>([&] { radix::run(r); },
                                        "integer keys of 12 bytes are not supported (1, 2, 4, 8 or 16)");
  r.key = radix::key_desc{radix::key_kind::unsigned_int, 32, 0};
  expect_error<radix::invalid_argument>([&] { radix::run(r); }, "integer keys of 32 bytes");
  EXPECT_TRUE(u == u0);
  std::vector<std::byte> recs(10 * 20);
  const auto recs0 = recs;
  expect_error<radix::invalid_argument>(
      [&] {
        radix::sort_records(recs.data(), 20, 10, radix::record_key{0, radix::key_desc{radix::key_kind::floating, 16, 0}});
      },
      "record key of 16 bytes");
  expect_error<radix::invalid_argument>(
      [&] { radix::sort_records(recs.data(), 20, 10, radix::record_key{5, radix::key_desc_of<radix::int128>()}); },
      "key at offset 5 of 16 bytes does not fit in a record of 20 bytes");
  o = {};
  o.end_bit = 129;
  expect_error<radix::invalid_argument>(
      [&] { radix::sort_records(recs.data(), 20, 10, radix::record_key{4, radix::key_desc_of<radix::int128>(), true}, o); },
      "end_bit 129 > key width 128");
  EXPECT_TRUE(recs == recs0);
  // The limits themselves are fine.
  o = {};
  o.begin_bit = 128;
  o.end_bit = 128;
  EXPECT_NO_THROW(radix::sort(std::span<radix::uint128>(u), o));
  o.begin_bit = 0;
  EXPECT_NO_THROW(radix::sort(std::span<radix::int128>(s), o));
  EXPECT_EQ(s.front(), -radix::int128(9));
}

TEST(Errors, MismatchedSpanSizes) {
  data d;
  const data before = d;
  expect_error<radix::invalid_argument>(
      [&] { radix::sort_pairs(std::span<std::uint32_t>(d.keys), std::span<std::uint16_t>(d.vals).first(999)); },
      "values has 999 elements but keys has 1000");
  expect_error<radix::invalid_argument>(
      [&] {
        radix::argsort(std::span<const std::uint32_t>(d.keys).first(10), std::span<std::uint32_t>(d.idx).first(11));
      },
      "indices has 11 elements but keys has 10");
  radix::sorter s;
  expect_error<radix::invalid_argument>(
      [&] { s.sort_pairs(std::span<std::uint32_t>(d.keys).first(5), std::span<std::uint16_t>(d.vals)); },
      "values has 1000 elements but keys has 5");
  expect_error<radix::invalid_argument>(
      [&] { s.argsort(std::span<const std::uint32_t>(d.keys), std::span<std::uint32_t>(d.idx).first(0)); },
      "indices has 0 elements but keys has 1000");
  EXPECT_TRUE(d == before);
}

radix::sort_request request_over(data& d) {
  radix::sort_request r;
  r.key = radix::key_desc_of<std::uint32_t>();
  r.n = d.keys.size();
  r.keys = d.keys.data();
  return r;
}

TEST(Errors, MalformedRequests) {
  data d;
  const data before = d;
  auto r = request_over(d);
  r.op = radix::operation::argsort;
  r.indices = d.idx.data();
  r.index_bytes = 2;
  expect_error<radix::invalid_argument>([&] { radix::run(r); }, "argsort indices must be 4 or 8 bytes, not 2");
  r.index_bytes = 16;
  expect_error<radix::invalid_argument>([&] { radix::run(r); }, "not 16");
  r.index_bytes = 4;
  r.indices = nullptr;
  expect_error<radix::invalid_argument>([&] { radix::run(r); }, "indices is null but n = 1000");
  r = request_over(d);
  r.keys = nullptr;
  expect_error<radix::invalid_argument>([&] { radix::run(r); }, "keys is null but n = 1000");
  r = request_over(d);
  r.op = radix::operation::pairs;
  r.values = d.vals.data();
  r.value_bytes = 0;
  expect_error<radix::invalid_argument>([&] { radix::run(r); }, "value size");
  r.value_bytes = 2;
  r.values = nullptr;
  expect_error<radix::invalid_argument>([&] { radix::run(r); }, "values is null but n = 1000");
  // sorted_keys: an output of argsort and of keys out of place, apart from the keys they read
  r = request_over(d);
  r.op = radix::operation::pairs;
  r.values = d.vals.data();
  r.value_bytes = 4;
  r.sorted_keys = d.idx.data();
  expect_error<radix::invalid_argument>([&] { radix::run(r); }, "pairs sort in place");
  r = request_over(d);
  r.sorted_keys = static_cast<std::byte*>(r.keys) + 4;
  expect_error<radix::invalid_argument>([&] { radix::run(r); }, "sorted_keys overlaps keys");
  r.op = radix::operation::argsort;
  r.indices = d.idx.data();
  r.index_bytes = 4;
  r.sorted_keys = static_cast<std::byte*>(r.keys) + 8;
  expect_error<radix::invalid_argument>([&] { radix::run(r); }, "sorted_keys overlaps keys");
  EXPECT_TRUE(d == before);
  // Null pointers are fine when there is nothing to sort.
  r = request_over(d);
  r.n = 0;
  r.keys = nullptr;
  EXPECT_NO_THROW(radix::run(r));
}

TEST(Errors, RecordKeyMustFitTheRecord) {
  data d;
  const data before = d;
  const auto u32 = radix::key_desc_of<std::uint32_t>();
  expect_error<radix::invalid_argument>(
      [&] { radix::sort_records(d.recs.data(), 8, 1000, radix::record_key{6, u32, false}); },
      "key at offset 6 of 4 bytes does not fit in a record of 8 bytes");
  expect_error<radix::invalid_argument>(
      [&] { radix::sort_records(d.recs.data(), 2, 4000, radix::record_key{0, u32, true}); },
      "does not fit in a record of 2 bytes");
  radix::key_desc three = u32;
  three.bytes = 3;
  expect_error<radix::invalid_argument>(
      [&] { radix::sort_records(d.recs.data(), 8, 1000, radix::record_key{0, three, false}); },
      "record key of 3 bytes");
  expect_error<radix::invalid_argument>(
      [&] { radix::sort_records(d.recs.data(), 0, 1000, radix::record_key{0, u32, false}); }, "record size 0");
  expect_error<radix::invalid_argument>(
      [&] { radix::sort_records(nullptr, 8, 1000, radix::record_key{0, u32, false}); }, "records is null");
  // Offsets so large that offset + key bytes wraps around (the `radix` tool
  // passed --key-offset 18446744073709551615 through: out-of-bounds reads).
  for (std::size_t off : {~std::size_t(0), ~std::size_t(0) - 3, ~std::size_t(0) - 6})
    expect_error<radix::invalid_argument>(
        [&] { radix::sort_records(d.recs.data(), 8, 1000, radix::record_key{off, u32, false}); },
        "does not fit in a record of 8 bytes");
  // Bad options are refused even when there is nothing to sort.
  radix::options bad;
  bad.end_bit = 33;
  for (std::uint64_t count : {0u, 1u})
    expect_error<radix::invalid_argument>(
        [&] { radix::sort_records(d.recs.data(), 8, count, radix::record_key{0, u32, false}, bad); }, "end_bit 33");
  EXPECT_TRUE(d == before);
  // The key may end exactly at the end of the record.
  EXPECT_NO_THROW(radix::sort_records(d.recs.data(), 8, 1000, radix::record_key{4, u32, false}));
}

// ---- engines -------------------------------------------------------------------------

TEST(Engines, CpuIsAlwaysAvailableAndAutomaticResolves) {
  EXPECT_TRUE(radix::engine_available(radix::engine::cpu));
  EXPECT_TRUE(radix::engine_available(radix::engine::automatic));
  const radix::engine def = radix::default_engine();
  EXPECT_TRUE(def == radix::engine::cpu || def == radix::engine::cuda);
  EXPECT_TRUE(radix::engine_available(def));
  if (!radix::engine_available(radix::engine::cuda)) {
    EXPECT_EQ(def, radix::engine::cpu);
  }
  std::vector<std::int32_t> k = {3, -1, 2};
  radix::sort(std::span<std::int32_t>(k));  // automatic
  EXPECT_EQ(k, (std::vector<std::int32_t>{-1, 2, 3}));
}

void unavailable_engine_throws(radix::engine e, const char* name) {
  if (radix::engine_available(e)) GTEST_SKIP() << "engine " << name << " is available here: nothing to reject";
  radix::options o;
  o.use = e;
  for (const auto& [ep, call] : entry_points()) {
    SCOPED_TRACE(ep);
    data d;
    const data before = d;
    expect_error<radix::engine_unavailable>([&, &call = call] { call(d, o); }, name);
    EXPECT_TRUE(d == before) << "data changed";
  }
  // Even for a single key (nothing to sort, but the request is still wrong).
  std::uint32_t one = 7;
  expect_error<radix::engine_unavailable>([&] { radix::sort(std::span<std::uint32_t>(&one, 1), o); }, name);
}

TEST(Engines, UnavailableCudaThrowsEngineUnavailable) { unavailable_engine_throws(radix::engine::cuda, "cuda"); }
TEST(Engines, UnavailableOpenclThrowsEngineUnavailable) { unavailable_engine_throws(radix::engine::opencl, "opencl"); }

// ---- 64-bit element counts, validated without memory -------------------------------------

TEST(LargeN, ArgsortWith32BitIndicesRejectsMoreThan2Pow32) {
  // radix::run validates before touching memory, so n can be faked over a tiny buffer.
  std::uint32_t keys[4] = {1, 2, 3, 4};
  std::uint32_t idx[4] = {0xDEADBEEFu, 0xDEADBEEFu, 0xDEADBEEFu, 0xDEADBEEFu};
  radix::sort_request r;
  r.op = radix::operation::argsort;
  r.key = radix::key_desc_of<std::uint32_t>();
  r.n = (std::uint64_t(1) << 32) + 1;
  r.keys = keys;
  r.indices = idx;
  r.index_bytes = 4;
  expect_error<radix::invalid_argument>([&] { radix::run(r); },
                                        "argsort with 32-bit indices needs n <= 2^32, got n = 4294967297");
  expect_error<radix::invalid_argument>([&] { (void)radix::workspace_bytes(r); }, "n = 4294967297");
  EXPECT_EQ(idx[0], 0xDEADBEEFu);
  EXPECT_EQ(keys[0], 1u);
  // 2^32 elements still fit 32-bit indices (0 .. 2^32 - 1): accepted by validation.
  r.n = std::uint64_t(1) << 32;
  std::size_t need = 0;
  EXPECT_NO_THROW(need = radix::workspace_bytes(r));
  EXPECT_GE(need, r.n * 4) << "scratch for 2^32 keys is at least one copy of them";
  // With 64-bit indices any count is fine.
  r.n = (std::uint64_t(1) << 33) + 3;
  r.index_bytes = 8;
  EXPECT_NO_THROW(need = radix::workspace_bytes(r));
  EXPECT_GE(need, r.n * 4);
}

TEST(LargeN, WorkspaceSizesDoNotOverflowFor64BitCounts) {
  std::uint64_t keys[1] = {0};
  radix::sort_request r;
  r.key = radix::key_desc_of<std::uint64_t>();
  r.n = std::uint64_t(1) << 40;  // 8 TiB of keys: computed, never allocated
  r.keys = keys;
  r.opts.end_bit = 63;  // (a bit range: never in place)
  const std::size_t need = radix::workspace_bytes(r);
  EXPECT_GE(need, r.n * 8);
  EXPECT_LT(need, r.n * 8 * 4) << "a keys-only sort needs about one copy of the keys";
  // The whole key, asked to sort in place: no key scratch.
  r.opts.end_bit = -1;
  r.opts.use = radix::engine::cpu;
  r.opts.memory = radix::memory_use::in_place;
  EXPECT_EQ(radix::workspace_bytes(r), 0u);
}

}  // namespace
}  // namespace rt
