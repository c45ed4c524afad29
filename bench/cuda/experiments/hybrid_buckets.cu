// Experiment (not built by CMake): the bucket sort a hybrid MSD path would need
// for u32 keys at 2^28. The keys are grouped by their top 16 bits (CUB over
// bits [16, 32)), a search finds each 16-bit bucket's start, and one block a
// bucket sorts it over its low 16 bits, in two forms:
//   count16: a counting sort over all 65536 low values with 4-bit counters
//            (the old nibble of the shared atomic is the key's place among its
//            equals), a scan of the 8192 counter words, staging, a coalesced write;
//   count12: 4096 bins of bits 4..15 with 8-bit counters, keys placed at bin
//            start + arrival, then ranked within their bin by comparison and
//            written from there.
// Both are unstable among equal keys (fine for whole integer keys alone).
// Results: bench/results/cuda-h100-2026-11-27-hybrid-buckets.md.
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -o hybrid_buckets bench/cuda/experiments/hybrid_buckets.cu
//   ./hybrid_buckets LOG2N MODE   (MODE 0: random keys; 1: keys & 0xFFFF00FF, bins
//                                  overflow; 2: keys & 0xFFFFFFF0, runs of equal keys)
#include <cub/device/device_radix_sort.cuh>
#include <cstdio>
#include <cstdint>
#include <vector>
#include <algorithm>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA %s at %d: %s\n", #x, __LINE__, cudaGetErrorString(e_)); exit(1);} } while (0)

__global__ void gen(uint32_t* k, uint64_t n, uint64_t seed, int mode) {
  for (uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < n; i += uint64_t(gridDim.x) * blockDim.x) {
    uint64_t x = (i + 1) * 0x9E3779B97F4A7C15ull ^ seed;
    x ^= x >> 31; x *= 0xBF58476D1CE4E5B9ull; x ^= x >> 29; x *= 0x94D049BB133111EBull; x ^= x >> 32;
    uint32_t v = uint32_t(x);
    if (mode == 1) v &= 0xFFFF00FFu;        // low byte varies: many duplicates in low 16 bits (overflow)
    if (mode == 2) v &= 0xFFFFFFF0u;        // runs of equal keys within each 12-bit bin
    k[i] = v;
  }
}

// starts[b] = first position whose top 16 bits are >= b (b = 0..65536)
__global__ void bucket_starts(const uint32_t* k, uint64_t n, uint32_t* starts) {
  const uint32_t b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b > 65536) return;
  uint64_t lo = 0, hi = n;
  while (lo < hi) {
    uint64_t mid = (lo + hi) / 2;
    if ((k[mid] >> 16) < b) lo = mid + 1; else hi = mid;
  }
  starts[b] = uint32_t(lo);
}

__device__ __forceinline__ uint32_t nibble_sum(uint32_t x) {
  x = (x & 0x0F0F0F0Fu) + ((x >> 4) & 0x0F0F0F0Fu);
  return (x * 0x01010101u) >> 24;
}

template <int Threads, int Cap>
struct count16 {
  static constexpr int items = Cap / Threads;
  static constexpr int words = 65536 / 8;
  static constexpr int words_per_thread = words / Threads;
  static constexpr size_t smem = words * 4 + words * 2 + Cap * 4;
};

