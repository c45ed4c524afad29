// Record sorting, column sorting, the gather and wide keys on the CUDA engine
// (Ha, Krüger & Silva 2009, "Fast 4-way parallel radix sorting on GPUs",
// §4.7), against the CPU engine (itself checked against
// std::stable_sort by the conformance suite) and, for byte-string keys,
// against std::stable_sort with memcmp directly. Record sizes 1 to 256
// bytes, record arrays at misaligned addresses, keys at every offset kind,
// in place and out of place. Outputs are poisoned first.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "harness.hpp"
#include "radix/cuda.hpp"
#include "radix/cuda_records.cuh"
#include "radix/radix.hpp"

using namespace radix;

namespace {



/// Device bytes with `skew` bytes of slack in front (misaligned arrays).
struct dbytes {
  unsigned char* base = nullptr;
  std::size_t skew = 0, n = 0;
  dbytes(std::size_t bytes, std::size_t skew_) : skew(skew_), n(bytes) {
    CU(cudaMalloc(&base, bytes + skew + 16));
    CU(cudaMemset(base, 0xA5, bytes + skew + 16));  // poison
  }
  ~dbytes() { cudaFree(base); }
  unsigned char* p() const { return base + skew; }
  void up(const std::vector<unsigned char>& h) { CU(cudaMemcpy(p(), h.data(), h.size(), cudaMemcpyHostToDevice)); }
  std::vector<unsigned char> down() const {
    std::vector<unsigned char> h(n);
    CU(cudaMemcpy(h.data(), p(), n, cudaMemcpyDeviceToHost));
    return h;
  }
};

/// Records whose keys repeat (few unique) when `dups`, so stability shows.
std::vector<unsigned char> make_records(std::size_t n, std::size_t rb, std::uint64_t seed, bool dups) {
  std::vector<unsigned char> r(n * rb);
  std::uint64_t s = seed;
  for (std::size_t i = 0; i < n * rb; ++i) r[i] = static_cast<unsigned char>(splitmix(s));
  if (dups)
    for (std::size_t i = 0; i < n * rb; ++i) r[i] &= 0x3;
  return r;
}

std::string desc(std::size_t rb, std::size_t n, std::size_t skew, const record_key& k, bool in_place) {
  return "record_bytes=" + std::to_string(rb) + " n=" + std::to_string(n) + " skew=" + std::to_string(skew) +
         " key_offset=" + std::to_string(k.offset) + " key_bytes=" + std::to_string(k.type.bytes) +
         " kind=" + std::to_string(int(k.type.kind)) + (k.big_endian ? " be" : "") + (in_place ? " in_place" : "");
}

void check_records(std::size_t rb, std::size_t n, std::size_t skew, const record_key& k, bool in_place, bool dups,
                   options o = {}) {
  const auto h = make_records(n, rb, rb * 131 + n + skew, dups);
  auto ref = h;
  options c = o;
  c.use = engine::cpu;
  radix::sort_records(ref.data(), rb, n, k, c);
  dbytes in(n * rb, skew), out(n * rb, (skew + 1) % 4);
  in.up(h);
  o.use = engine::cuda;
  const auto p = in_place ? radix::cuda::placement::in_place : radix::cuda::placement::out_of_place;
  const std::size_t wsb = radix::cuda::sort_records_workspace_bytes(rb, n, k, o, p);
  unsigned char* ws = nullptr;
  if (wsb) CU(cudaMalloc(&ws, wsb));
  radix::cuda::sort_records(in.p(), in_place ? in.p() : out.p(), rb, n, k, ws, wsb, 0, o);
  CU(cudaDeviceSynchronize());
  if (ws) cudaFree(ws);
  const auto got = in_place ? in.down() : out.down();
  CHECK_MSG(got == ref, "records %s", desc(rb, n, skew, k, in_place).c_str());
  if (!in_place) CHECK_MSG(in.down() == h, "input modified %s", desc(rb, n, skew, k, in_place).c_str());
}

const std::size_t kRecordSizes[] = {1, 3, 4, 7, 8, 12, 16, 24, 100, 256};
const std::size_t kCounts[] = {0, 1, 2, 37, 7679, 7681, 70001};

}  // namespace

