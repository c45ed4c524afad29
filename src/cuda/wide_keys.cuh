// Sorting by a key that is not a plain array of native keys: keys wider than
// 64 bits (byte strings, 128-bit integers) and keys inside records, found at
// base + i x stride. Both become a permutation (Ha, Krüger & Silva 2009,
// "Fast 4-way parallel radix sorting on GPUs", §4.7: sort the key with an
// index, then gather): a narrow key is extracted once and argsorted;
// a wide key is sorted LSD over its 64-bit chunks (core/wide_chunks.hpp),
// each chunk extracted in the current order and sorted with the permutation
// as its values. records.cu builds the public record, column and wide-key
// sorts on this.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "radix/sort.hpp"

namespace radix::cuda_detail {

/// Where the keys are: key i starts at base + i x stride + offset; the
/// memory [base, base + bytes) may be read (whole words near its end only).
struct key_source {
  const void* base = nullptr;
  std::size_t stride = 0;
  std::size_t offset = 0;
  std::size_t bytes = 0;
};

constexpr std::size_t align256(std::size_t x) { return (x + 255) / 256 * 256; }

/// Device workspace compute_perm needs.
std::size_t perm_workspace_bytes(const key_desc& key, bool big_endian, std::uint64_t n, const options& o, int index_bytes);

/// Writes to d_perm (n indices of index_bytes) the stable permutation that
/// sorts the n keys of `src` (type `key`, stored most significant byte first
/// when big_endian) by options o. Enqueued on s; no host synchronization.
void compute_perm(const key_source& src, const key_desc& key, bool big_endian, std::uint64_t n, const options& o,
                  void* d_perm, int index_bytes, void* ws, std::size_t ws_bytes, cudaStream_t s);

/// A sort_request whose key is wide (detail::is_wide_key), on device pointers.
std::size_t wide_request_workspace(const sort_request& r);
void wide_request_sort(const sort_request& r, void* ws, std::size_t ws_bytes, cudaStream_t s);

/// d_perm[i] = i.
void iota(void* d_perm, int index_bytes, std::uint64_t n, cudaStream_t s);

}  // namespace radix::cuda_detail
