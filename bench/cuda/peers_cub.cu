#include <cub/version.cuh>
#include <thrust/execution_policy.h>
#include <thrust/sort.h>
#include <thrust/version.h>

#include "peers_cub_impl.cuh"

namespace peers {

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
  return cub_temp_bytes_as<K, V, long long>(n, begin_bit, end_bit);
}

template <class K, class V>
int cub_sort(K* keys, K* keys_alt, V* vals, V* vals_alt, std::uint64_t n, int begin_bit, int end_bit, void* temp,
             std::size_t temp_bytes, cudaStream_t s) {
  return cub_sort_as<K, V, long long>(keys, keys_alt, vals, vals_alt, n, begin_bit, end_bit, temp, temp_bytes, s);
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
