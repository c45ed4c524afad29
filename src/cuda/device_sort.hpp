// The device sort behind radix/cuda.hpp and the engine: a request on device
// pointers becomes a typed job of the chosen algorithm (device_sort.cu).
#pragma once
#include <cuda_runtime.h>

#include <cstddef>

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

}  // namespace radix::cuda_detail
