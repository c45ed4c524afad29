// radix_algorithms_bench: every CUDA algorithm variant -- the calibration's
// candidates (reduce-then-scan after the course slides "CUDA LSD Radix Sort"
// and Helluy 2011, "A portable implementation of the radix sort algorithm in
// OpenCL"; the 4-way and 8-way sort of Ha, Krüger & Silva 2009, "Fast 4-way
// parallel radix sorting on GPUs", with four_way's element-wise mapping added
// for their §4.6 comparison; the split sort of García, Alvizo, Olivares &
// Ramos 2014, "Fast Data Parallel Radix Sort Implementation in DirectX 11
// Compute Shader to Accelerate Ray Tracing Algorithms"), Onesweep (after the
// GPUOpen article on Onesweep with a circular look-back buffer) -- against
// cub::DeviceRadixSort (DoubleBuffer API) in one process.
//
// Protocol: same inputs for everyone, restored from a pristine
// copy before every timed run (not timed), CUDA events, median of --runs
// runs after 2 warm-ups. Each variant's last result is verified: sorted,
// the same multiset of (key, value) pairs as the input, and byte-equal to
// CUB's (itself checked the same way). A variant that throws or mis-sorts is
// a FAILED row, never dropped. Prints markdown (a table, then the papers'
// comparisons) and writes a CSV for scripts/plot_algorithms.py.
//
//   radix_algorithms_bench [--quick] [--sizes 2^20,2^24,2^28] [--runs N] [--csv PATH]
//                          [--only SUBSTRING] [--tile0] [--workloads keys,pairs] [--dists uniform,gauss]
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <stdexcept>
#include <sstream>
#include <string>
#include <vector>

#include "bench_common.cuh"
#include "peers_cub.hpp"
#include "radix/cuda.hpp"

