// Unit tests of the shared pass planner (src/core/radix/core/pass_plan.hpp):
// plan_passes counts and even spread (and even_passes, its form for device
// code), digit_of, pass_is_trivial.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "radix/core/pass_plan.hpp"

namespace {

using radix::core::digit_of;
using radix::core::pass;
using radix::core::pass_is_trivial;
using radix::core::pass_plan;
using radix::core::plan_passes;

std::vector<pass> passes_of(const pass_plan& p) { return std::vector<pass>(p.passes, p.passes + p.count); }

TEST(PassPlan, HelluysCaseTenBitsTwoFiveBitPasses) {
  const auto p = plan_passes(0, 10, 8);
  EXPECT_EQ(passes_of(p), (std::vector<pass>{{0, 5}, {5, 5}}));
}

TEST(PassPlan, WholeKeysWithEightBitDigits) {
  EXPECT_EQ(passes_of(plan_passes(0, 32, 8)), (std::vector<pass>{{0, 8}, {8, 8}, {16, 8}, {24, 8}}));
  EXPECT_EQ(plan_passes(0, 64, 8).count, 8);
  EXPECT_EQ(plan_passes(0, 8, 8).count, 1);
  EXPECT_EQ(passes_of(plan_passes(0, 32, 11)), (std::vector<pass>{{0, 11}, {11, 11}, {22, 10}}));
}

/// even_passes: the same plan pass by pass (device code; the block sort's
/// 6-bit digits over the bits that vary).
TEST(PassPlan, EvenPassesMatchThePlan) {
  const radix::core::even_passes e(0, 32, 6);
  ASSERT_EQ(e.count, 6);
  const std::vector<pass> want{{0, 6}, {6, 6}, {12, 5}, {17, 5}, {22, 5}, {27, 5}};
  for (int i = 0; i < e.count; ++i) EXPECT_EQ(e[i], want[std::size_t(i)]) << i;
  const radix::core::even_passes hi(40, 64, 6);
  ASSERT_EQ(hi.count, 4);
  for (int i = 0; i < hi.count; ++i) EXPECT_EQ(hi[i], (pass{40 + 6 * i, 6})) << i;
  EXPECT_EQ(radix::core::even_passes(5, 5, 6).count, 0);
}

TEST(PassPlan, EmptyRangeHasNoPasses) {
  EXPECT_EQ(plan_passes(0, 0, 8).count, 0);
  EXPECT_EQ(plan_passes(7, 7, 8).count, 0);
  EXPECT_EQ(plan_passes(32, 32, 1).count, 0);
  EXPECT_EQ(plan_passes(9, 3, 8).count, 0);  // inverted: nothing
  EXPECT_EQ(plan_passes(0, 32, 0).count, 0);  // no digit width: nothing
}

/// Every range of a 64-bit key and every digit width 1..16: ceil(total / d)
/// passes that tile [begin, end) in order, at most d bits each, widths differing
/// by at most one (even spread), wider passes first.
TEST(PassPlan, EveryRangeAndDigitWidthTilesEvenly) {
  for (int d = 1; d <= 16; ++d)
    for (int b = 0; b <= 64; ++b)
      for (int e = b; e <= 64; ++e) {
        const auto p = plan_passes(b, e, d);
        const int total = e - b;
        ASSERT_EQ(p.count, (total + d - 1) / d) << "[" << b << "," << e << ") d=" << d;
        int shift = b, minw = 99, maxw = 0, prev = 99;
        for (int i = 0; i < p.count; ++i) {
          ASSERT_EQ(p[i].shift, shift) << "[" << b << "," << e << ") d=" << d << " pass " << i;
          ASSERT_GE(p[i].bits, 1);
          ASSERT_LE(p[i].bits, d);
          ASSERT_LE(p[i].bits, prev) << "wider passes come first";
          prev = p[i].bits;
          minw = std::min(minw, p[i].bits);
          maxw = std::max(maxw, p[i].bits);
          shift += p[i].bits;
        }
        ASSERT_EQ(shift, e) << "passes must end at end_bit";
        if (p.count) {
          ASSERT_LE(maxw - minw, 1) << "[" << b << "," << e << ") d=" << d << " not evenly spread";
        }
      }
}

TEST(PassPlan, UsableAtCompileTime) {
  constexpr auto p = plan_passes(3, 17, 4);
  static_assert(p.count == 4);
  static_assert(p.passes[0] == pass{3, 4} && p.passes[1] == pass{7, 4} && p.passes[2] == pass{11, 3} &&
                p.passes[3] == pass{14, 3});
  EXPECT_EQ(p.count, 4);
}

TEST(DigitOf, ExtractsBits) {
  EXPECT_EQ(digit_of<std::uint32_t>(0xABCD1234u, 0, 8), 0x34u);
  EXPECT_EQ(digit_of<std::uint32_t>(0xABCD1234u, 8, 8), 0x12u);
  EXPECT_EQ(digit_of<std::uint32_t>(0xABCD1234u, 28, 4), 0xAu);
  EXPECT_EQ(digit_of<std::uint32_t>(0xABCD1234u, 5, 3), (0xABCD1234u >> 5) & 7u);
  EXPECT_EQ(digit_of<std::uint32_t>(0xFFFFFFFFu, 16, 16), 0xFFFFu);
  EXPECT_EQ(digit_of<std::uint64_t>(0xF00000000000000Full, 60, 4), 0xFu);
  EXPECT_EQ(digit_of<std::uint64_t>(0xF00000000000000Full, 48, 16), 0xF000u);
  EXPECT_EQ(digit_of<std::uint8_t>(0x80, 7, 1), 1u);
  EXPECT_EQ(digit_of<std::uint8_t>(0xB5, 0, 8), 0xB5u);
  EXPECT_EQ(digit_of<std::uint16_t>(0xBEEF, 0, 16), 0xBEEFu);
  EXPECT_EQ(digit_of<std::uint16_t>(0xBEEF, 4, 12), 0xBEEu);
  for (int s = 0; s + 1 <= 64; ++s) EXPECT_EQ(digit_of<std::uint64_t>(1ull << s, s, 1), 1u) << s;
}

TEST(PassIsTrivial, OnlyWhenNoBitOfTheDigitVaries) {
  // varying = OR of (key ^ first key): bits 4 and 20 differ between keys.
  const std::uint32_t varying = (1u << 4) | (1u << 20);
  EXPECT_FALSE(pass_is_trivial<std::uint32_t>(varying, pass{0, 8}));
  EXPECT_TRUE(pass_is_trivial<std::uint32_t>(varying, pass{8, 8}));
  EXPECT_FALSE(pass_is_trivial<std::uint32_t>(varying, pass{16, 8}));
  EXPECT_TRUE(pass_is_trivial<std::uint32_t>(varying, pass{24, 8}));
  EXPECT_TRUE(pass_is_trivial<std::uint32_t>(varying, pass{5, 15}));
  EXPECT_FALSE(pass_is_trivial<std::uint32_t>(varying, pass{5, 16}));
  EXPECT_TRUE(pass_is_trivial<std::uint32_t>(0, pass{0, 16}));
  EXPECT_FALSE(pass_is_trivial<std::uint64_t>(1ull << 63, pass{63, 1}));
  EXPECT_TRUE(pass_is_trivial<std::uint64_t>(1ull << 63, pass{48, 15}));
}

/// End to end: skipping the trivial passes of a plan leaves exactly the passes
/// whose digits differ between some keys.
TEST(PassIsTrivial, AgreesWithTheKeys) {
  const std::vector<std::uint32_t> keys = {0x00120005u, 0x00340005u, 0x00120007u};
  std::uint32_t varying = 0;
  for (auto k : keys) varying |= k ^ keys[0];
  const auto p = plan_passes(0, 32, 8);
  for (int i = 0; i < p.count; ++i) {
    bool differ = false;
    for (auto k : keys) differ |= digit_of(k, p[i].shift, p[i].bits) != digit_of(keys[0], p[i].shift, p[i].bits);
    EXPECT_EQ(pass_is_trivial(varying, p[i]), !differ) << "pass " << i;
  }
}

}  // namespace
