// The segmented sort's device API: offsets in device memory (every route of
// the binning, including segments that go to Onesweep), uniform segments of
// every route, argsort's local indices, graph capture, and identical results
// between identical runs. The reference is the CPU engine's segmented sort,
// which the conformance suite checks against std::stable_sort.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness.hpp"
#include "radix/cuda.hpp"
#include "cuda/testing.hpp"
#include "radix/radix.hpp"

namespace seg_tests {

using namespace radix;


/// Byte equality (float keys hold NaNs, which == would call different).
template <class T>
bool same(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

template <class T>
std::vector<T> random_bits(std::size_t n, std::uint64_t seed, bool few_unique = false, std::uint64_t keep = ~0ull) {
  std::vector<T> v(n);
  for (auto& x : v) {
    std::uint64_t r = splitmix(seed) & keep;
    if (few_unique) r = (r % 5) * 0x0101010101010101ull;
    std::memcpy(&x, &r, sizeof(T));
  }
  return v;
}

options on(engine e, options o) {
  o.use = e;
  return o;
}

/// A device copy of a host array `shift` elements past a 16-byte boundary
/// (0: aligned), so that the kernels' aligned and unaligned forms both run.
template <class T>
struct shifted {
  dvec<T> whole;
  std::size_t shift;
  T* p;
  shifted(const std::vector<T>& h, std::size_t shift_by) : whole(h.size() + shift_by), shift(shift_by) {
    std::vector<T> w(shift, T(0x5A));
    w.insert(w.end(), h.begin(), h.end());
    whole.up(w);
    p = whole.p ? whole.p + shift : nullptr;
  }
  void up(const std::vector<T>& h) {
    std::vector<T> w(shift, T(0x5A));
    w.insert(w.end(), h.begin(), h.end());
    whole.up(w);
  }
  std::vector<T> down() const {
    auto w = whole.down();
    return std::vector<T>(w.begin() + std::ptrdiff_t(shift), w.end());
  }
};

/// Keys, pairs and argsort of one batch of the given keys on the device
/// against the CPU engine; the device arrays `shift` elements off alignment.
/// K: the key type; the values are 32-bit unless V says otherwise.
template <class K, class V = std::uint32_t, class O = std::uint32_t>
void check_batch_of(const std::vector<std::uint64_t>& lengths, bool uniform, options o, const std::vector<K>& keys,
                    const std::string& what, std::size_t shift = 0) {
  std::vector<O> off{0};
  for (auto l : lengths) off.push_back(O(off.back() + l));
  const std::uint64_t n = off.back(), count = lengths.size();
  dvec<O> doff(off);
  const segments dsegs = uniform ? segments::uniform(count, count ? lengths[0] : 1) : segments::from_offsets(doff.p, count);
  const segments hsegs = uniform ? dsegs : segments::from_offsets(off.data(), count);
  std::vector<V> vals(n);
  std::iota(vals.begin(), vals.end(), V(0));

  // keys
  auto rk = keys;
  radix::sort_segments(std::span<K>(rk), hsegs, on(engine::cpu, o));
  {
    shifted<K> dk(keys, shift);
    const std::size_t wsb = radix::cuda::sort_segments_workspace_bytes<K>(n, dsegs, o);
    dvec<unsigned char> ws(wsb);
    radix::cuda::sort_segments(dk.p, n, dsegs, ws.p, wsb, 0, o);
    CU(cudaDeviceSynchronize());
    CHECK_MSG(same(dk.down(), rk), "keys %s", what.c_str());
  }
  // pairs, twice: the same result both times
  auto pk = keys;
  auto pv = vals;
  radix::sort_segments(std::span<K>(pk), std::span<V>(pv), hsegs, on(engine::cpu, o));
  for (int rep = 0; rep < 2; ++rep) {
    shifted<K> dk(keys, shift);
    shifted<V> dv(vals, shift);
    const std::size_t wsb = radix::cuda::sort_segments_workspace_bytes<K, V>(n, dsegs, o);
    dvec<unsigned char> ws(wsb);
    radix::cuda::sort_segments(dk.p, dv.p, n, dsegs, ws.p, wsb, 0, o);
    CU(cudaDeviceSynchronize());
    CHECK_MSG(same(dk.down(), pk), "pairs keys %s (run %d)", what.c_str(), rep);
    CHECK_MSG(same(dv.down(), pv), "pairs values %s (run %d)", what.c_str(), rep);
  }
  // argsort, 32-bit local indices, into a poisoned buffer
  std::vector<std::uint32_t> ri(n);
  radix::argsort_segments(std::span<const K>(keys), std::span<std::uint32_t>(ri), hsegs, on(engine::cpu, o));
  {
    shifted<K> dk(keys, shift);
    shifted<std::uint32_t> di(std::vector<std::uint32_t>(n, 0xA5A5A5A5u), shift);
    const std::size_t wsb = radix::cuda::argsort_segments_workspace_bytes<K, std::uint32_t>(n, dsegs, o);
    dvec<unsigned char> ws(wsb);
    radix::cuda::argsort_segments(dk.p, di.p, n, dsegs, ws.p, wsb, 0, o);
    CU(cudaDeviceSynchronize());
    CHECK_MSG(same(di.down(), ri), "argsort %s", what.c_str());
    CHECK_MSG(same(dk.down(), keys), "argsort changed its keys %s", what.c_str());
    // with the sorted keys written too, into a poisoned buffer
    shifted<K> ds(std::vector<K>(n, K(0x5A)), shift);
    di.up(std::vector<std::uint32_t>(n, 0xA5A5A5A5u));
    argsort_with_sorted_keys<K>(dk.p, di.p, 4, ds.p, n, o, dsegs);
    CHECK_MSG(same(di.down(), ri), "argsort with sorted_keys: indices %s", what.c_str());
    CHECK_MSG(same(ds.down(), pk), "argsort with sorted_keys: keys %s", what.c_str());
  }
}

/// check_batch_of over random bits (few unique values for seeds divisible by 3).
template <class K, class V = std::uint32_t, class O = std::uint32_t>
void check_batch(const std::vector<std::uint64_t>& lengths, bool uniform, options o, std::uint64_t seed,
                 const std::string& what, std::uint64_t keep = ~0ull) {
  std::uint64_t n = 0;
  for (auto l : lengths) n += l;
  std::printf("  segments %s: n=%llu count=%llu seed=%llu\n", what.c_str(), (unsigned long long)n,
              (unsigned long long)lengths.size(), (unsigned long long)seed);
  check_batch_of<K, V, O>(lengths, uniform, o, random_bits<K>(n, seed, seed % 3 == 0, keep), what);
}

/// Standard normal floats (Box and Muller), as torch.randn gives: both signs,
/// dense over a few octaves, so their ordered span is nearly all empty.
std::vector<float> normal_floats(std::size_t n, std::uint64_t seed) {
  std::vector<float> v(n);
  for (auto& x : v) {
    const std::uint64_t r = splitmix(seed);
    const double u1 = (double(r >> 40) + 1.0) * 0x1.0p-24, u2 = double(r & 0xFFFFFF) * 0x1.0p-24;
    x = float(std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2));
  }
  return v;
}

/// Argsort of uniform rows into 8-byte positions, with the sorted keys, into
/// poisoned buffers.
template <class K>
void check_wide_positions(std::uint64_t count, std::uint64_t len, options o, std::uint64_t seed,
                          std::uint64_t keep = ~0ull, bool normal = false, std::size_t shift = 0) {
  const std::uint64_t n = count * len;
  std::vector<K> keys;
  if constexpr (std::is_same_v<K, float>)
    if (normal) keys = normal_floats(n, seed);
  if (keys.empty()) keys = random_bits<K>(n, seed, false, keep);
  std::printf("  8-byte positions: uniform %llu x %llu seed=%llu%s%s\n", (unsigned long long)count,
              (unsigned long long)len, (unsigned long long)seed, normal ? " (normal floats)" : "",
              shift ? " (off alignment)" : "");
  std::vector<std::uint64_t> want(n);
  radix::argsort_segments(std::span<const K>(keys), std::span<std::uint64_t>(want), segments::uniform(count, len),
                          on(engine::cpu, o));
  std::vector<K> sorted(n);
  for (std::uint64_t i = 0; i < n; ++i) sorted[i] = keys[(i / len) * len + want[i]];
  shifted<K> dk(keys, shift), ds(std::vector<K>(n, K(0x5A)), shift);
  shifted<std::uint64_t> di(std::vector<std::uint64_t>(n, ~0ull), shift);
  argsort_with_sorted_keys<K>(dk.p, di.p, 8, ds.p, n, o, segments::uniform(count, len));
  CHECK_MSG(same(di.down(), want), "8-byte positions, uniform %llu x %llu", (unsigned long long)count,
            (unsigned long long)len);
  CHECK_MSG(same(ds.down(), sorted), "sorted keys, uniform %llu x %llu", (unsigned long long)count,
            (unsigned long long)len);
}

/// What the route cases share: the tuning they switch, restored when the
/// case ends, and descending order and a bit range of [3, 19).
struct route_case {
  radix::cuda_detail::onesweep_tuning& tuning = radix::cuda_detail::tuning_override();
  const radix::cuda_detail::onesweep_tuning saved = tuning;
  options desc, bits;
  route_case() {
    desc.direction = order::descending;
    bits.begin_bit = 3;
    bits.end_bit = 19;
  }
  ~route_case() { tuning = saved; }
};

/// Lengths that cross every route: tiny (<= 32), the two block shapes
/// (<= 1024, <= 8192), and above: one block in global memory, or Onesweep
/// for those longer than n / SMs (the 300000 one), with empty segments between.
std::vector<std::uint64_t> every_route(std::uint64_t seed, bool with_long) {
  std::vector<std::uint64_t> l = {0, 1, 2, 31, 32, 33, 0, 1023, 1024, 1025, 8191, 8192};
  if (with_long) l.insert(l.end(), {8193, 20000, 0, 3, 300000, 65536});
  for (int i = 0; i < 200; ++i) l.push_back(splitmix(seed) % 48);
  for (int i = 0; i < 20; ++i) l.push_back(splitmix(seed) % 3000);
  return l;
}

}  // namespace seg_tests

