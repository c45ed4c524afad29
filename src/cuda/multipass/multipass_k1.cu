// Seed-algorithm instantiations for 8-bit keys: keys only, and 4- or
// 8-byte values or indices (other value sizes go through an argsort and a
// gather, cuda_engine.cu).
#include "multipass_dispatch.cuh"

namespace radix::cuda_detail {
#if !(defined(RADIX_CUDA_DEV_TYPES) && RADIX_CUDA_DEV_TYPES)
RADIX_SEED_INSTANTIATE(std::uint8_t, no_value)
RADIX_SEED_INSTANTIATE(std::uint8_t, std::uint32_t)
RADIX_SEED_INSTANTIATE(std::uint8_t, std::uint64_t)
#endif
}  // namespace radix::cuda_detail
