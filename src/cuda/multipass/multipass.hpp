// The seed algorithms (reduce_then_scan, four_way, split) as the engine sees
// them: a job per (key width, value type), the workspace it needs, and the
// explicitly instantiated entry points (multipass_k1/2/4/8.cu). No kernels here.
#pragma once
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "../common/common.cuh"
#include "radix/core/ordered_bits.hpp"
#include "radix/options.hpp"

namespace radix::cuda_detail {

/// Which seed algorithm and configuration (radix::cuda::variant, minus onesweep).
struct multipass_variant {
  algorithm algo = algorithm::reduce_then_scan;
  int digit_bits = 8;     ///< validated: rts 1/2/4/8, four_way 2/3, split 4
  int tile = 0;           ///< index into the algorithm's tile table (policy.hpp)
  bool coalesced = true;  ///< four_way only
};

template <class U, class V>
struct multipass_job {
  sort_mode mode = sort_mode::keys;
  U* keys = nullptr;
  V* values = nullptr;
  std::uint64_t n = 0;
  core::ordered_codec<U> codec{};
  int begin_bit = 0, end_bit = -1;
  multipass_variant variant{};
  void* workspace = nullptr;
  std::size_t workspace_bytes = 0;
  void* stream = nullptr;
};

template <class U, class V>
void multipass_sort(const multipass_job<U, V>& job);
template <class U, class V>
std::size_t multipass_workspace_bytes(sort_mode mode, std::uint64_t n, const multipass_variant& v);

/// Value types the seed algorithms move themselves (others: argsort + gather).
template <class V>
constexpr bool multipass_value_type() {
  return std::is_same_v<V, no_value> || std::is_same_v<V, std::uint32_t> || std::is_same_v<V, std::uint64_t>;
}

/// Whether this build instantiated them for keys U with values V (see onesweep_compiled).
template <class U, class V>
constexpr bool multipass_compiled() {
#if defined(RADIX_CUDA_DEV_TYPES) && RADIX_CUDA_DEV_TYPES
  return (sizeof(U) == 4 || sizeof(U) == 8) && (std::is_same_v<V, no_value> || std::is_same_v<V, std::uint32_t>);
#else
  return multipass_value_type<V>();
#endif
}

}  // namespace radix::cuda_detail