template <int Threads, int Cap>
__global__ void __launch_bounds__(Threads) count16_kernel(uint32_t* keys, const uint32_t* starts, unsigned* flags) {
  using C = count16<Threads, Cap>;
  extern __shared__ __align__(16) unsigned char smem[];
  uint32_t* table = reinterpret_cast<uint32_t*>(smem);
  uint16_t* pre = reinterpret_cast<uint16_t*>(smem + C::words * 4);
  uint32_t* stage = reinterpret_cast<uint32_t*>(smem + C::words * 6);
  __shared__ uint32_t warp_tot[Threads / 32];
  __shared__ int overflow;
  const int tid = threadIdx.x;
  const uint32_t s = starts[blockIdx.x], e = starts[blockIdx.x + 1];
  const int m = int(e - s);
  if (m <= 1) return;
  if (m > Cap) { if (tid == 0) atomicAdd(&flags[0], 1u); return; }
  // 1. clear the counters
  for (int i = tid; i < C::words / 4; i += Threads) reinterpret_cast<uint4*>(table)[i] = make_uint4(0, 0, 0, 0);
  if (tid == 0) overflow = 0;
  // 2. load
  uint32_t k[C::items];
#pragma unroll
  for (int j = 0; j < C::items; ++j) {
    const int i = tid + j * Threads;
    k[j] = i < m ? keys[s + i] : 0u;
  }
  __syncthreads();
  // 3. count: the old nibble is the key's place among its equals
  uint32_t r[C::items];
  bool ovf = false;
#pragma unroll
  for (int j = 0; j < C::items; ++j) {
    const int i = tid + j * Threads;
    if (i < m) {
      const uint32_t d = k[j] & 0xFFFFu;
      const uint32_t sh = (d & 7u) * 4u;
      const uint32_t old = atomicAdd(&table[d >> 3], 1u << sh);
      r[j] = (old >> sh) & 15u;
      ovf |= r[j] == 15u;
    }
  }
  if (ovf) overflow = 1;
  __syncthreads();
  if (overflow) { if (tid == 0) atomicAdd(&flags[1], 1u); return; }
  // 4. scan the words' nibble sums (each thread a contiguous run of words)
  uint32_t sums[C::words_per_thread];
  uint32_t tot = 0;
#pragma unroll
  for (int q = 0; q < C::words_per_thread / 4; ++q) {
    const uint4 v = reinterpret_cast<const uint4*>(table)[tid * (C::words_per_thread / 4) + q];
    sums[4 * q + 0] = nibble_sum(v.x); sums[4 * q + 1] = nibble_sum(v.y);
    sums[4 * q + 2] = nibble_sum(v.z); sums[4 * q + 3] = nibble_sum(v.w);
  }
#pragma unroll
  for (int q = 0; q < C::words_per_thread; ++q) { const uint32_t t = sums[q]; sums[q] = tot; tot += t; }
  // block exclusive scan of tot
  const int lane = tid & 31, warp = tid >> 5;
  uint32_t inc = tot;
#pragma unroll
  for (int o = 1; o < 32; o *= 2) { const uint32_t y = __shfl_up_sync(~0u, inc, o); if (lane >= o) inc += y; }
  if (lane == 31) warp_tot[warp] = inc;
  __syncthreads();
  uint32_t wbase = 0;
#pragma unroll
  for (int w = 0; w < Threads / 32; ++w) wbase += w < warp ? warp_tot[w] : 0u;
  const uint32_t base = wbase + inc - tot;
#pragma unroll
  for (int q = 0; q < C::words_per_thread / 8; ++q) {
    uint4 v;
    v.x = (sums[8 * q + 0] + base) | ((sums[8 * q + 1] + base) << 16);
    v.y = (sums[8 * q + 2] + base) | ((sums[8 * q + 3] + base) << 16);
    v.z = (sums[8 * q + 4] + base) | ((sums[8 * q + 5] + base) << 16);
    v.w = (sums[8 * q + 6] + base) | ((sums[8 * q + 7] + base) << 16);
    reinterpret_cast<uint4*>(pre)[tid * (C::words_per_thread / 8) + q] = v;
  }
  __syncthreads();
  // 5. place each key in the staging at its rank
#pragma unroll
  for (int j = 0; j < C::items; ++j) {
    const int i = tid + j * Threads;
    if (i < m) {
      const uint32_t d = k[j] & 0xFFFFu;
      const uint32_t sh = (d & 7u) * 4u;
      const uint32_t w = table[d >> 3];
      const uint32_t pos = pre[d >> 3] + nibble_sum(w & ((1u << sh) - 1u)) + r[j];
      stage[pos] = k[j];
    }
  }
  __syncthreads();
  // 6. write back, coalesced
  for (int i = tid; i < m; i += Threads) keys[s + i] = stage[i];
}


// v2: 12-bit bins (bits 4..15) with 8-bit counters (4 KiB), keys staged at
// bin start + arrival, then each key finds its place among its bin's few
// keys by comparison and is written out from there (almost coalesced).
template <int Threads, int Cap>
struct count12 {
  static constexpr int items = Cap / Threads;
  static constexpr int words = 4096 / 4;
  static constexpr int wpt = words / Threads;  // words a thread scans (>= 1)
  static constexpr size_t smem = words * 4 + words * 2 + Cap * 4;
};