namespace {

namespace rc = radix::cuda;
using radix::algorithm;

using bench::context_alive;
using bench::mix;

// ---------------------------------------------------------------- inputs and checks

enum class dist { uniform, gauss };
const char* dist_name(dist d) { return d == dist::uniform ? "uniform" : "gauss"; }

/// Uniform u32, or Gaussian-like: the sum of four uniform u32 / 4 (a bell
/// around 2^31; Ha et al. 2009, §5, sorts Gaussian inputs without saying how it drew them).
__global__ void fill_keys(std::uint32_t* k, std::uint64_t n, dist d, std::uint64_t seed) {
  for (std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += std::uint64_t(gridDim.x) * blockDim.x) {
    const std::uint64_t r = mix(i * 0x9E3779B97F4A7C15ull + seed);
    if (d == dist::uniform) {
      k[i] = std::uint32_t(r);
    } else {
      const std::uint64_t r2 = mix(r + 0x632BE59BD9B4E019ull);
      k[i] = std::uint32_t(r >> 2 & 0x3FFFFFFF) + std::uint32_t(r >> 34 & 0x3FFFFFFF) +
             std::uint32_t(r2 >> 2 & 0x3FFFFFFF) + std::uint32_t(r2 >> 34 & 0x3FFFFFFF);
    }
  }
}
/// Values = input positions: the sorted values then say whether the sort was stable.
__global__ void fill_vals(std::uint32_t* v, std::uint64_t n) {
  for (std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += std::uint64_t(gridDim.x) * blockDim.x)
    v[i] = std::uint32_t(i);
}
/// out[0] += keys out of order, out[1] += an order-independent hash of the (key, value) pairs.
__global__ void inspect(const std::uint32_t* k, const std::uint32_t* v, std::uint64_t n, unsigned long long* out) {
  unsigned long long bad = 0, sum = 0;
  for (std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += std::uint64_t(gridDim.x) * blockDim.x) {
    if (i > 0 && k[i] < k[i - 1]) ++bad;
    sum += mix((std::uint64_t(k[i]) << 32 | (v ? v[i] : 0u)) + 0x9E3779B97F4A7C15ull);
  }
  if (bad) atomicAdd(out, bad);
  atomicAdd(out + 1, sum);
}

/// Device memory freed on scope exit; grows on demand.
struct dbuf {
  void* p = nullptr;
  std::size_t cap = 0;
  dbuf() = default;
  dbuf(const dbuf&) = delete;
  ~dbuf() {
    if (p) cudaFree(p);
  }
  void* get(std::size_t bytes) {
    if (bytes > cap) {
      if (p) BCU(cudaFree(p));
      p = nullptr;
      cap = 0;
      BCU(cudaMalloc(&p, std::max<std::size_t>(bytes, 1)));
      cap = bytes;
    }
    return p;
  }
  std::uint32_t* u32(std::size_t n) { return static_cast<std::uint32_t*>(get(n * 4)); }
};

// ---------------------------------------------------------------- settings and rows

int g_runs = 20;
bool g_tile0 = false;
std::string g_only;
constexpr int kWarmups = 2;
constexpr int kSlowRuns = 5;  // at >= 2^28, variants of fewer than 4 bits per pass (8-32 passes)

int bits_of(const rc::variant& v) {
  if (v.digit_bits) return v.digit_bits;
  switch (v.algo) {
    case algorithm::reduce_then_scan: return 8;
    case algorithm::four_way: return 2;
    case algorithm::split: return 4;
    default: return 8;
  }
}
std::string algo_name(algorithm a) {  // the library's own spelling (operator<< of radix/options.hpp)
  std::ostringstream os;
  os << a;
  return os.str();
}

struct row {
  std::string name;  ///< variant text, or "cub"
  bool cub = false;
  rc::variant v{};
  std::uint64_t n = 0;
  std::string workload, dist;
  double ms = 0, cub_ms = 0;
  int runs = 0;
  std::size_t scratch = 0;
  std::string status = "ok";  ///< ok, or FAILED: why
  bool ok() const { return status == "ok"; }
};
std::vector<row> g_rows;

std::string fmt(const char* f, double x) {
  char b[64];
  std::snprintf(b, sizeof b, f, x);
  return b;
}
std::string size_text(std::uint64_t n) {
  const int lg = int(std::lround(std::log2(double(n))));
  return (1ull << lg) == n ? "2^" + std::to_string(lg) : std::to_string(n);
}

/// The variants timed: candidates(), Onesweep, and four_way's other mapping
/// (coalesced <-> element-wise) of each four_way candidate; --tile0 keeps tile 0 only.
std::vector<rc::variant> variants() {
  std::vector<rc::variant> vs;
  auto add = [&](const rc::variant& v) {
    if (g_tile0 && v.tile != 0) return;
    if (!g_only.empty() && rc::to_string(v).find(g_only) == std::string::npos) return;
    if (std::find(vs.begin(), vs.end(), v) == vs.end()) vs.push_back(v);
  };
  rc::variant one;
  one.algo = algorithm::onesweep;
  add(one);
  for (const rc::variant& c : rc::candidates()) {
    add(c);
    if (c.algo == algorithm::four_way) {
      rc::variant o = c;
      o.coalesced = !o.coalesced;
      add(o);
    }
  }
  std::stable_sort(vs.begin(), vs.end(), [](const rc::variant& a, const rc::variant& b) {
    if (a.algo != b.algo) return int(a.algo) < int(b.algo);
    if (bits_of(a) != bits_of(b)) return bits_of(a) < bits_of(b);
    if (a.coalesced != b.coalesced) return a.coalesced;
    return a.tile < b.tile;
  });
  return vs;
}

// ---------------------------------------------------------------- timing

struct timer {
  cudaStream_t s;
  bench::event_pair ev;
  explicit timer(cudaStream_t st) : s(st) {}
  /// Median ms of `runs` runs of f, each after restore() (outside the events), after warm-ups.
  double median(int runs, const std::function<void()>& restore, const std::function<void()>& f) {
    std::vector<float> t;
    for (int r = 0; r < runs + kWarmups; ++r) {
      restore();
      const float ms = ev.ms(s, f);
      if (r >= kWarmups) t.push_back(ms);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
  }
};

/// One (n, workload, distribution): CUB, then every variant. Returns false
/// when the CUDA context was lost (nothing more can run).
bool run_group(std::uint64_t n, bool pairs, dist d, const std::vector<rc::variant>& vs, cudaStream_t s) {
  const std::string wl = pairs ? "u32/u32 pairs" : "u32 keys";
  dbuf pk, pv, wk, wv, ak, av, rk, rv, cub_temp, ws, stats;
  std::uint32_t *pkp, *pvp = nullptr, *wkp, *wvp = nullptr, *akp, *avp = nullptr, *rkp, *rvp = nullptr;
  unsigned long long* st;
  unsigned long long want_hash = 0;
  std::size_t cub_bytes = 0;
  try {
    pkp = pk.u32(n);
    wkp = wk.u32(n);
    akp = ak.u32(n);
    rkp = rk.u32(n);
    if (pairs) {
      pvp = pv.u32(n);
      wvp = wv.u32(n);
      avp = av.u32(n);
      rvp = rv.u32(n);
    }
    st = static_cast<unsigned long long*>(stats.get(16));
    fill_keys<<<2048, 256, 0, s>>>(pkp, n, d, 12345);
    BCU(cudaGetLastError());
    if (pairs) {
      fill_vals<<<2048, 256, 0, s>>>(pvp, n);
      BCU(cudaGetLastError());
    }
    BCU(cudaMemsetAsync(st, 0, 16, s));
    inspect<<<1024, 256, 0, s>>>(pkp, pvp, n, st);
    BCU(cudaGetLastError());
    unsigned long long h[2];
    BCU(cudaMemcpyAsync(h, st, 16, cudaMemcpyDeviceToHost, s));
    BCU(cudaStreamSynchronize(s));
    want_hash = h[1];
    cub_bytes = pairs ? peers::cub_temp_bytes<std::uint32_t, std::uint32_t>(n, 0, 32)
                      : peers::cub_temp_bytes<std::uint32_t, peers::none>(n, 0, 32);
    cub_temp.get(cub_bytes);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "  %s n=%s %s: setup failed: %s\n", wl.c_str(), size_text(n).c_str(), dist_name(d), e.what());
    row r;
    r.name = "cub";
    r.cub = true;
    r.n = n;
    r.workload = wl;
    r.dist = dist_name(d);
    r.status = std::string("FAILED: setup: ") + e.what();
    g_rows.push_back(r);
    return context_alive();
  }

