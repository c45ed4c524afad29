// Segmented-sort instantiations for 8-bit keys: keys only, and values
// of 1, 2, 4 and 8 bytes (argsort indices are 4- or 8-byte values).
#include "dispatch.cuh"

namespace radix::cuda_detail {
RADIX_SEGMENTED_INSTANTIATE_KEY(std::uint8_t)
}  // namespace radix::cuda_detail
