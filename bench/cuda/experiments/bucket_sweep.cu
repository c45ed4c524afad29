// Experiment (not built by CMake): the single-GPU cost model of the distributed sort's partition-first order
// (src/distributed/NOTES.md). u32 keys after the top-digit pass (bits [24, 32)), each bucket sorted by bits
// [0, 24): BUCKETS 128, keys below 2^31 (a rank's share of two); 256, keys of all 32 bits. Variants:
//   calls:  one Onesweep call a bucket, in place between the buffers, round-robin over 1 to 8 streams
//           (what exchange_buckets does), with and without Programmatic Dependent Launch between the passes
//           (a pass's blocks launched early wait on the SMs, where another stream's pass could run);
//   sweep:  batches of B buckets, one segmented sort a batch (offsets, every bucket forced onto the sweep route:
//           one launch a pass for the whole batch), round-robin over STREAMS streams.
// Also the whole sort and the top-digit pass alone. Times with CUDA events, medians of REPS runs; every
// variant's result checked against the whole sort, element for element.
// Links against a build's libradix.a (RADIX_CUDA_TYPES=dev is enough):
//   nvcc -I TREE/include -I TREE/src -I TREE/src/core -I TREE/src/cuda -O3 -DNDEBUG \
//     --generate-code=arch=compute_90,code=sm_90 --expt-relaxed-constexpr -std=c++20 \
//     -o bucket_sweep bench/cuda/experiments/bucket_sweep.cu BUILD/libradix.a
//   ./bucket_sweep [LOG2N] [REPS] [BUCKETS]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "experiment.cuh"
#include "onesweep/onesweep.hpp"
#include "segments/segments.hpp"

using namespace radix::cuda_detail;
using U = std::uint32_t;