TEST_CASE(records_sizes_and_alignments, false) {
  for (std::size_t rb : kRecordSizes) {
    for (std::size_t n : kCounts) {
      for (std::size_t skew : {std::size_t(0), std::size_t(1), std::size_t(3)}) {
        // a 1-byte key at the end, a u32 or u16 in the middle, a byte string at the front
        check_records(rb, n, skew, record_key{rb - 1, key_desc_of<std::uint8_t>(), false}, skew == 1, true);
        if (rb >= 4) check_records(rb, n, skew, record_key{rb / 2, key_desc_of<std::uint16_t>(), false}, false, true);
        if (rb >= 8) check_records(rb, n, skew, record_key{rb - 8, key_desc_of<std::uint32_t>(), true}, skew == 0, false);
        check_records(rb, n, skew, record_key{0, byte_key_desc(std::min<std::size_t>(rb, 10)), false}, skew == 3, true);
      }
    }
  }
}

TEST_CASE(records_key_types, false) {
  const std::size_t n = 20011;
  for (bool in_place : {false, true}) {
    check_records(100, n, 0, record_key{0, byte_key_desc(10), false}, in_place, false);
    check_records(100, n, 2, record_key{3, byte_key_desc(10), false}, in_place, true);
    check_records(64, n, 0, record_key{16, key_desc_of<float>(), false}, in_place, false);
    check_records(24, n, 0, record_key{8, key_desc_of<double>(), false}, in_place, false);
    check_records(24, n, 1, record_key{5, key_desc_of<std::int64_t>(), true}, in_place, false);
    check_records(12, n, 0, record_key{2, key_desc_of<std::int16_t>(), false}, in_place, true);
    check_records(40, n, 0, record_key{7, byte_key_desc(33), false}, in_place, true);
    check_records(256, n, 0, record_key{100, byte_key_desc(32), false}, in_place, true);
    options d;
    d.direction = order::descending;
    check_records(100, n, 0, record_key{0, byte_key_desc(10), false}, in_place, true, d);
    options r;
    r.begin_bit = 4;
    r.end_bit = 70;
    check_records(100, n, 1, record_key{0, byte_key_desc(10), false}, in_place, true, r);
    options f;
    f.end_bit = 0;  // empty range: nothing moves
    check_records(16, n, 0, record_key{0, key_desc_of<std::uint32_t>(), false}, in_place, false, f);
  }
}

TEST_CASE(records_small, true) {
  // the sanitizer set: every record kernel on small inputs
  for (std::size_t rb : {std::size_t(3), std::size_t(16), std::size_t(100)})
    for (bool in_place : {false, true}) {
      check_records(rb, 1000, 1, record_key{0, byte_key_desc(std::min<std::size_t>(rb, 10)), false}, in_place, true);
      check_records(rb, 1000, 0, record_key{rb - 2, key_desc_of<std::uint16_t>(), false}, in_place, true);
    }
}

/// Byte-string keys against std::stable_sort with memcmp (not the CPU engine).
template <std::size_t L>
void check_byte_keys_independent(std::size_t n, bool dups) {
  using K = byte_key<L>;
  std::vector<K> keys(n);
  std::uint64_t s = 1234 + L;
  for (auto& k : keys)
    for (std::size_t j = 0; j < L; ++j) k.b[j] = static_cast<unsigned char>(dups ? splitmix(s) & 1 : splitmix(s));
  std::vector<std::uint32_t> want(n);
  std::iota(want.begin(), want.end(), 0u);
  std::stable_sort(want.begin(), want.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return std::memcmp(keys[a].b, keys[b].b, L) < 0; });
  K* dk = nullptr;
  std::uint32_t* di = nullptr;
  CU(cudaMalloc(&dk, n * sizeof(K) + 1));
  CU(cudaMalloc(&di, n * 4 + 1));
  CU(cudaMemcpy(dk, keys.data(), n * sizeof(K), cudaMemcpyHostToDevice));
  CU(cudaMemset(di, 0xFF, n * 4));
  radix::cuda::argsort(static_cast<const K*>(dk), di, n);
  std::vector<std::uint32_t> got(n);
  CU(cudaMemcpy(got.data(), di, n * 4, cudaMemcpyDeviceToHost));
  CHECK_MSG(got == want, "byte_key<%zu> argsort n=%zu dups=%d", L, n, int(dups));
  // keys sorted in place land in the caller's buffer
  radix::cuda::sort_keys(dk, n);
  std::vector<K> sorted(n);
  CU(cudaMemcpy(sorted.data(), dk, n * sizeof(K), cudaMemcpyDeviceToHost));
  bool ok = true;
  for (std::size_t i = 0; i < n; ++i) ok &= std::memcmp(sorted[i].b, keys[want[i]].b, L) == 0;
  CHECK_MSG(ok, "byte_key<%zu> keys n=%zu", L, n);
  cudaFree(dk);
  cudaFree(di);
}

