// Element gathers for values that cannot ride along in the Onesweep scatter
// (sizes other than 1, 2, 4, 8, 16 bytes, or misaligned): sort an index,
// then out[i] = in[perm[i]], element by element.
#pragma once
#include <cstddef>
#include <cstdint>

namespace radix::cuda_detail {

/// out[i] = in[perm[i]] for n elements of `bytes` bytes; perm holds indices
/// of index_bytes (4 or 8). Enqueued on stream (a cudaStream_t).
void gather_bytes(void* out, const void* in, std::size_t bytes, const void* perm, int index_bytes, std::uint64_t n,
                  void* stream);

/// out[i] = in[i] as 64-bit indices: an argsort asked for 8-byte indices of
/// at most 2^32 keys sorts 4-byte ones (a third less traffic in every
/// pass) and widens them once at the end.
void widen_indices(std::uint64_t* out, const std::uint32_t* in, std::uint64_t n, void* stream);

}  // namespace radix::cuda_detail
