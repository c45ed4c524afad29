#include <cub/device/device_radix_sort.cuh>
#include <cub/version.cuh>
#include <thrust/execution_policy.h>
#include <thrust/sort.h>
#include <thrust/version.h>

#include <stdexcept>
#include <type_traits>

#include "peers_cub.hpp"

namespace peers {

#define PEER_CHECK(call)                                                               \
  do {                                                                                 \
    cudaError_t e_ = (call);                                                           \
    if (e_ != cudaSuccess) throw std::runtime_error(std::string(#call) + ": " + cudaGetErrorString(e_)); \
  } while (0)

std::string cub_version() {
  return std::to_string(CUB_VERSION / 100000) + "." + std::to_string(CUB_VERSION / 100 % 1000) + "." +
         std::to_string(CUB_VERSION % 100);
}
std::string thrust_version() {
  return std::to_string(THRUST_MAJOR_VERSION) + "." + std::to_string(THRUST_MINOR_VERSION) + "." +
         std::to_string(THRUST_SUBMINOR_VERSION);
}

template <class K, class V>
std::size_t cub_temp_bytes(std::uint64_t n, int begin_bit, int end_bit) {
  std::size_t bytes = 0;
  cub::DoubleBuffer<K> k(nullptr, nullptr);
  if constexpr (std::is_same_v<V, none>) {
    PEER_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, bytes, k, static_cast<long long>(n), begin_bit, end_bit));
  } else {
    cub::DoubleBuffer<V> v(nullptr, nullptr);
    PEER_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, k, v, static_cast<long long>(n), begin_bit, end_bit));
  }
  return bytes;
}

template <class K, class V>
int cub_sort(K* keys, K* keys_alt, V* vals, V* vals_alt, std::uint64_t n, int begin_bit, int end_bit, void* temp,
             std::size_t temp_bytes, cudaStream_t s) {
  cub::DoubleBuffer<K> k(keys, keys_alt);
  if constexpr (std::is_same_v<V, none>) {
    PEER_CHECK(cub::DeviceRadixSort::SortKeys(temp, temp_bytes, k, static_cast<long long>(n), begin_bit, end_bit, s));
  } else {
    cub::DoubleBuffer<V> v(vals, vals_alt);
    PEER_CHECK(cub::DeviceRadixSort::SortPairs(temp, temp_bytes, k, v, static_cast<long long>(n), begin_bit, end_bit, s));
  }
  return k.selector;
}

template <class K, class V>
void thrust_sort(K* keys, V* vals, std::uint64_t n, cudaStream_t s) {
  if constexpr (std::is_same_v<V, none>) thrust::sort(thrust::cuda::par.on(s), keys, keys + n);
  else thrust::sort_by_key(thrust::cuda::par.on(s), keys, keys + n, vals);
}

#define PEER_INST(K, V)                                                                                      \
  template std::size_t cub_temp_bytes<K, V>(std::uint64_t, int, int);                                      \
  template int cub_sort<K, V>(K*, K*, V*, V*, std::uint64_t, int, int, void*, std::size_t, cudaStream_t); \
  template void thrust_sort<K, V>(K*, V*, std::uint64_t, cudaStream_t);
PEER_INST(std::uint32_t, none)
PEER_INST(float, none)
PEER_INST(std::uint64_t, none)
PEER_INST(std::uint32_t, std::uint32_t)
PEER_INST(std::uint64_t, std::uint32_t)

}  // namespace peers
