// core::plan_sort and core::workspace_layout: the one place where a request's
// routes, bit range and workspace slices are decided, for every engine.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "radix/core/pass_plan.hpp"
#include "radix/core/sort_plan.hpp"

namespace core = radix::core;

namespace {

radix::sort_request pairs_request(std::uint64_t n, std::size_t value_bytes, void* values) {
  radix::sort_request r;
  r.op = radix::operation::pairs;
  r.key = {radix::key_kind::unsigned_int, 4};
  r.n = n;
  r.values = values;
  r.value_bytes = value_bytes;
  return r;
}

}  // namespace

TEST(WorkspaceLayout, TotalIsEnoughAtEveryBaseOffsetAndSlicesDoNotOverlap) {
  for (std::uint64_t align : {1u, 8u, 64u, 256u}) {
    core::workspace_layout l(align);
    const std::vector<std::uint64_t> sizes = {1, 0, 1000, 3, 255, 256, 257};
    for (auto b : sizes) l.add("s", b);
    std::vector<std::byte> mem(l.total() + 2 * align);
    for (std::uint64_t off = 0; off < align + 1; ++off) {
      const std::span<std::byte> ws(mem.data() + off, l.total());
      const auto at = l.carve(ws);
      for (int i = 0; i < l.size(); ++i) {
        EXPECT_EQ(reinterpret_cast<std::uintptr_t>(at[i]) % align, 0u) << "align " << align << " slice " << i;
        EXPECT_GE(at[i], ws.data());
        EXPECT_LE(at[i] + l.bytes(i), ws.data() + ws.size()) << "align " << align << " offset " << off << " slice " << i;
        if (i + 1 < l.size()) {
          EXPECT_LE(at[i] + l.bytes(i), at[i + 1]);
        }
        EXPECT_EQ(std::uint64_t(at[i] - at[0]), l.offset(i) - l.offset(0));
      }
      EXPECT_THROW(l.carve(ws.first(l.total() - 1)), radix::out_of_memory);
    }
    EXPECT_EQ(l.offset(0), 0u);
    EXPECT_LE(l.aligned_total() + align - 1, l.total());
  }
  EXPECT_EQ(core::workspace_layout().total(), 0u);
  EXPECT_NO_THROW(core::workspace_layout().carve({}));
}

TEST(WorkspaceLayout, RefusesMoreSlicesThanItHolds) {
  core::workspace_layout l;
  for (int i = 0; i < core::workspace_layout::max_slices; ++i) l.add("s", 1);
  EXPECT_THROW(l.add("one too many", 1), radix::invalid_argument);
}

TEST(SortPlan, ResolvesTheBitRangeAndKeepsTheCodecInputs) {
  radix::sort_request r;
  r.key = {radix::key_kind::floating, 4};
  r.n = 100;
  r.opts.direction = radix::order::descending;
  r.opts.floats = radix::float_order::total;
  auto p = core::plan_sort(r, {});
  EXPECT_EQ(p.begin_bit, 0);
  EXPECT_EQ(p.end_bit, 32);
  EXPECT_EQ(core::plan_passes(p.begin_bit, p.end_bit, 8).count, 4);
  r.opts.begin_bit = 4;
  r.opts.end_bit = 20;
  r.opts.digit_bits = 5;
  p = core::plan_sort(r, {});
  EXPECT_EQ(p.end_bit, 20);
  EXPECT_EQ(p.digit_bits, 5);  // the request's digit width, for the engine to honour
  const auto c = p.codec<std::uint32_t>();
  const auto want = core::make_codec<std::uint32_t>(r.key, r.opts.direction, r.opts.floats);
  for (std::uint32_t u : {0x3f800000u, 0xbf800000u, 0x7fc00001u, 0x80000000u}) EXPECT_EQ(c(u), want(u));
}

TEST(SortPlan, ValuesRideAlongOnlyWhenNativeAndAligned) {
  alignas(16) std::uint64_t buf[4] = {};
  auto* aligned = reinterpret_cast<std::byte*>(buf);
  const core::engine_caps host{};
  // aligned 8-byte values: native
  auto p = core::plan_sort(pairs_request(10, 8, aligned), host);
  EXPECT_EQ(p.route, core::value_route::native);
  EXPECT_EQ(p.payload_bytes, 8);
  // misaligned: through a 32-bit index, with the index's slices
  p = core::plan_sort(pairs_request(10, 8, aligned + 4), host);
  EXPECT_EQ(p.route, core::value_route::via_index);
  EXPECT_EQ(p.index_bytes, 4);
  EXPECT_NE(p.slice[core::index_buffer], core::no_slice);
  EXPECT_NE(p.slice[core::value_copy], core::no_slice);
  // a size without a native width (12 bytes): index route
  EXPECT_EQ(core::plan_sort(pairs_request(10, 12, aligned), host).route, core::value_route::via_index);
  // a size query without the pointer: host plans the (larger) index route,
  // device memory is assumed aligned, buffer handles always are
  auto h = core::plan_sort(pairs_request(10, 8, nullptr), host);
  EXPECT_EQ(h.route, core::value_route::via_index);
  EXPECT_GE(h.workspace.total(), core::plan_sort(pairs_request(10, 8, aligned), host).workspace.total());
  core::engine_caps dev;
  dev.host_workspace = false;
  dev.values_at = core::value_address::device;
  EXPECT_EQ(core::plan_sort(pairs_request(10, 8, nullptr), dev).route, core::value_route::native);
  EXPECT_EQ(core::plan_sort(pairs_request(10, 8, aligned + 4), dev).route, core::value_route::via_index);
  dev.values_at = core::value_address::buffer_handle;
  EXPECT_EQ(core::plan_sort(pairs_request(10, 8, aligned + 4), dev).route, core::value_route::native);
  EXPECT_EQ(core::plan_sort(pairs_request(10, 8, aligned), dev).workspace.size(), 0);
  // 16-byte values only where the engine moves them
  dev.native_value_sizes |= 1u << 16;
  EXPECT_EQ(core::plan_sort(pairs_request(10, 16, aligned), dev).route, core::value_route::native);
}

