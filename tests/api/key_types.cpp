// Key types of the public API: key_desc_of for every type, the sortable_key concept,
// float16 / bfloat16 <-> float conversions checked against readable decoders.
#include <gtest/gtest.h>

#include <cmath>

#include "radix_test.hpp"

namespace rt {
namespace {

static_assert(radix::sortable_key<std::uint8_t> && radix::sortable_key<std::int64_t> && radix::sortable_key<float> &&
              radix::sortable_key<double> && radix::sortable_key<radix::float16> &&
              radix::sortable_key<radix::bfloat16> && radix::sortable_key<long long> &&
              radix::sortable_key<unsigned long long> && radix::sortable_key<char> &&
              radix::sortable_key<const std::uint32_t>);
static_assert(radix::sortable_key<radix::uint128> && radix::sortable_key<radix::int128>);
static_assert(radix::key_desc_of<radix::uint128>() == radix::key_desc{radix::key_kind::unsigned_int, 16, 0});
static_assert(radix::key_desc_of<radix::int128>() == radix::key_desc{radix::key_kind::signed_int, 16, 0});
static_assert(radix::key_desc_of<radix::int128>().bits() == 128);
static_assert(!radix::sortable_key<bool> && !radix::sortable_key<long double> && !radix::sortable_key<void*>);

TEST(KeyDesc, EveryKeyType) {
  using radix::key_kind;
  struct row {
    kt t;
    key_kind kind;
    int bytes;
    std::uint64_t inf;
  } rows[] = {{kt::u8, key_kind::unsigned_int, 1, 0},       {kt::u16, key_kind::unsigned_int, 2, 0},
              {kt::u32, key_kind::unsigned_int, 4, 0},      {kt::u64, key_kind::unsigned_int, 8, 0},
              {kt::i8, key_kind::signed_int, 1, 0},         {kt::i16, key_kind::signed_int, 2, 0},
              {kt::i32, key_kind::signed_int, 4, 0},        {kt::i64, key_kind::signed_int, 8, 0},
              {kt::f16, key_kind::floating, 2, 0x7C00},     {kt::bf16, key_kind::floating, 2, 0x7F80},
              {kt::f32, key_kind::floating, 4, 0x7F800000}, {kt::f64, key_kind::floating, 8, 0x7FF0000000000000ull}};
  for (const auto& r : rows) {
    SCOPED_TRACE(kt_name(r.t));
    const radix::key_desc d =
        visit_kt(r.t, [](auto tg) { return radix::key_desc_of<typename decltype(tg)::type>(); });
    EXPECT_EQ(d.kind, r.kind);
    EXPECT_EQ(d.bytes, r.bytes);
    EXPECT_EQ(d.bits(), 8 * r.bytes);
    EXPECT_EQ(d.inf_bits, r.inf);
  }
  EXPECT_EQ(radix::key_desc_of<long long>(), radix::key_desc_of<std::int64_t>());
  EXPECT_EQ(radix::key_desc_of<unsigned long long>(), radix::key_desc_of<std::uint64_t>());
  EXPECT_EQ(radix::key_desc_of<char>().bytes, 1);
}

/// Every binary16 pattern: the library's float16 -> float equals the readable
/// decoder; float -> float16 returns the same bits for every non-NaN pattern, and
/// a NaN for every NaN.
TEST(Float16, ConversionsExhaustive) {
  for (std::uint32_t b = 0; b < 65536; ++b) {
    const auto h = radix::float16::from_bits(std::uint16_t(b));
    const float f = float(h);
    const double want = half_value(std::uint16_t(b));
    if (std::isnan(want)) {
      ASSERT_TRUE(std::isnan(f)) << hex(b);
      ASSERT_EQ(std::signbit(f), bool(b & 0x8000)) << hex(b);
      ASSERT_TRUE(std::isnan(float(radix::float16(f)))) << hex(b);
      continue;
    }
    ASSERT_EQ(double(f), want) << hex(b);
    ASSERT_EQ(std::signbit(f), bool(b & 0x8000)) << hex(b);
    ASSERT_EQ(radix::float16(f).bits, b) << "round trip of " << hex(b);
  }
}

/// float -> float16 rounds to nearest, ties to even, overflowing to infinity.
TEST(Float16, RoundingFromFloat) {
  EXPECT_EQ(radix::float16(1.0f).bits, 0x3C00);
  EXPECT_EQ(radix::float16(-2.0f).bits, 0xC000);
  EXPECT_EQ(radix::float16(65504.0f).bits, 0x7BFF);
  EXPECT_EQ(radix::float16(65519.0f).bits, 0x7BFF);
  EXPECT_EQ(radix::float16(65520.0f).bits, 0x7C00) << "ties above the largest finite overflow";
  EXPECT_EQ(radix::float16(1e9f).bits, 0x7C00);
  EXPECT_EQ(radix::float16(std::ldexp(1.0f, -24)).bits, 0x0001);
  EXPECT_EQ(radix::float16(std::ldexp(1.0f, -25)).bits, 0x0000) << "half the smallest denormal ties to even (0)";
  EXPECT_EQ(radix::float16(std::ldexp(3.0f, -25)).bits, 0x0002) << "1.5 denormals ties to even (2)";
  EXPECT_EQ(radix::float16(-0.0f).bits, 0x8000);
  EXPECT_EQ(radix::float16(1.0f + std::ldexp(1.0f, -11)).bits, 0x3C00) << "tie to even";
  EXPECT_EQ(radix::float16(1.0f + 3 * std::ldexp(1.0f, -11)).bits, 0x3C02) << "tie to even";
  // Random floats: the result is the nearest binary16 (ties to even).
  rng r(case_seed("f16-rounding"));
  for (int i = 0; i < 200000; ++i) {
    // Sign, an exponent from 2^-31 (below half's denormals) to 2^15, random mantissa.
    const float f = std::bit_cast<float>((std::uint32_t(r() & 1) << 31) | (std::uint32_t(96 + r.below(47)) << 23) |
                                         std::uint32_t(r() & 0x7FFFFF));
    if (!std::isfinite(f) || std::fabs(f) >= 65504.0f) continue;
    const std::uint16_t h = radix::float16(f).bits;
    const double got = half_value(h), x = f;
    const double up = half_value(std::uint16_t(h + 1)), down = (h & 0x7FFF) ? half_value(std::uint16_t(h - 1)) : -got;
    ASSERT_LE(std::fabs(got - x), std::fabs(up - x)) << f;
    ASSERT_LE(std::fabs(got - x), std::fabs(down - x)) << f;
  }
}

TEST(BFloat16, ConversionsExhaustive) {
  for (std::uint32_t b = 0; b < 65536; ++b) {
    const auto h = radix::bfloat16::from_bits(std::uint16_t(b));
    const float f = float(h);
    const double want = bf16_value(std::uint16_t(b));
    if (std::isnan(want)) {
      ASSERT_TRUE(std::isnan(f)) << hex(b);
      ASSERT_TRUE(std::isnan(float(radix::bfloat16(f)))) << hex(b);
      continue;
    }
    ASSERT_EQ(double(f), want) << hex(b);
    ASSERT_EQ(radix::bfloat16(f).bits, b) << "round trip of " << hex(b);
  }
  EXPECT_EQ(radix::bfloat16(1.0f).bits, 0x3F80);
  EXPECT_EQ(radix::bfloat16(std::bit_cast<float>(0x3F808000u)).bits, 0x3F80) << "tie to even";
  EXPECT_EQ(radix::bfloat16(std::bit_cast<float>(0x3F818000u)).bits, 0x3F82) << "tie to even";
  EXPECT_EQ(radix::bfloat16(std::bit_cast<float>(0x3F808001u)).bits, 0x3F81);
}

TEST(Float16, ComparisonOperatorsAreNumeric) {
  EXPECT_TRUE(radix::float16::from_bits(0x8000) == radix::float16::from_bits(0x0000));
  EXPECT_TRUE(radix::float16(-1.0f) < radix::float16(0.5f));
  EXPECT_FALSE(radix::float16::from_bits(0x7E00) == radix::float16::from_bits(0x7E00)) << "NaN != NaN";
  EXPECT_TRUE(radix::bfloat16(-1.0f) < radix::bfloat16(0.5f));
}

/// long long, unsigned long long and char sort as their fixed-width twins.
TEST(KeyTypes, PlatformIntegerTypesSort) {
  rng r(case_seed("platform-types"));
  std::vector<long long> ll(3000);
  for (auto& x : ll) x = (long long)(r()) >> int(r.below(60));
  std::vector<unsigned long long> ull(3000);
  for (auto& x : ull) x = r() >> int(r.below(60));
  std::vector<char> ch(3000);
  for (auto& x : ch) x = char(r());
  auto want_ll = ll;
  auto want_ull = ull;
  auto want_ch = ch;
  std::stable_sort(want_ll.begin(), want_ll.end());
  std::stable_sort(want_ull.begin(), want_ull.end());
  std::stable_sort(want_ch.begin(), want_ch.end());
  radix::sort(std::span<long long>(ll));
  radix::sort(std::span<unsigned long long>(ull));
  radix::sort(std::span<char>(ch));
  EXPECT_EQ(ll, want_ll);
  EXPECT_EQ(ull, want_ull);
  EXPECT_EQ(ch, want_ch);
}

TEST(Options, DefaultsAndPrinting) {
  const radix::options o;
  EXPECT_EQ(o.direction, radix::order::ascending);
  EXPECT_EQ(o.floats, radix::float_order::numeric);
  EXPECT_EQ(o.begin_bit, 0);
  EXPECT_EQ(o.end_bit, -1);
  EXPECT_EQ(o.digit_bits, 0);
  EXPECT_EQ(o.use, radix::engine::automatic);
  EXPECT_EQ(o.threads, 0u);
  const std::string s = describe(o);
  for (const char* part : {"ascending", "numeric", "automatic"})
    EXPECT_NE(s.find(part), std::string::npos) << s;
}

}  // namespace
}  // namespace rt