using namespace seg_tests;

TEST_CASE(segments_device_offsets, false) {
  options desc;
  desc.direction = order::descending;
  check_batch<std::uint32_t>(every_route(1, true), false, {}, 11, "u32 every route");
  check_batch<float>(every_route(2, true), false, desc, 12, "f32 descending");
  check_batch<std::uint64_t, std::uint64_t, std::uint64_t>(every_route(3, true), false, {}, 13, "u64/u64 64-bit offsets");
  check_batch<std::uint8_t, std::uint16_t>(every_route(4, false), false, {}, 14, "u8/u16");
  check_batch<std::int16_t, std::uint8_t>(every_route(5, false), false, desc, 15, "i16/u8 descending");
  // n / SMs above 9000: those take the long route (one block each), the 300000 one Onesweep
  std::vector<std::uint64_t> many_long(200, 9000);
  many_long.insert(many_long.begin() + 7, {300000, 5, 0, 20000, 40});
  check_batch<std::uint32_t>(many_long, false, {}, 17, "u32 many long, one huge");
  check_batch<float, std::uint64_t>(many_long, false, desc, 18, "f32/u64 many long, one huge, descending");
  options bits;
  bits.begin_bit = 4;
  bits.end_bit = 21;
  check_batch<std::uint32_t>(every_route(6, true), false, bits, 16, "u32 bits [4, 21)");
}