  timer t(s);
  auto restore = [&] {
    BCU(cudaMemcpyAsync(wkp, pkp, n * 4, cudaMemcpyDeviceToDevice, s));
    if (pairs) BCU(cudaMemcpyAsync(wvp, pvp, n * 4, cudaMemcpyDeviceToDevice, s));
  };
  // Sorted, same pairs as the input, and (when CUB's result is good) byte-equal to it.
  auto verify = [&](const std::uint32_t* k, const std::uint32_t* v, bool against_cub) -> std::string {
    BCU(cudaMemsetAsync(st, 0, 16, s));
    inspect<<<1024, 256, 0, s>>>(k, v, n, st);
    BCU(cudaGetLastError());
    unsigned long long h[2];
    BCU(cudaMemcpyAsync(h, st, 16, cudaMemcpyDeviceToHost, s));
    BCU(cudaStreamSynchronize(s));
    if (h[0]) return "FAILED: " + std::to_string(h[0]) + " keys out of order";
    if (h[1] != want_hash) return "FAILED: not a permutation of the input (checksum)";
    if (against_cub) {
      BCU(cudaMemsetAsync(st, 0, 8, s));
      bench::count_diff<std::uint32_t><<<1024, 256, 0, s>>>(k, rkp, n, st, nullptr);
      if (pairs) bench::count_diff<std::uint32_t><<<1024, 256, 0, s>>>(v, rvp, n, st, nullptr);
      BCU(cudaGetLastError());
      BCU(cudaMemcpyAsync(h, st, 8, cudaMemcpyDeviceToHost, s));
      BCU(cudaStreamSynchronize(s));
      if (h[0]) return "FAILED: " + std::to_string(h[0]) + " elements differ from CUB's (stability?)";
    }
    return "ok";
  };