TEST_CASE(wide_keys_vs_memcmp, true) {
  for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(100), std::size_t(7681), std::size_t(50000)}) {
    check_byte_keys_independent<3>(n, true);
    check_byte_keys_independent<10>(n, false);
    check_byte_keys_independent<10>(n, true);
    check_byte_keys_independent<17>(n, true);
    check_byte_keys_independent<32>(n, false);
  }
}

/// Wide keys through the device API vs the CPU engine: pairs, descending, ranges.
TEST_CASE(wide_keys_pairs_and_options, false) {
  using K = byte_key<10>;
  const std::size_t n = 100003;
  std::vector<K> keys(n);
  std::vector<std::uint64_t> vals(n);
  std::uint64_t s = 99;
  for (std::size_t i = 0; i < n; ++i) {
    for (auto& b : keys[i].b) b = static_cast<unsigned char>(splitmix(s) & 7);
    vals[i] = i;
  }
  for (int variant = 0; variant < 3; ++variant) {
    options o;
    if (variant == 1) o.direction = order::descending;
    if (variant == 2) {
      o.begin_bit = 9;
      o.end_bit = 75;
    }
    auto rk = keys;
    auto rv = vals;
    options c = o;
    c.use = engine::cpu;
    radix::sort_pairs(std::span<K>(rk), std::span<std::uint64_t>(rv), c);
    K* dk = nullptr;
    std::uint64_t* dv = nullptr;
    CU(cudaMalloc(&dk, n * sizeof(K)));
    CU(cudaMalloc(&dv, n * 8));
    CU(cudaMemcpy(dk, keys.data(), n * sizeof(K), cudaMemcpyHostToDevice));
    CU(cudaMemcpy(dv, vals.data(), n * 8, cudaMemcpyHostToDevice));
    const std::size_t wsb = radix::cuda::sort_pairs_workspace_bytes<K, std::uint64_t>(n, o);
    void* ws = nullptr;
    CU(cudaMalloc(&ws, wsb));
    radix::cuda::sort_pairs(dk, dv, n, ws, wsb, 0, o);
    std::vector<K> gk(n);
    std::vector<std::uint64_t> gv(n);
    CU(cudaMemcpy(gk.data(), dk, n * sizeof(K), cudaMemcpyDeviceToHost));
    CU(cudaMemcpy(gv.data(), dv, n * 8, cudaMemcpyDeviceToHost));
    CHECK_MSG(gv == rv, "byte_key<10> pairs values variant %d", variant);
    CHECK_MSG(std::memcmp(gk.data(), rk.data(), n * sizeof(K)) == 0, "byte_key<10> pairs keys variant %d", variant);
    cudaFree(dk);
    cudaFree(dv);
    cudaFree(ws);
  }
}