TEST_CASE(segments_uniform_routes, false) {
  for (std::uint64_t len : {1, 2, 3, 5, 8, 9, 16, 17, 31, 32, 33, 100, 256, 257, 700, 1024, 1025, 4096, 4097, 8192, 8193, 20000}) {
    const std::uint64_t count = std::max<std::uint64_t>(1, 40000 / len);
    check_batch<std::uint32_t>(std::vector<std::uint64_t>(count, len), true, {}, 100 + len,
                               "uniform length " + std::to_string(len));
  }
  options desc;
  desc.direction = order::descending;
  check_batch<double, std::uint64_t>(std::vector<std::uint64_t>(300, 16), true, desc, 7, "f64/u64 uniform 16");
  // the row network (keys of up to 4 bytes, rows of 5 to 32): every key
  // width, a last warp with fewer than 32 rows, padding, descending, bit ranges
  check_batch<std::uint16_t, std::uint64_t>(std::vector<std::uint64_t>(1000, 7), true, desc, 40, "u16/u64 uniform 7 descending");
  check_batch<float, std::uint16_t>(std::vector<std::uint64_t>(101, 32), true, {}, 41, "f32/u16 uniform 32");
  check_batch<std::int32_t, std::uint8_t>(std::vector<std::uint64_t>(77, 13), true, desc, 42, "i32/u8 uniform 13 descending");
  options low;
  low.begin_bit = 1;
  low.end_bit = 6;
  check_batch<std::uint8_t>(std::vector<std::uint64_t>(500, 24), true, low, 43, "u8 uniform 24 bits [1, 6)");
  // at least as many long segments as SMs: one block each, in global memory
  check_batch<std::uint32_t>(std::vector<std::uint64_t>(140, 9000), true, {}, 8, "uniform 140 x 9000");
  check_batch<std::uint64_t, std::uint64_t>(std::vector<std::uint64_t>(133, 12345), true, desc, 9,
                                            "u64/u64 uniform 133 x 12345 descending");
  check_batch<std::uint8_t, std::uint32_t>(std::vector<std::uint64_t>(150, 8200), true, {}, 10, "u8 uniform 150 x 8200");
  // 8-byte positions of long uniform rows: sorted as 4-byte ones and widened
  check_wide_positions<float>(140, 9000, desc, 50 + 9000);
  check_wide_positions<float>(3, 70000, desc, 50 + 70000);
}

// Kernel attributes (shared-memory limits, occupancy) belong to a device: a
// process that sorts on one GPU and then on another must set them on each.
TEST_CASE(every_device_sorts, false) {
  int count = 0;
  CU(cudaGetDeviceCount(&count));
  if (count < 2) std::printf("  one GPU visible: device 0 only\n");
  for (int dev = 0; dev < std::min(count, 4); ++dev) {
    CU(cudaSetDevice(dev));
    std::printf("  device %d\n", dev);
    check_batch<std::uint32_t>({3000}, false, {}, 71 + dev, "one short segment (one tile)");
    check_batch<std::uint32_t>({1u << 20}, false, {}, 81 + dev, "one segment of 2^20 (Onesweep)");
    check_batch<std::uint32_t>(std::vector<std::uint64_t>(64, 1000), true, {}, 91 + dev, "rows of 1000");
    check_batch<std::uint64_t>(std::vector<std::uint64_t>(16, 6000), true, {}, 101 + dev, "rows of 6000");
    // The host API too: its stream and staging buffers belong to a device.
    auto keys = random_bits<std::uint32_t>(300007, 111 + dev, false);
    auto want = keys;
    radix::sort(std::span<std::uint32_t>(want), on(engine::cpu, {}));
    radix::sort(std::span<std::uint32_t>(keys), on(engine::cuda, {}));
    CHECK_MSG(same(keys, want), "host API on device %d", dev);
  }
  CU(cudaSetDevice(0));
}

/// Floats for the row network's two orders: random finite ones (exponent
/// below all ones), and with probability special_per_1024 / 1024 one of the
/// keys that make equal ordered keys differ (-0 beside +0, NaNs of several
/// payloads and both signs) or sit at the ends (infinities, subnormals).
std::vector<float> special_floats(std::size_t n, std::uint64_t seed, unsigned special_per_1024) {
  static constexpr std::uint32_t pool[] = {0x00000000u, 0x80000000u, 0x7FC00000u, 0xFFC00001u, 0x7FFFFFFFu,
                                           0x7F800001u, 0x7F800000u, 0xFF800000u, 0x00000001u, 0x80000001u};
  std::vector<float> v(n);
  for (auto& x : v) {
    const std::uint64_t r = splitmix(seed);
    const std::uint32_t b = (r >> 32) % 1024 < special_per_1024 ? pool[(r >> 16) % 10] : std::uint32_t(r) & 0xBFFFFFFFu;
    std::memcpy(&x, &b, sizeof b);
  }
  return v;
}

/// The row network (uniform rows of 5 to 32 keys of up to 4 bytes): rows of
/// whole 16-byte chunks (8, 16 and 32 4-byte keys; 16 keys of 1 or 2 bytes)
/// take the 16-byte staging, the same rows off alignment the scalar one;
/// keys alone sort by the ordered keys alone unless a warp's rows hold a key
/// the float canonicalisation changes, or a bit range is set.
TEST_CASE(segments_row_network, true) {
  options desc, total, bits;
  desc.direction = order::descending;
  total.floats = float_order::total;
  bits.begin_bit = 4;
  bits.end_bit = 21;
  for (std::uint64_t len : {8, 16, 32}) {
    const std::vector<std::uint64_t> rows(1000 + len, len);  // the last warp has fewer than 32 rows
    const std::uint64_t n = rows.size() * len;
    const std::string of = " rows of " + std::to_string(len);
    std::printf("  row network: %llu rows of %llu\n", (unsigned long long)rows.size(), (unsigned long long)len);
    check_batch_of<float>(rows, true, {}, special_floats(n, 300 + len, 0), "f32 finite" + of);
    check_batch_of<float>(rows, true, desc, special_floats(n, 400 + len, 4), "f32 a few -0 / NaN, descending" + of);
    check_batch_of<float>(rows, true, {}, special_floats(n, 500 + len, 300), "f32 many -0 / NaN" + of);
    check_batch_of<float>(rows, true, total, special_floats(n, 600 + len, 300), "f32 total order" + of);
    check_batch_of<float>(rows, true, {}, special_floats(n, 700 + len, 4), "f32 unaligned" + of, 1);
    check_batch<std::int32_t>(rows, true, desc, 800 + len, "i32 descending" + of);
    check_batch<std::int32_t>(rows, true, {}, 801 + len, "i32" + of);
    check_batch<std::uint32_t>(rows, true, bits, 900 + len, "u32 bits [4, 21)" + of);
  }
  const std::vector<std::uint64_t> rows16(1013, 16);
  check_batch<std::uint16_t, std::uint16_t>(rows16, true, {}, 31, "u16/u16 rows of 16");
  check_batch<std::uint8_t, std::uint8_t>(rows16, true, desc, 32, "u8/u8 rows of 16 descending");
  check_batch<std::uint16_t, std::uint8_t>(rows16, true, {}, 33, "u16/u8 rows of 16");
  check_batch_of<std::uint16_t, std::uint16_t>(rows16, true, {}, random_bits<std::uint16_t>(1013 * 16, 34),
                                               "u16/u16 unaligned rows of 16", 3);
  // pairs with 8-byte values: the network where rows are whole chunks, the lane groups off alignment
  check_batch<float, std::uint64_t>(rows16, true, desc, 35, "f32/u64 rows of 16 descending");
  check_batch<std::uint32_t, std::uint64_t>(std::vector<std::uint64_t>(1001, 32), true, {}, 36, "u32/u64 rows of 32");
  check_batch<std::uint16_t, std::uint64_t>(std::vector<std::uint64_t>(1001, 8), true, {}, 37, "u16/u64 rows of 8");
  check_batch_of<float, std::uint64_t>(rows16, true, {}, special_floats(1013 * 16, 38, 4), "f32/u64 unaligned rows of 16", 1);
  // argsort into 8-byte positions: the widest rows of values (8 chunks a row at
  // 16 keys, 16 at 32); off alignment, rows of 32 take the most shared memory
  check_wide_positions<float>(1000, 16, desc, 61, ~0ull, true);
  check_wide_positions<std::uint32_t>(777, 32, {}, 62);
  check_wide_positions<float>(555, 8, {}, 63);
  check_wide_positions<float>(1000, 32, desc, 64, ~0ull, false, 1);
  check_wide_positions<std::uint16_t>(999, 31, {}, 65, ~0ull, false, 1);
  // rows shorter than the network (scalar staging, padded), keys alone in both orders
  check_batch_of<float>(std::vector<std::uint64_t>(1000, 13), true, desc, special_floats(13000, 66, 4),
                        "f32 rows of 13 descending");
  check_batch<std::uint8_t>(std::vector<std::uint64_t>(1000, 27), true, {}, 67, "u8 rows of 27");
  check_batch<std::uint16_t>(std::vector<std::uint64_t>(1000, 6), true, desc, 68, "u16 rows of 6 descending");
}