  row cr;
  cr.name = "cub";
  cr.cub = true;
  cr.n = n;
  cr.workload = wl;
  cr.dist = dist_name(d);
  cr.runs = g_runs;
  cr.scratch = cub_bytes + n * (pairs ? 8 : 4);  // temp + DoubleBuffer alternates
  bool cub_ok = false;
  try {
    int sel = 0;
    cr.ms = t.median(g_runs, restore, [&] {
      sel = pairs ? peers::cub_sort<std::uint32_t, std::uint32_t>(wkp, akp, wvp, avp, n, 0, 32, cub_temp.p, cub_bytes, s)
                  : peers::cub_sort<std::uint32_t, peers::none>(wkp, akp, nullptr, nullptr, n, 0, 32, cub_temp.p,
                                                                 cub_bytes, s);
    });
    BCU(cudaMemcpyAsync(rkp, sel ? akp : wkp, n * 4, cudaMemcpyDeviceToDevice, s));
    if (pairs) BCU(cudaMemcpyAsync(rvp, sel ? avp : wvp, n * 4, cudaMemcpyDeviceToDevice, s));
    cr.status = verify(rkp, rvp, false);
    cub_ok = cr.ok();
  } catch (const std::exception& e) {
    cr.status = std::string("FAILED: ") + e.what();
    if (!context_alive()) {
      g_rows.push_back(cr);
      return false;
    }
  }
  cr.cub_ms = cr.ms;
  g_rows.push_back(cr);
  std::fprintf(stderr, "  %-28s %-14s %-8s n=%-6s %9.3f ms  %s\n", "cub", wl.c_str(), dist_name(d),
               size_text(n).c_str(), cr.ms, cr.status.c_str());

  for (const rc::variant& v : vs) {
    row r;
    r.name = rc::to_string(v);
    r.v = v;
    r.n = n;
    r.workload = wl;
    r.dist = dist_name(d);
    r.cub_ms = cub_ok ? cr.ms : 0;
    r.runs = n >= (1ull << 28) && bits_of(v) < 4 ? std::min(g_runs, kSlowRuns) : g_runs;
    try {
      const radix::options o;
      const radix::sort_request req = pairs ? rc::detail::pairs_request(wkp, wvp, n, o)
                                            : rc::detail::request(radix::operation::keys, wkp, n, o);
      r.scratch = rc::workspace_bytes(req, v);
      void* w = ws.get(r.scratch);
      r.ms = t.median(r.runs, restore, [&] { rc::sort(req, v, w, r.scratch, s); });
      r.status = verify(wkp, wvp, cub_ok);
    } catch (const std::exception& e) {
      r.status = std::string("FAILED: ") + e.what();
      if (!context_alive()) {
        g_rows.push_back(r);
        return false;
      }
    }
    g_rows.push_back(r);
    std::fprintf(stderr, "  %-28s %-14s %-8s n=%-6s %9.3f ms  %s\n", r.name.c_str(), wl.c_str(), dist_name(d),
                 size_text(n).c_str(), r.ms, r.status.c_str());
  }
  return true;
}

// ---------------------------------------------------------------- output

std::string csv_field(std::string s) {
  for (char& c : s)
    if (c == ',' || c == '\n') c = ';';
  return s;
}

void write_csv(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) {
    std::fprintf(stderr, "cannot write %s\n", path.c_str());
    return;
  }
  std::fprintf(f, "variant,algo,digit_bits,tile,coalesced,n,workload,dist,ms,gkeys_per_s,ratio_to_cub,scratch_bytes,runs,status\n");
  for (const row& r : g_rows) {
    const double gk = r.ok() && r.ms > 0 ? double(r.n) / r.ms / 1e6 : 0;
    const double ratio = r.ok() && r.ms > 0 && r.cub_ms > 0 ? r.cub_ms / r.ms : 0;
    std::fprintf(f, "%s,%s,%s,%s,%s,%llu,%s,%s,%.5f,%.4f,%.4f,%zu,%d,%s\n", r.name.c_str(),
                 r.cub ? "cub" : algo_name(r.v.algo).c_str(), r.cub ? "" : std::to_string(bits_of(r.v)).c_str(),
                 r.cub ? "" : std::to_string(r.v.tile).c_str(),
                 r.cub ? "" : (r.v.coalesced ? "1" : "0"), static_cast<unsigned long long>(r.n), r.workload.c_str(),
                 r.dist.c_str(), r.ok() ? r.ms : 0.0, gk, ratio, r.scratch, r.runs, csv_field(r.status).c_str());
  }
  std::fclose(f);
  std::fprintf(stderr, "wrote %s\n", path.c_str());
}

