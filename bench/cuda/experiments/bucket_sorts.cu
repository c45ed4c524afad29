// Experiment (not built by CMake): the single-GPU cost model of the distributed sort's partition-first order
// (src/distributed/NOTES.md) on u32 keys. Times, with CUDA events, medians of REPS runs:
//   whole:   one Onesweep sort of all n keys, bits [0, 32)
//   top:     the stable pass by the top 8 bits, bits [24, 32)
//   buckets: after it, every bucket (top digit) sorted on its own by bits [0, 24), one Onesweep call each,
//            the calls spread round-robin over STREAMS streams (each with its own workspace)
// and checks the bucket sorts' result against the whole sort, element for element.
//
//   nvcc -I TREE/include -I TREE/src -I TREE/src/core -I TREE/src/cuda -O3 -DNDEBUG \
//     --generate-code=arch=compute_90,code=sm_90 --expt-relaxed-constexpr -std=c++20 \
//     -o bucket_sorts bench/cuda/experiments/bucket_sorts.cu
//   ./bucket_sorts [LOG2N] [REPS]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "experiment.cuh"
#include "onesweep/dispatch.cuh"
#include "onesweep_alone.cuh"

namespace radix::cuda_detail {
template int onesweep_sort<std::uint32_t, no_value>(const onesweep_job<std::uint32_t, no_value>&);
template std::size_t onesweep_workspace_bytes<std::uint32_t, no_value>(sort_mode, std::uint64_t, const onesweep_tuning&,
                                                                       bool, bool);
}  // namespace radix::cuda_detail

using namespace radix::cuda_detail;
using U = std::uint32_t;

#undef CK  // (experiment.cuh's returns from main; here the lambdas check too)
#define CK(x)                                                                                  \
  do {                                                                                         \
    cudaError_t e_ = (x);                                                                      \
    if (e_ != cudaSuccess) {                                                                   \
      std::printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__);    \
      std::exit(1);                                                                            \
    }                                                                                          \
  } while (0)

namespace {

float median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.f : v[v.size() / 2];
}

/// Sorts [0, n) of keys between keys and alt by bits [begin, end) on stream s; returns where the result is.
int sort_range(U* keys, U* alt, std::uint64_t n, int begin, int end, void* ws, std::size_t wsb, cudaStream_t s) {
  onesweep_job<U, no_value> job;
  job.mode = sort_mode::keys;
  job.keys = keys;
  job.key_alt = alt;
  job.n = n;
  job.begin_bit = begin;
  job.end_bit = end;
  job.codec = radix::core::ordered_codec<U>{};
  job.workspace = ws;
  job.workspace_bytes = wsb;
  job.stream = s;
  job.tuning = onesweep_tuning{};
  return onesweep_sort<U, no_value>(job);
}

}  // namespace