__device__ __forceinline__ uint32_t byte_sum(uint32_t x) {
  x = (x & 0x00FF00FFu) + ((x >> 8) & 0x00FF00FFu);
  return (x + (x >> 16)) & 0xFFFFu;
}

template <int Threads, int Cap, int MinBlocks>
__global__ void __launch_bounds__(Threads, MinBlocks) count12_kernel(uint32_t* keys, const uint32_t* starts, unsigned* flags) {
  using C = count12<Threads, Cap>;
  static_assert(C::wpt >= 1, "");
  extern __shared__ __align__(16) unsigned char smem[];
  uint32_t* table = reinterpret_cast<uint32_t*>(smem);
  uint16_t* pre = reinterpret_cast<uint16_t*>(smem + C::words * 4);
  uint32_t* stage = reinterpret_cast<uint32_t*>(smem + C::words * 6);
  __shared__ uint32_t warp_tot[Threads / 32];
  __shared__ int overflow;
  const int tid = threadIdx.x;
  const uint32_t s = starts[blockIdx.x], e = starts[blockIdx.x + 1];
  const int m = int(e - s);
  if (m <= 1) return;
  if (m > Cap) { if (tid == 0) atomicAdd(&flags[0], 1u); return; }
  for (int i = tid; i < C::words; i += Threads) table[i] = 0;
  if (tid == 0) overflow = 0;
  uint32_t k[C::items];
#pragma unroll
  for (int j = 0; j < C::items; ++j) {
    const int i = tid + j * Threads;
    k[j] = i < m ? keys[s + i] : 0u;
  }
  __syncthreads();
  uint32_t r[(C::items + 3) / 4] = {};
  bool ovf = false;
#pragma unroll
  for (int j = 0; j < C::items; ++j) {
    const int i = tid + j * Threads;
    if (i < m) {
      const uint32_t b = (k[j] >> 4) & 0xFFFu;
      const uint32_t sh = (b & 3u) * 8u;
      const uint32_t old = (atomicAdd(&table[b >> 2], 1u << sh) >> sh) & 255u;
      r[j / 4] |= old << ((j % 4) * 8);
      ovf |= old == 255u;
    }
  }
  if (ovf) overflow = 1;
  __syncthreads();
  if (overflow) { if (tid == 0) atomicAdd(&flags[1], 1u); return; }
  uint32_t sums[C::wpt];
  uint32_t tot = 0;
#pragma unroll
  for (int q = 0; q < C::wpt; ++q) { const uint32_t t = byte_sum(table[tid * C::wpt + q]); sums[q] = tot; tot += t; }
  const int lane = tid & 31, warp = tid >> 5;
  uint32_t inc = tot;
#pragma unroll
  for (int o = 1; o < 32; o *= 2) { const uint32_t y = __shfl_up_sync(~0u, inc, o); if (lane >= o) inc += y; }
  if (lane == 31) warp_tot[warp] = inc;
  __syncthreads();
  uint32_t wbase = 0;
#pragma unroll
  for (int w = 0; w < Threads / 32; ++w) wbase += w < warp ? warp_tot[w] : 0u;
  const uint32_t base = wbase + inc - tot;
#pragma unroll
  for (int q = 0; q < C::wpt; ++q) pre[tid * C::wpt + q] = uint16_t(sums[q] + base);
  __syncthreads();
#pragma unroll
  for (int j = 0; j < C::items; ++j) {
    const int i = tid + j * Threads;
    if (i < m) {
      const uint32_t b = (k[j] >> 4) & 0xFFFu;
      const uint32_t sh = (b & 3u) * 8u;
      const uint32_t pos = pre[b >> 2] + byte_sum(table[b >> 2] & ((1u << sh) - 1u)) + ((r[j / 4] >> ((j % 4) * 8)) & 255u);
      stage[pos] = k[j];
    }
  }
  __syncthreads();
  // each key's place among its bin's keys (unstable among equal keys: keys alone)
  for (int p = tid; p < m; p += Threads) {
    const uint32_t key = stage[p];
    const uint32_t b = (key >> 4) & 0xFFFu;
    const uint32_t sh = (b & 3u) * 8u;
    const uint32_t w = table[b >> 2];
    const uint32_t st = pre[b >> 2] + byte_sum(w & ((1u << sh) - 1u));
    const uint32_t len = (w >> sh) & 255u;
    uint32_t rank = 0;
    for (uint32_t q = st; q < st + len; ++q) {
      const uint32_t kq = stage[q];
      rank += (kq < key) | ((kq == key) & (q < uint32_t(p)));
    }
    keys[s + st + rank] = key;
  }
}