TEST(SortPlan, IndexWidthFollowsN) {
  EXPECT_EQ(core::index_bytes_for(0xFFFFFFFFull), 4);
  EXPECT_EQ(core::index_bytes_for(0x100000000ull), 8);
  auto p = core::plan_sort(pairs_request(0x100000000ull, 12, nullptr), {});
  EXPECT_EQ(p.index_bytes, 8);
}

TEST(SortPlan, WithTypesMapsWidthsToTypes) {
  struct wide16 {
    std::uint64_t a, b;
  };
  alignas(16) std::byte buf[64] = {};
  auto sizes = [&](std::size_t vb) {
    core::engine_caps c;
    c.native_value_sizes |= 1u << 16;
    const auto p = core::plan_sort(pairs_request(4, vb, buf), c);
    return core::with_types<wide16>(p, [&]<class U, class V>() {
      return std::to_string(sizeof(U)) + "/" + (std::is_same_v<V, core::no_value> ? std::string("-") : std::to_string(sizeof(V)));
    });
  };
  EXPECT_EQ(sizes(1), "4/1");
  EXPECT_EQ(sizes(2), "4/2");
  EXPECT_EQ(sizes(8), "4/8");
  EXPECT_EQ(sizes(16), "4/16");
  EXPECT_EQ(sizes(12), "4/4");  // via a 32-bit index
  radix::sort_request k;
  k.key = {radix::key_kind::signed_int, 2};
  k.n = 3;
  EXPECT_EQ(core::with_types(core::plan_sort(k, {}), [&]<class U, class V>() {
              return sizeof(U) * 100 + (std::is_same_v<V, core::no_value> ? 0 : sizeof(V));
            }),
            200u);
}

// Keys alone sort in place (no key scratch) only where equal keys are equal
// bits, and only on an engine that can, asked for or past its size.
TEST(SortPlan, KeysInPlaceOnlyWhereNothingCanTell) {
  core::engine_caps can;
  can.keys_in_place = true;
  radix::sort_request r;
  r.key = {radix::key_kind::unsigned_int, 4};
  r.n = 1 << 20;
  auto scratch = [](const core::sort_plan& p) { return p.slice[core::key_scratch] != core::no_slice; };
  auto p = core::plan_sort(r, can);
  EXPECT_FALSE(p.keys_in_place);  // not asked, no size given
  EXPECT_TRUE(scratch(p));
  r.opts.memory = radix::memory_use::in_place;
  p = core::plan_sort(r, can);
  EXPECT_TRUE(p.keys_in_place);
  EXPECT_FALSE(scratch(p));
  EXPECT_EQ(p.workspace.total(), 0u);
  EXPECT_FALSE(core::plan_sort(r, {}).keys_in_place);  // an engine that cannot
  auto refused = [&](auto change) {
    radix::sort_request x = r;
    change(x);
    const auto q = core::plan_sort(x, can);
    return !q.keys_in_place;
  };
  EXPECT_TRUE(refused([](auto& x) { x.opts.begin_bit = 1; }));
  EXPECT_TRUE(refused([](auto& x) { x.opts.end_bit = 31; }));
  EXPECT_TRUE(refused([](auto& x) { x.opts.digit_bits = 8; }));
  EXPECT_TRUE(refused([](auto& x) { x.key = {radix::key_kind::floating, 4}; }));  // numeric order folds -0.0, NaNs
  EXPECT_FALSE(refused([](auto& x) {
    x.key = {radix::key_kind::floating, 8};
    x.opts.floats = radix::float_order::total;
  }));
  EXPECT_FALSE(refused([](auto& x) {
    x.key = {radix::key_kind::signed_int, 8};
    x.opts.direction = radix::order::descending;
  }));
  EXPECT_TRUE(refused([](auto& x) { x.key = {radix::key_kind::unsigned_int, 2}; }));
  EXPECT_TRUE(refused([](auto& x) { x.op = radix::operation::argsort; }));
  EXPECT_TRUE(refused([](auto& x) {
    x.op = radix::operation::pairs;
    x.value_bytes = 4;
  }));
  // Automatically from the engine's size on.
  r.opts.memory = radix::memory_use::automatic;
  can.keys_in_place_auto_bytes = std::uint64_t(4) << 20;
  EXPECT_TRUE(core::plan_sort(r, can).keys_in_place);  // 4 MiB of keys
  r.n -= 1;
  EXPECT_FALSE(core::plan_sort(r, can).keys_in_place);
}
