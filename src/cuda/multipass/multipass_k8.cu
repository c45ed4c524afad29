// Multipass-algorithm instantiations for 64-bit keys: keys only, and 4- or
// 8-byte values or indices (other value sizes go through an argsort and a
// gather, device_sort.cu).
#include "multipass_dispatch.cuh"

namespace radix::cuda_detail {
RADIX_MULTIPASS_INSTANTIATE_KEY(std::uint64_t, 1)
}  // namespace radix::cuda_detail
