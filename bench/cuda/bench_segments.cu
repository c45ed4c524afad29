// radix_segments_bench: the segmented sort (radix::cuda::sort_segments)
// against CUB's DeviceSegmentedSort and DeviceSegmentedRadixSort (DoubleBuffer
// forms, the fastest), in one process, alternating, median of --reps runs.
// Every case holds 2^--log2 elements in total (default 28):
//   uniform lengths 16, 256, 4096; power-law lengths (log-uniform, 1 to
//   2^20); one segment; and the four row shapes of torch.sort(dim=-1) with
//   values and local indices ("+idx": radix fills the indices, then sorts
//   pairs; CUB sorts the same pairs, its fill not timed).
// Keys: u32, and f32 (finite: random bits but all-ones exponents; the torch
// shapes normally distributed, as torch.randn gives). Each radix result's
// keys are compared with CUB's. Ratios are CUB's time over radix's: above 1
// means radix is faster.
//
//   radix_segments_bench [--log2 28] [--reps 7] [--only <substring of the case name>] [--uniform L,...]
//                        [--total]   (radix sorts floats in the IEEE total order)
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <cub/device/device_segmented_radix_sort.cuh>
#include <cub/device/device_segmented_sort.cuh>
#include <string>
#include <vector>

#include "bench_common.cuh"
#include "radix/cuda.hpp"

