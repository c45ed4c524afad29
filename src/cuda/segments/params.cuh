// What the segmented sort's own kernels (lane groups, row network, warp,
// long and split routes) read: where each segment begins, and the buffers,
// mode and key transform of the request.
#pragma once
#include <cstdint>

#include "../common/common.cuh"
#include "segments.hpp"

namespace radix::cuda_detail {

/// Where segment s begins, on the device: offsets of 4 or 8 bytes, or uniform.
struct segment_reader {
  const void* offsets = nullptr;
  int offset_bytes = 0;  ///< 0: uniform
  std::uint64_t length = 0;
  std::uint64_t count = 0;

  __device__ __forceinline__ std::uint64_t begin(std::uint64_t s) const {
    if (offset_bytes == 0) return s * length;
    if (offset_bytes == 4) return static_cast<const std::uint32_t*>(offsets)[s];
    return static_cast<const std::uint64_t*>(offsets)[s];
  }
};

/// What the lane-group, warp and long routes read and write.
template <class U, class V>
struct segment_params {
  U* keys = nullptr;
  V* values = nullptr;  ///< pairs: values; argsort: local indices out
  U* sorted_keys = nullptr;  ///< argsort: the keys in sorted order too, or nullptr
  sort_mode mode = sort_mode::keys;
  core::ordered_codec<U> codec{};
  U range_mask = 0;
};

}  // namespace radix::cuda_detail
