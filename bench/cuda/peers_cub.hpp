// GPU peers of the CUDA benchmarks: cub::DeviceRadixSort (DoubleBuffer API)
// and thrust::sort / sort_by_key. Compiled in their own translation units
// (peers_cub.cu, peers_cub_matrix_*.cu; definitions in peers_cub_impl.cuh).
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace peers {

std::string cub_version();
std::string thrust_version();

/// CUB with DoubleBuffer: temp bytes for the sort (the alternate buffers are
/// the caller's and not counted).
template <class K, class V>
std::size_t cub_temp_bytes(std::uint64_t n, int begin_bit, int end_bit);
/// Sorts with CUB; returns the buffer that holds the result (0: primary, 1: alternate).
template <class K, class V>
int cub_sort(K* keys, K* keys_alt, V* vals, V* vals_alt, std::uint64_t n, int begin_bit, int end_bit, void* temp,
             std::size_t temp_bytes, cudaStream_t s);

template <class K, class V>
void thrust_sort(K* keys, V* vals, std::uint64_t n, cudaStream_t s);

struct none {};

/// The two calls above with CUB's num_items of type Offset: int (CUB's 32-bit
/// offsets) or long long (64-bit; what cub_temp_bytes and cub_sort use).
/// Instantiated for radix_bench_matrix's key types (uint8..64, float, double)
/// with its value types (none, uint32_t, uint64_t, ulonglong2) in
/// peers_cub_matrix_*.cu (PEERS_CUB_MATRIX_KEY, peers_cub_impl.cuh).
template <class K, class V, class Offset>
std::size_t cub_temp_bytes_as(std::uint64_t n, int begin_bit, int end_bit);
template <class K, class V, class Offset>
int cub_sort_as(K* keys, K* keys_alt, V* vals, V* vals_alt, std::uint64_t n, int begin_bit, int end_bit, void* temp,
                std::size_t temp_bytes, cudaStream_t s);

}  // namespace peers