TEST_CASE(gather_every_width, true) {
  for (std::size_t rb : kRecordSizes) {
    for (std::size_t n : {std::size_t(1), std::size_t(33), std::size_t(5000)}) {
      const auto h = make_records(n, rb, rb + n, false);
      std::vector<std::uint64_t> perm(n);
      std::iota(perm.begin(), perm.end(), 0ull);
      std::uint64_t s = rb;
      for (std::size_t i = n; i > 1; --i) std::swap(perm[i - 1], perm[splitmix(s) % i]);
      std::vector<unsigned char> want(n * rb);
      for (std::size_t i = 0; i < n; ++i) std::memcpy(&want[i * rb], &h[perm[i] * rb], rb);
      for (int ib : {4, 8}) {
        dbytes in(n * rb, rb % 4), out(n * rb, 0), dp(n * ib, 0);
        in.up(h);
        std::vector<unsigned char> pb(n * ib);
        for (std::size_t i = 0; i < n; ++i) {
          if (ib == 4) {
            const auto v = std::uint32_t(perm[i]);
            std::memcpy(&pb[i * 4], &v, 4);
          } else {
            std::memcpy(&pb[i * 8], &perm[i], 8);
          }
        }
        dp.up(pb);
        radix::cuda::gather(in.p(), out.p(), rb, dp.p(), ib, n);
        CU(cudaDeviceSynchronize());
        CHECK_MSG(out.down() == want, "gather rb=%zu n=%zu ib=%d", rb, n, ib);
      }
    }
  }
}

TEST_CASE(columns_soa, true) {
  for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(999), std::size_t(70001)}) {
    std::vector<std::uint32_t> keys(n);
    std::uint64_t s = n + 5;
    for (auto& k : keys) k = std::uint32_t(splitmix(s) % 1000);
    const auto c1 = make_records(n, 12, 1, false), c2 = make_records(n, 3, 2, false);
    // reference: the stable permutation by key
    std::vector<std::uint32_t> perm(n);
    std::iota(perm.begin(), perm.end(), 0u);
    std::stable_sort(perm.begin(), perm.end(), [&](std::uint32_t a, std::uint32_t b) { return keys[a] < keys[b]; });
    std::vector<unsigned char> w1(n * 12), w2(n * 3);
    std::vector<std::uint32_t> wk(n);
    for (std::size_t i = 0; i < n; ++i) {
      std::memcpy(&w1[i * 12], &c1[perm[i] * 12], 12);
      std::memcpy(&w2[i * 3], &c2[perm[i] * 3], 3);
      wk[i] = keys[perm[i]];
    }
    dbytes dk(n * 4, 0), d1(n * 12, 0), d2in(n * 3, 1), d2out(n * 3, 2);
    std::vector<unsigned char> kb(n * 4);
    std::memcpy(kb.data(), keys.data(), n * 4);
    dk.up(kb);
    d1.up(c1);
    d2in.up(c2);
    const radix::cuda::column cols[2] = {{d1.p(), d1.p(), 12}, {d2in.p(), d2out.p(), 3}};
    const std::size_t wsb = radix::cuda::sort_columns_workspace_bytes<std::uint32_t>(n, cols, 2);
    void* ws = nullptr;
    if (wsb) CU(cudaMalloc(&ws, wsb));
    radix::cuda::sort_columns(reinterpret_cast<std::uint32_t*>(dk.p()), n, cols, 2, ws, wsb);
    CU(cudaDeviceSynchronize());
    if (ws) cudaFree(ws);
    std::vector<unsigned char> wkb(n * 4);
    std::memcpy(wkb.data(), wk.data(), n * 4);
    CHECK_MSG(dk.down() == wkb, "columns keys n=%zu", n);
    CHECK_MSG(d1.down() == w1, "columns in place n=%zu", n);
    CHECK_MSG(d2out.down() == w2, "columns out of place n=%zu", n);
    CHECK_MSG(d2in.down() == c2, "columns input modified n=%zu", n);
  }
}

TEST_CASE(records_errors, true) {
  dbytes a(1000, 0);
  bool threw = false;
  try {
    radix::cuda::sort_records(a.p(), a.p() + 10, 10, 100, record_key{0, key_desc_of<std::uint32_t>(), false}, nullptr, 0);
  } catch (const radix::invalid_argument& e) {
    threw = std::string(e.what()).find("overlap") != std::string::npos;
  }
  CHECK_MSG(threw, "overlapping input and output must be rejected");
  threw = false;
  try {
    radix::cuda::sort_records(a.p(), 10, 100, record_key{8, key_desc_of<std::uint32_t>(), false});
  } catch (const radix::invalid_argument& e) {
    threw = std::string(e.what()).find("does not fit") != std::string::npos;
  }
  CHECK_MSG(threw, "a key outside the record must be rejected");
  threw = false;
  try {
    radix::cuda::sort_records(a.p(), a.p(), 10, 100, record_key{0, key_desc_of<std::uint32_t>(), false}, nullptr, 4, 0, {});
  } catch (const radix::out_of_memory&) {
    threw = true;
  } catch (const radix::invalid_argument&) {
    threw = true;
  }
  CHECK_MSG(threw, "a too-small workspace must be rejected");
}