/// The best (fastest correct) row of a kind for one (n, workload, dist).
const row* best(std::uint64_t n, const std::string& wl, const std::string& d,
                const std::function<bool(const rc::variant&)>& pick) {
  const row* b = nullptr;
  for (const row& r : g_rows)
    if (!r.cub && r.ok() && r.n == n && r.workload == wl && r.dist == d && pick(r.v) && (!b || r.ms < b->ms)) b = &r;
  return b;
}

struct group {
  std::uint64_t n;
  std::string wl, d;
};
std::vector<group> groups() {
  std::vector<group> g;
  for (const row& r : g_rows)
    if (r.cub) g.push_back({r.n, r.workload, r.dist});
  return g;
}
std::string gk(const row* r) { return r ? fmt("%.2f", double(r->n) / r->ms / 1e6) : "n/a"; }

void print_markdown(const std::string& cmd, const bench::device_info& dev, bool complete) {
  const cudaDeviceProp& prop = dev.prop;
  std::printf("# radix CUDA algorithms vs CUB\n\n");
  std::printf("- device: %s, %d SMs, %.0f MB L2\n", prop.name, prop.multiProcessorCount, prop.l2CacheSize / 1e6);
  std::printf("- %s, CUB %s\n", dev.versions().c_str(), peers::cub_version().c_str());
  std::printf("- date: %s\n- command: `%s`\n", bench::utc_now().c_str(), cmd.c_str());
  std::printf("- median of %d runs after %d warm-ups, CUDA events, input restored before each run (not timed); "
              "at n >= 2^28, variants of fewer than 4 digit bits ran %d times (the `runs` column)\n",
              g_runs, kWarmups, kSlowRuns);
  std::printf("- u32 keys and u32/u32 pairs (values = input positions); uniform keys, and Gaussian-like keys (the sum "
              "of four uniform u32 / 4)\n");
  std::printf("- vs CUB = CUB ms / variant ms (> 1: faster than CUB); scratch: the variant's workspace_bytes (its "
              "alternate buffers included); CUB's: temp bytes + the DoubleBuffer alternates\n");
  std::printf("- every result verified: sorted, same (key, value) multiset as the input, byte-equal to CUB's\n");
  if (!complete) std::printf("- **INCOMPLETE: the CUDA context was lost; rows after the failure were not measured**\n");
  std::printf("\n| variant | digit bits | n | workload | dist | ms | GKeys/s | vs CUB | scratch MB | runs |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|\n");
  for (const row& r : g_rows) {
    const std::string bits = r.cub ? "-" : std::to_string(bits_of(r.v));
    if (!r.ok()) {
      std::printf("| %s | %s | %s | %s | %s | %s | | | | |\n", r.name.c_str(), bits.c_str(), size_text(r.n).c_str(),
                  r.workload.c_str(), r.dist.c_str(), r.status.c_str());
      continue;
    }
    std::printf("| %s | %s | %s | %s | %s | %.3f | %.2f | %s | %.1f | %d |\n", r.cub ? "**CUB**" : r.name.c_str(),
                bits.c_str(), size_text(r.n).c_str(), r.workload.c_str(), r.dist.c_str(), r.ms, double(r.n) / r.ms / 1e6,
                r.cub ? "1.00" : (r.cub_ms > 0 ? fmt("%.2f", r.cub_ms / r.ms).c_str() : "n/a"), r.scratch / 1e6, r.runs);
  }

  auto fw = [](int bits, bool coalesced) {
    return [=](const rc::variant& v) {
      return v.algo == algorithm::four_way && bits_of(v) == bits && v.coalesced == coalesced;
    };
  };
  std::printf("\n## 4-way vs 8-way (Ha et al. 2009, Fig. 4; coalesced mapping, fastest tile of each)\n\n");
  std::printf("| n | workload | dist | 4-way ms | 8-way ms | 8-way speed / 4-way |\n|---|---|---|---|---|---|\n");
  for (const group& g : groups()) {
    const row* a = best(g.n, g.wl, g.d, fw(2, true));
    const row* b = best(g.n, g.wl, g.d, fw(3, true));
    std::printf("| %s | %s | %s | %s | %s | %s |\n", size_text(g.n).c_str(), g.wl.c_str(), g.d.c_str(),
                a ? fmt("%.3f", a->ms).c_str() : "n/a", b ? fmt("%.3f", b->ms).c_str() : "n/a",
                a && b ? fmt("%.2f", a->ms / b->ms).c_str() : "n/a");
  }

  std::printf("\n## reduce_then_scan digit widths (the course slides CUDA LSD Radix Sort; GKeys/s, fastest tile of each)\n\n");
  std::printf("| n | workload | dist | 1 bit | 2 bits | 4 bits | 8 bits | CUB |\n|---|---|---|---|---|---|---|---|\n");
  for (const group& g : groups()) {
    std::printf("| %s | %s | %s |", size_text(g.n).c_str(), g.wl.c_str(), g.d.c_str());
    for (int bits : {1, 2, 4, 8})
      std::printf(" %s |", gk(best(g.n, g.wl, g.d, [=](const rc::variant& v) {
                          return v.algo == algorithm::reduce_then_scan && bits_of(v) == bits;
                        })).c_str());
    const row* c = nullptr;
    for (const row& r : g_rows)
      if (r.cub && r.ok() && r.n == g.n && r.workload == g.wl && r.dist == g.d) c = &r;
    std::printf(" %s |\n", gk(c).c_str());
  }

  std::printf("\n## four_way coalesced (cluster-wise) vs element-wise mapping (Ha et al. 2009, §4.6; fastest tile of each)\n\n");
  std::printf("| digit bits | n | workload | dist | coalesced ms | element-wise ms | element-wise / coalesced (> 1: "
              "coalesced faster) |\n|---|---|---|---|---|---|---|\n");
  for (int bits : {2, 3})
    for (const group& g : groups()) {
      const row* a = best(g.n, g.wl, g.d, fw(bits, true));
      const row* b = best(g.n, g.wl, g.d, fw(bits, false));
      if (!a && !b) continue;
      std::printf("| %d | %s | %s | %s | %s | %s | %s |\n", bits, size_text(g.n).c_str(), g.wl.c_str(), g.d.c_str(),
                  a ? fmt("%.3f", a->ms).c_str() : "n/a", b ? fmt("%.3f", b->ms).c_str() : "n/a",
                  a && b ? fmt("%.2f", b->ms / a->ms).c_str() : "n/a");
    }

  std::printf("\n## classic 8-bit (reduce_then_scan/8, fastest tile) at 2^28 / CUB (bar: >= 0.6)\n\n");
  bool any = false;
  for (const group& g : groups()) {
    if (g.n != (1ull << 28)) continue;
    any = true;
    const row* a = best(g.n, g.wl, g.d, [](const rc::variant& v) {
      return v.algo == algorithm::reduce_then_scan && bits_of(v) == 8;
    });
    const row* c = nullptr;
    for (const row& r : g_rows)
      if (r.cub && r.ok() && r.n == g.n && r.workload == g.wl && r.dist == g.d) c = &r;
    if (a && c) {
      const double q = c->ms / a->ms;
      std::printf("- %s, %s: %s %.3f ms, CUB %.3f ms: **%.2f x CUB** (%s)\n", g.wl.c_str(), g.d.c_str(),
                  a->name.c_str(), a->ms, c->ms, q, q >= 0.6 ? "meets the bar" : "BELOW the bar");
    } else {
      std::printf("- %s, %s: not measured (%s)\n", g.wl.c_str(), g.d.c_str(), a ? "CUB failed" : "no correct reduce_then_scan/8 row");
    }
  }
  if (!any) std::printf("- not measured: 2^28 is not among --sizes\n");
}

