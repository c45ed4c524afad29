// The device sort behind radix/cuda.hpp and the engine: a request on device
// pointers becomes a typed job of the chosen algorithm (device_sort.cu).
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "radix/cuda.hpp"
#include "radix/sort.hpp"

namespace radix::cuda_detail {

/// The host API's checks (same words), plus what only device pointers need.
void validate(const sort_request& r, bool check_pointers);
/// Device workspace bytes for a request sorted with `algo` (or the chosen one).
std::size_t device_workspace(const sort_request& r, const radix::cuda::variant& algo);
std::size_t device_workspace(const sort_request& r);
/// Sorts device buffers in a workspace of at least device_workspace(r, algo) bytes.
void device_sort(const sort_request& r, void* ws, std::size_t wsb, cudaStream_t s, const radix::cuda::variant& algo);
/// Whether the current device holds Onesweep's scatter tile for this request
/// (the tables are tuned on an H100; GPUs with less shared memory per block,
/// such as sm_86/89/120 with 99 KiB, take reduce_then_scan where it does not).
bool onesweep_fits(const sort_request& r);

/// Elements [begin, end) of a double-buffered sort's input keys that lie at
/// `keys` (contiguous, of the request's key type) instead of in req.keys.
struct input_inset {
  const void* keys = nullptr;
  std::uint64_t begin = 0, end = 0;
  bool active() const { return end > begin; }
};
/// radix::cuda::sort(req, alt, ...) (the double-buffer form) over an input
/// part of which lies elsewhere: for a caller that assembles its input from
/// runs (the distributed sort: its own run beside those that arrived) and
/// would otherwise copy one in first. Keys alone on Onesweep's tiled route
/// read the inset where it is, in their first pass (one read of it, no
/// write); every other request has it copied into req.keys first, on
/// `stream`. req.keys[begin, end) is never read; the inset must not overlap
/// the keys or their alternates, and is only read.
int sort_with_inset(const sort_request& req, const radix::cuda::alternates& alt, const input_inset& inset,
                    void* d_workspace, std::size_t bytes, cudaStream_t stream);

}  // namespace radix::cuda_detail
