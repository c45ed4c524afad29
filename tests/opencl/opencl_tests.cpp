// OpenCL-engine tests (label opencl): the kernel codec against the C++ codec
// of src/core, each phase of a pass (histogram, scan, reorder) against a
// plain CPU twin at sizes around the work-group and row boundaries, the
// program cache, and the cl_mem API (workspace, errors). Random inputs come
// from printed seeds (RADIX_TEST_SEED). Without an OpenCL device every test
// skips and the binary exits 77.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <numeric>
#include <span>
#include <sstream>
#include <vector>

#include "opencl/cl_internal.hpp"
#include "radix/core/ordered_bits.hpp"
#include "radix/core/pass_plan.hpp"
#include "radix_test.hpp"

namespace ocl = radix::opencl;
namespace od = radix::opencl::detail;

namespace {

#define SKIP_WITHOUT_DEVICE()                                                             \
  if (!radix::engine_available(radix::engine::opencl)) GTEST_SKIP() << "no OpenCL device"; \
  od::host_device& dev = *od::default_device()

/// A device buffer for the tests.
struct buf {
  cl_mem m = nullptr;
  std::size_t bytes = 0;
  buf(od::host_device& d, std::size_t b) : bytes(std::max<std::size_t>(b, 1)) {
    cl_int err = CL_SUCCESS;
    m = clCreateBuffer(d.context, CL_MEM_READ_WRITE, bytes, nullptr, &err);
    od::check(err, "clCreateBuffer");
  }
  template <class T>
  buf(od::host_device& d, const std::vector<T>& v) : buf(d, v.size() * sizeof(T)) {
    if (!v.empty()) od::check(clEnqueueWriteBuffer(d.queue, m, CL_TRUE, 0, v.size() * sizeof(T), v.data(), 0, nullptr, nullptr), "write");
  }
  ~buf() { clReleaseMemObject(m); }
  template <class T>
  std::vector<T> read(od::host_device& d, std::size_t n) const {
    std::vector<T> v(n);
    if (n) od::check(clEnqueueReadBuffer(d.queue, m, CL_TRUE, 0, n * sizeof(T), v.data(), 0, nullptr, nullptr), "read");
    return v;
  }
};

void launch(od::host_device& d, od::kernel& k, std::size_t global, std::size_t local) {
  od::check(clEnqueueNDRangeKernel(d.queue, k.k, 1, nullptr, &global, &local, 0, nullptr, nullptr), "launch");
  od::check(clFinish(d.queue), "clFinish");
}

void set_codec(od::kernel& k, cl_uint at, const od::codec_args& c) {
  k.arg(at + 0, cl_ulong(c.pos_xor));
  k.arg(at + 1, cl_ulong(c.neg_xor));
  k.arg(at + 2, cl_ulong(c.flip));
  k.arg(at + 3, cl_ulong(c.nan_above));
  k.arg(at + 4, cl_int(c.canon));
}

// ---- the codec: one transform ------------------------------------------------------

template <class U>
void check_codec(od::host_device& dev, radix::key_desc key, const std::vector<U>& in) {
  const od::policy pol = od::policy_for(dev.info);
  cl_program p = od::get_program(dev.context, dev.info.device, pol, {int(sizeof(U)), 0, false});
  for (auto dir : {radix::order::ascending, radix::order::descending})
    for (auto fo : {radix::float_order::numeric, radix::float_order::total}) {
      const auto codec = radix::core::make_codec<U>(key, dir, fo);
      buf a(dev, in), b(dev, in.size() * sizeof(U));
      od::kernel k(p, "rx_ordered");
      k.arg(0, a.m);
      k.arg(1, b.m);
      k.arg(2, cl_ulong(in.size()));
      set_codec(k, 3, od::codec_for(key, dir, fo));
      launch(dev, k, 256, 64 <= dev.info.max_wg ? 64 : 1);
      const auto got = b.read<U>(dev, in.size());
      std::size_t bad = 0;
      for (std::size_t i = 0; i < in.size() && bad < 5; ++i)
        if (got[i] != codec(in[i])) {
          ++bad;
          ADD_FAILURE() << "kind " << int(key.kind) << " bytes " << int(key.bytes) << " dir " << dir << " floats " << fo
                        << ": key 0x" << std::hex << std::uint64_t(in[i]) << " -> kernel 0x" << std::uint64_t(got[i])
                        << ", core 0x" << std::uint64_t(codec(in[i]));
        }
    }
}

TEST(OpenclCodec, KernelMatchesCoreCodec) {
  SKIP_WITHOUT_DEVICE();
  std::vector<std::uint8_t> b8(256);
  std::iota(b8.begin(), b8.end(), 0);
  std::vector<std::uint16_t> b16(65536);
  std::iota(b16.begin(), b16.end(), 0);
  const std::uint64_t seed = rt::case_seed("opencl-codec");
  SCOPED_TRACE("seed " + rt::hex(seed));
  rt::rng r(seed);
  std::vector<std::uint32_t> b32;
  std::vector<std::uint64_t> b64;
  // Specials (zeros, infinities, NaNs, extremes) and random patterns.
  for (std::uint32_t s : {0u, 0x80000000u, 0x7F800000u, 0xFF800000u, 0x7FC00000u, 0xFFC00001u, 0x7F800001u, 1u,
                          0x7FFFFFFFu, 0xFFFFFFFFu})
    b32.push_back(s);
  for (std::uint64_t s : {0ull, 1ull << 63, 0x7FF0000000000000ull, 0xFFF0000000000000ull, 0x7FF8000000000000ull,
                          0xFFF0000000000001ull, ~0ull, 0x7FFFFFFFFFFFFFFFull})
    b64.push_back(s);
  for (int i = 0; i < 100000; ++i) {
    b32.push_back(std::uint32_t(r()));
    b64.push_back(r());
  }
  using radix::key_desc_of;
  check_codec(dev, key_desc_of<std::uint8_t>(), b8);
  check_codec(dev, key_desc_of<std::int8_t>(), b8);
  check_codec(dev, key_desc_of<std::uint16_t>(), b16);
  check_codec(dev, key_desc_of<std::int16_t>(), b16);
  check_codec(dev, key_desc_of<radix::float16>(), b16);
  check_codec(dev, key_desc_of<radix::bfloat16>(), b16);
  check_codec(dev, key_desc_of<std::uint32_t>(), b32);
  check_codec(dev, key_desc_of<std::int32_t>(), b32);
  check_codec(dev, key_desc_of<float>(), b32);
  check_codec(dev, key_desc_of<std::uint64_t>(), b64);
  check_codec(dev, key_desc_of<std::int64_t>(), b64);
  check_codec(dev, key_desc_of<double>(), b64);
}

// ---- one pass, phase by phase, against its CPU twin ------------------------------------

/// The readable twin of a pass (Helluy 2011, "A portable implementation of
/// the radix sort algorithm in OpenCL", §2): H(c, t) counts digit c in row t
/// (rows of `chunk` slots, linear layout); scanned in (c, t) order it gives
/// each row's first slot per digit; the reorder moves keys row by row, in order.
struct twin {
  std::vector<std::uint32_t> hist, scanned, out;
};
twin cpu_pass(const std::vector<std::uint32_t>& keys, std::uint64_t T, std::uint64_t chunk, int shift, int bits) {
  twin w;
  const std::uint64_t R = 1ull << bits;
  w.hist.assign(R * T, 0);
  auto digit = [&](std::uint32_t k) { return (k >> shift) & (R - 1); };
  for (std::uint64_t j = 0; j < keys.size(); ++j) w.hist[digit(keys[j]) * T + j / chunk]++;
  w.scanned.resize(w.hist.size());
  std::exclusive_scan(w.hist.begin(), w.hist.end(), w.scanned.begin(), 0u);
  auto next = w.scanned;
  w.out.resize(keys.size());
  for (std::uint64_t j = 0; j < keys.size(); ++j) w.out[next[digit(keys[j]) * T + j / chunk]++] = keys[j];
  return w;
}

TEST(OpenclPhases, HistogramScanReorderMatchTheirTwin) {
  SKIP_WITHOUT_DEVICE();
  const std::uint64_t seed = rt::case_seed("opencl-phases");
  SCOPED_TRACE("seed " + rt::hex(seed));
  rt::rng r(seed);
  for (unsigned items : {1u, 4u, 32u}) {
    if (items > dev.info.max_wg) continue;
    od::policy pol = od::policy_for(dev.info);
    pol.items = items;
    pol.scan_items = std::min<unsigned>(32, unsigned(dev.info.max_wg));
    cl_program p = od::get_program(dev.context, dev.info.device, pol, {4, 0, false});
    for (unsigned groups : {1u, 3u})
      for (int bits : {1, 4, 8})
        for (std::uint64_t n : {std::uint64_t(1), std::uint64_t(items * groups - 1), std::uint64_t(items * groups),
                                std::uint64_t(items * groups + 1), std::uint64_t(1000), std::uint64_t(4099)}) {
          if (n == 0) continue;
          const std::uint64_t T = std::uint64_t(items) * groups, chunk = (n + T - 1) / T;
          const int shift = bits == 8 ? 5 : 0;
          SCOPED_TRACE("items " + std::to_string(items) + " groups " + std::to_string(groups) + " bits " +
                       std::to_string(bits) + " n " + std::to_string(n));
          std::vector<std::uint32_t> keys(n);
          for (auto& k : keys) k = std::uint32_t(r());
          const twin want = cpu_pass(keys, T, chunk, shift, bits);
          const od::codec_args codec = od::codec_for(radix::key_desc_of<std::uint32_t>(), radix::order::ascending,
                                                     radix::float_order::numeric);
          const std::uint64_t len = (1ull << bits) * T;
          buf K(dev, keys), out(dev, n * 4), H(dev, len * 4), sums(dev, 64 * 4);
          od::kernel hk(p, "rx_histogram");
          hk.arg(0, K.m);
          hk.arg(1, cl_ulong(n));
          hk.arg(2, cl_ulong(chunk));
          hk.arg(3, cl_uint(0));
          set_codec(hk, 4, codec);
          hk.arg(9, cl_uint(shift));
          hk.arg(10, cl_uint(bits));
          hk.arg(11, H.m);
          hk.local(12, (std::size_t(1) << bits) * items * 4);
          hk.arg(13, cl_ulong(0));  // element offsets of keys and histogram
          hk.arg(14, cl_ulong(0));
          launch(dev, hk, T, items);
          EXPECT_EQ(H.read<std::uint32_t>(dev, len), want.hist) << "histogram";

          const unsigned parts = unsigned(std::min<std::uint64_t>(5, len));
          const std::uint64_t part = (len + parts - 1) / parts;
          od::kernel ss(p, "rx_scan_sums"), sp(p, "rx_scan_parts");
          ss.arg(0, H.m);
          ss.arg(1, cl_ulong(len));
          ss.arg(2, cl_ulong(part));
          ss.arg(3, sums.m);
          ss.local(4, pol.scan_items * 4);
          ss.arg(5, cl_ulong(0));
          ss.arg(6, cl_ulong(0));
          launch(dev, ss, std::size_t(parts) * pol.scan_items, pol.scan_items);
          sp.arg(0, H.m);
          sp.arg(1, cl_ulong(len));
          sp.arg(2, cl_ulong(part));
          sp.arg(3, sums.m);
          sp.local(4, pol.scan_items * 4);
          sp.arg(5, cl_ulong(0));
          sp.arg(6, cl_ulong(0));
          launch(dev, sp, std::size_t(parts) * pol.scan_items, pol.scan_items);
          EXPECT_EQ(H.read<std::uint32_t>(dev, len), want.scanned) << "scan";

          od::kernel rk(p, "rx_reorder");
          rk.arg(0, K.m);
          rk.arg(1, out.m);
          rk.arg(2, H.m);
          rk.arg(3, H.m);
          rk.arg(4, cl_ulong(n));
          rk.arg(5, cl_ulong(chunk));
          rk.arg(6, cl_uint(0));
          rk.arg(7, cl_uint(0));
          set_codec(rk, 8, codec);
          rk.arg(13, cl_uint(shift));
          rk.arg(14, cl_uint(bits));
          rk.arg(15, H.m);
          rk.arg(16, cl_uint(0));
          rk.local(17, (std::size_t(1) << bits) * items * 4);
          for (cl_uint a = 18; a <= 22; ++a) rk.arg(a, cl_ulong(0));
          launch(dev, rk, T, items);
          EXPECT_EQ(out.read<std::uint32_t>(dev, n), want.out) << "reorder";
        }
  }
}

// ---- whole sorts through the cl_mem API -----------------------------------------------

template <class K>
std::vector<K> sorted_copy(std::vector<K> v) {
  std::stable_sort(v.begin(), v.end());
  return v;
}

TEST(OpenclApi, KeysPairsArgsortOnBuffersWithAndWithoutWorkspace) {
  SKIP_WITHOUT_DEVICE();
  cl_command_queue q = ocl::host_queue();
  const std::uint64_t seed = rt::case_seed("opencl-api");
  SCOPED_TRACE("seed " + rt::hex(seed));
  rt::rng r(seed);
  for (std::size_t n : {std::size_t(2), std::size_t(777), std::size_t(70001)}) {
    SCOPED_TRACE("n " + std::to_string(n));
    std::vector<std::uint32_t> keys(n);
    for (auto& k : keys) k = std::uint32_t(r() % 1000);  // many equal keys: stability shows
    std::vector<std::uint32_t> perm(n);
    std::iota(perm.begin(), perm.end(), 0u);
    std::stable_sort(perm.begin(), perm.end(), [&](auto a, auto b) { return keys[a] < keys[b]; });
    const auto want = sorted_copy(keys);
    for (bool with_ws : {false, true}) {
      SCOPED_TRACE(with_ws ? "with workspace" : "without workspace");
      {  // keys
        buf K(dev, keys);
        const std::size_t wsb = ocl::sort_keys_workspace_bytes<std::uint32_t>(q, n);
        buf W(dev, wsb);
        if (with_ws) ocl::sort_keys<std::uint32_t>(K.m, n, W.m, wsb, q);
        else ocl::sort_keys<std::uint32_t>(K.m, n, q);
        EXPECT_EQ(K.read<std::uint32_t>(dev, n), want);
      }
      {  // pairs with native values and with 12-byte values (index + gather)
        struct v12 { std::uint32_t a, b, c; };
        std::vector<std::uint64_t> v8(n);
        std::vector<v12> w(n);
        for (std::size_t i = 0; i < n; ++i) {
          v8[i] = i * 3;
          w[i] = {std::uint32_t(i), ~std::uint32_t(i), 7};
        }
        buf K(dev, keys), V(dev, v8);
        const std::size_t wsb = ocl::sort_pairs_workspace_bytes<std::uint32_t, std::uint64_t>(q, n);
        buf W(dev, wsb);
        if (with_ws) ocl::sort_pairs<std::uint32_t, std::uint64_t>(K.m, V.m, n, W.m, wsb, q);
        else ocl::sort_pairs<std::uint32_t, std::uint64_t>(K.m, V.m, n, q);
        const auto got = V.read<std::uint64_t>(dev, n);
        for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(got[i], perm[i] * 3) << i;
        buf K2(dev, keys), V2(dev, w);
        const std::size_t wsb2 = ocl::sort_pairs_workspace_bytes<std::uint32_t, v12>(q, n);
        buf W2(dev, wsb2);
        if (with_ws) ocl::sort_pairs<std::uint32_t, v12>(K2.m, V2.m, n, W2.m, wsb2, q);
        else ocl::sort_pairs<std::uint32_t, v12>(K2.m, V2.m, n, q);
        const auto gw = V2.read<v12>(dev, n);
        for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(gw[i].a, perm[i]) << i;
        EXPECT_EQ(K2.read<std::uint32_t>(dev, n), want);
      }
      {  // argsort into 64-bit indices, keys untouched
        buf K(dev, keys), I(dev, n * 8);
        const std::size_t wsb = ocl::argsort_workspace_bytes<std::uint32_t, std::uint64_t>(q, n);
        buf W(dev, wsb);
        if (with_ws) ocl::argsort<std::uint32_t, std::uint64_t>(K.m, I.m, n, W.m, wsb, q);
        else ocl::argsort<std::uint32_t, std::uint64_t>(K.m, I.m, n, q);
        const auto got = I.read<std::uint64_t>(dev, n);
        for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(got[i], perm[i]) << i;
        EXPECT_EQ(K.read<std::uint32_t>(dev, n), keys);
      }
    }
  }
}

// ---- every path (Helluy's, the two local-sort GPU paths) across tile boundaries ---------

/// A reorder path with its tuning forced: local_sort 0 (Helluy), 1 (a tile per
/// group) or 2 (chunks of tiles per group; cs_groups=1 and small tiles make
/// every group walk many tiles; at_local: the sub-digit starts through local
/// memory (1) or picked by selects (0), policy::cs_at_local; count_groups: the
/// count kernel's groups per compute unit, fewer than cs_groups so that each
/// counts several chunks; scan_blocks: blocks of chunks in the chunked scan,
/// few so that each block has several rows).
struct path_config {
  unsigned mode = 0;
  unsigned cs_groups = 0, cs_keys = 0;  // 0: the device's policy
  int at_local = -1;                    // -1: the device's policy
  unsigned count_groups = 0;            // 0: the device's policy
  unsigned scan_blocks = 0;             // 0: the device's policy
  std::string name() const {
    return "local_sort=" + std::to_string(mode) + (cs_groups ? ",cs_groups=" + std::to_string(cs_groups) : "") +
           (cs_keys ? ",cs_keys=" + std::to_string(cs_keys) : "") +
           (at_local >= 0 ? ",cs_at_local=" + std::to_string(at_local) : "") +
           (count_groups ? ",cs_count_groups=" + std::to_string(count_groups) : "") +
           (scan_blocks ? ",cs_scan_blocks=" + std::to_string(scan_blocks) : "");
  }
};

od::queue_facts facts_for(od::host_device& dev, const path_config& c) {
  od::queue_facts f = od::facts_of(dev.queue);
  f.pol.local_sort = c.mode;
  if (c.cs_groups) f.pol.cs_groups = c.cs_groups;
  if (c.cs_keys) f.pol.cs_keys = c.cs_keys;
  if (c.at_local >= 0) f.pol.cs_at_local = unsigned(c.at_local);
  if (c.count_groups) f.pol.cs_count_groups = c.count_groups;
  if (c.scan_blocks) f.pol.cs_scan_blocks = c.scan_blocks;
  return f;
}

/// One sort through the engine with the path forced, on buffers: with
/// scratch of its own, or carved out of a workspace (by offsets) that is
/// poisoned first.
void sort_on_device(od::host_device& dev, const path_config& c, const radix::sort_request& req,
                    bool with_ws = false) {
  const od::queue_facts f = facts_for(dev, c);
  if (!with_ws) {
    od::sort_with(f, req, dev.queue, nullptr, 0, nullptr);
  } else {
    const std::size_t wsb = od::workspace_impl(f, req);
    std::vector<std::byte> junk(std::max<std::size_t>(wsb, 1));
    rt::poison(junk.data(), junk.size());
    buf W(dev, junk);
    od::sort_with(f, req, dev.queue, W.m, wsb, nullptr);
  }
  od::check(clFinish(dev.queue), "clFinish");
}

/// Tile size of a local-sort path for this request (keys per item that fit in
/// this device's local memory x items); Helluy's path: the row length.
std::uint64_t tile_of(od::host_device& dev, const path_config& c, const radix::sort_request& req) {
  const od::queue_facts f = facts_for(dev, c.mode == 0 ? path_config{1} : c);
  const od::geometry g = od::geometry_for(f, radix::core::plan_sort(req, od::device_caps()));
  return g.chunked ? std::uint64_t(f.pol.cs_items) * g.per_item : g.chunk;
}

std::vector<std::uint64_t> around_tiles(std::uint64_t t) { return {t - 1, t, t + 1, 3 * t + 1, 5 * t + t / 2, 37 * t + 5}; }

TEST(OpenclPaths, BothPathsMatchTheCpuEngineAcrossTileBoundaries) {
  SKIP_WITHOUT_DEVICE();
  const std::uint64_t seed = rt::case_seed("opencl-paths");
  SCOPED_TRACE("seed " + rt::hex(seed));
  rt::rng r(seed);
  radix::options cpu;
  cpu.use = radix::engine::cpu;
  for (const path_config ls :
       {path_config{0}, path_config{1}, path_config{2}, path_config{2, 1, 5, 0}, path_config{2, 1, 5, 1},
        path_config{2, 8, 5, 1, 1, 3}}) {
    SCOPED_TRACE(ls.name());
    {  // keys: u32 with many equal keys, 3 passes over a 24-bit range
      const auto t = tile_of(dev, ls, od::request<std::uint32_t>(radix::operation::keys, nullptr, 1000, {}));
      for (std::uint64_t n : around_tiles(t)) {
        SCOPED_TRACE("keys n " + std::to_string(n) + " tile " + std::to_string(t));
        std::vector<std::uint32_t> k(n);
        for (auto& x : k) x = std::uint32_t(r() % 5000) * 4099u;
        auto want = k;
        radix::sort(std::span<std::uint32_t>(want), cpu);
        for (bool ws : {false, true}) {
          SCOPED_TRACE(ws ? "workspace" : "own scratch");
          buf K(dev, k);
          sort_on_device(dev, ls, od::request<std::uint32_t>(radix::operation::keys, K.m, n, {}), ws);
          ASSERT_EQ(K.read<std::uint32_t>(dev, n), want);
        }
      }
    }
    {  // keys: float descending (codec in the kernels), one pass (bit range of 8 bits)
      radix::options o;
      o.direction = radix::order::descending;
      const auto t = tile_of(dev, ls, od::request<float>(radix::operation::keys, nullptr, 1000, o));
      for (int bits : {8, 32}) {
        o.begin_bit = 32 - bits;
        for (std::uint64_t n : around_tiles(t)) {
          SCOPED_TRACE("float n " + std::to_string(n) + " bits " + std::to_string(bits));
          std::vector<float> k(n);
          for (auto& x : k) x = float(int(r() % 2001) - 1000) * 0.37f;
          auto want = k;
          radix::options oc = o;
          oc.use = radix::engine::cpu;
          radix::sort(std::span<float>(want), oc);
          buf K(dev, k);
          sort_on_device(dev, ls, od::request<float>(radix::operation::keys, K.m, n, o));
          const auto got = K.read<float>(dev, n);
          for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(std::bit_cast<std::uint32_t>(got[i]), std::bit_cast<std::uint32_t>(want[i])) << i;
        }
      }
    }
    {  // pairs: u16 keys (2 passes) with 8-byte values: stability shows in the values
      const auto t = tile_of(dev, ls, od::pairs_request<std::uint16_t, std::uint64_t>(nullptr, nullptr, 1000, {}));
      for (std::uint64_t n : around_tiles(t)) {
        SCOPED_TRACE("pairs n " + std::to_string(n) + " tile " + std::to_string(t));
        std::vector<std::uint16_t> k(n);
        std::vector<std::uint64_t> v(n);
        for (std::size_t i = 0; i < n; ++i) {
          k[i] = std::uint16_t(r() % 300 * 211);
          v[i] = i * 0x9e3779b97f4a7c15ull;
        }
        auto wk = k;
        auto wv = v;
        radix::sort_pairs(std::span<std::uint16_t>(wk), std::span<std::uint64_t>(wv), cpu);
        for (bool ws : {false, true}) {
          SCOPED_TRACE(ws ? "workspace" : "own scratch");
          buf K(dev, k), V(dev, v);
          sort_on_device(dev, ls, od::pairs_request<std::uint16_t, std::uint64_t>(K.m, V.m, n, {}), ws);
          ASSERT_EQ(K.read<std::uint16_t>(dev, n), wk);
          ASSERT_EQ(V.read<std::uint64_t>(dev, n), wv);
        }
      }
    }
    {  // argsort: i64 keys into 32-bit indices (8 passes), keys untouched
      const auto t = tile_of(dev, ls, od::argsort_request<std::int64_t, std::uint32_t>(nullptr, nullptr, 1000, {}));
      for (std::uint64_t n : around_tiles(t)) {
        SCOPED_TRACE("argsort n " + std::to_string(n) + " tile " + std::to_string(t));
        std::vector<std::int64_t> k(n);
        for (auto& x : k) x = std::int64_t(r() % 777) - 388 + (std::int64_t(r() % 3) << 40);
        std::vector<std::uint32_t> want(n);
        radix::argsort(std::span<const std::int64_t>(k), std::span<std::uint32_t>(want), cpu);
        for (bool ws : {false, true}) {
          SCOPED_TRACE(ws ? "workspace" : "own scratch");
          buf K(dev, k), I(dev, n * 4);
          sort_on_device(dev, ls, od::argsort_request<std::int64_t, std::uint32_t>(K.m, I.m, n, {}), ws);
          ASSERT_EQ(I.read<std::uint32_t>(dev, n), want);
          ASSERT_EQ(K.read<std::int64_t>(dev, n), k);
        }
      }
    }
  }
}

/// Keys (vb == 0) or pairs of unsigned keys of kb bytes and values of vb bytes.
radix::sort_request width_request(std::size_t kb, std::size_t vb) {
  radix::sort_request req;
  req.op = vb ? radix::operation::pairs : radix::operation::keys;
  req.key = kb == 1 ? radix::key_desc_of<std::uint8_t>() : kb == 2 ? radix::key_desc_of<std::uint16_t>()
            : kb == 4 ? radix::key_desc_of<std::uint32_t>() : radix::key_desc_of<std::uint64_t>();
  req.value_bytes = vb;
  return req;
}

/// The policy's local_sort field: printed, and parsed from RADIX_OPENCL_POLICY.
TEST(OpenclPaths, LocalSortGeometryFitsLocalMemory) {
  SKIP_WITHOUT_DEVICE();
  od::queue_facts f = od::facts_of(dev.queue);
  f.pol.local_sort = 1;
  // A 48 KB device (the H100's OpenCL limit): every key x value width fits.
  f.info.local_mem = 48 * 1024;
  for (std::size_t kb : {1, 2, 4, 8})
    for (std::size_t vb : {0, 1, 2, 4, 8}) {
      radix::sort_request req = width_request(kb, vb);
      req.n = 1 << 20;
      const od::geometry g = od::geometry_for(f, radix::core::plan_sort(req, od::device_caps()));
      SCOPED_TRACE("kb " + std::to_string(kb) + " vb " + std::to_string(vb));
      EXPECT_TRUE(g.local_sort);
      EXPECT_GE(g.per_item, 1u);
      EXPECT_LT(g.chunk, 65536u);
      EXPECT_EQ(g.chunk, std::uint64_t(f.pol.ls_items) * g.per_item);
      EXPECT_LE(od::local_sort_bytes(g.digit_bits, f.pol.ls_items, g.per_item, kb, vb, g.wide), f.info.local_mem);
    }
  std::ostringstream s;
  s << f.pol;
  EXPECT_NE(s.str().find("local_sort=1"), std::string::npos);
}

/// The chunked path: every key x value width fits a 48 KB device with whole
/// tiles per group, and the digit is capped at 8 bits (two 4-bit sub-digits).
/// The sub-digit starts in local memory (cs_at_local) take 8 KB more a group.
TEST(OpenclPaths, ChunkedGeometryFitsLocalMemory) {
  SKIP_WITHOUT_DEVICE();
  od::queue_facts f = od::facts_of(dev.queue);
  f.pol.local_sort = 2;
  f.pol.cs_items = 256;  // the default, whatever RADIX_OPENCL_POLICY says (the bound below is for 256 items)
  f.info.local_mem = 48 * 1024;
  for (unsigned at_local : {0u, 1u}) {
    f.pol.cs_at_local = at_local;
    for (std::size_t kb : {1, 2, 4, 8})
      for (std::size_t vb : {0, 1, 2, 4, 8}) {
        radix::sort_request req = width_request(kb, vb);
        req.n = (1 << 24) + 7;
        req.opts.digit_bits = 11;
        const od::geometry g = od::geometry_for(f, radix::core::plan_sort(req, od::device_caps()));
        SCOPED_TRACE("kb " + std::to_string(kb) + " vb " + std::to_string(vb) + " at_local " +
                     std::to_string(at_local));
        EXPECT_TRUE(g.chunked);
        EXPECT_EQ(g.digit_bits, 8);
        // 256 x 7 keys or more at every width; 6 for 16-byte pairs with the starts in local memory
        EXPECT_GE(g.per_item, at_local && kb + vb == 16 ? 6u : 7u);
        const std::uint64_t tile = std::uint64_t(f.pol.cs_items) * g.per_item;
        EXPECT_EQ(g.chunk % tile, 0u);
        EXPECT_GE(g.items * g.chunk, req.n);
        EXPECT_LT((g.items - 1) * g.chunk, req.n);
        EXPECT_LE(od::chunked_local_bytes(f.pol.cs_items, g.per_item, kb, vb, g.wide, at_local != 0),
                  f.info.local_mem);
      }
  }
}

/// radix::opencl::sorter: results like the free functions (poisoned buffers
/// checked element by element against the CPU engine), a workspace that only
/// grows, sorts after reserve() that create no buffer, and errors.
TEST(OpenclApi, SorterKeepsItsWorkspace) {
  SKIP_WITHOUT_DEVICE();
  cl_command_queue q = ocl::host_queue();
  const std::uint64_t seed = rt::case_seed("opencl-sorter");
  SCOPED_TRACE("seed " + rt::hex(seed));
  rt::rng r(seed);
  radix::options cpu;
  cpu.use = radix::engine::cpu;
  ocl::sorter s(q);
  EXPECT_EQ(s.scratch_bytes(), 0u);
  std::size_t held = 0;
  for (std::size_t n : {std::size_t(1000), std::size_t(50001), std::size_t(3), std::size_t(20000)}) {
    SCOPED_TRACE("n " + std::to_string(n));
    std::vector<float> k(n);
    for (auto& x : k) x = float(int(r() % 3001) - 1500) * 0.25f;
    std::vector<std::uint32_t> v(n);
    std::iota(v.begin(), v.end(), 0u);
    {  // keys, descending floats
      radix::options o;
      o.direction = radix::order::descending;
      auto want = k;
      radix::options oc = o;
      oc.use = radix::engine::cpu;
      radix::sort(std::span<float>(want), oc);
      buf K(dev, k);
      s.sort_keys<float>(K.m, n, o);
      const auto got = K.read<float>(dev, n);
      for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(std::bit_cast<std::uint32_t>(got[i]), std::bit_cast<std::uint32_t>(want[i])) << i;
    }
    {  // pairs and argsort
      auto wk = k;
      auto wv = v;
      radix::sort_pairs(std::span<float>(wk), std::span<std::uint32_t>(wv), cpu);
      buf K(dev, k), V(dev, v);
      s.sort_pairs<float, std::uint32_t>(K.m, V.m, n);
      EXPECT_EQ(V.read<std::uint32_t>(dev, n), wv);
      std::vector<std::uint64_t> junk(n);
      rt::poison(junk.data(), junk.size() * sizeof(std::uint64_t));
      buf K2(dev, k), I(dev, junk);
      s.argsort<float, std::uint64_t>(K2.m, I.m, n);
      const auto idx = I.read<std::uint64_t>(dev, n);
      for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(idx[i], wv[i]) << i;
    }
    EXPECT_GE(s.scratch_bytes(), held);  // never shrinks
    held = s.scratch_bytes();
  }
  // After reserve() for the largest request, smaller sorts keep the same buffer.
  s.reserve(od::pairs_request<float, std::uint32_t>(nullptr, nullptr, 100000, {}));
  const std::size_t big = s.scratch_bytes();
  EXPECT_GE(big, (ocl::sort_pairs_workspace_bytes<float, std::uint32_t>(q, 100000)));
  {
    std::vector<std::uint32_t> keys(777);
    for (auto& x : keys) x = std::uint32_t(r());
    auto want = keys;
    std::sort(want.begin(), want.end());
    buf K(dev, keys);
    s.sort_keys<std::uint32_t>(K.m, keys.size());
    EXPECT_EQ(K.read<std::uint32_t>(dev, keys.size()), want);
    EXPECT_EQ(s.scratch_bytes(), big);
  }
  // Errors: as the free functions; a moved-from sorter refuses to sort.
  buf K(dev, std::vector<std::uint32_t>(10, 1));
  EXPECT_THROW(s.sort_keys<std::uint64_t>(K.m, std::uint64_t(1) << 44), radix::out_of_memory);
  EXPECT_THROW(s.sort_keys<std::uint32_t>(nullptr, 10), radix::invalid_argument);
  ocl::sorter t(std::move(s));
  EXPECT_EQ(t.scratch_bytes(), big);
  EXPECT_THROW(s.sort_keys<std::uint32_t>(K.m, 10), radix::invalid_argument);  // NOLINT(bugprone-use-after-move)
  EXPECT_THROW((void)ocl::sorter(nullptr), radix::invalid_argument);
}

TEST(OpenclApi, Errors) {
  SKIP_WITHOUT_DEVICE();
  cl_command_queue q = ocl::host_queue();
  std::vector<std::uint32_t> keys(1000, 5);
  buf K(dev, keys);
  // A workspace smaller than asked for: out_of_memory, keys untouched.
  const std::size_t wsb = ocl::sort_keys_workspace_bytes<std::uint32_t>(q, keys.size());
  buf W(dev, wsb / 2);
  EXPECT_THROW(ocl::sort_keys<std::uint32_t>(K.m, keys.size(), W.m, wsb / 2, q), radix::out_of_memory);
  // More scratch than the device has: out_of_memory before anything is enqueued.
  EXPECT_THROW(ocl::sort_keys<std::uint64_t>(K.m, std::uint64_t(1) << 44, q), radix::out_of_memory);
  // Bad options: invalid_argument.
  radix::options o;
  o.begin_bit = 40;
  EXPECT_THROW(ocl::sort_keys<std::uint32_t>(K.m, keys.size(), q, o), radix::invalid_argument);
  EXPECT_THROW(ocl::sort_keys<std::uint32_t>(nullptr, keys.size(), q), radix::invalid_argument);
  // Segments on buffers: refused by name (a buffer sort would ignore them).
  radix::sort_request seg;
  seg.op = radix::operation::keys;
  seg.key = radix::key_desc_of<std::uint32_t>();
  seg.n = keys.size();
  seg.keys = K.m;
  seg.segs = radix::segments::uniform(10, 100);
  try {
    ocl::sort(seg, q);
    ADD_FAILURE() << "a segmented request on a buffer was accepted";
  } catch (const radix::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("sorts buffers whole"), std::string::npos) << e.what();
  }
  // An out-of-order queue is refused (when the device offers one).
  cl_int err = CL_SUCCESS;
  cl_command_queue ooo =
      clCreateCommandQueue(dev.context, dev.info.device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &err);
  if (err == CL_SUCCESS) {
    EXPECT_THROW(ocl::sort_keys<std::uint32_t>(K.m, keys.size(), ooo), radix::invalid_argument);
    clReleaseCommandQueue(ooo);
  }
  EXPECT_EQ(K.read<std::uint32_t>(dev, keys.size()), keys);
}