int main(int argc, char** argv) {
  const int log2n = argc > 1 ? std::atoi(argv[1]) : 30;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 5;
  const std::uint64_t n = std::uint64_t(1) << log2n;
  std::vector<U> h(n);
  std::uint64_t x = 0x5EED;
  for (auto& k : h) {
    x += 0x9E3779B97F4A7C15ull;
    std::uint64_t z = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    k = U(z ^ (z >> 31));
  }
  U *input, *k0, *k1, *ref;
  CK(cudaMalloc(&input, n * 4));
  CK(cudaMalloc(&k0, n * 4));
  CK(cudaMalloc(&k1, n * 4));
  CK(cudaMalloc(&ref, n * 4));
  CK(cudaMemcpy(input, h.data(), n * 4, cudaMemcpyHostToDevice));
  const std::size_t wsb = onesweep_workspace_bytes<U, no_value>(sort_mode::keys, n, onesweep_tuning{}, true, false);
  constexpr int max_streams = 4;
  void* ws[max_streams];
  cudaStream_t st[max_streams];
  for (int i = 0; i < max_streams; ++i) {
    CK(cudaMalloc(&ws[i], std::max<std::size_t>(wsb, 1)));
    CK(cudaStreamCreateWithFlags(&st[i], cudaStreamNonBlocking));
  }
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  auto time = [&](auto&& body) {
    CK(cudaDeviceSynchronize());
    CK(cudaEventRecord(e0, st[0]));
    for (int i = 1; i < max_streams; ++i) CK(cudaStreamWaitEvent(st[i], e0, 0));
    body();
    for (int i = 1; i < max_streams; ++i) {
      cudaEvent_t done;
      CK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
      CK(cudaEventRecord(done, st[i]));
      CK(cudaStreamWaitEvent(st[0], done, 0));
      CK(cudaEventDestroy(done));
    }
    CK(cudaEventRecord(e1, st[0]));
    CK(cudaEventSynchronize(e1));
    CK(cudaGetLastError());
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    return ms;
  };

  // The whole sort (also the reference).
  std::vector<float> t_whole, t_top;
  for (int r = 0; r <= reps; ++r) {
    CK(cudaMemcpy(k0, input, n * 4, cudaMemcpyDeviceToDevice));
    int where = 0;
    const float ms = time([&] { where = sort_range(k0, k1, n, 0, 32, ws[0], wsb, st[0]); });
    if (r) t_whole.push_back(ms);
    if (r == 0) CK(cudaMemcpy(ref, where ? k1 : k0, n * 4, cudaMemcpyDeviceToDevice));
  }
  // The top pass; its result, and the bucket bounds, for the bucket sorts.
  U* bucketed = nullptr;
  CK(cudaMalloc(&bucketed, n * 4));
  for (int r = 0; r <= reps; ++r) {
    CK(cudaMemcpy(k0, input, n * 4, cudaMemcpyDeviceToDevice));
    int where = 0;
    const float ms = time([&] { where = sort_range(k0, k1, n, 24, 32, ws[0], wsb, st[0]); });
    if (r) t_top.push_back(ms);
    if (r == 0) CK(cudaMemcpy(bucketed, where ? k1 : k0, n * 4, cudaMemcpyDeviceToDevice));
  }
  std::vector<U> hb(n);
  CK(cudaMemcpy(hb.data(), bucketed, n * 4, cudaMemcpyDeviceToHost));
  std::vector<std::uint64_t> bound(257, n);
  bound[0] = 0;
  for (int d = 1; d < 256; ++d)
    bound[d] = std::lower_bound(hb.begin(), hb.end(), U(d) << 24, [](U a, U b) { return (a >> 24) < (b >> 24); }) -
               hb.begin();
  std::printf("u32 keys, 2^%d, %d reps: whole sort %.3f ms, top-digit pass %.3f ms (%.2f%% of it)\n", log2n, reps,
              median(t_whole), median(t_top), 100 * median(t_top) / median(t_whole));
  for (int streams : {1, 2, 3, 4}) {
    std::vector<float> t;
    std::uint64_t bad = 0;
    for (int r = 0; r <= reps; ++r) {
      CK(cudaMemcpy(k0, bucketed, n * 4, cudaMemcpyDeviceToDevice));
      std::vector<int> where(256);
      const float ms = time([&] {
        for (int d = 0; d < 256; ++d)
          where[d] = sort_range(k0 + bound[d], k1 + bound[d], bound[d + 1] - bound[d], 0, 24, ws[d % streams], wsb,
                                st[d % streams]);
      });
      if (r) t.push_back(ms);
      if (r == reps) {  // check: every bucket's result against the whole sort
        std::vector<U> got(n), want(n);
        CK(cudaMemcpy(want.data(), ref, n * 4, cudaMemcpyDeviceToHost));
        for (int d = 0; d < 256; ++d)
          CK(cudaMemcpy(got.data() + bound[d], (where[d] ? k1 : k0) + bound[d], (bound[d + 1] - bound[d]) * 4,
                        cudaMemcpyDeviceToHost));
        for (std::uint64_t i = 0; i < n; ++i) bad += got[i] != want[i];
      }
    }
    const float m = median(t);
    std::printf("  256 bucket sorts (bits 0-24, 2^%d keys each) on %d stream(s): %.3f ms, %.4f ms a bucket; "
                "top pass + buckets %.3f ms = %.3fx the whole sort; %llu elements differ\n",
                log2n - 8, streams, m, m / 256, median(t_top) + m, (median(t_top) + m) / median(t_whole),
                static_cast<unsigned long long>(bad));
  }
  return 0;
}
