// Small sorts, where fixed costs decide: for u8, u16 and u32 keys and u32/u32
// pairs at n = 2^10 .. 2^18, radix::cuda against CUB DeviceRadixSort
// (DoubleBuffer), each with a preallocated workspace. Three figures a call:
//   submit  host microseconds to enqueue one call (mean over a burst, no sync)
//   gpu     microseconds per call over a burst of back-to-back calls (events)
//   single  one call between two events, the queue idle before (median)
// `single` is what the matrix measures. Every call first restores the input
// (one device copy, the same for both), so that neither side sorts sorted data.
//
//   radix_bench_latency [--burst N] [--reps N] [--log2 N (one size)]
#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench_common.cuh"
#include "radix/cuda.hpp"

namespace {

template <class K>
__global__ void fill_keys(K* k, std::uint64_t n, std::uint64_t seed) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < n; i += gridDim.x * std::uint64_t(blockDim.x))
    k[i] = K(bench::mix(i * 0x9E3779B97F4A7C15ull + seed));
}

struct figures {
  double submit_us, gpu_us, single_us;
};

/// Times `call` (which enqueues one sort on `s`): burst submit and GPU time, and the median single call.
template <class Call>
figures time_calls(Call call, cudaStream_t s, int burst, int reps) {
  cudaEvent_t a, b;
  BCU(cudaEventCreate(&a));
  BCU(cudaEventCreate(&b));
  for (int i = 0; i < 3; ++i) call();
  BCU(cudaStreamSynchronize(s));
  figures f{};
  // burst
  BCU(cudaEventRecord(a, s));
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < burst; ++i) call();
  const auto t1 = std::chrono::steady_clock::now();
  BCU(cudaEventRecord(b, s));
  BCU(cudaEventSynchronize(b));
  float ms = 0;
  BCU(cudaEventElapsedTime(&ms, a, b));
  f.submit_us = std::chrono::duration<double, std::micro>(t1 - t0).count() / burst;
  f.gpu_us = 1000.0 * ms / burst;
  // single calls
  std::vector<double> v;
  for (int r = 0; r < reps; ++r) {
    BCU(cudaStreamSynchronize(s));
    BCU(cudaEventRecord(a, s));
    call();
    BCU(cudaEventRecord(b, s));
    BCU(cudaEventSynchronize(b));
    BCU(cudaEventElapsedTime(&ms, a, b));
    v.push_back(1000.0 * ms);
  }
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  f.single_us = v[v.size() / 2];
  BCU(cudaEventDestroy(a));
  BCU(cudaEventDestroy(b));
  return f;
}

void print(const char* what, int log2n, const figures& r, const figures& c) {
  std::printf("| %s | 2^%d | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |\n", what, log2n, r.submit_us, c.submit_us,
              r.gpu_us, c.gpu_us, r.single_us, c.single_us, c.single_us / r.single_us);
}

template <class K>
void keys_row(int log2n, cudaStream_t s, int burst, int reps) {
  const std::uint64_t n = std::uint64_t(1) << log2n;
  K *k = nullptr, *alt = nullptr, *k0 = nullptr;
  BCU(cudaMalloc(&k, n * sizeof(K)));
  BCU(cudaMalloc(&k0, n * sizeof(K)));
  BCU(cudaMalloc(&alt, n * sizeof(K)));
  fill_keys<<<64, 256, 0, s>>>(k0, n, 42);
  BCU(cudaGetLastError());
  const std::size_t rws = radix::cuda::sort_keys_workspace_bytes<K>(n);
  void* rw = nullptr;
  BCU(cudaMalloc(&rw, std::max<std::size_t>(rws, 1)));
  cub::DoubleBuffer<K> db(k, alt);
  std::size_t cws = 0;
  BCU(cub::DeviceRadixSort::SortKeys(nullptr, cws, db, int(n), 0, int(8 * sizeof(K)), s));
  void* cw = nullptr;
  BCU(cudaMalloc(&cw, std::max<std::size_t>(cws, 1)));
  const auto restore = [&] { BCU(cudaMemcpyAsync(k, k0, n * sizeof(K), cudaMemcpyDeviceToDevice, s)); };
  const auto r = time_calls([&] { restore(), radix::cuda::sort_keys(k, n, rw, rws, s); }, s, burst, reps);
  const auto c = time_calls(
      [&] {
        restore();
        cub::DoubleBuffer<K> d(k, alt);
        (void)cub::DeviceRadixSort::SortKeys(cw, cws, d, int(n), 0, int(8 * sizeof(K)), s);
      },
      s, burst, reps);
  print(sizeof(K) == 1 ? "u8 keys" : sizeof(K) == 2 ? "u16 keys" : "u32 keys", log2n, r, c);
  for (K* p : {k, k0, alt}) BCU(cudaFree(p));
  BCU(cudaFree(rw));
  BCU(cudaFree(cw));
}