namespace {

using bench::event_pair;

template <class T>
struct dmem {
  T* p = nullptr;
  explicit dmem(std::size_t n) {
    if (n) BCU(cudaMalloc(&p, n * sizeof(T)));
  }
  ~dmem() {
    if (p) cudaFree(p);
  }
  dmem(const dmem&) = delete;
};

/// Keys: u32 bits, or finite floats (exponent kept below all ones), or
/// (`normal`) standard normal floats by Box and Muller's transform.
template <class K>
__global__ void fill_keys(K* k, std::uint64_t n, std::uint64_t seed, bool normal) {
  for (std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += std::uint64_t(gridDim.x) * blockDim.x) {
    const std::uint64_t h = bench::mix(i * 0x9E3779B97F4A7C15ull + seed);
    std::uint32_t x = std::uint32_t(h);
    if constexpr (sizeof(K) == 4 && !std::is_integral_v<K>) {
      if (normal) {
        const float u1 = (float(x >> 8) + 1.0f) * 0x1.0p-24f, u2 = float(std::uint32_t(h >> 40)) * 0x1.0p-24f;
        k[i] = sqrtf(-2.0f * logf(u1)) * cospif(2.0f * u2);
        continue;
      }
      if (((x >> 23) & 0xFF) == 0xFF) x ^= 1u << 23;
      k[i] = __uint_as_float(x);
    } else {
      k[i] = K(x);
    }
  }
}

/// Values: the element's index inside its segment (what torch.sort returns).
template <class V>
__global__ void fill_local_index(V* v, const std::int64_t* off, std::uint64_t count, std::uint64_t uniform) {
  const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
  if (uniform) {
    const std::uint64_t n = count * uniform;
    for (std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
      v[i] = V(i % uniform);
    return;
  }
  for (std::uint64_t s = blockIdx.x; s < count; s += gridDim.x)
    for (std::int64_t i = off[s] + threadIdx.x; i < off[s + 1]; i += blockDim.x) v[i] = V(i - off[s]);
}

struct shape {
  std::string name;
  std::vector<std::int64_t> offsets;  ///< count + 1
  std::uint64_t uniform = 0;          ///< > 0: every segment this long (radix is told so)
};

shape uniform_shape(std::uint64_t n, std::uint64_t len, const std::string& name) {
  shape s{name, {}, len};
  for (std::uint64_t i = 0; i <= n / len; ++i) s.offsets.push_back(std::int64_t(i * len));
  return s;
}

shape power_law(std::uint64_t n, std::uint64_t seed) {
  shape s{"power-law 1..2^20", {0}, 0};
  std::uint64_t at = 0, i = 0;
  while (at < n) {
    const double u = double(bench::mix(++i + seed) >> 11) * 0x1.0p-53;
    std::uint64_t len = std::uint64_t(std::exp2(u * 20.0));
    len = std::min(len, n - at);
    at += len;
    s.offsets.push_back(std::int64_t(at));
  }
  return s;
}

float median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct row {
  std::string text;
};

/// radix's options in every case (--total: floats in the IEEE total order,
/// which for these finite keys is the same order as the numeric one).
radix::options g_opts;

/// with_index: values are positions inside the row (int64, what torch.sort
/// returns): radix fills them and sorts pairs, or (via_argsort) one argsort
/// writes the positions and the sorted keys to a second buffer.
template <class K, class V>
void run_case(const shape& sh, bool pairs, bool with_index, int reps, cudaStream_t st, bool via_argsort = false,
              bool normal = false) {
  const std::uint64_t count = sh.offsets.size() - 1, n = std::uint64_t(sh.offsets.back());
  dmem<K> pristine(n), k0(n), k1(n), kr(n);
  dmem<V> v0(pairs ? n : 0), v1(pairs ? n : 0), vr(pairs ? n : 0);
  dmem<std::int64_t> off(count + 1);
  BCU(cudaMemcpy(off.p, sh.offsets.data(), (count + 1) * 8, cudaMemcpyHostToDevice));
  fill_keys<K><<<1024, 256, 0, st>>>(pristine.p, n, 1234, normal);
  BCU(cudaGetLastError());

  const radix::segments segs = sh.uniform ? radix::segments::uniform(count, sh.uniform)
                                          : radix::segments::from_offsets(off.p, count);
  dmem<K> ksorted(via_argsort ? n : 0);
  radix::sort_request areq;  // via_argsort: pristine keys in, positions and sorted keys out
  areq.op = radix::operation::argsort;
  areq.key = radix::key_desc_of<K>();
  areq.n = n;
  areq.keys = pristine.p;
  areq.indices = vr.p;
  areq.index_bytes = sizeof(V);
  areq.sorted_keys = ksorted.p;
  areq.segs = segs;
  areq.opts = g_opts;
  std::size_t rws = via_argsort ? radix::cuda::workspace_bytes(areq)
                    : pairs     ? radix::cuda::sort_segments_workspace_bytes<K, V>(n, segs, g_opts)
                                : radix::cuda::sort_segments_workspace_bytes<K>(n, segs, g_opts);
  dmem<unsigned char> ws(rws);

  std::size_t cub_a = 0, cub_b = 0;
  cub::DoubleBuffer<K> dk(k0.p, k1.p);
  cub::DoubleBuffer<V> dv(v0.p, v1.p);
  if (pairs) {
    BCU(cub::DeviceSegmentedSort::SortPairs(nullptr, cub_a, dk, dv, std::int64_t(n), std::int64_t(count), off.p,
                                            off.p + 1, st));
    BCU(cub::DeviceSegmentedRadixSort::SortPairs(nullptr, cub_b, dk, dv, std::int64_t(n), std::int64_t(count), off.p,
                                                 off.p + 1, 0, int(sizeof(K) * 8), st));
  } else {
    BCU(cub::DeviceSegmentedSort::SortKeys(nullptr, cub_a, dk, std::int64_t(n), std::int64_t(count), off.p,
                                           off.p + 1, st));
    BCU(cub::DeviceSegmentedRadixSort::SortKeys(nullptr, cub_b, dk, std::int64_t(n), std::int64_t(count), off.p,
                                                off.p + 1, 0, int(sizeof(K) * 8), st));
  }
  dmem<unsigned char> cws(std::max(cub_a, cub_b));

  event_pair ev;
  std::vector<float> t_radix, t_seg, t_segradix;
  auto reset = [&](K* keys, V* vals) {
    BCU(cudaMemcpyAsync(keys, pristine.p, n * sizeof(K), cudaMemcpyDeviceToDevice, st));
    if (pairs) fill_local_index<V><<<4096, 256, 0, st>>>(vals, off.p, count, sh.uniform);
  };
  for (int r = 0; r < reps + 1; ++r) {  // the first round warms up
    reset(kr.p, vr.p);
    const float a = ev.ms(st, [&] {
      if (via_argsort) return radix::cuda::sort(areq, ws.p, rws, st);
      if (with_index) fill_local_index<V><<<4096, 256, 0, st>>>(vr.p, off.p, count, sh.uniform);
      if (pairs) radix::cuda::sort_segments(kr.p, vr.p, n, segs, ws.p, rws, st, g_opts);
      else radix::cuda::sort_segments(kr.p, n, segs, ws.p, rws, st, g_opts);
    });
    reset(k0.p, v0.p);
    dk = cub::DoubleBuffer<K>(k0.p, k1.p);
    dv = cub::DoubleBuffer<V>(v0.p, v1.p);
    const float b = ev.ms(st, [&] {
      if (pairs)
        BCU(cub::DeviceSegmentedSort::SortPairs(cws.p, cub_a, dk, dv, std::int64_t(n), std::int64_t(count), off.p,
                                                off.p + 1, st));
      else
        BCU(cub::DeviceSegmentedSort::SortKeys(cws.p, cub_a, dk, std::int64_t(n), std::int64_t(count), off.p,
                                               off.p + 1, st));
    });
    if (r == reps) {  // the last round: radix's keys against CUB's
      dmem<unsigned long long> diff(1);
      BCU(cudaMemsetAsync(diff.p, 0, 8, st));
      bench::count_diff<K><<<1024, 256, 0, st>>>(via_argsort ? ksorted.p : kr.p, dk.Current(), n, diff.p, nullptr);
      unsigned long long d = 0;
      BCU(cudaMemcpyAsync(&d, diff.p, 8, cudaMemcpyDeviceToHost, st));
      BCU(cudaStreamSynchronize(st));
      if (d) std::fprintf(stderr, "MISMATCH: %s: %llu keys differ from CUB's\n", sh.name.c_str(), d);
    }
    reset(k0.p, v0.p);
    dk = cub::DoubleBuffer<K>(k0.p, k1.p);
    dv = cub::DoubleBuffer<V>(v0.p, v1.p);
    const float c = ev.ms(st, [&] {
      if (pairs)
        BCU(cub::DeviceSegmentedRadixSort::SortPairs(cws.p, cub_b, dk, dv, std::int64_t(n), std::int64_t(count),
                                                     off.p, off.p + 1, 0, int(sizeof(K) * 8), st));
      else
        BCU(cub::DeviceSegmentedRadixSort::SortKeys(cws.p, cub_b, dk, std::int64_t(n), std::int64_t(count), off.p,
                                                    off.p + 1, 0, int(sizeof(K) * 8), st));
    });
    if (r == 0) continue;
    t_radix.push_back(a), t_seg.push_back(b), t_segradix.push_back(c);
  }
  const float a = median(t_radix), b = median(t_seg), c = median(t_segradix);
  const char* kname = std::is_integral_v<K> ? "u32" : "f32";
  const std::string op = !pairs        ? "keys"
                         : via_argsort ? "argsort, sorted keys + idx (i64)"
                         : with_index  ? "keys+idx (i64)"
                                       : "pairs (u32 values)";
  std::printf("| %s | %s | %s | %llu | %.3f | %.3f | %.3f | %.2fx | %.2fx |\n", sh.name.c_str(), kname, op.c_str(),
              (unsigned long long)count, a, b, c, b / a, c / a);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  int log2n = 28, reps = 7;
  std::string only, extra;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--log2" && i + 1 < argc) log2n = std::atoi(argv[++i]);
    else if (a == "--reps" && i + 1 < argc) reps = std::atoi(argv[++i]);
    else if (a == "--only" && i + 1 < argc) only = argv[++i];
    else if (a == "--uniform" && i + 1 < argc) extra = argv[++i];
    else if (a == "--total") g_opts.floats = radix::float_order::total;
    else {
      std::fprintf(stderr, "usage: radix_segments_bench [--log2 28] [--reps 7] [--only text[,text...]] [--uniform L[,L...]] [--total]\n");
      return 2;
    }
  }
  bench::device_info dev;
  cudaStream_t st{};
  if (const int rc = bench::start_device(dev, st)) return rc;
  const std::uint64_t n = std::uint64_t(1) << log2n;
  std::printf("# radix segmented sort vs CUB, %s, %s, %s, n = 2^%d, median of %d\n\n", dev.prop.name,
              dev.versions().c_str(), bench::utc_now().c_str(), log2n, reps);
  std::printf("| segments | key | operation | count | radix ms | CUB SegmentedSort ms | CUB SegmentedRadixSort ms "
              "| vs SegmentedSort | vs SegmentedRadixSort |\n|---|---|---|---|---|---|---|---|---|\n");
  std::vector<shape> shapes = {uniform_shape(n, 16, "uniform 16"), uniform_shape(n, 256, "uniform 256"),
                               uniform_shape(n, 4096, "uniform 4096"), power_law(n, 99),
                               uniform_shape(n, n, "one segment")};
  // --uniform: more uniform lengths, after the issue's shapes
  for (std::size_t b = 0; b < extra.size();) {
    const std::size_t e = std::min(extra.find(',', b), extra.size());
    const std::uint64_t len = std::strtoull(extra.substr(b, e - b).c_str(), nullptr, 10);
    if (len >= 1 && len <= n) shapes.push_back(uniform_shape(n, len, "uniform " + std::to_string(len)));
    b = e + 1;
  }
  std::vector<shape> torch_shapes;
  for (std::uint64_t len : {std::uint64_t(1024), std::uint64_t(16384), std::uint64_t(16), std::uint64_t(262144)})
    if (len <= n)
      torch_shapes.push_back(
          uniform_shape(n, len, "rows " + std::to_string(n / len) + " x " + std::to_string(len) + " normal"));
  // --only: the shapes whose name contains one of its comma-separated parts
  const auto chosen = [&](const std::string& name) {
    if (only.empty()) return true;
    for (std::size_t b = 0; b <= only.size();) {
      const std::size_t e = std::min(only.find(',', b), only.size());
      if (e > b && name.find(only.substr(b, e - b)) != std::string::npos) return true;
      b = e + 1;
    }
    return false;
  };
  try {
    for (const auto& sh : shapes) {
      if (!chosen(sh.name)) continue;
      for (bool pairs : {false, true}) {
        run_case<std::uint32_t, std::uint32_t>(sh, pairs, false, reps, st);
        run_case<float, std::uint32_t>(sh, pairs, false, reps, st);
      }
    }
    for (const auto& sh : torch_shapes) {
      if (!chosen(sh.name)) continue;
      run_case<float, std::int64_t>(sh, true, true, reps, st, false, true);
      run_case<float, std::int64_t>(sh, true, true, reps, st, true, true);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
  return 0;
}
