#include <algorithm>

#include "common.cuh"
#include "gather.cuh"

namespace radix::cuda_detail {
namespace {

template <class I, class W>
__global__ void gather_kernel(W* out, const W* in, std::size_t words, const I* perm, std::uint64_t n) {
  const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
  for (std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const std::uint64_t s = perm[i];
    for (std::size_t w = 0; w < words; ++w) out[i * words + w] = in[s * words + w];
  }
}

template <class I>
void launch(void* out, const void* in, std::size_t bytes, const I* perm, std::uint64_t n, cudaStream_t s) {
  const unsigned grid = unsigned(std::min<std::uint64_t>((n + 255) / 256, 4096));
  const auto a = reinterpret_cast<std::uintptr_t>(out) | reinterpret_cast<std::uintptr_t>(in);
  if (bytes % 4 == 0 && a % 4 == 0)
    gather_kernel<I, std::uint32_t><<<grid, 256, 0, s>>>(static_cast<std::uint32_t*>(out),
                                                         static_cast<const std::uint32_t*>(in), bytes / 4, perm, n);
  else
    gather_kernel<I, std::uint8_t><<<grid, 256, 0, s>>>(static_cast<std::uint8_t*>(out),
                                                        static_cast<const std::uint8_t*>(in), bytes, perm, n);
  RADIX_CUDA_CHECK_LAUNCH("radix gather_kernel");
}

}  // namespace

void gather_bytes(void* out, const void* in, std::size_t bytes, const void* perm, int index_bytes, std::uint64_t n,
                  void* stream) {
  if (n == 0) return;
  auto s = static_cast<cudaStream_t>(stream);
  if (index_bytes == 4) launch(out, in, bytes, static_cast<const std::uint32_t*>(perm), n, s);
  else launch(out, in, bytes, static_cast<const std::uint64_t*>(perm), n, s);
}

}  // namespace radix::cuda_detail
