// Conformance, the workspace contract: for every request (every key type,
// keys, pairs with values of every size, argsort with 4- and 8-byte indices,
// values at misaligned addresses), radix::workspace_bytes(req) is exactly
// what radix::run(req, workspace) needs on the engine under test: a
// workspace of that size, at any alignment, sorts (the same result as the
// engine's own scratch gives), and one byte less is refused before anything
// is written. A size query without the buffers is at least as large.
#include <cstring>
#include <vector>

#include "conformance.hpp"

namespace rt {
namespace {

class Workspace : public engine_test {};

/// Bytes of `n` elements of `bytes` each, at `offset` past a 64-byte boundary.
struct offset_buffer {
  std::vector<std::byte> store;
  std::byte* p = nullptr;
  offset_buffer(std::size_t bytes, std::size_t offset) : store(bytes + 128) {
    auto a = (reinterpret_cast<std::uintptr_t>(store.data()) + 63) & ~std::uintptr_t(63);
    p = reinterpret_cast<std::byte*>(a) + offset;
  }
};

void fill(std::byte* p, std::size_t bytes, std::uint64_t seed) {
  for (std::size_t i = 0; i < bytes; ++i) p[i] = std::byte(mix64(seed + i / 8) >> (8 * (i % 8)));
}

// memcpy / memcmp with a byte vector that may be empty: its data() is then
// null, which the C functions must not get even for 0 bytes (UBSan checks).
void put(std::byte* p, const std::vector<std::byte>& v) {
  if (!v.empty()) std::memcpy(p, v.data(), v.size());
}
bool holds(const std::byte* p, const std::vector<std::byte>& v) {
  return v.empty() || std::memcmp(p, v.data(), v.size()) == 0;
}

struct layout {
  radix::operation op;
  std::size_t value_bytes;  // pairs: value size; argsort: index size
  std::size_t offset;       // of the values (or indices) past a 64-byte boundary
};

/// Checks one request; returns false (with a message) on the first problem.
template <class K>
bool check(radix::engine e, const char* type, const layout& l, std::size_t n, std::uint64_t seed) {
  const std::size_t kb = sizeof(K), vb = l.op == radix::operation::keys ? 0 : l.value_bytes;
  offset_buffer keys(n * kb, 0), vals(n * vb, l.offset);
  fill(keys.p, n * kb, seed);
  if (l.op == radix::operation::pairs) fill(vals.p, n * vb, ~seed);
  const std::vector<std::byte> keys_in(keys.p, keys.p + n * kb), vals_in(vals.p, vals.p + n * vb);

  radix::sort_request r;
  r.op = l.op;
  r.key = radix::key_desc_of<K>();
  r.n = n;
  r.keys = keys.p;
  r.opts.use = e;
  if (l.op == radix::operation::pairs) r.values = vals.p, r.value_bytes = vb;
  if (l.op == radix::operation::argsort) r.indices = vals.p, r.index_bytes = std::uint8_t(vb);
  const std::string what = std::string(type) + " op " + std::to_string(int(l.op)) + " value/index bytes " +
                           std::to_string(vb) + " at offset " + std::to_string(l.offset) + ", n " + std::to_string(n);

  // The reference: the engine with its own scratch.
  radix::run(r);
  const std::vector<std::byte> keys_want(keys.p, keys.p + n * kb), vals_want(vals.p, vals.p + n * vb);

  const std::size_t need = radix::workspace_bytes(r);
  radix::sort_request query = r;
  query.keys = query.values = query.indices = nullptr;
  const std::size_t queried = radix::workspace_bytes(query);
  EXPECT_GE(queried, need) << what << ": a query without buffers must be enough";

  for (std::size_t ws_offset : {std::size_t(0), std::size_t(1), std::size_t(24)}) {
    put(keys.p, keys_in);
    put(vals.p, vals_in);
    if (need > 0) {
      // One byte less: refused before anything is written.
      offset_buffer small(need - 1, ws_offset);
      EXPECT_THROW(radix::run(r, std::span<std::byte>(small.p, need - 1)), radix::out_of_memory) << what;
      if (!holds(keys.p, keys_in) || !holds(vals.p, vals_in)) {
        ADD_FAILURE() << what << ": a refused workspace changed the data";
        return false;
      }
    }
    offset_buffer ws(need, ws_offset);
    try {
      radix::run(r, std::span<std::byte>(ws.p, need));
    } catch (const std::exception& x) {
      ADD_FAILURE() << what << ": workspace_bytes() = " << need << " at offset " << ws_offset
                    << " was not enough: " << x.what();
      return false;
    }
    if (!holds(keys.p, keys_want) || !holds(vals.p, vals_want)) {
      ADD_FAILURE() << what << ": the result in a workspace of workspace_bytes() differs from the engine's own";
      return false;
    }
  }
  return true;
}

TEST_P(Workspace, EqualsWhatRunNeeds) {
  const std::vector<layout> layouts = {
      {radix::operation::keys, 0, 0},     {radix::operation::pairs, 1, 0},   {radix::operation::pairs, 2, 0},
      {radix::operation::pairs, 2, 1},    {radix::operation::pairs, 4, 0},   {radix::operation::pairs, 4, 2},
      {radix::operation::pairs, 8, 0},    {radix::operation::pairs, 8, 4},   {radix::operation::pairs, 3, 0},
      {radix::operation::pairs, 12, 4},   {radix::operation::pairs, 16, 0}, {radix::operation::pairs, 16, 8},
      {radix::operation::pairs, 24, 0},   {radix::operation::argsort, 4, 0}, {radix::operation::argsort, 8, 0},
  };
  const std::uint64_t seed = case_seed("workspace/" + std::string(kt_name(key())));
  visit_kt(key(), [&](auto t) {
    using K = typename decltype(t)::type;
    for (const auto& l : layouts)
      for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(2), std::size_t(255), std::size_t(257),
                            std::size_t(70001)})
        if (!check<K>(eng(), kt_name(key()), l, n, seed + n)) return;
  });
}

RADIX_CONFORMANCE_FOR_ALL_ENGINES(Workspace);

}  // namespace
}  // namespace rt