/// Every kernel once, on small inputs (the compute-sanitizer set, with
/// segments_graph_capture for the long route).
TEST_CASE(segments_small, true) {
  std::vector<std::uint64_t> l = {0, 1, 2, 7, 31, 32, 33, 500, 1024, 1025, 3000, 4097, 8192, 0, 9000};
  check_batch<std::uint32_t>(l, false, {}, 21, "small u32 offsets");
  options desc;
  desc.direction = order::descending;
  check_batch<std::uint64_t, std::uint64_t, std::uint64_t>(l, false, desc, 22, "small u64/u64 offsets descending");
  check_batch<float>(std::vector<std::uint64_t>(100, 12), true, {}, 23, "small f32 uniform 12");
  check_batch<std::uint16_t, std::uint8_t>(std::vector<std::uint64_t>(3, 3000), true, {}, 24, "small u16/u8 uniform 3000");
}

/// The warp route's limit moves segments between it and the block route:
/// none (the small block shape takes 33..1024), 256 keys, and as many as a
/// slice holds (more than 1024 keys for 1-byte keys).
TEST_CASE(segments_warp_route_limits, true) {
  route_case c;
  auto& t = c.tuning;
  const options& desc = c.desc;
  const std::vector<std::uint64_t> l = {0, 1, 33, 64, 65, 255, 256, 257, 500, 1024, 1025, 3000, 4096, 4097, 2, 40};
  for (std::uint32_t most : {0u, 256u, 100000u}) {
    t.segment_warp_max = most;
    const std::string w = " (warp route up to " + std::to_string(most) + ")";
    check_batch<std::uint32_t>(l, false, {}, 31 + most, "u32 offsets" + w);
    check_batch<std::uint64_t, std::uint64_t, std::uint64_t>(l, false, desc, 32 + most, "u64/u64 descending" + w);
    check_batch<float, std::uint16_t>(std::vector<std::uint64_t>(20, 3000), true, {}, 33 + most, "f32/u16 uniform 3000" + w);
    check_batch<std::uint8_t>(std::vector<std::uint64_t>(30, 200), true, desc, 34 + most, "u8 uniform 200" + w);
  }
}

/// The block routes (1025 to 8192 keys a segment): the block sort from 12
/// keys a thread, the single-tile agent below it and wherever
/// RADIX_CUDA_BLOCK_SORT's switch is off; uniform rows
/// and offsets, keys of every width, values, argsort, descending and a bit
/// range.
TEST_CASE(segments_block_routes, true) {
  route_case c;
  auto& t = c.tuning;
  const options &desc = c.desc, &bits = c.bits;
  // either side of each shape's switch to the block sort (segment_tiers::mid_sort_min, large_sort_min)
  const std::vector<std::uint64_t> l = {1025, 0, 3072, 3073, 4096, 1, 4097, 6144, 6145, 2000, 8192, 5000, 33};
  for (bool block_sort : {true, false}) {
    t.block_sort = block_sort;
    const std::string w = block_sort ? " (block sort)" : " (single tile)";
    check_batch<std::uint32_t>(l, false, {}, 61, "u32 offsets" + w);
    check_batch<float, std::uint32_t>(l, false, desc, 62, "f32/u32 offsets descending" + w);
    check_batch<std::uint64_t, std::uint64_t, std::uint64_t>(l, false, bits, 63, "u64/u64 bits [3, 19)" + w);
    check_batch<std::uint16_t, std::uint16_t>(std::vector<std::uint64_t>(20, 3000), true, desc, 64,
                                              "u16/u16 uniform 3000 descending" + w);
    check_batch<std::int32_t, std::uint64_t>(std::vector<std::uint64_t>(12, 8192), true, {}, 65, "i32/u64 uniform 8192" + w);
    check_batch<std::uint8_t>(std::vector<std::uint64_t>(9, 5000), true, {}, 66, "u8 uniform 5000" + w);
    check_batch<std::uint32_t>(std::vector<std::uint64_t>(15, 3073), true, desc, 67, "u32 uniform 3073 descending" + w);
    check_batch<double, std::uint32_t>(std::vector<std::uint64_t>(7, 6145), true, {}, 68, "f64/u32 uniform 6145" + w);
  }
}