// ---- the program cache -------------------------------------------------------------------

TEST(OpenclPrograms, CachedPerDeviceAndOptions) {
  SKIP_WITHOUT_DEVICE();
  (void)dev;
  std::vector<std::uint16_t> k(5000);
  for (std::size_t i = 0; i < k.size(); ++i) k[i] = std::uint16_t(i * 7919);
  radix::options o;
  o.use = radix::engine::opencl;
  auto a = k;
  radix::sort(std::span<std::uint16_t>(a), o);  // builds (or finds) the program for 2-byte keys
  const std::size_t built = od::programs_built();
  for (int rep = 0; rep < 3; ++rep) {
    auto b = k;
    o.direction = rep % 2 ? radix::order::descending : radix::order::ascending;
    o.end_bit = 12 + rep;
    radix::sort(std::span<std::uint16_t>(b), o);  // runtime arguments only: no new build
  }
  EXPECT_EQ(od::programs_built(), built) << "options that are kernel arguments must not build programs";
  // A different value width is a different program.
  std::vector<std::uint16_t> v(k.size());
  auto c = k;
  o = {};
  o.use = radix::engine::opencl;
  radix::sort_pairs(std::span<std::uint16_t>(c), std::span<std::uint16_t>(v), o);
  EXPECT_LE(od::programs_built(), built + 1);
  EXPECT_NE(od::build_options(od::policy_for(dev.info), {2, 0, false}),
            od::build_options(od::policy_for(dev.info), {2, 2, false}));
}

/// The 64-bit-position variant (more than 2^32 - 1 slots) is only used for huge
/// inputs: at least check that every key width of it compiles on this device.
TEST(OpenclPrograms, WidePositionVariantsBuild) {
  SKIP_WITHOUT_DEVICE();
  for (int kb : {1, 2, 4, 8})
    for (int vb : {0, 4, 8})
      EXPECT_NE(od::get_program(dev.context, dev.info.device, od::policy_for(dev.info), {kb, vb, true}), nullptr)
          << "key bytes " << kb << " value bytes " << vb;
}

TEST(OpenclInfo, PolicyPrintsAndEngineInfoNamesTheDevice) {
  SKIP_WITHOUT_DEVICE();
  std::ostringstream s;
  s << od::policy_for(dev.info);
  EXPECT_NE(s.str().find("groups="), std::string::npos);
  EXPECT_NE(ocl::engine_info().find(dev.info.device_name), std::string::npos);
  // engine::automatic never picks OpenCL.
  EXPECT_NE(radix::default_engine(), radix::engine::opencl);
}

}  // namespace
