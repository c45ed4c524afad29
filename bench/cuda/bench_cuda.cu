// radix_cuda_bench: the CUDA engine against cub::DeviceRadixSort (DoubleBuffer
// API) and thrust::sort in one process, on the same inputs (restored from a
// pristine copy before every timed run, outside the timed region), timed with
// CUDA events, median of >= 20 runs after warm-up. Prints a markdown table.
//
//   radix_cuda_bench [--quick] [--reps N] [--only SUBSTRING] [--log2 N] [--n N]
//                    [--layout doc|shared] [--ws-first | --ws-next] [--gap-mb M] [--ws-skew B]
// --layout: see g_layout_doc. Diagnostics of buffer placement (NOTES.md, "the odd-pass
// penalty"): --n N: every row with exactly N elements; --ws-first: our workspace
// allocated before the data buffers; --ws-next (shared layout): right after the
// buffer we sort; --gap-mb M: M MiB allocated just before it; --ws-skew B: the
// workspace handed to us starts B bytes into its allocation.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <functional>
#include <string>
#include <vector>

#include "bench_check.hpp"
#include "bench_common.cuh"
#include "peers_cub.hpp"
#include "radix/cuda.hpp"

namespace {

constexpr double copy_bytes_per_s = 2.96e12;  // the H100's device-to-device copy rate, read + write counted
int g_reps = 25;
std::string g_only;
int g_log2 = -1;  // --log2 N: only rows of 2^N elements
std::uint64_t g_n = 0;  // --n N: every row with exactly N elements (diagnostics)
bool g_ws_first = false;  // --ws-first: our workspace allocated before the data buffers (diagnostics)
bool g_ws_next = false;   // --ws-next: our workspace allocated right after the sorted buffer
// --layout doc (default): each sort works on its own buffers, allocated one after
// another in the order of its documentation's example -- ours: keys, values,
// workspace; CUB's: keys, alternate keys, values, alternate values, temp storage.
// --layout shared (the layout before 2026-11-23): one set of working buffers for all
// sorts, CUB's alternates right after them, our workspace after every data buffer.
// Where the second buffer lies moves a sort by up to 4 % on the H100 (NOTES.md).
bool g_layout_doc = true;
std::size_t g_gap_mb = 0;   // --gap-mb M: M MiB allocated just before our workspace
std::size_t g_ws_skew = 0;  // --ws-skew B: workspace pointer B bytes into its allocation

enum class gen { random, presorted, low16, low10, floats };

using bench::mix;

template <class K>
__global__ void fill_keys(K* k, std::uint64_t n, gen g, std::uint64_t seed) {
  for (std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += std::uint64_t(gridDim.x) * blockDim.x) {
    const std::uint64_t r = mix(i * 0x9E3779B97F4A7C15ull + seed);
    if constexpr (std::is_same_v<K, float>) {
      k[i] = float(double(std::int64_t(r >> 11)) / double(1ull << 52) - 1.0) * 1000.0f;
    } else {
      K v;
      switch (g) {
        case gen::presorted: v = K((__uint128_t(i) << (sizeof(K) * 8)) / n); break;
        case gen::low16: v = K(r & 0xFFFF); break;
        case gen::low10: v = K(r & 0x3FF); break;
        default: v = K(r); break;
      }
      k[i] = v;
    }
  }
}
template <class V>
__global__ void fill_vals(V* v, std::uint64_t n) {
  for (std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += std::uint64_t(gridDim.x) * blockDim.x)
    v[i] = V(mix(i + 99));
}
template <class T>
T* dalloc(std::uint64_t n) {
  T* p = nullptr;
  if (n) CU(cudaMalloc(&p, n * sizeof(T)));
  return p;
}

struct timer {
  cudaStream_t s;
  bench::event_pair ev;
  explicit timer(cudaStream_t st) : s(st) {}
  /// Median ms of `reps` runs of f, each after restore(); 3 warm-ups.
  double median(const std::function<void()>& restore, const std::function<void()>& f) {
    std::vector<float> t;
    for (int r = 0; r < g_reps + 3; ++r) {
      restore();
      const float ms = ev.ms(s, f);
      if (r >= 3) t.push_back(ms);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
  }
};

struct row {
  std::string name;
  std::uint64_t n;
  double ours, cub, thrust;
  int passes;  // passes the input really needs (floor)
  std::size_t key_bytes, value_bytes;
  std::size_t ours_ws, ours_extra, cub_temp;
  bool match;
};
std::vector<row> g_rows;

template <class K, class V>
void run_case(const std::string& name, std::uint64_t n, gen g, int end_bit, int passes, cudaStream_t s) {
  if (!g_only.empty() && name.find(g_only) == std::string::npos) return;
  if (g_n) {
    for (const row& r : g_rows)
      if (r.name == name) return;  // the u32 size ladder: once
    n = g_n;
  } else if (g_log2 >= 0 && n != (1ull << g_log2)) return;
  constexpr bool pairs = !std::is_same_v<V, peers::none>;
  using VV = std::conditional_t<pairs, V, std::uint32_t>;
  radix::options o;
  o.end_bit = end_bit;
  std::size_t ws_bytes;
  if constexpr (pairs) ws_bytes = radix::cuda::sort_pairs_workspace_bytes<K, VV>(n, o);
  else ws_bytes = radix::cuda::sort_keys_workspace_bytes<K>(n, o);
  void* ws_alloc = nullptr;
  void* gap = nullptr;
  auto alloc_ws = [&] {
    if (!ws_bytes) return;
    if (g_gap_mb) CU(cudaMalloc(&gap, g_gap_mb << 20));
    CU(cudaMalloc(&ws_alloc, ws_bytes + g_ws_skew));
  };
  // The pristine input and the copy of our result, then the working buffers in the
  // order of the layout (see g_layout_doc).
  if (g_ws_first) alloc_ws();
  K *pk, *ck, *ok, *xk, *ak;  // pristine input, copy of our result, ours (sorted in place), CUB's pair
  VV *pv = nullptr, *cv = nullptr, *ov = nullptr, *xv = nullptr, *av = nullptr;
  if (g_layout_doc) {
    pk = dalloc<K>(n), ck = dalloc<K>(n);
    if (pairs) pv = dalloc<VV>(n), cv = dalloc<VV>(n);
    ok = dalloc<K>(n);
    if (pairs) ov = dalloc<VV>(n);
    if (!g_ws_first) alloc_ws();
    xk = dalloc<K>(n), ak = dalloc<K>(n);
    if (pairs) xv = dalloc<VV>(n), av = dalloc<VV>(n);
  } else {  // one set of working buffers for all sorts; our workspace after every data buffer
    pk = dalloc<K>(n), ok = xk = dalloc<K>(n);
    if (g_ws_next) alloc_ws();
    ak = dalloc<K>(n), ck = dalloc<K>(n);
    if (pairs) pv = dalloc<VV>(n), ov = xv = dalloc<VV>(n), av = dalloc<VV>(n), cv = dalloc<VV>(n);
    if (!g_ws_first && !g_ws_next) alloc_ws();
  }
  fill_keys<K><<<2048, 256, 0, s>>>(pk, n, g, 12345);
  if (pairs) fill_vals<VV><<<2048, 256, 0, s>>>(pv, n);
  CU(cudaGetLastError());
  void* ws = ws_alloc ? static_cast<char*>(ws_alloc) + g_ws_skew : nullptr;

  const int cub_end = end_bit < 0 ? int(sizeof(K) * 8) : end_bit;
  const std::size_t cub_bytes = peers::cub_temp_bytes<K, V>(n, 0, cub_end);
  void* ct = nullptr;
  CU(cudaMalloc(&ct, std::max<std::size_t>(cub_bytes, 1)));

  auto restore_to = [&](K* k, VV* v) {
    CU(cudaMemcpyAsync(k, pk, n * sizeof(K), cudaMemcpyDeviceToDevice, s));
    if (pairs) CU(cudaMemcpyAsync(v, pv, n * sizeof(VV), cudaMemcpyDeviceToDevice, s));
  };
  auto restore = [&] { restore_to(ok, ov); };
  auto restore_cub = [&] { restore_to(xk, xv); };
  timer t(s);
  auto ours = [&] {
    if constexpr (pairs) radix::cuda::sort_pairs(ok, ov, n, ws, ws_bytes, s, o);
    else radix::cuda::sort_keys(ok, n, ws, ws_bytes, s, o);
  };
  int sel = 0;
  auto cub = [&] { sel = peers::cub_sort<K, V>(xk, ak, (V*)xv, (V*)av, n, 0, cub_end, ct, cub_bytes, s); };
  auto thr = [&] { peers::thrust_sort<K, V>(ok, (V*)ov, n, s); };

  row r{name, n, 0, 0, 0, passes, sizeof(K), pairs ? sizeof(VV) : 0, ws_bytes, 0, cub_bytes, true};
  r.ours_extra = ws_bytes - std::min<std::size_t>(ws_bytes, n * (sizeof(K) + r.value_bytes));
  r.ours = t.median(restore, ours);
  // keep our result, compare with CUB's
  CU(cudaMemcpyAsync(ck, ok, n * sizeof(K), cudaMemcpyDeviceToDevice, s));
  if (pairs) CU(cudaMemcpyAsync(cv, ov, n * sizeof(VV), cudaMemcpyDeviceToDevice, s));
  r.cub = t.median(restore_cub, cub);
  unsigned long long* diff = dalloc<unsigned long long>(1);
  CU(cudaMemsetAsync(diff, 0, 8, s));
  bench::count_diff<K><<<1024, 256, 0, s>>>(sel ? ak : xk, ck, n, diff, nullptr);
  if (pairs) bench::count_diff<VV><<<1024, 256, 0, s>>>(sel ? av : xv, cv, n, diff, nullptr);
  unsigned long long nd = 0;
  CU(cudaMemcpyAsync(&nd, diff, 8, cudaMemcpyDeviceToHost, s));
  CU(cudaStreamSynchronize(s));
  r.match = nd == 0;
  r.thrust = t.median(restore, thr);
  g_rows.push_back(r);
  std::fprintf(stderr, "  %-28s n=2^%.2f ours %.4f ms  cub %.4f ms  thrust %.4f ms  %s\n", name.c_str(),
               std::log2(double(n)), r.ours, r.cub, r.thrust, r.match ? "same result" : "RESULTS DIFFER");
  if (!g_layout_doc) xk = nullptr, xv = nullptr;  // the same buffers as ours
  for (void* p : {(void*)pk, (void*)pv, (void*)ck, (void*)cv, (void*)ok, (void*)ov, (void*)xk, (void*)xv, (void*)ak,
                  (void*)av, ws_alloc, gap, ct, (void*)diff})
    if (p) CU(cudaFree(p));
}

std::string mb(std::size_t b) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f MB", double(b) / 1e6);
  return buf;
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  std::string cmd;
  for (int i = 0; i < argc; ++i) cmd += std::string(i ? " " : "") + argv[i];
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--quick") quick = true;
    else if (a == "--reps" && i + 1 < argc) g_reps = std::max(1, std::atoi(argv[++i]));
    else if (a == "--only" && i + 1 < argc) g_only = argv[++i];
    else if (a == "--log2" && i + 1 < argc) g_log2 = std::atoi(argv[++i]);
    else if (a == "--n" && i + 1 < argc) g_n = std::strtoull(argv[++i], nullptr, 10);
    else if (a == "--ws-first") g_ws_first = true;
    else if (a == "--ws-next") g_ws_next = true;
    else if (a == "--layout" && i + 1 < argc) g_layout_doc = std::string(argv[++i]) != "shared";
    else if (a == "--gap-mb" && i + 1 < argc) g_gap_mb = std::strtoull(argv[++i], nullptr, 10);
    else if (a == "--ws-skew" && i + 1 < argc) g_ws_skew = std::strtoull(argv[++i], nullptr, 10);
  }
  bench::device_info dev;
  if (!bench::probe_device(dev)) return 77;
  const cudaDeviceProp& prop = dev.prop;
  cudaStream_t s;
  CU(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

  using u32 = std::uint32_t;
  using u64 = std::uint64_t;
  using none = peers::none;
  const int max_log = quick ? 26 : 30;
  for (int lg = 16; lg <= max_log; lg += 2) run_case<u32, none>("u32 keys", 1ull << lg, gen::random, -1, 4, s);
  const u64 big = quick ? (1ull << 24) : (1ull << 28);
  run_case<float, none>("f32 keys", big, gen::floats, -1, 4, s);
  run_case<u32, u32>("u32/u32 pairs", big, gen::random, -1, 4, s);
  run_case<u64, none>("u64 keys", big / 2, gen::random, -1, 8, s);
  run_case<u64, u32>("u64/u32 pairs", big / 2, gen::random, -1, 8, s);
  run_case<u32, none>("presorted u32 keys", big, gen::presorted, -1, 0, s);
  run_case<u32, none>("u32 keys, low 16 bits random", big, gen::low16, -1, 2, s);
  run_case<u32, u32>("10-bit keys end_bit=10, pairs", quick ? (1ull << 20) : (1ull << 23), gen::low10, 10, 2, s);

  std::printf("# radix CUDA engine vs CUB and Thrust\n\n");
  std::printf("- device: %s, %d SMs, %.0f MB L2\n", prop.name, prop.multiProcessorCount, prop.l2CacheSize / 1e6);
  std::printf("- %s, CUB %s, Thrust %s\n", dev.versions().c_str(), peers::cub_version().c_str(),
              peers::thrust_version().c_str());
  std::printf("- date: %s\n- command: `%s`\n", bench::utc_now().c_str(), cmd.c_str());
  std::printf("- engine: %s\n", radix::cuda::engine_info().c_str());
  std::printf("- buffers: %s\n",
              g_layout_doc ? "`--layout doc`: each sort on its own buffers, allocated in its documentation's order "
                             "(ours: keys, values, workspace; CUB: keys, alternate keys, values, alternate values, temp)"
                           : "`--layout shared`: one set of working buffers, CUB's alternates after them, our "
                             "workspace after every data buffer");
  std::printf("- median of %d runs after 3 warm-ups, CUDA events; input restored before each run (not timed)\n",
              g_reps);
  std::printf("- floor: bytes the plan must move (one key read for the histogram, then a read and a write of keys and "
              "values per pass that the input needs) at %.2f TB/s (a device-to-device copy on the H100)\n\n",
              copy_bytes_per_s / 1e12);
  std::printf("| case | n | radix ms | GKeys/s | CUB ms | Thrust ms | CUB / radix | floor ms | of floor | radix scratch beyond alternates | radix workspace | CUB temp | same as CUB |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (const row& r : g_rows) {
    const double bytes = double(r.n) * r.key_bytes + double(r.passes) * 2.0 * double(r.n) * (r.key_bytes + r.value_bytes);
    const double floor_ms = bytes / copy_bytes_per_s * 1e3;
    char nbuf[32];
    if ((r.n & (r.n - 1)) == 0) std::snprintf(nbuf, sizeof nbuf, "2^%d", int(std::lround(std::log2(double(r.n)))));
    else std::snprintf(nbuf, sizeof nbuf, "%llu", static_cast<unsigned long long>(r.n));
    std::printf("| %s | %s | %.3f | %.2f | %.3f | %.3f | %.2fx | %.3f | %.0f%% | %s | %s | %s | %s |\n", r.name.c_str(),
                nbuf, r.ours, double(r.n) / r.ours / 1e6, r.cub, r.thrust, r.cub / r.ours, floor_ms,
                100.0 * floor_ms / r.ours, mb(r.ours_extra).c_str(), mb(r.ours_ws).c_str(), mb(r.cub_temp).c_str(),
                r.match ? "yes" : "NO");
  }
  bool ok = true;
  for (const row& r : g_rows) ok &= r.match;
  return ok ? 0 : 1;
}