/// The bin route (uniform rows of 4- and 8-byte keys from
/// onesweep_tuning::bin_sort_min to 16384 keys): each of its shapes and either
/// side of their switches; random keys; few unique ones (crowded bins: the
/// rows go on to a block route or the long one); all keys equal; keys of a narrow span
/// (many equal keys within a bin: ties by origin) and floats of both zeros
/// and NaNs; descending, a bit range, argsort with and without sorted keys;
/// and with the route lowered to short rows, and off.
TEST_CASE(segments_bin_route, true) {
  route_case c;
  auto& t = c.tuning;
  const options &desc = c.desc, &bits = c.bits;
  for (int setting = 0; setting < 3; ++setting) {
    t.bin_sort = setting < 2;
    t.bin_sort_min = setting == 1 ? 2 : c.saved.bin_sort_min;
    const std::string w = setting == 0 ? " (bin route)" : setting == 1 ? " (bin route from 2 keys)" : " (no bin route)";
    check_batch<std::uint32_t>(std::vector<std::uint64_t>(20, 4096), true, {}, 71, "u32 rows of 4096" + w);
    check_batch<std::uint32_t>(std::vector<std::uint64_t>(20, 4096), true, {}, 72, "u32 rows of 4096, few unique" + w);
    check_batch<std::uint32_t>(std::vector<std::uint64_t>(9, 4097), true, desc, 74, "u32 rows of 4097, all equal" + w, 0);
    check_batch<std::uint32_t>(std::vector<std::uint64_t>(9, 8192), true, {}, 76, "u32 rows of 8192, span 2^14" + w,
                               (1u << 14) - 1);
    check_batch<float, std::uint32_t>(std::vector<std::uint64_t>(9, 8192), true, desc, 77,
                                      "f32/u32 rows of 8192 descending" + w);
    check_batch<float, std::uint64_t>(std::vector<std::uint64_t>(11, 1025), true, {}, 79,
                                      "f32/u64 rows of 1025, zeros and small subnormals" + w, 0x800000FFull);
    check_batch<std::uint64_t, std::uint64_t>(std::vector<std::uint64_t>(7, 5000), true, bits, 80,
                                              "u64/u64 rows of 5000, bits [3, 19)" + w);
    check_batch<double, std::uint16_t>(std::vector<std::uint64_t>(5, 3000), true, desc, 82,
                                       "f64/u16 rows of 3000 descending" + w);
    check_batch<std::int32_t, std::uint8_t>(std::vector<std::uint64_t>(30, 700), true, {}, 83, "i32/u8 rows of 700" + w);
    check_batch<std::uint32_t>(std::vector<std::uint64_t>(40, 40), true, desc, 85, "u32 rows of 40 descending" + w);
    check_batch<float, std::uint64_t>(std::vector<std::uint64_t>(60, 1024), true, desc, 86,
                                      "f32/u64 rows of 1024 descending" + w);
    check_batch<std::uint32_t>(std::vector<std::uint64_t>(33, 1024), true, {}, 92, "u32 rows of 1024" + w);
    check_batch<std::uint32_t, std::uint32_t>(std::vector<std::uint64_t>(15, 2500), true, bits, 96,
                                              "u32/u32 rows of 2500, bits [3, 19)" + w);
    // the largest shape: argsort and keys alone (pairs with these values need more shared memory than a block has)
    check_batch<float, std::uint64_t>(std::vector<std::uint64_t>(5, 16384), true, {}, 88, "f32/u64 rows of 16384" + w);
    check_batch<std::uint32_t>(std::vector<std::uint64_t>(4, 12000), true, desc, 87,
                               "u32 rows of 12000, few unique (the long route after)" + w);
    // A bin of exactly 31, 32 (bin_sort_agent::most_in_bin) and 33 equal keys (crowded: the route of the
    // length after), in rows of 1000 and of exactly 1024 (row_fill::full), and of 3000 and 4096 (the
    // notes apart): the equal keys alone in their top byte, so that no other key shares their bin.
    for (const std::uint64_t len : {std::uint64_t(1000), std::uint64_t(1024), std::uint64_t(3000), std::uint64_t(4096)}) {
      const std::uint64_t rows = 9;
      const std::string what = "u32 rows of " + std::to_string(len) + ", 31-33 equal keys" + w;
      std::printf("  segments %s: seed=91\n", what.c_str());
      auto k = random_bits<std::uint32_t>(rows * len, 91, false, ~0ull);
      for (auto& x : k)
        if (x >> 24 == 0x80u) x ^= 0x01000000u;
      for (std::uint64_t r = 0; r < rows; ++r) {
        k[r * len] = 0x80001234u;
        for (std::uint64_t c = 1; c < 31 + r % 3; ++c) k[r * len + (c * 37) % len] = 0x80001234u;
      }
      check_batch_of<std::uint32_t>(std::vector<std::uint64_t>(rows, len), true, desc, k, what);
    }
    // full rows (row_fill::full) that leave early: all keys equal, few unique (crowded), and a bit range
    check_batch<std::uint32_t>(std::vector<std::uint64_t>(9, 1024), true, desc, 94, "u32 rows of 1024, all equal" + w, 0);
    check_batch<std::uint32_t>(std::vector<std::uint64_t>(9, 1024), true, {}, 93, "u32 rows of 1024, few unique" + w);
    check_batch<std::uint32_t>(std::vector<std::uint64_t>(9, 1024), true, bits, 95, "u32 rows of 1024, bits [3, 19)" + w);
    // normal floats (torch.randn): their bins follow the keys, not the span
    check_wide_positions<float>(300, 1024, {}, 89, ~0ull, true);
    check_wide_positions<float>(9, 16384, desc, 90, ~0ull, true);
  }
}