namespace {

int sort_range(U* keys, U* alt, std::uint64_t n, int begin, int end, void* ws, std::size_t wsb, cudaStream_t s,
               bool pdl = true) {
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
  job.tuning.pdl = pdl;
  return onesweep_sort<U, no_value>(job);
}

onesweep_tuning swept() {
  onesweep_tuning t;
  t.segment_huge_min = ~std::uint64_t(0);
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  const int log2n = argc > 1 ? std::atoi(argv[1]) : 30;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 5;
  const std::uint64_t n = std::uint64_t(1) << log2n;
  const int buckets = argc > 3 && std::atoi(argv[3]) == 256 ? 256 : 128;
  const U mask = buckets == 256 ? ~U(0) : U(0x7FFFFFFFu);
  std::vector<U> h(n);
  std::uint64_t x = 0x5EED;
  for (auto& k : h) {
    x += 0x9E3779B97F4A7C15ull;
    std::uint64_t z = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    k = U(z ^ (z >> 31)) & mask;
  }
  U *input, *k0, *k1, *ref, *bucketed;
  CK_EXIT(cudaMalloc(&input, n * 4));
  CK_EXIT(cudaMalloc(&k0, n * 4));
  CK_EXIT(cudaMalloc(&k1, n * 4));
  CK_EXIT(cudaMalloc(&ref, n * 4));
  CK_EXIT(cudaMalloc(&bucketed, n * 4));
  CK_EXIT(cudaMemcpy(input, h.data(), n * 4, cudaMemcpyHostToDevice));
  constexpr int max_streams = 8;
  const std::size_t wsb = onesweep_workspace_bytes<U, no_value>(sort_mode::keys, n, onesweep_tuning{}, true, false);
  void* ws[max_streams];
  cudaStream_t st[max_streams];
  for (int i = 0; i < max_streams; ++i) {
    CK_EXIT(cudaMalloc(&ws[i], std::max<std::size_t>(wsb, 1)));
    CK_EXIT(cudaStreamCreateWithFlags(&st[i], cudaStreamNonBlocking));
  }
  cudaEvent_t e0, e1;
  CK_EXIT(cudaEventCreate(&e0));
  CK_EXIT(cudaEventCreate(&e1));
  auto time = [&](auto&& body) { return time_streams(st, max_streams, e0, e1, body); };

  std::vector<float> t_whole, t_top;
  for (int r = 0; r <= reps; ++r) {
    CK_EXIT(cudaMemcpy(k0, input, n * 4, cudaMemcpyDeviceToDevice));
    int where = 0;
    const float ms = time([&] { where = sort_range(k0, k1, n, 0, 32, ws[0], wsb, st[0]); });
    if (r) t_whole.push_back(ms);
    if (r == 0) CK_EXIT(cudaMemcpy(ref, where ? k1 : k0, n * 4, cudaMemcpyDeviceToDevice));
  }
  for (int r = 0; r <= reps; ++r) {
    CK_EXIT(cudaMemcpy(k0, input, n * 4, cudaMemcpyDeviceToDevice));
    int where = 0;
    const float ms = time([&] { where = sort_range(k0, k1, n, 24, 32, ws[0], wsb, st[0]); });
    if (r) t_top.push_back(ms);
    if (r == 0) CK_EXIT(cudaMemcpy(bucketed, where ? k1 : k0, n * 4, cudaMemcpyDeviceToDevice));
  }
  std::vector<U> hb(n), want(n), got(n);
  CK_EXIT(cudaMemcpy(hb.data(), bucketed, n * 4, cudaMemcpyDeviceToHost));
  CK_EXIT(cudaMemcpy(want.data(), ref, n * 4, cudaMemcpyDeviceToHost));
  std::vector<std::uint64_t> bound(buckets + 1, n);
  bound[0] = 0;
  for (int d = 1; d < buckets; ++d)
    bound[d] = std::lower_bound(hb.begin(), hb.end(), U(d) << 24, [](U a, U b) { return (a >> 24) < (b >> 24); }) -
               hb.begin();
  std::printf("u32 keys %s, 2^%d, %d reps: whole sort %.3f ms, top-digit pass %.3f ms; %d buckets\n",
              buckets == 256 ? "of 32 bits" : "below 2^31", log2n, reps, median(t_whole), median(t_top), buckets);
  auto check = [&](auto&& where_of) {
    std::uint64_t bad = 0;
    for (int d = 0; d < buckets; ++d)
      CK_EXIT(cudaMemcpy(got.data() + bound[d], where_of(d) + bound[d], (bound[d + 1] - bound[d]) * 4,
                    cudaMemcpyDeviceToHost));
    for (std::uint64_t i = 0; i < n; ++i) bad += got[i] != want[i];
    return bad;
  };

  for (const auto [streams, pdl] : {std::pair{1, true}, std::pair{2, true}, std::pair{3, true}, std::pair{4, true},
                                   std::pair{4, false}, std::pair{8, true}, std::pair{8, false}}) {
    std::vector<float> t;
    std::uint64_t bad = 0;
    for (int r = 0; r <= reps; ++r) {
      CK_EXIT(cudaMemcpy(k0, bucketed, n * 4, cudaMemcpyDeviceToDevice));
      std::vector<int> where(buckets);
      const float ms = time([&] {
        for (int d = 0; d < buckets; ++d)
          where[d] = sort_range(k0 + bound[d], k1 + bound[d], bound[d + 1] - bound[d], 0, 24, ws[d % streams], wsb,
                                st[d % streams], pdl);
      });
      if (r) t.push_back(ms);
      if (r == reps) bad = check([&](int d) { return where[d] ? k1 : k0; });
    }
    std::printf("  calls: %d bucket sorts on %d streams, PDL %s: %.3f ms; top + buckets %.3fx the whole sort; "
                "%llu differ\n",
                buckets, streams, pdl ? "on" : "off", median(t), (median(t_top) + median(t)) / median(t_whole),
                static_cast<unsigned long long>(bad));
  }

  // Offsets of every batch, relative to the batch's first key, 64-bit.
  for (int batch : {128, 32, 16, 8}) {
    const int batches = buckets / batch;
    std::vector<std::uint64_t> off;
    for (int b = 0; b < batches; ++b)
      for (int j = 0; j <= batch; ++j) off.push_back(bound[b * batch + j] - bound[b * batch]);
    std::uint64_t* d_off = nullptr;
    CK_EXIT(cudaMalloc(&d_off, off.size() * 8));
    CK_EXIT(cudaMemcpy(d_off, off.data(), off.size() * 8, cudaMemcpyHostToDevice));
    std::uint64_t most = 0;
    for (int b = 0; b < batches; ++b) most = std::max(most, bound[(b + 1) * batch] - bound[b * batch]);
    const onesweep_tuning t = swept();
    for (int streams : {1, 2}) {
      std::vector<void*> sws(streams);
      std::size_t sw_bytes = 0;
      for (int b = 0; b < batches; ++b) {
        const radix::segments segs = radix::segments::from_offsets(d_off + b * (batch + 1), std::uint64_t(batch));
        sw_bytes = std::max(sw_bytes, segmented_workspace_bytes<U, no_value>(sort_mode::keys, most, segs, t));
      }
      for (auto& p : sws) CK_EXIT(cudaMalloc(&p, sw_bytes));
      std::vector<float> tt;
      std::uint64_t bad = 0;
      for (int r = 0; r <= reps; ++r) {
        CK_EXIT(cudaMemcpy(k0, bucketed, n * 4, cudaMemcpyDeviceToDevice));
        const float ms = time([&] {
          for (int b = 0; b < batches; ++b) {
            segmented_job<U, no_value> job;
            job.mode = sort_mode::keys;
            job.keys = k0 + bound[b * batch];
            job.n = bound[(b + 1) * batch] - bound[b * batch];
            job.segs = radix::segments::from_offsets(d_off + b * (batch + 1), std::uint64_t(batch));
            job.codec = radix::core::ordered_codec<U>{};
            job.begin_bit = 0;
            job.end_bit = 24;
            job.workspace = sws[b % streams];
            job.workspace_bytes = sw_bytes;
            job.stream = st[b % streams];
            job.tuning = t;
            segmented_sort<U, no_value>(job);
          }
        });
        if (r) tt.push_back(ms);
        if (r == reps) bad = check([&](int) { return k0; });
      }
      std::printf("  sweep: %d batches of %d buckets on %d streams: %.3f ms; top + buckets %.3fx the whole sort; "
                  "%llu differ (workspace %.1f MiB a stream)\n",
                  batches, batch, streams, median(tt), (median(t_top) + median(tt)) / median(t_whole),
                  static_cast<unsigned long long>(bad), sw_bytes / 1048576.0);
      for (auto p : sws) CK_EXIT(cudaFree(p));
    }
    CK_EXIT(cudaFree(d_off));
  }
  return 0;
}
