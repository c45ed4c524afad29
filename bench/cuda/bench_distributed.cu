// The distributed sort (radix/nccl.hpp) against the single-GPU sort of the
// same keys, in one process. Keys come from a hash of their global position
// (regenerated before every run, not timed); every run is verified: each
// rank's share in order, the shares in order across ranks, the right counts,
// and the same key sum as the input.
//
//   radix_nccl_bench [--log2 31] [--op keys|pairs] [--key u32|u64] [--gpus 0,1,2]
//                    [--reps 5] [--host] [--profile] [--order sort_first|partition_first] [--keep-pool]
// --op pairs: values of the key's width (u32/u32, u64/u64). --host: the
// keys start and end in pinned host memory (nccl::sort_host); the single-GPU
// row is then the same copy in, sort, copy out on one GPU. --profile sets
// RADIX_NCCL_PROFILE=1 (the phase times of each rank, on stderr). --gpus 0
// is the single-GPU sort itself (radix::cuda, double buffers, no NCCL), the
// baseline the ratios use when it runs first. --order sets RADIX_NCCL_ORDER
// (the exchange; unset: the library's choice), shown in the table.
// --keep-pool: every device's default stream-ordered pool keeps what is freed
// (release threshold: no limit), so that a call's scratch is not mapped anew
// each time (an A/B of what the allocation costs).
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "bench_check.hpp"
#include "radix/core/exchange_plan.hpp"
#include "radix/nccl.hpp"

namespace {

/// The exchange the last distributed run took (placement::partition_first).
const char* last_exchange = "-";

__host__ __device__ std::uint64_t hash64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

template <class K>
__global__ void generate(K* keys, K* values, std::uint64_t n, std::uint64_t first, std::uint64_t seed) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::uint64_t(gridDim.x) * blockDim.x) {
    keys[i] = K(hash64((first + i) ^ seed));
    if (values) values[i] = K(first + i);
  }
}

/// The sum of the keys, the descents, and (pairs) the values that are not
/// their key's generating position.
template <class K>
__global__ void inspect(const K* keys, const K* values, std::uint64_t n, std::uint64_t seed, unsigned long long* out) {
  unsigned long long s = 0, d = 0, bad = 0;
  for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::uint64_t(gridDim.x) * blockDim.x) {
    s += keys[i];
    if (i + 1 < n && keys[i + 1] < keys[i]) ++d;
    if (values && K(hash64(std::uint64_t(values[i]) ^ seed)) != keys[i]) ++bad;
  }
  atomicAdd(&out[0], s);
  atomicAdd(&out[1], d);
  atomicAdd(&out[2], bad);
}