template <int Threads, int Cap, int MinBlocks>
float run_count12(uint32_t* work, const uint32_t* grouped, uint32_t* starts, unsigned* flags, uint64_t n, int reps,
                  unsigned* hflags) {
  using C = count12<Threads, Cap>;
  auto kern = count12_kernel<Threads, Cap, MinBlocks>;
  CK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, int(C::smem)));
  int occ = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, kern, Threads, C::smem));
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
  std::vector<float> tc;
  for (int r = 0; r < reps; ++r) {
    CK(cudaMemcpy(work, grouped, n * 4, cudaMemcpyDeviceToDevice));
    CK(cudaMemset(flags, 0, 8));
    bucket_starts<<<(65537 + 255) / 256, 256>>>(work, n, starts);
    CK(cudaEventRecord(a));
    kern<<<65536, Threads, C::smem>>>(work, starts, flags);
    CK(cudaGetLastError());
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float y;
    CK(cudaEventElapsedTime(&y, a, b));
    tc.push_back(y);
  }
  CK(cudaMemcpy(hflags, flags, 8, cudaMemcpyDeviceToHost));
  std::sort(tc.begin(), tc.end());
  printf("count12<%d,%d,%d>: %d blocks/SM, smem %zu, kernel median %.3f ms (min %.3f), flags oversized=%u overflow=%u\n",
         Threads, Cap, MinBlocks, occ, C::smem, tc[tc.size() / 2], tc[0], hflags[0], hflags[1]);
  return tc[tc.size() / 2];
}

template <int Threads, int Cap>
float run_count(uint32_t* work, const uint32_t* grouped, uint32_t* starts, unsigned* flags, uint64_t n, int reps,
                float* search_ms, unsigned* hflags) {
  using C = count16<Threads, Cap>;
  CK(cudaFuncSetAttribute(count16_kernel<Threads, Cap>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(C::smem)));
  int occ = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, count16_kernel<Threads, Cap>, Threads, C::smem));
  cudaEvent_t a, b, c;
  CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b)); CK(cudaEventCreate(&c));
  std::vector<float> tc, ts;
  for (int r = 0; r < reps; ++r) {
    CK(cudaMemcpy(work, grouped, n * 4, cudaMemcpyDeviceToDevice));
    CK(cudaMemset(flags, 0, 8));
    CK(cudaEventRecord(a));
    bucket_starts<<<(65537 + 255) / 256, 256>>>(work, n, starts);
    CK(cudaEventRecord(b));
    count16_kernel<Threads, Cap><<<65536, Threads, C::smem>>>(work, starts, flags);
    CK(cudaGetLastError());
    CK(cudaEventRecord(c));
    CK(cudaEventSynchronize(c));
    float x, y;
    CK(cudaEventElapsedTime(&x, a, b)); CK(cudaEventElapsedTime(&y, b, c));
    ts.push_back(x); tc.push_back(y);
  }
  CK(cudaMemcpy(hflags, flags, 8, cudaMemcpyDeviceToHost));
  std::sort(tc.begin(), tc.end()); std::sort(ts.begin(), ts.end());
  *search_ms = ts[ts.size() / 2];
  printf("count16<%d,%d>: %d blocks/SM, smem %zu, count kernel median %.3f ms (min %.3f), search %.3f ms, flags oversized=%u overflow=%u\n",
         Threads, Cap, occ, C::smem, tc[tc.size() / 2], tc[0], ts[ts.size() / 2], hflags[0], hflags[1]);
  return tc[tc.size() / 2];
}

