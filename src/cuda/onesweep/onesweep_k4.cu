// Onesweep instantiations for 32-bit keys: keys only, and values of 1, 2,
// 4, 8 and 16 bytes (argsort indices are 4- or 8-byte values).
#include "dispatch.cuh"

namespace radix::cuda_detail {
RADIX_ONESWEEP_INSTANTIATE(std::uint32_t, no_value)
RADIX_ONESWEEP_INSTANTIATE(std::uint32_t, std::uint32_t)
#if !(defined(RADIX_CUDA_DEV_TYPES) && RADIX_CUDA_DEV_TYPES)
RADIX_ONESWEEP_INSTANTIATE(std::uint32_t, std::uint8_t)
RADIX_ONESWEEP_INSTANTIATE(std::uint32_t, std::uint16_t)
RADIX_ONESWEEP_INSTANTIATE(std::uint32_t, std::uint64_t)
RADIX_ONESWEEP_INSTANTIATE(std::uint32_t, v128)
#endif
}  // namespace radix::cuda_detail
