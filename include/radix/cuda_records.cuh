// radix — device records sorted by a key-extracting device functor (Ha,
// Krüger & Silva 2009, "Fast 4-way parallel radix sorting on GPUs", §4.7):
// the keys are extracted into the workspace, argsorted with the CUDA
// engine, and the records gathered by the permutation. Compile with nvcc
// (this header launches a kernel of its own per record and key type).
//
//   struct particle { float x, y, z; std::uint32_t cell; };
//   struct by_cell { __device__ std::uint32_t operator()(const particle& p) const { return p.cell; } };
//   auto bytes = radix::cuda::sort_records_by_workspace_bytes<std::uint32_t, particle>(n);
//   radix::cuda::sort_records_by<std::uint32_t>(d_in, d_out, n, by_cell{}, d_ws, bytes, stream);
//
// K, the key type, is named explicitly: the return type of an extended
// __device__ lambda cannot be deduced in host code. Semantics as
// radix::cuda::sort_records (stable; d_out == d_in sorts in place with a
// workspace sized for placement::in_place; otherwise the ranges must not
// overlap).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "radix/cuda.hpp"

namespace radix::cuda {

namespace records_detail {

constexpr std::size_t align256(std::size_t x) { return (x + 255) / 256 * 256; }

template <class R, class K, class F>
__global__ void extract_keys(const R* __restrict__ in, K* __restrict__ keys, std::uint64_t n, F key_of) {
  const std::uint64_t step = std::uint64_t(gridDim.x) * blockDim.x;
  for (std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) keys[i] = key_of(in[i]);
}

template <class K, class I>
std::size_t workspace(std::uint64_t n, const options& o, std::size_t record_bytes, bool in_place) {
  return align256(n * sizeof(K)) + align256(n * sizeof(I)) + align256(argsort_workspace_bytes<K, I>(n, o)) +
         (in_place ? align256(n * record_bytes) : 0);
}

}  // namespace records_detail

template <device_sortable K, class R>
  requires std::is_trivially_copyable_v<R>
std::size_t sort_records_by_workspace_bytes(std::uint64_t n, const options& o = {},
                                            placement p = placement::out_of_place) {
  const bool in_place = p == placement::in_place;
  return n <= 0xFFFFFFFFull ? records_detail::workspace<K, std::uint32_t>(n, o, sizeof(R), in_place)
                            : records_detail::workspace<K, std::uint64_t>(n, o, sizeof(R), in_place);
}

/// Sorts n records of type R at d_in into d_out by key_of(record), a
/// __device__ callable returning K. Enqueued on `stream`; with a workspace it
/// neither synchronizes nor allocates.
template <device_sortable K, class R, class F>
  requires std::is_trivially_copyable_v<R>
void sort_records_by(const R* d_in, R* d_out, std::uint64_t n, F key_of, void* d_workspace,
                     std::size_t workspace_bytes, cudaStream_t stream = 0, const options& o = {}) {
  using namespace records_detail;
  const bool in_place = d_in == d_out;
  const std::size_t need = sort_records_by_workspace_bytes<K, R>(n, o, in_place ? placement::in_place
                                                                                : placement::out_of_place);
  if (n > 0 && (d_in == nullptr || d_out == nullptr))
    throw invalid_argument("radix: sort_records_by with a null record pointer but n = " + std::to_string(n));
  if (!in_place && n > 0 && d_in < d_out + n && d_out < d_in + n)
    throw invalid_argument("radix: record input and output overlap (pass the same pointer to sort in place)");
  if (workspace_bytes < need || (need && d_workspace == nullptr))
    throw out_of_memory("radix: CUDA workspace of " + std::to_string(workspace_bytes) + " bytes is too small; " +
                        std::to_string(need) + " needed");
  if (n == 0) return;
  const int ib = n <= 0xFFFFFFFFull ? 4 : 8;
  auto* p = static_cast<unsigned char*>(d_workspace);
  K* keys = reinterpret_cast<K*>(p);
  p += align256(n * sizeof(K));
  void* perm = p;
  p += align256(n * std::size_t(ib));
  void* inner = p;
  const std::size_t inner_bytes =
      ib == 4 ? argsort_workspace_bytes<K, std::uint32_t>(n, o) : argsort_workspace_bytes<K, std::uint64_t>(n, o);
  p += align256(inner_bytes);
  const unsigned grid = unsigned(n / 256 + 1 < 4096 ? n / 256 + 1 : 4096);
  extract_keys<R, K, F><<<grid, 256, 0, stream>>>(d_in, keys, n, key_of);
  if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess)
    throw device_error(std::string("radix: launch of sort_records_by's key extraction failed: ") + cudaGetErrorString(e));
  if (ib == 4) argsort(keys, static_cast<std::uint32_t*>(perm), n, inner, inner_bytes, stream, o);
  else argsort(keys, static_cast<std::uint64_t*>(perm), n, inner, inner_bytes, stream, o);
  if (in_place) {
    gather(d_in, p, sizeof(R), perm, ib, n, stream);
    if (const cudaError_t e = cudaMemcpyAsync(d_out, p, n * sizeof(R), cudaMemcpyDeviceToDevice, stream);
        e != cudaSuccess)
      throw device_error(std::string("radix: cudaMemcpyAsync of sorted records failed: ") + cudaGetErrorString(e));
  } else {
    gather(d_in, d_out, sizeof(R), perm, ib, n, stream);
  }
}

}  // namespace radix::cuda
