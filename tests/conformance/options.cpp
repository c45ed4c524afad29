// Conformance of the options and the sorter: digit_bits 1..16, threads 1/2/3/7, and
// radix::sorter with owned scratch or a caller workspace (exact, too small, empty).
#include <atomic>
#include <cstdlib>

#include "conformance.hpp"

// Counts large aligned_alloc calls (the library's scratch memory is allocated with
// it, src/api/scratch.cpp), so that "a workspace means the engine allocates no
// scratch" is observable. Calls are passed on to posix_memalign.
namespace {
std::atomic<bool> g_counting{false};
std::atomic<std::size_t> g_big_allocs{0};
constexpr std::size_t big_alloc = 2048;
}  // namespace
extern "C" void* aligned_alloc(std::size_t alignment, std::size_t size) {
  if (g_counting.load(std::memory_order_relaxed) && size >= big_alloc) g_big_allocs.fetch_add(1);
  void* p = nullptr;
  if (alignment < sizeof(void*)) alignment = sizeof(void*);
  return posix_memalign(&p, alignment, size) == 0 ? p : nullptr;
}

namespace rt {
namespace {

struct v12 { std::uint32_t a, b, c; };

/// Keys, pairs (native and index-path values) and argsort of one input against the oracle.
template <class K>
bool run_all_ops(const std::vector<K>& in, const std::vector<std::uint32_t>& perm, const radix::options& o,
                 bool with_v12 = true) {
  const std::size_t n = in.size();
  bool ok = true;
  const auto want_keys = gather_bytes(in.data(), sizeof(K), perm);
  {  // keys
    std::vector<K> k = in;
    ok &= no_throw([&] { radix::sort(std::span<K>(k), o); }, "sort");
    auto r = same_bytes(k.data(), want_keys.data(), sizeof(K), n, "keys");
    EXPECT_TRUE(r);
    ok &= bool(r);
  }
  {  // argsort, 64-bit indices over a poisoned buffer
    std::vector<std::uint64_t> idx(n, 0xDEADBEEFDEADBEEFull);
    ok &= no_throw([&] { radix::argsort(std::span<const K>(in), std::span<std::uint64_t>(idx), o); }, "argsort");
    std::vector<std::uint64_t> want(perm.begin(), perm.end());
    auto r = same_bytes(idx.data(), want.data(), 8, n, "argsort indices");
    EXPECT_TRUE(r);
    ok &= bool(r);
  }
  {  // pairs, 4-byte values (carried by the scatter) and 12-byte values (index + permute)
    std::vector<K> k = in;
    std::vector<std::uint32_t> v(n);
    std::iota(v.begin(), v.end(), 0u);
    ok &= no_throw([&] { radix::sort_pairs(std::span<K>(k), std::span<std::uint32_t>(v), o); }, "sort_pairs<u32>");
    auto rk = same_bytes(k.data(), want_keys.data(), sizeof(K), n, "pairs<u32> keys");
    auto rv = same_bytes(v.data(), perm.data(), 4, n, "pairs<u32> values");
    EXPECT_TRUE(rk);
    EXPECT_TRUE(rv);
    ok &= rk && rv;
    if (!with_v12) return ok;
    k = in;
    std::vector<v12> w(n);
    for (std::size_t i = 0; i < n; ++i) w[i] = {std::uint32_t(i), ~std::uint32_t(i), std::uint32_t(i * 3)};
    const auto want_w = gather_bytes(w.data(), sizeof(v12), perm);
    ok &= no_throw([&] { radix::sort_pairs(std::span<K>(k), std::span<v12>(w), o); }, "sort_pairs<v12>");
    auto rk2 = same_bytes(k.data(), want_keys.data(), sizeof(K), n, "pairs<v12> keys");
    auto rw = same_bytes(w.data(), want_w.data(), sizeof(v12), n, "pairs<v12> values");
    EXPECT_TRUE(rk2);
    EXPECT_TRUE(rw);
    ok &= rk2 && rw;
  }
  return ok;
}

class Options : public engine_test {};

TEST_P(Options, DigitBits1To16) {
  visit_kt(key(), [&](auto tg) {
    using K = typename decltype(tg)::type;
    failure_budget fb;
    const int w = int(sizeof(K)) * 8;
    for (int d = 1; d <= 16; ++d)
      for (std::size_t n : {std::size_t(300), std::size_t(5003), std::size_t(140001)})
        for (dist ds : {dist::uniform, dist::few_unique, dist::narrow})
          for (auto dir : {radix::order::ascending, radix::order::descending})
            for (int range = 0; range < 2; ++range) {
              if (n == 300 && ds != dist::uniform) continue;
              // Two threads' worth of keys: a few digit widths (time).
              if (n == 140001 && (ds != dist::uniform || range || d % 5 != 1 ||
                                  dir != (d % 2 ? radix::order::ascending : radix::order::descending)))
                continue;
              sort_case c{ds, n, make_opts(eng(), dir)};
              c.o.digit_bits = d;
              if (range) {  // a range that is not a multiple of the digit width
                c.o.begin_bit = std::min(3, w);
                c.o.end_bit = std::min(w, 3 + 13);
              }
              const std::uint64_t seed = seed_for("digit_bits", key(), c);
              SCOPED_TRACE(case_text("keys+pairs+argsort", key(), c, seed));
              const auto in = generate<K>(ds, n, seed, c.o);
              if (!fb.keep_going(run_all_ops(in, oracle_perm(in, c.o), c.o, n < 10000))) return;
            }
  });
}

TEST_P(Options, Threads1_2_3_7) {
  visit_kt(key(), [&](auto tg) {
    using K = typename decltype(tg)::type;
    failure_budget fb;
    // 7 * 2^16 + 5 elements: enough for seven chunks when seven threads are asked for.
    // 2^20 + 3 keys of 4 or 8 bytes: the engine's large-input (MSD + in-cache) route.
    const std::size_t big = sizeof(K) >= 4 ? (std::size_t(1) << 20) + 3 : 0;
    for (std::size_t n : {std::size_t(1000), std::size_t(131073), std::size_t(7 * 65536 + 5), big})
      for (dist ds : {dist::uniform, dist::zipf})
        for (auto dir : {radix::order::ascending, radix::order::descending}) {
          if (n == 0) continue;
          if (n > 1000 && (dir == radix::order::descending) != (ds == dist::zipf)) continue;
          if (n == big && ds != dist::uniform) continue;
          sort_case c{ds, n, make_opts(eng(), dir)};
          const std::uint64_t seed = seed_for("threads", key(), c);
          const auto in = generate<K>(ds, n, seed, c.o);
          const auto perm = oracle_perm(in, c.o);
          for (unsigned t : {1u, 2u, 3u, 7u}) {
            c.o.threads = t;
            SCOPED_TRACE(case_text("keys+pairs+argsort", key(), c, seed));
            if (!fb.keep_going(run_all_ops(in, perm, c.o, n < 200000))) return;
          }
        }
  });
}

RADIX_CONFORMANCE_FOR_ALL_ENGINES(Options);

// ---- radix::sorter -------------------------------------------------------------------

class Sorter : public engine_only_test {
 protected:
  /// Engines that sort host data with device scratch (CUDA through the host
  /// API) need no host workspace: workspace_bytes() is 0 for them, and the
  /// host-workspace tests below do not apply.
  bool needs_host_scratch() const {
    std::vector<std::uint32_t> k(1000);
    radix::sort_request r;
    r.op = radix::operation::keys;
    r.key = radix::key_desc_of<std::uint32_t>();
    r.n = k.size();
    r.keys = k.data();
    r.opts = opts();
    return radix::workspace_bytes(r) > 0;
  }
};
#define RADIX_SKIP_WITHOUT_HOST_SCRATCH()                                                       \
  if (!needs_host_scratch())                                                                    \
  GTEST_SKIP() << "this engine needs no host workspace (its scratch is device memory)"

/// An owning sorter: its scratch grows to the largest sort and is kept.
TEST_P(Sorter, OwnedScratchIsReused) {
  RADIX_SKIP_WITHOUT_HOST_SCRATCH();
  radix::sorter s(opts());
  std::size_t last = 0;
  for (std::size_t n : {std::size_t(10), std::size_t(1000), std::size_t(131073), std::size_t(50), std::size_t(70000)}) {
    sort_case c{dist::uniform, n, opts()};
    const std::uint64_t seed = seed_for("sorter", kt::u32, c);
    SCOPED_TRACE(case_text("sorter keys/pairs/argsort", kt::u32, c, seed));
    const auto in = generate<std::uint32_t>(dist::uniform, n, seed);
    const auto perm = oracle_perm(in, opts());
    std::vector<std::uint32_t> k = in, v(n);
    std::iota(v.begin(), v.end(), 0u);
    s.sort(std::span<std::uint32_t>(k));
    EXPECT_TRUE(same_bytes(k.data(), gather_bytes(in.data(), 4, perm).data(), 4, n, "sorter.sort"));
    k = in;
    s.sort_pairs(std::span<std::uint32_t>(k), std::span<std::uint32_t>(v));
    EXPECT_TRUE(same_bytes(v.data(), perm.data(), 4, n, "sorter.sort_pairs values"));
    std::vector<std::uint32_t> idx(n, 0xDEADBEEFu);
    s.argsort(std::span<const std::uint32_t>(in), std::span<std::uint32_t>(idx));
    EXPECT_TRUE(same_bytes(idx.data(), perm.data(), 4, n, "sorter.argsort"));
    EXPECT_GE(s.scratch_bytes(), last) << "the sorter's scratch must not shrink";
    last = s.scratch_bytes();
  }
  EXPECT_GE(last, std::size_t(131073) * 4) << "scratch for 131073 uint32 keys";
}

template <class K, class V>
radix::sort_request pairs_request(std::span<K> k, std::span<V> v, const radix::options& o) {
  radix::sort_request r;
  r.op = radix::operation::pairs;
  r.key = radix::key_desc_of<K>();
  r.n = k.size();
  r.keys = k.data();
  r.values = v.data();
  r.value_bytes = sizeof(V);
  r.opts = o;
  return r;
}

/// A sorter over a caller workspace of exactly workspace_bytes(request) bytes (at
/// odd alignments, poisoned) sorts correctly and allocates no scratch of its own.
TEST_P(Sorter, CallerWorkspaceOfExactSize) {
  RADIX_SKIP_WITHOUT_HOST_SCRATCH();
  for (std::size_t n : {std::size_t(1000), std::size_t(131073)})
    for (std::size_t mis : {std::size_t(0), std::size_t(1), std::size_t(63)}) {
      sort_case c{dist::uniform, n, opts()};
      const std::uint64_t seed = seed_for("sorter-ws", kt::f32, c);
      SCOPED_TRACE(case_text("sorter over workspace", kt::f32, c, seed) + " workspace misaligned by " +
                   std::to_string(mis));
      const auto in = generate<float>(dist::uniform, n, seed);
      const auto perm = oracle_perm(in, opts());
      const auto want = gather_bytes(in.data(), 4, perm);
      std::vector<float> k = in;
      std::vector<std::uint32_t> v(n);
      std::vector<v12> w(n);
      std::vector<std::uint64_t> idx(n);
      radix::sort_request rk = pairs_request(std::span<float>(k), std::span<std::uint32_t>(v), opts());
      rk.op = radix::operation::keys;
      rk.values = nullptr;
      rk.value_bytes = 0;
      radix::sort_request rp = pairs_request(std::span<float>(k), std::span<std::uint32_t>(v), opts());
      radix::sort_request rw = pairs_request(std::span<float>(k), std::span<v12>(w), opts());
      radix::sort_request ra = rk;
      ra.op = radix::operation::argsort;
      ra.indices = idx.data();
      ra.index_bytes = 8;
      struct {
        const char* name;
        radix::sort_request* req;
      } ops[] = {{"keys", &rk}, {"pairs<u32>", &rp}, {"pairs<v12>", &rw}, {"argsort<u64>", &ra}};
      for (auto& op : ops) {
        SCOPED_TRACE(op.name);
        const std::size_t need = radix::workspace_bytes(*op.req);
        EXPECT_GE(need, n * 4) << "a workspace holds at least one copy of the keys";
        guarded ws(need, 1, mis);
        radix::sorter s(std::span<std::byte>(ws.data(), need), opts());
        EXPECT_EQ(s.scratch_bytes(), need);
        k = in;
        std::iota(v.begin(), v.end(), 0u);
        for (std::size_t i = 0; i < n; ++i) w[i] = {std::uint32_t(i), std::uint32_t(i) * 7u, ~std::uint32_t(i)};
        const auto want_w = gather_bytes(w.data(), sizeof(v12), perm);
        std::fill(idx.begin(), idx.end(), 0xDEADBEEFDEADBEEFull);
        g_big_allocs = 0;
        g_counting = true;
        const std::string which = op.name;
        if (which == "keys") s.sort(std::span<float>(k));
        else if (which == "pairs<u32>") s.sort_pairs(std::span<float>(k), std::span<std::uint32_t>(v));
        else if (which == "pairs<v12>") s.sort_pairs(std::span<float>(k), std::span<v12>(w));
        else s.argsort(std::span<const float>(in), std::span<std::uint64_t>(idx));
        g_counting = false;
        EXPECT_EQ(g_big_allocs.load(), 0u) << "the engine allocated scratch memory although a workspace was given";
        EXPECT_TRUE(ws.canaries_intact()) << "the engine wrote outside the workspace";
        if (which == "argsort<u64>") {
          std::vector<std::uint64_t> p64(perm.begin(), perm.end());
          EXPECT_TRUE(same_bytes(idx.data(), p64.data(), 8, n, "indices"));
        } else {
          EXPECT_TRUE(same_bytes(k.data(), want.data(), 4, n, "keys"));
        }
        if (which == "pairs<u32>") {
          EXPECT_TRUE(same_bytes(v.data(), perm.data(), 4, n, "values"));
        }
        if (which == "pairs<v12>") {
          EXPECT_TRUE(same_bytes(w.data(), want_w.data(), sizeof(v12), n, "values"));
        }
      }
    }
}

/// One byte short: radix::out_of_memory, and keys, values and indices untouched.
TEST_P(Sorter, WorkspaceTooSmallThrowsAndLeavesDataAlone) {
  RADIX_SKIP_WITHOUT_HOST_SCRATCH();
  const std::size_t n = 5000;
  const auto in = generate<std::int64_t>(dist::uniform, n, case_seed("sorter-small"));
  std::vector<std::int64_t> k = in;
  std::vector<std::uint16_t> v(n);
  std::iota(v.begin(), v.end(), std::uint16_t(0));
  const auto v0 = v;
  std::vector<std::uint32_t> idx(n, 0xDEADBEEFu);
  radix::sort_request r;
  r.op = radix::operation::keys;
  r.key = radix::key_desc_of<std::int64_t>();
  r.n = n;
  r.keys = k.data();
  r.opts = opts();
  for (int op = 0; op < 3; ++op) {
    SCOPED_TRACE(op == 0 ? "keys" : op == 1 ? "pairs" : "argsort");
    radix::sort_request q = r;
    if (op == 1) {
      q.op = radix::operation::pairs;
      q.values = v.data();
      q.value_bytes = 2;
    } else if (op == 2) {
      q.op = radix::operation::argsort;
      q.indices = idx.data();
      q.index_bytes = 4;
    }
    const std::size_t need = radix::workspace_bytes(q);
    std::vector<std::byte> ws(need - 1);
    radix::sorter s(std::span<std::byte>(ws), opts());
    try {
      if (op == 0) s.sort(std::span<std::int64_t>(k));
      else if (op == 1) s.sort_pairs(std::span<std::int64_t>(k), std::span<std::uint16_t>(v));
      else s.argsort(std::span<const std::int64_t>(k), std::span<std::uint32_t>(idx));
      ADD_FAILURE() << "no exception with a workspace of " << need - 1 << " bytes (needs " << need << ")";
    } catch (const radix::out_of_memory& e) {
      EXPECT_NE(std::string(e.what()).find(std::to_string(need)), std::string::npos)
          << "the message should say how much is needed: " << e.what();
    } catch (const std::exception& e) {
      ADD_FAILURE() << "wrong exception type: " << e.what();
    }
    EXPECT_EQ(k, in) << "keys changed";
    EXPECT_EQ(v, v0) << "values changed";
    EXPECT_EQ(idx, std::vector<std::uint32_t>(n, 0xDEADBEEFu)) << "indices changed";
    // The free function behaves the same.
    EXPECT_THROW(radix::run(q, std::span<std::byte>(ws)), radix::out_of_memory);
    EXPECT_EQ(k, in) << "keys changed by radix::run";
  }
}

/// A workspace of zero bytes is still the caller's workspace: too small for
/// 5000 keys, so out_of_memory (not a silent allocation).
TEST_P(Sorter, EmptyWorkspaceIsTooSmall) {
  RADIX_SKIP_WITHOUT_HOST_SCRATCH();
  std::vector<std::uint32_t> k(5000);
  std::iota(k.rbegin(), k.rend(), 0u);
  const auto before = k;
  std::byte dummy[1];
  radix::sorter s(std::span<std::byte>(dummy, 0), opts());
  EXPECT_THROW(s.sort(std::span<std::uint32_t>(k)), radix::out_of_memory);
  EXPECT_EQ(k, before);
}

RADIX_CONFORMANCE_FOR_ALL_ENGINES_ONLY(Sorter);

}  // namespace
}  // namespace rt
