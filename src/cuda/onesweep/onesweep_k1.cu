// Onesweep instantiations for 8-bit keys: keys only, and values of 1, 2,
// 4, 8 and 16 bytes (argsort indices are 4- or 8-byte values).
#include "dispatch.cuh"

namespace radix::cuda_detail {
RADIX_ONESWEEP_INSTANTIATE_KEY(std::uint8_t, 0)
}  // namespace radix::cuda_detail