struct args {
  int log2 = 31;
  std::string op = "keys";
  std::string key = "u32";
  std::vector<int> gpus{0, 2};  // 0: the single-GPU sort (radix::cuda) on GPU 0
  int reps = 5;
  bool host = false;
  bool keep_pool = false;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

template <class K>
struct rank_buffers {
  K* k[2] = {nullptr, nullptr};
  K* v[2] = {nullptr, nullptr};
};

/// plain: the single-GPU sort (radix::cuda, double buffers) on the group's one GPU.
template <class K>
std::vector<double> run_device(const radix::nccl::gpu_group& g, std::uint64_t total, bool pairs, int reps,
                               bool& ok, bool plain) {
  const int p = g.size();
  const std::uint64_t cap = radix::nccl::share_capacity(total, p);
  std::vector<rank_buffers<K>> b(p);
  g.each([&](int r) {
    for (int i = 0; i < 2; ++i) {
      CU(cudaMalloc(&b[r].k[i], cap * sizeof(K)));
      if (pairs) CU(cudaMalloc(&b[r].v[i], cap * sizeof(K)));
    }
  });
  void* ws = nullptr;
  std::size_t ws_bytes = 0;
  if (plain) {
    const radix::sort_request q = pairs ? radix::cuda::detail::pairs_request(b[0].k[0], b[0].v[0], total, {})
                                        : radix::cuda::detail::request(radix::operation::keys, b[0].k[0], total, {});
    ws_bytes = radix::cuda::workspace_bytes(q, radix::cuda::alternates{b[0].k[1], pairs ? b[0].v[1] : nullptr});
    CU(cudaSetDevice(g.device(0)));
    if (ws_bytes) CU(cudaMalloc(&ws, ws_bytes));
  }
  std::vector<double> times;
  for (int rep = 0; rep <= reps; ++rep) {  // rep 0 warms up
    std::vector<radix::nccl::placement> pl(p);
    std::vector<unsigned long long> partial(p, 0);  // the input keys' sum, per rank
    g.each([&](int r) {
      const std::uint64_t first = radix::core::share_begin(total, p, r);
      const std::uint64_t n = radix::core::share_begin(total, p, r + 1) - first;
      generate<K><<<1024, 256>>>(b[r].k[0], pairs ? b[r].v[0] : nullptr, n, first, 0x5EEDull + rep);
      CU(cudaGetLastError());
      unsigned long long* d;
      CU(cudaMalloc(&d, 24));
      CU(cudaMemset(d, 0, 24));
      inspect<K><<<1024, 256>>>(b[r].k[0], nullptr, n, 0, d);
      CU(cudaGetLastError());
      CU(cudaMemcpy(&partial[r], d, 8, cudaMemcpyDeviceToHost));
      CU(cudaFree(d));
    });
    std::atomic<int> ready{0};
    auto t0 = std::chrono::steady_clock::now();
    std::atomic<long long> start_ns{0};
    g.each([&](int r) {
      const std::uint64_t first = radix::core::share_begin(total, p, r);
      const std::uint64_t n = radix::core::share_begin(total, p, r + 1) - first;
      ready.fetch_add(1);
      while (ready.load() < p) {
      }
      if (r == 0) start_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                 std::chrono::steady_clock::now() - t0).count();
      radix::cuda::double_buffer<K> kb(b[r].k[0], b[r].k[1]);
      if (plain) {
        const radix::sort_request q = pairs ? radix::cuda::detail::pairs_request(kb.current(), b[r].v[0], n, {})
                                            : radix::cuda::detail::request(radix::operation::keys, kb.current(), n, {});
        const radix::cuda::alternates alt{b[r].k[1], pairs ? b[r].v[1] : nullptr};
        pl[r].selector = radix::cuda::sort(q, alt, ws, ws_bytes, 0);
        pl[r].n = pl[r].total = n;
      } else if (pairs) {
        radix::cuda::double_buffer<K> vb(b[r].v[0], b[r].v[1]);
        pl[r] = radix::nccl::sort_pairs(kb, vb, n, cap, g.comm(r), 0);
      } else {
        pl[r] = radix::nccl::sort_keys(kb, n, cap, g.comm(r), 0);
      }
      CU(cudaDeviceSynchronize());
    });
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() -
                      start_ns.load() * 1e-6;
    last_exchange = plain ? "-" : pl[0].partition_first ? "partition first" : "sort first";
    if (rep > 0) times.push_back(ms);
    // Verify: each share sorted, shares in order, counts, key sum, values.
    unsigned long long want_sum = 0;
    for (auto x : partial) want_sum += x;
    unsigned long long got_sum = 0, descents = 0, bad_values = 0;
    std::vector<K> edges(2 * p);
    std::uint64_t at = 0;
    for (int r = 0; r < p; ++r) {
      if (pl[r].offset != at) ok = false;
      at += pl[r].n;
    }
    if (at != total) ok = false;
    g.each([&](int r) {
      unsigned long long* d;
      CU(cudaMalloc(&d, 24));
      CU(cudaMemset(d, 0, 24));
      const K* res = b[r].k[pl[r].selector];
      inspect<K><<<1024, 256>>>(res, pairs ? b[r].v[pl[r].selector] : nullptr, pl[r].n, 0x5EEDull + rep, d);
      CU(cudaGetLastError());
      unsigned long long h[3];
      CU(cudaMemcpy(h, d, 24, cudaMemcpyDeviceToHost));
      CU(cudaFree(d));
      __atomic_fetch_add(&got_sum, h[0], __ATOMIC_RELAXED);
      __atomic_fetch_add(&descents, h[1], __ATOMIC_RELAXED);
      __atomic_fetch_add(&bad_values, h[2], __ATOMIC_RELAXED);
      if (pl[r].n) {
        CU(cudaMemcpy(&edges[2 * r], res, sizeof(K), cudaMemcpyDeviceToHost));
        CU(cudaMemcpy(&edges[2 * r + 1], res + pl[r].n - 1, sizeof(K), cudaMemcpyDeviceToHost));
      }
    });
    for (int r = 0; r + 1 < p; ++r)
      if (pl[r].n && pl[r + 1].n && edges[2 * r + 1] > edges[2 * r + 2]) ok = false;
    if (got_sum != want_sum || descents != 0 || bad_values != 0) ok = false;
    if (!ok)
      std::fprintf(stderr, "verification failed: sum %llu vs %llu, descents %llu, values off their keys %llu\n",
                   got_sum, want_sum, descents, bad_values);
  }
  if (ws) CU(cudaFree(ws));
  g.each([&](int r) {
    for (int i = 0; i < 2; ++i) {
      CU(cudaFree(b[r].k[i]));
      if (b[r].v[i]) CU(cudaFree(b[r].v[i]));
    }
  });
  return times;
}