void pairs_row(int log2n, cudaStream_t s, int burst, int reps) {
  using K = std::uint32_t;
  const std::uint64_t n = std::uint64_t(1) << log2n;
  K *k = nullptr, *ka = nullptr, *v = nullptr, *va = nullptr, *k0 = nullptr;
  BCU(cudaMalloc(&k0, n * sizeof(K)));
  BCU(cudaMalloc(&k, n * sizeof(K)));
  BCU(cudaMalloc(&ka, n * sizeof(K)));
  BCU(cudaMalloc(&v, n * sizeof(K)));
  BCU(cudaMalloc(&va, n * sizeof(K)));
  fill_keys<<<64, 256, 0, s>>>(k0, n, 42);
  fill_keys<<<64, 256, 0, s>>>(v, n, 7);
  BCU(cudaGetLastError());
  const std::size_t rws = radix::cuda::sort_pairs_workspace_bytes<K, K>(n);
  void* rw = nullptr;
  BCU(cudaMalloc(&rw, std::max<std::size_t>(rws, 1)));
  cub::DoubleBuffer<K> dk(k, ka), dv(v, va);
  std::size_t cws = 0;
  BCU(cub::DeviceRadixSort::SortPairs(nullptr, cws, dk, dv, int(n), 0, 32, s));
  void* cw = nullptr;
  BCU(cudaMalloc(&cw, std::max<std::size_t>(cws, 1)));
  // (only the keys are restored: the values' order changes nothing)
  const auto restore = [&] { BCU(cudaMemcpyAsync(k, k0, n * sizeof(K), cudaMemcpyDeviceToDevice, s)); };
  const auto r = time_calls([&] { restore(), radix::cuda::sort_pairs(k, v, n, rw, rws, s); }, s, burst, reps);
  const auto c = time_calls(
      [&] {
        restore();
        cub::DoubleBuffer<K> a(k, ka), b(v, va);
        (void)cub::DeviceRadixSort::SortPairs(cw, cws, a, b, int(n), 0, 32, s);
      },
      s, burst, reps);
  print("u32/u32 pairs", log2n, r, c);
  for (K* p : {k, k0, ka, v, va}) BCU(cudaFree(p));
  BCU(cudaFree(rw));
  BCU(cudaFree(cw));
}

}  // namespace

int main(int argc, char** argv) {
  int burst = 200, reps = 21, lo = 10, hi = 18;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--burst" && i + 1 < argc) burst = std::atoi(argv[++i]);
    else if (a == "--reps" && i + 1 < argc) reps = std::atoi(argv[++i]);
    else if (a == "--log2" && i + 1 < argc) lo = hi = std::atoi(argv[++i]);
    else {
      std::fprintf(stderr, "usage: radix_bench_latency [--burst N] [--reps N] [--log2 N]\n");
      return 2;
    }
  }
  if (burst < 1 || reps < 1 || lo < 1 || lo > 28) return 2;
  try {
    cudaStream_t s;
    BCU(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    cudaDeviceProp prop{};
    BCU(cudaGetDeviceProperties(&prop, 0));
    std::printf("# small sorts: fixed costs (%s, %s)\n\n", prop.name, bench::utc_now().c_str());
    std::printf("microseconds per call, each with its input restore (one copy); burst of %d back-to-back calls, single = median of %d lone calls\n\n", burst, reps);
    std::printf("| case | n | radix submit | CUB submit | radix gpu | CUB gpu | radix single | CUB single | CUB/radix single |\n");
    std::printf("|---|---|---|---|---|---|---|---|---|\n");
    // (a build with fewer key types, RADIX_CUDA_TYPES=dev, skips the rows it lacks)
    const auto row = [](auto&& f) {
      try {
        f();
      } catch (const radix::engine_unavailable& e) {
        std::printf("| (skipped: %s) |\n", e.what());
      }
    };
    for (int l = lo; l <= hi; l += 2) row([&] { keys_row<std::uint8_t>(l, s, burst, reps); });
    for (int l = lo; l <= hi; l += 2) row([&] { keys_row<std::uint16_t>(l, s, burst, reps); });
    for (int l = lo; l <= hi; l += 2) row([&] { keys_row<std::uint32_t>(l, s, burst, reps); });
    for (int l = lo; l <= hi; l += 2) row([&] { pairs_row(l, s, burst, reps); });
    BCU(cudaStreamDestroy(s));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