/// Host API: records on the CUDA engine go to the device whole.
TEST_CASE(records_host_api_on_gpu, false) {
  for (std::size_t rb : {std::size_t(7), std::size_t(100)}) {
    const std::size_t n = 123457;
    auto h = make_records(n, rb, 5, true);
    auto ref = h;
    options c;
    c.use = engine::cpu;
    const record_key k{0, byte_key_desc(std::min<std::size_t>(rb, 10)), false};
    radix::sort_records(ref.data(), rb, n, k, c);
    options g;
    g.use = engine::cuda;
    radix::sort_records(h.data(), rb, n, k, g);
    CHECK_MSG(h == ref, "host records on the GPU rb=%zu", rb);
  }
}

namespace {
struct particle {
  float x, y, z;
  std::uint32_t cell;
};
struct by_cell {
  __device__ std::uint32_t operator()(const particle& p) const { return p.cell; }
};
struct by_x {
  __device__ float operator()(const particle& p) const { return p.x; }
};
}  // namespace

/// Records sorted by a device functor, in and out of place, vs the host API on the CPU.
TEST_CASE(records_by_functor, true) {
  for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(1000), std::size_t(70001)}) {
    std::vector<particle> h(n);
    std::uint64_t s = n + 11;
    for (auto& p : h) {
      p.x = float(std::int64_t(splitmix(s) % 2001) - 1000) / 7.0f;
      p.y = float(splitmix(s) % 100);
      p.z = 0;
      p.cell = std::uint32_t(splitmix(s) % 97);
    }
    options c;
    c.use = engine::cpu;
    auto want_cell = h, want_x = h;
    radix::sort_records(std::span<particle>(want_cell), [](const particle& p) { return p.cell; }, c);
    radix::sort_records(std::span<particle>(want_x), [](const particle& p) { return p.x; }, c);
    particle *in = nullptr, *out = nullptr;
    CU(cudaMalloc(&in, n * sizeof(particle) + 1));
    CU(cudaMalloc(&out, n * sizeof(particle) + 1));
    CU(cudaMemcpy(in, h.data(), n * sizeof(particle), cudaMemcpyHostToDevice));
    CU(cudaMemset(out, 0xA5, n * sizeof(particle)));
    std::size_t wsb = radix::cuda::sort_records_by_workspace_bytes<std::uint32_t, particle>(n);
    void* ws = nullptr;
    CU(cudaMalloc(&ws, wsb + 1));
    radix::cuda::sort_records_by<std::uint32_t>(in, out, n, by_cell{}, ws, wsb);
    std::vector<particle> got(n);
    CU(cudaMemcpy(got.data(), out, n * sizeof(particle), cudaMemcpyDeviceToHost));
    CHECK_MSG(n == 0 || std::memcmp(got.data(), want_cell.data(), n * sizeof(particle)) == 0, "by cell n=%zu", n);
    cudaFree(ws);
    wsb = radix::cuda::sort_records_by_workspace_bytes<float, particle>(n, {}, radix::cuda::placement::in_place);
    CU(cudaMalloc(&ws, wsb + 1));
    radix::cuda::sort_records_by<float>(in, in, n, by_x{}, ws, wsb);
    CU(cudaMemcpy(got.data(), in, n * sizeof(particle), cudaMemcpyDeviceToHost));
    CHECK_MSG(n == 0 || std::memcmp(got.data(), want_x.data(), n * sizeof(particle)) == 0, "by x in place n=%zu", n);
    cudaFree(ws);
    cudaFree(in);
    cudaFree(out);
  }
}