template <class K>
std::vector<double> run_host(const radix::nccl::gpu_group& g, std::uint64_t total, bool pairs, int reps, bool& ok) {
  K* keys = nullptr;
  K* values = nullptr;
  CU(cudaMallocHost(&keys, total * sizeof(K)));
  if (pairs) CU(cudaMallocHost(&values, total * sizeof(K)));
  std::vector<double> times;
  for (int rep = 0; rep <= reps; ++rep) {
    std::vector<std::thread> th;
    const int nt = 16;
    for (int t = 0; t < nt; ++t)
      th.emplace_back([&, t] {
        for (std::uint64_t i = total * t / nt; i < total * (t + 1) / nt; ++i) {
          keys[i] = K(hash64(i ^ (0x5EEDull + rep)));
          if (values) values[i] = K(i);
        }
      });
    for (auto& x : th) x.join();
    radix::sort_request req;
    req.op = pairs ? radix::operation::pairs : radix::operation::keys;
    req.key = radix::key_desc_of<K>();
    req.n = total;
    req.keys = keys;
    req.values = values;
    req.value_bytes = pairs ? sizeof(K) : 0;
    const auto t0 = std::chrono::steady_clock::now();
    radix::nccl::sort_host(g, req);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (rep > 0) times.push_back(ms);
    for (std::uint64_t i = 1; i < total; ++i)
      if (keys[i] < keys[i - 1]) {
        ok = false;
        std::fprintf(stderr, "host result out of order at %llu\n", (unsigned long long)i);
        break;
      }
    if (pairs)
      for (std::uint64_t i = 0; i < total; i += 4097)
        if (K(hash64(std::uint64_t(values[i]) ^ (0x5EEDull + rep))) != keys[i]) {
          ok = false;
          std::fprintf(stderr, "host value mismatch at %llu\n", (unsigned long long)i);
          break;
        }
  }
  CU(cudaFreeHost(keys));
  if (values) CU(cudaFreeHost(values));
  return times;
}

}  // namespace

