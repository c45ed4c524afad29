// The gather after a key + index sort: out[i] = in[perm[i]] for records of
// any size (Ha, Krüger & Silva 2009, "Fast 4-way parallel radix sorting on
// GPUs", §4.7 and Fig. 3: the gather, uncoalesced reads and
// coalesced writes, was the bottleneck of record sorting there).
//
// One kernel for every record size. The output is seen as a flat array of
// words (16, 8, 4, 2 or 1 bytes: the widest that the record size and both
// base addresses allow). A warp takes 32 x Unroll consecutive output words,
// so its writes are fully coalesced whatever the record size, and the lanes
// that share a record read that record's consecutive words, so each record
// is read as one contiguous run. Records of 4, 8 and 16 bytes become one
// vector move per lane. Every lane issues all its loads before its stores, so
// many random reads are in flight (they are the cost).
#include <algorithm>
#include <string>

#include "common/common.cuh"
#include "gather.cuh"

namespace radix::cuda_detail {
namespace {

constexpr int gather_threads = 256;

struct alignas(16) word16 {
  unsigned w[4];
};
struct alignas(8) word8 {
  unsigned w[2];
};

/// Read-only-path load of one word (16- and 8-byte words as vectors).
template <class W>
__device__ __forceinline__ W ld_word(const W* p) {
  if constexpr (sizeof(W) == 16) {
    const uint4 x = __ldg(reinterpret_cast<const uint4*>(p));
    return W{{x.x, x.y, x.z, x.w}};
  } else if constexpr (sizeof(W) == 8) {
    const uint2 x = __ldg(reinterpret_cast<const uint2*>(p));
    return W{{x.x, x.y}};
  } else {
    return __ldg(p);
  }
}

/// q = o / d for o < 2^24 (exact: the float estimate is off by at most one).
__device__ __forceinline__ unsigned small_div(unsigned o, unsigned d, float inv) {
  unsigned q = __float2uint_rz(float(o) * inv);
  if (q * d > o) --q;
  else if ((q + 1) * d <= o) ++q;
  return q;
}

/// One: records of one word (4, 8, 16 bytes): no division at all.
template <class W, int Unroll, class I, bool One>
__global__ void __launch_bounds__(gather_threads) gather_kernel(W* __restrict__ out, const W* __restrict__ in,
                                                                 const I* __restrict__ perm, std::uint64_t words,
                                                                 unsigned wpr_, float inv_wpr) {
  const unsigned wpr = One ? 1u : wpr_;
  constexpr unsigned chunk = 32u * Unroll;
  const unsigned lane = threadIdx.x & 31u;
  const std::uint64_t warps = std::uint64_t(gridDim.x) * (gather_threads / 32);
  for (std::uint64_t c = std::uint64_t(blockIdx.x) * (gather_threads / 32) + threadIdx.x / 32; c * chunk < words;
       c += warps) {
    const std::uint64_t w0 = c * chunk;
    const std::uint64_t r0 = One ? w0 : w0 / wpr;  // the record of the chunk's first word
    const unsigned o0 = unsigned(w0 - r0 * wpr);  // and the word inside it
    W v[Unroll];
#pragma unroll
    for (int k = 0; k < Unroll; ++k) {
      const unsigned o = o0 + unsigned(k) * 32u + lane;
      const unsigned q = One ? o : small_div(o, wpr, inv_wpr);
      const std::uint64_t r = r0 + q;
      if (w0 + unsigned(k) * 32u + lane < words)
        v[k] = ld_word(in + std::uint64_t(__ldg(perm + r)) * wpr + (o - q * wpr));
    }
#pragma unroll
    for (int k = 0; k < Unroll; ++k) {
      const std::uint64_t w = w0 + unsigned(k) * 32u + lane;
      if (w < words) out[w] = v[k];
    }
  }
}

int grid_for(std::uint64_t chunks) {
  static per_device<int> sm_counts;
  const int sms = sm_counts.get([] {
    int dev = 0, n = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess) {
      (void)cudaGetLastError();
      n = 132;
    }
    return n;
  });
  // Enough resident warps to keep many reads in flight, no more (grid-stride).
  const std::uint64_t blocks = (chunks + gather_threads / 32 - 1) / (gather_threads / 32);
  return int(std::min<std::uint64_t>(blocks, std::uint64_t(sms) * 8));
}

template <class W, class I>
void launch_words(void* out, const void* in, std::size_t bytes, const I* perm, std::uint64_t n, cudaStream_t s) {
  constexpr int unroll = sizeof(W) >= 8 ? 4 : 8;
  const unsigned wpr = unsigned(bytes / sizeof(W));
  const std::uint64_t words = n * wpr;
  const int grid = grid_for((words + 32 * unroll - 1) / (32 * unroll));
  if (wpr == 1)
    gather_kernel<W, unroll, I, true><<<grid, gather_threads, 0, s>>>(static_cast<W*>(out), static_cast<const W*>(in),
                                                                      perm, words, wpr, 1.0f);
  else
    gather_kernel<W, unroll, I, false><<<grid, gather_threads, 0, s>>>(static_cast<W*>(out), static_cast<const W*>(in),
                                                                       perm, words, wpr, 1.0f / float(wpr));
  RADIX_CUDA_CHECK_LAUNCH("radix gather_kernel");
}

template <class I>
void launch(void* out, const void* in, std::size_t bytes, const I* perm, std::uint64_t n, cudaStream_t s) {
  if (bytes > (std::size_t(1) << 22))
    throw invalid_argument("radix: records of " + std::to_string(bytes) + " bytes are larger than the CUDA gather's 4 MiB");
  const auto a = reinterpret_cast<std::uintptr_t>(out) | reinterpret_cast<std::uintptr_t>(in) | bytes;
  if (a % 16 == 0) launch_words<word16>(out, in, bytes, perm, n, s);
  else if (a % 8 == 0) launch_words<word8>(out, in, bytes, perm, n, s);
  else if (a % 4 == 0) launch_words<unsigned>(out, in, bytes, perm, n, s);
  else if (a % 2 == 0) launch_words<unsigned short>(out, in, bytes, perm, n, s);
  else launch_words<unsigned char>(out, in, bytes, perm, n, s);
}

/// Four indices a thread: one 16-byte load and two 16-byte stores where
/// both buffers are 16-byte aligned (Vector), else four scalar moves.
template <bool Vector>
__global__ void __launch_bounds__(gather_threads) widen_kernel(std::uint64_t* __restrict__ out,
                                                               const std::uint32_t* __restrict__ in, std::uint64_t n) {
  const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x * 4;
  for (std::uint64_t i = (std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x) * 4; i < n; i += stride) {
    if (Vector && i + 4 <= n) {
      const uint4 v = *reinterpret_cast<const uint4*>(in + i);
      reinterpret_cast<ulonglong2*>(out + i)[0] = make_ulonglong2(v.x, v.y);
      reinterpret_cast<ulonglong2*>(out + i)[1] = make_ulonglong2(v.z, v.w);
    } else {
      for (std::uint64_t j = i; j < i + 4 && j < n; ++j) out[j] = in[j];
    }
  }
}

}  // namespace

void widen_indices(std::uint64_t* out, const std::uint32_t* in, std::uint64_t n, void* stream) {
  if (n == 0) return;
  const int grid = grid_for((n + 4 * 32 - 1) / (4 * 32));
  const auto s = static_cast<cudaStream_t>(stream);
  if ((reinterpret_cast<std::uintptr_t>(out) | reinterpret_cast<std::uintptr_t>(in)) % 16 == 0)
    widen_kernel<true><<<grid, gather_threads, 0, s>>>(out, in, n);
  else
    widen_kernel<false><<<grid, gather_threads, 0, s>>>(out, in, n);
  RADIX_CUDA_CHECK_LAUNCH("radix widen_kernel");
}

void gather_bytes(void* out, const void* in, std::size_t bytes, const void* perm, int index_bytes, std::uint64_t n,
                  void* stream) {
  if (n == 0) return;
  auto s = static_cast<cudaStream_t>(stream);
  if (index_bytes == 4) launch(out, in, bytes, static_cast<const std::uint32_t*>(perm), n, s);
  else launch(out, in, bytes, static_cast<const std::uint64_t*>(perm), n, s);
}

}  // namespace radix::cuda_detail