/// The split route (uniform rows of 4- and 8-byte keys above 16384 keys, and
/// above 8192 where the bin sort's shape does not fit a block, at least as
/// many rows as SMs): rows either side of a tile boundary and of
/// whole tiles; random keys (floats with NaNs of every payload, both zeros);
/// few unique keys and all keys equal (rows left to the long route); a narrow
/// range with runs of about 40 equal keys (crowded buckets: the block sort); a
/// bit range, descending; argsort into 4- and 8-byte positions with and
/// without sorted keys; and with the route off.
TEST_CASE(segments_split_route, false) {
  route_case c;
  auto& t = c.tuning;
  const options &desc = c.desc, &bits = c.bits;
  const std::uint64_t rows = 140;  // at least as many as SMs (132 on an H100 or H200)
  for (bool split : {true, false}) {
    t.split_rows = split;
    const std::string w = split ? " (split route)" : " (no split route)";
    check_batch<std::uint32_t>(std::vector<std::uint64_t>(rows, 16385), true, {}, 131, "u32 rows of 16385" + w);
    check_batch<float, std::uint64_t>(std::vector<std::uint64_t>(rows, 40000), true, desc, 133,
                                      "f32/u64 rows of 40000 descending" + w);
    check_batch<std::uint32_t>(std::vector<std::uint64_t>(rows, 32768), true, {}, 135, "u32 rows of 32768, few unique" + w);
    check_batch<std::uint32_t>(std::vector<std::uint64_t>(rows, 20000), true, desc, 137,
                               "u32 rows of 20000, runs of ~40 equal keys" + w, 511);
    check_batch<std::uint64_t, std::uint64_t>(std::vector<std::uint64_t>(rows, 17000), true, bits, 139,
                                              "u64/u64 rows of 17000, bits [3, 19)" + w);
    check_batch<double, std::uint32_t>(std::vector<std::uint64_t>(rows, 25000), true, {}, 140, "f64/u32 rows of 25000" + w);
    check_batch<std::int32_t>(std::vector<std::uint64_t>(rows, 16500), true, desc, 142,
                              "i32 rows of 16500 descending, all equal" + w, 0);
    check_wide_positions<float>(rows, 262144 / 8, {}, 143);
    check_wide_positions<float>(rows, 65536, desc, 144, ~0ull, true);
    check_wide_positions<std::uint64_t>(rows, 30000, desc, 145, 0xFFFFFFull);
    // rows of 8193-16384 whose bin sort shape a block does not hold
    check_batch<std::uint32_t, std::uint32_t>(std::vector<std::uint64_t>(rows, 16384), true, {}, 146,
                                              "u32/u32 rows of 16384" + w);
    check_batch<std::uint64_t>(std::vector<std::uint64_t>(rows, 8193), true, desc, 147,
                               "u64 rows of 8193 descending" + w);
    check_batch<float, std::uint64_t>(std::vector<std::uint64_t>(rows, 12000), true, {}, 148,
                                      "f32/u64 rows of 12000" + w);
    check_batch<double, std::uint64_t>(std::vector<std::uint64_t>(rows, 16384), true, bits, 149,
                                       "f64/u64 rows of 16384, bits [3, 19)" + w);
  }
}

/// The split route's kernels once, on small inputs (the compute-sanitizer
/// set): crowded buckets (runs of 36 equal keys) and buckets of floats.
TEST_CASE(segments_split_small, true) {
  options desc;
  desc.direction = order::descending;
  check_batch<std::uint32_t>(std::vector<std::uint64_t>(140, 18000), true, {}, 151, "u32 rows of 18000, runs", 511);
  check_batch<float, std::uint64_t>(std::vector<std::uint64_t>(140, 16400), true, desc, 152, "f32/u64 rows of 16400");
  check_wide_positions<float>(140, 20000, {}, 153, ~0ull, true);
  check_batch<std::uint32_t, std::uint32_t>(std::vector<std::uint64_t>(140, 9000), true, desc, 154,
                                            "u32/u32 rows of 9000 descending");
}

/// Offsets whose lengths fall mostly between sweep_min and n / SMs: n of
/// lengths drawn log-uniformly from [lo, hi), with short and empty
/// segments between.
std::vector<std::uint64_t> sweep_lengths(std::uint64_t n, std::uint64_t lo, std::uint64_t hi, std::uint64_t seed) {
  std::vector<std::uint64_t> l;
  std::uint64_t at = 0;
  for (int i = 0; at < n; ++i) {
    const double u = double(splitmix(seed) >> 11) * 0x1.0p-53;
    std::uint64_t len = std::uint64_t(double(lo) * std::pow(double(hi) / double(lo), u));
    if (i % 7 == 3) len = splitmix(seed) % 3000;  // the other routes between
    if (i % 11 == 5) len = 0;
    l.push_back(len);
    at += len;
  }
  return l;
}

/// The sweep route (segments of offsets from segment_sweep_min keys up to
/// n / SMs, 4- and 8-byte keys, Onesweep's passes over all of them; uniform
/// rows take it where the split route is off, segments_split_route): random
/// keys (floats with NaNs of every payload and both zeros), few unique ones
/// (whole tiles), descending, a bit range, 64-bit offsets; keys of 8 random
/// bits (one pass runs: the result comes home from the alternates), 16 (two
/// of four) and none (every pass skipped: argsort's identity); and with the
/// route off (the long route).
TEST_CASE(segments_sweep_route, false) {
  route_case c;
  auto& t = c.tuning;
  const options &desc = c.desc, &bits = c.bits;
  // about 140 x 100000 keys: segments up to 100000 stay below n / SMs (132 on an H100)
  const auto l = sweep_lengths(14'000'000, 16385, 100000, 7);
  for (bool sweep : {true, false}) {
    t.segment_sweep_min = sweep ? c.saved.segment_sweep_min : 0;
    const std::string w = sweep ? " (sweep route)" : " (no sweep route)";
    check_batch<std::uint32_t>(l, false, {}, 161, "u32" + w);
    check_batch<float>(l, false, desc, 162, "f32 descending" + w);
    check_batch<std::uint64_t, std::uint64_t, std::uint64_t>(l, false, {}, 163, "u64/u64 64-bit offsets" + w);
    check_batch<double, std::uint32_t>(l, false, bits, 164, "f64/u32 bits [3, 19)" + w);
    check_batch<std::int32_t>(l, false, desc, 165, "i32 descending, few unique" + w);
    check_batch<std::uint32_t>(l, false, {}, 166, "u32, 8 random bits" + w, 0xFF);
    check_batch<std::uint32_t>(l, false, desc, 167, "u32, 16 random bits, descending" + w, 0xFFFF);
    check_batch<float, std::uint64_t>(l, false, {}, 168, "f32/u64, all equal" + w, 0);
    options total;
    total.floats = float_order::total;
    check_batch<float>(l, false, total, 169, "f32 total order" + w);
  }
}

/// The sweep route's kernels once, on small inputs (the compute-sanitizer
/// set): the route lowered to segments of 8193 keys and more, offsets and
/// uniform rows.
TEST_CASE(segments_sweep_small, true) {
  route_case c;
  c.tuning.segment_sweep_min = 8193;
  const auto l = sweep_lengths(1'600'000, 8193, 12000, 8);
  check_batch<std::uint32_t>(l, false, {}, 171, "u32 offsets, sweep from 8193");
  check_batch<double, std::uint64_t, std::uint64_t>(l, false, c.desc, 172, "f64/u64 descending, sweep from 8193");
  check_batch<std::uint32_t>(l, false, {}, 173, "u32, 8 random bits, sweep from 8193", 0xFF);
  options total = c.desc;
  total.floats = float_order::total;
  check_batch<float>(l, false, total, 176, "f32 total order descending, sweep from 8193");
  // uniform rows the long route would take (the bin and split routes off)
  c.tuning.bin_sort = false;
  c.tuning.split_rows = false;
  check_batch<std::uint32_t>(std::vector<std::uint64_t>(140, 9000), true, {}, 174, "u32 uniform 140 x 9000, sweep");
  check_wide_positions<float>(140, 9000, c.desc, 175);
}

