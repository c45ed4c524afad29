// The definitions behind peers_cub.hpp's CUB calls, templated on CUB's
// num_items type, for the translation units that instantiate them
// (peers_cub.cu: the benchmarks' 64-bit calls; peers_cub_matrix_*.cu: the
// matrix's types with both widths). Includes CUB: only those TUs see it.
#pragma once
#include <cub/device/device_radix_sort.cuh>

#include <stdexcept>
#include <string>
#include <type_traits>

#include "peers_cub.hpp"

#define PEER_CHECK(call)                                                                               \
  do {                                                                                                 \
    cudaError_t e_ = (call);                                                                           \
    if (e_ != cudaSuccess) throw std::runtime_error(std::string(#call) + ": " + cudaGetErrorString(e_)); \
  } while (0)

namespace peers {

template <class K, class V, class Offset>
std::size_t cub_temp_bytes_as(std::uint64_t n, int begin_bit, int end_bit) {
  std::size_t bytes = 0;
  cub::DoubleBuffer<K> k(nullptr, nullptr);
  if constexpr (std::is_same_v<V, none>) {
    PEER_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, bytes, k, static_cast<Offset>(n), begin_bit, end_bit));
  } else {
    cub::DoubleBuffer<V> v(nullptr, nullptr);
    PEER_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, k, v, static_cast<Offset>(n), begin_bit, end_bit));
  }
  return bytes;
}

template <class K, class V, class Offset>
int cub_sort_as(K* keys, K* keys_alt, V* vals, V* vals_alt, std::uint64_t n, int begin_bit, int end_bit, void* temp,
                std::size_t temp_bytes, cudaStream_t s) {
  cub::DoubleBuffer<K> k(keys, keys_alt);
  if constexpr (std::is_same_v<V, none>) {
    PEER_CHECK(cub::DeviceRadixSort::SortKeys(temp, temp_bytes, k, static_cast<Offset>(n), begin_bit, end_bit, s));
  } else {
    cub::DoubleBuffer<V> v(vals, vals_alt);
    PEER_CHECK(
        cub::DeviceRadixSort::SortPairs(temp, temp_bytes, k, v, static_cast<Offset>(n), begin_bit, end_bit, s));
  }
  return k.selector;
}

}  // namespace peers

/// Both num_items widths of one (key, value) pair.
#define PEERS_CUB_AS(K, V)                                                                                      \
  template std::size_t peers::cub_temp_bytes_as<K, V, int>(std::uint64_t, int, int);                           \
  template std::size_t peers::cub_temp_bytes_as<K, V, long long>(std::uint64_t, int, int);                     \
  template int peers::cub_sort_as<K, V, int>(K*, K*, V*, V*, std::uint64_t, int, int, void*, std::size_t,       \
                                             cudaStream_t);                                                     \
  template int peers::cub_sort_as<K, V, long long>(K*, K*, V*, V*, std::uint64_t, int, int, void*, std::size_t, \
                                                   cudaStream_t);
/// Every value type of radix_bench_matrix with key K: none (keys), 4-, 8- and 16-byte values (the
/// 4- and 8-byte ones are argsort's indices too).
#define PEERS_CUB_MATRIX_KEY(K)            \
  PEERS_CUB_AS(K, peers::none)             \
  PEERS_CUB_AS(K, std::uint32_t)           \
  PEERS_CUB_AS(K, std::uint64_t)           \
  PEERS_CUB_AS(K, ulonglong2)