int main(int argc, char** argv) {
  const int log2n = argc > 1 ? atoi(argv[1]) : 28;
  const int mode = argc > 2 ? atoi(argv[2]) : 0;
  const uint64_t n = uint64_t(1) << log2n;
  const int reps = 9;
  uint32_t *keys, *alt, *grouped, *work, *ref, *starts;
  unsigned* flags;
  CK(cudaMalloc(&keys, n * 4)); CK(cudaMalloc(&alt, n * 4)); CK(cudaMalloc(&grouped, n * 4));
  CK(cudaMalloc(&work, n * 4)); CK(cudaMalloc(&ref, n * 4)); CK(cudaMalloc(&starts, 65537 * 4));
  CK(cudaMalloc(&flags, 8));
  gen<<<1024, 256>>>(keys, n, 12345, mode);
  CK(cudaDeviceSynchronize());
  void* tmp = nullptr;
  size_t tmp_bytes = 0, t2 = 0;
  {
    cub::DoubleBuffer<uint32_t> db(work, alt);
    CK(cub::DeviceRadixSort::SortKeys(nullptr, tmp_bytes, db, int64_t(n)));
    CK(cub::DeviceRadixSort::SortKeys(nullptr, t2, db, int64_t(n), 16, 32));
    tmp_bytes = std::max(tmp_bytes, t2);
    CK(cudaMalloc(&tmp, tmp_bytes));
  }
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
  std::vector<float> tfull, ttop;
  for (int r = 0; r < reps; ++r) {
    for (int which = 0; which < 2; ++which) {
      CK(cudaMemcpy(work, keys, n * 4, cudaMemcpyDeviceToDevice));
      cub::DoubleBuffer<uint32_t> db(work, alt);
      CK(cudaEventRecord(a));
      if (which == 0) CK(cub::DeviceRadixSort::SortKeys(tmp, tmp_bytes, db, int64_t(n)));
      else CK(cub::DeviceRadixSort::SortKeys(tmp, tmp_bytes, db, int64_t(n), 16, 32));
      CK(cudaEventRecord(b));
      CK(cudaEventSynchronize(b));
      float ms;
      CK(cudaEventElapsedTime(&ms, a, b));
      (which == 0 ? tfull : ttop).push_back(ms);
      if (r == 0) CK(cudaMemcpy(which == 0 ? ref : grouped, db.Current(), n * 4, cudaMemcpyDeviceToDevice));
    }
  }
  std::sort(tfull.begin(), tfull.end()); std::sort(ttop.begin(), ttop.end());
  printf("n=2^%d mode=%d: CUB full sort %.3f ms, CUB bits [16,32) %.3f ms\n", log2n, mode, tfull[reps / 2], ttop[reps / 2]);
  unsigned hflags[2];
  std::vector<uint32_t> h(n), hr(n);
  CK(cudaMemcpy(hr.data(), ref, n * 4, cudaMemcpyDeviceToHost));
  auto check = [&](const char* what) {
    CK(cudaMemcpy(h.data(), work, n * 4, cudaMemcpyDeviceToHost));
    uint64_t bad = 0, first = n;
    for (uint64_t i = 0; i < n; ++i) if (h[i] != hr[i]) { if (!bad) first = i; ++bad; }
    printf("  %s: %llu mismatches (first at %llu)\n", what, (unsigned long long)bad, (unsigned long long)first);
  };
  float sm;
  float best = run_count<512, 6144>(work, grouped, starts, flags, n, reps, &sm, hflags); check("count16 512x6144");
  float c;
  c = run_count12<512, 6144, 2>(work, grouped, starts, flags, n, reps, hflags); check("count12 512x6144/2"); best = std::min(best, c);
  c = run_count12<512, 6144, 3>(work, grouped, starts, flags, n, reps, hflags); check("count12 512x6144/3"); best = std::min(best, c);
  c = run_count12<256, 6144, 4>(work, grouped, starts, flags, n, reps, hflags); check("count12 256x6144/4"); best = std::min(best, c);
  c = run_count12<256, 6144, 3>(work, grouped, starts, flags, n, reps, hflags); check("count12 256x6144/3"); best = std::min(best, c);
  c = run_count12<1024, 6144, 1>(work, grouped, starts, flags, n, reps, hflags); check("count12 1024x6144/1"); best = std::min(best, c);
  printf("estimate: CUB top-16 %.3f + search %.3f + count %.3f = %.3f ms against CUB full %.3f (%.2fx)\n",
         ttop[reps / 2], sm, best, ttop[reps / 2] + sm + best, tfull[reps / 2],
         tfull[reps / 2] / (ttop[reps / 2] + sm + best));
  return 0;
}