TEST_CASE(segments_graph_capture, true) {
  cudaStream_t s;
  CU(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  for (bool uniform : {true, false}) {
    // uniform rows of every route but Onesweep's, or offsets with n <= 8192
    const std::vector<std::uint64_t> lengths = uniform ? std::vector<std::uint64_t>(64, 1000)
                                                       : std::vector<std::uint64_t>{5, 0, 40, 3000, 1, 900, 33};
    std::vector<std::uint32_t> off{0};
    for (auto l : lengths) off.push_back(std::uint32_t(off.back() + l));
    const std::uint64_t n = off.back();
    dvec<std::uint32_t> doff(off);
    const segments segs = uniform ? segments::uniform(lengths.size(), 1000) : segments::from_offsets(doff.p, lengths.size());
    const auto keys = random_bits<std::uint32_t>(n, 77);
    std::vector<std::uint32_t> want(n);
    radix::argsort_segments(std::span<const std::uint32_t>(keys), std::span<std::uint32_t>(want),
                            uniform ? segs : segments::from_offsets(off.data(), lengths.size()), on(engine::cpu, {}));
    dvec<std::uint32_t> dk(keys), di(n);
    const std::size_t wsb = radix::cuda::argsort_segments_workspace_bytes<std::uint32_t, std::uint32_t>(n, segs);
    dvec<unsigned char> ws(wsb);
    radix::cuda::argsort_segments(dk.p, di.p, n, segs, ws.p, wsb, s);  // warm-up: kernel attributes
    CU(cudaStreamSynchronize(s));
    cudaGraph_t g;
    cudaGraphExec_t ge;
    CU(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    radix::cuda::argsort_segments(dk.p, di.p, n, segs, ws.p, wsb, s);
    CU(cudaStreamEndCapture(s, &g));
    CU(cudaGraphInstantiate(&ge, g, 0));
    di.up(std::vector<std::uint32_t>(n, 0xFFFFFFFFu));
    CU(cudaGraphLaunch(ge, s));
    CU(cudaStreamSynchronize(s));
    CHECK_MSG(same(di.down(), want), "captured argsort, %s", uniform ? "uniform" : "offsets");
    CU(cudaGraphExecDestroy(ge));
    CU(cudaGraphDestroy(g));
  }
  // offsets with long segments: under capture none is huge (no read-back): the long route and the sweep route
  {
    std::vector<std::uint32_t> off{0, 10000, 10003, 60000};
    const std::uint64_t n = off.back();
    dvec<std::uint32_t> doff(off);
    const segments segs = segments::from_offsets(doff.p, 3);
    const auto keys = random_bits<std::uint32_t>(n, 78);
    auto want = keys;
    radix::sort_segments(std::span<std::uint32_t>(want), segments::from_offsets(off.data(), 3), on(engine::cpu, {}));
    dvec<std::uint32_t> dk(keys);
    const std::size_t wsb = radix::cuda::sort_segments_workspace_bytes<std::uint32_t>(n, segs);
    dvec<unsigned char> ws(wsb);
    cudaGraph_t g;
    cudaGraphExec_t ge;
    CU(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    radix::cuda::sort_segments(dk.p, n, segs, ws.p, wsb, s);
    CU(cudaStreamEndCapture(s, &g));
    CU(cudaGraphInstantiate(&ge, g, 0));
    CU(cudaGraphLaunch(ge, s));
    CU(cudaStreamSynchronize(s));
    CHECK_MSG(same(dk.down(), want), "captured sort with long segments");
    CU(cudaGraphExecDestroy(ge));
    CU(cudaGraphDestroy(g));
  }
  CU(cudaStreamDestroy(s));
}

/// More than 2^31 elements in all (--large): segments of every route,
/// those of the long, block and warp routes also starting beyond 2^31, and
/// one for Onesweep (longer than n / SMs); keys, pairs and argsort against
/// the CPU engine, element by element. Then uniform rows over as many.
TEST_CASE(large_segments_above_2_31, false) {
  const std::uint64_t target = (1ull << 31) + (1ull << 26);
  size_t free_b = 0, total_b = 0;
  CU(cudaMemGetInfo(&free_b, &total_b));
  if (free_b < 8 * target) {  // keys, their alternates, 4-byte indices, workspace
    std::printf("  (skipped: %zu bytes free)\n", free_b);
    return;
  }
  std::uint64_t seed = 0x5e9a31;
  std::printf("  seed=%llu\n", (unsigned long long)seed);
  std::vector<std::uint64_t> off{0};
  const std::uint64_t cycle[] = {0, 1, 5, 32, 33, 200, 1000, 1025, 5000, 8192, 20000, 70000};
  bool huge_after = false;  // one for Onesweep before 2^31 and one beyond
  for (std::uint64_t i = 0; off.back() < target; ++i) {
    std::uint64_t len = cycle[i % 12] + (cycle[i % 12] > 1 ? splitmix(seed) % 7 : 0);
    if (i == 40000 || (!huge_after && off.back() > (1ull << 31))) len = 40'000'000, huge_after = i != 40000;
    off.push_back(off.back() + len);
  }
  const std::uint64_t n = off.back(), count = off.size() - 1;
  std::printf("  n=%llu count=%llu\n", (unsigned long long)n, (unsigned long long)count);
  std::vector<std::uint8_t> keys(n);
  for (std::uint64_t i = 0; i < n; i += 8) {
    const std::uint64_t r = splitmix(seed);
    std::memcpy(keys.data() + i, &r, std::min<std::uint64_t>(8, n - i));
  }
  const segments hsegs = segments::from_offsets(off.data(), count);
  dvec<std::uint64_t> doff(off);
  const segments dsegs = segments::from_offsets(doff.p, count);

  auto want = keys;
  std::vector<std::uint32_t> want_idx(n);
  radix::argsort_segments(std::span<const std::uint8_t>(keys), std::span<std::uint32_t>(want_idx), hsegs,
                          on(engine::cpu, {}));
  for (std::uint64_t s = 0; s < count; ++s)
    for (std::uint64_t j = off[s]; j < off[s + 1]; ++j) want[j] = keys[off[s] + want_idx[j]];
  {
    dvec<std::uint8_t> dk(keys);
    dvec<std::uint32_t> di(std::vector<std::uint32_t>(n, 0xA5A5A5A5u));
    std::size_t wsb = radix::cuda::argsort_segments_workspace_bytes<std::uint8_t, std::uint32_t>(n, dsegs);
    {
      dvec<unsigned char> ws(wsb);
      radix::cuda::argsort_segments(dk.p, di.p, n, dsegs, ws.p, wsb, 0);
      CU(cudaDeviceSynchronize());
    }
    CHECK_MSG(same(di.down(), want_idx), "argsort, n = %llu", (unsigned long long)n);
    // keys alone, in the same buffers
    CU(cudaMemcpy(dk.p, keys.data(), n, cudaMemcpyHostToDevice));
    wsb = radix::cuda::sort_segments_workspace_bytes<std::uint8_t>(n, dsegs);
    dvec<unsigned char> ws(wsb);
    radix::cuda::sort_segments(dk.p, n, dsegs, ws.p, wsb, 0);
    CU(cudaDeviceSynchronize());
    CHECK_MSG(same(dk.down(), want), "keys, n = %llu", (unsigned long long)n);
  }
  {
    std::vector<std::uint16_t> vals(n);
    for (std::uint64_t s = 0; s < count; ++s)
      for (std::uint64_t j = off[s]; j < off[s + 1]; ++j) vals[j] = std::uint16_t(j - off[s]);
    std::vector<std::uint16_t> want_vals(n);
    for (std::uint64_t j = 0; j < n; ++j) want_vals[j] = std::uint16_t(want_idx[j]);
    dvec<std::uint8_t> dk(keys);
    dvec<std::uint16_t> dv(vals);
    const std::size_t wsb = radix::cuda::sort_segments_workspace_bytes<std::uint8_t, std::uint16_t>(n, dsegs);
    dvec<unsigned char> ws(wsb);
    radix::cuda::sort_segments(dk.p, dv.p, n, dsegs, ws.p, wsb, 0);
    CU(cudaDeviceSynchronize());
    CHECK_MSG(same(dk.down(), want), "pairs keys, n = %llu", (unsigned long long)n);
    CHECK_MSG(same(dv.down(), want_vals), "pairs values, n = %llu", (unsigned long long)n);
  }
  // uniform rows of 1000 over more than 2^31 keys
  {
    const std::uint64_t rows = target / 1000 + 1, m = rows * 1000;
    keys.resize(m);
    for (std::uint64_t i = n; i < m; ++i) keys[i] = std::uint8_t(splitmix(seed));
    auto rk = keys;
    radix::sort_segments(std::span<std::uint8_t>(rk), segments::uniform(rows, 1000), on(engine::cpu, {}));
    dvec<std::uint8_t> dk(keys);
    const segments u = segments::uniform(rows, 1000);
    const std::size_t wsb = radix::cuda::sort_segments_workspace_bytes<std::uint8_t>(m, u);
    dvec<unsigned char> ws(wsb);
    radix::cuda::sort_segments(dk.p, m, u, ws.p, wsb, 0);
    CU(cudaDeviceSynchronize());
    CHECK_MSG(same(dk.down(), rk), "uniform 1000, n = %llu", (unsigned long long)m);
  }
}

/// More than 2^31 keys in all through the sweep route (--large): 32-bit
/// keys in segments of 16385 to 200000 keys (and short ones between), an
/// argsort with the sorted keys (local indices from segments that start
/// beyond 2^31), then keys alone, against the CPU engine element by element.
TEST_CASE(large_segments_sweep_above_2_31, false) {
  const std::uint64_t target = (1ull << 31) + (1ull << 26);
  size_t free_b = 0, total_b = 0;
  CU(cudaMemGetInfo(&free_b, &total_b));
  if (free_b < 24 * target) {  // keys, sorted keys, indices, two key alternates, the index alternate
    std::printf("  (skipped: %zu bytes free)\n", free_b);
    return;
  }
  const auto lengths = sweep_lengths(target, 16385, 200000, 0x5e9a32);
  std::vector<std::uint64_t> off{0};
  for (auto l : lengths) off.push_back(off.back() + l);
  const std::uint64_t n = off.back(), count = lengths.size();
  std::printf("  n=%llu count=%llu seed=%llu\n", (unsigned long long)n, (unsigned long long)count, 0x5e9a33ull);
  const auto keys = random_bits<std::uint32_t>(n, 0x5e9a33);
  const segments hsegs = segments::from_offsets(off.data(), count);
  dvec<std::uint64_t> doff(off);
  const segments dsegs = segments::from_offsets(doff.p, count);
  std::vector<std::uint32_t> want_idx(n), want(n);
  radix::argsort_segments(std::span<const std::uint32_t>(keys), std::span<std::uint32_t>(want_idx), hsegs,
                          on(engine::cpu, {}));
  for (std::uint64_t s = 0; s < count; ++s)
    for (std::uint64_t j = off[s]; j < off[s + 1]; ++j) want[j] = keys[off[s] + want_idx[j]];
  dvec<std::uint32_t> dk(keys);
  {
    dvec<std::uint32_t> di(std::vector<std::uint32_t>(n, 0xA5A5A5A5u)), ds(std::vector<std::uint32_t>(n, 0x5A5A5A5Au));
    argsort_with_sorted_keys<std::uint32_t>(dk.p, di.p, 4, ds.p, n, {}, dsegs);
    CHECK_MSG(same(di.down(), want_idx), "argsort, n = %llu", (unsigned long long)n);
    CHECK_MSG(same(ds.down(), want), "argsort's sorted keys, n = %llu", (unsigned long long)n);
  }
  const std::size_t wsb = radix::cuda::sort_segments_workspace_bytes<std::uint32_t>(n, dsegs);
  dvec<unsigned char> ws(wsb);
  radix::cuda::sort_segments(dk.p, n, dsegs, ws.p, wsb, 0);
  CU(cudaDeviceSynchronize());
  CHECK_MSG(same(dk.down(), want), "keys, n = %llu", (unsigned long long)n);
}