int main(int argc, char** argv) {
  // One process, several GPUs: see include/radix/nccl.hpp. Before CUDA starts.
  setenv("CUDA_MODULE_LOADING", "EAGER", 0);
  args a;
  for (int i = 1; i < argc; ++i) {
    const std::string s = argv[i];
    auto next = [&] { return i + 1 < argc ? std::string(argv[++i]) : std::string(); };
    if (s == "--log2") a.log2 = std::stoi(next());
    else if (s == "--op") a.op = next();
    else if (s == "--key") a.key = next();
    else if (s == "--reps") a.reps = std::stoi(next());
    else if (s == "--host") a.host = true;
    else if (s == "--keep-pool") a.keep_pool = true;
    else if (s == "--profile") setenv("RADIX_NCCL_PROFILE", "1", 1);
    else if (s == "--order") setenv("RADIX_NCCL_ORDER", next().c_str(), 1);
    else if (s == "--gpus") {
      a.gpus.clear();
      const std::string l = next();
      for (std::size_t at = 0; at < l.size();) {
        const std::size_t c = l.find(',', at);
        a.gpus.push_back(std::stoi(l.substr(at, c - at)));
        at = c == std::string::npos ? l.size() : c + 1;
      }
    } else {
      std::fprintf(stderr, "unknown argument %s\n", s.c_str());
      return 2;
    }
  }
  int visible = 0;
  if (cudaGetDeviceCount(&visible) != cudaSuccess || visible == 0) {
    std::printf("SKIPPED: no CUDA device visible\n");
    return 77;
  }
  cudaDeviceProp prop{};
  CU(cudaGetDeviceProperties(&prop, 0));
  if (a.keep_pool)
    for (int d = 0; d < visible; ++d) {
      cudaMemPool_t pool;
      CU(cudaDeviceGetDefaultMemPool(&pool, d));
      std::uint64_t keep = ~std::uint64_t(0);
      CU(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
    }
  int nccl_version = 0;
  ncclGetVersion(&nccl_version);
  std::printf("device: %d x %s; NCCL %d; NCCL_NVLS_ENABLE=%s\n", visible, prop.name, nccl_version,
              std::getenv("NCCL_NVLS_ENABLE") ? std::getenv("NCCL_NVLS_ENABLE") : "(unset)");
  const std::uint64_t total = 1ull << a.log2;
  const bool pairs = a.op == "pairs";
  std::printf("RADIX_NCCL_ORDER=%s; pools %s\n", std::getenv("RADIX_NCCL_ORDER") ? std::getenv("RADIX_NCCL_ORDER") : "(unset)",
              a.keep_pool ? "keep what is freed (--keep-pool)" : "as the driver sets them");
  std::printf("| where | op | n | GPUs | exchange | median ms | min ms | G keys/s | vs 1 GPU | verified |\n|---|---|---|---|---|---|---|---|---|---|\n");
  double base = 0;
  for (int gpus : a.gpus) {
    const bool plain = gpus == 0;
    if (plain) gpus = 1;
    if (gpus > visible) {
      std::printf("| (skipped: %d GPUs asked, %d visible) |\n", gpus, visible);
      continue;
    }
    radix::nccl::gpu_group g(gpus);
    bool ok = true;
    std::vector<double> t;
    if (a.key == "u64")
      t = a.host ? run_host<std::uint64_t>(g, total, pairs, a.reps, ok)
                 : run_device<std::uint64_t>(g, total, pairs, a.reps, ok, plain);
    else
      t = a.host ? run_host<std::uint32_t>(g, total, pairs, a.reps, ok)
                 : run_device<std::uint32_t>(g, total, pairs, a.reps, ok, plain);
    const double med = median(t);
    if (gpus == 1 && base == 0) base = med;
    std::printf("| %s%s | %s %s | 2^%d | %d | %s | %.2f | %.2f | %.2f | %s | %s |\n", a.host ? "host" : "device", plain ? " (radix::cuda, no NCCL)" : "",
                a.key.c_str(), pairs ? (a.key + " pairs").c_str() : "keys", a.log2, gpus, last_exchange, med,
                *std::min_element(t.begin(), t.end()), total / med * 1e-6,
                base > 0 ? (std::to_string(base / med).substr(0, 5) + "x").c_str() : "-", ok ? "yes" : "NO");
    std::fflush(stdout);
  }
  return 0;
}