std::vector<std::uint64_t> parse_sizes(const std::string& s) {
  std::vector<std::uint64_t> v;
  std::size_t i = 0;
  while (i < s.size()) {
    std::size_t j = s.find(',', i);
    if (j == std::string::npos) j = s.size();
    const std::string t = s.substr(i, j - i);
    if (t.rfind("2^", 0) == 0) v.push_back(1ull << std::atoi(t.c_str() + 2));
    else if (!t.empty()) v.push_back(std::strtoull(t.c_str(), nullptr, 10));
    i = j + 1;
  }
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  std::string cmd, csv;
  for (int i = 0; i < argc; ++i) cmd += std::string(i ? " " : "") + argv[i];
  std::vector<std::uint64_t> sizes = {1ull << 20, 1ull << 24, 1ull << 28};
  bool keys = true, pairs = true, uni = true, gauss = true;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool more = i + 1 < argc;
    if (a == "--quick") sizes = {1ull << 20, 1ull << 24};
    else if (a == "--sizes" && more) sizes = parse_sizes(argv[++i]);
    else if (a == "--runs" && more) g_runs = std::max(1, std::atoi(argv[++i]));
    else if (a == "--csv" && more) csv = argv[++i];
    else if (a == "--only" && more) g_only = argv[++i];
    else if (a == "--tile0") g_tile0 = true;
    else if (a == "--workloads" && more) {
      const std::string w = argv[++i];
      keys = w.find("keys") != std::string::npos;
      pairs = w.find("pairs") != std::string::npos;
    } else if (a == "--dists" && more) {
      const std::string d = argv[++i];
      uni = d.find("uniform") != std::string::npos;
      gauss = d.find("gauss") != std::string::npos;
    } else {
      std::fprintf(stderr,
                   "usage: %s [--quick] [--sizes 2^20,2^24,2^28] [--runs N] [--csv PATH] [--only SUBSTRING] [--tile0] "
                   "[--workloads keys,pairs] [--dists uniform,gauss]\n",
                   argv[0]);
      return 2;
    }
  }
  bench::device_info dev;
  cudaStream_t s{};
  if (const int status = bench::start_device(dev, s)) return status;
  const std::vector<rc::variant> vs = variants();
  std::fprintf(stderr, "%zu variants:", vs.size());
  for (const rc::variant& v : vs) std::fprintf(stderr, " %s", rc::to_string(v).c_str());
  std::fprintf(stderr, "\n");

  bool complete = true;
  for (std::uint64_t n : sizes) {
    for (int p = 0; p < 2 && complete; ++p) {
      if ((p == 0 && !keys) || (p == 1 && !pairs)) continue;
      for (dist d : {dist::uniform, dist::gauss}) {
        if ((d == dist::uniform && !uni) || (d == dist::gauss && !gauss)) continue;
        bool alive = false;
        try {
          alive = run_group(n, p == 1, d, vs, s);
        } catch (const std::exception& e) {  // events or buffers of the group itself failed
          std::fprintf(stderr, "  n=%s: %s\n", size_text(n).c_str(), e.what());
          alive = context_alive();
        }
        if (!alive) {
          complete = false;
          break;
        }
      }
    }
    if (!complete) break;
  }
  print_markdown(cmd, dev, complete);
  if (!csv.empty()) write_csv(csv);
  bool ok = complete;
  for (const row& r : g_rows) ok &= r.ok();
  return ok ? 0 : 1;
}
