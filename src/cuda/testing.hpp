// Test hooks of the CUDA engine (not a public API): the kernel-level tests
// force a tiny look-back ring and the multi-block path on small inputs.
#pragma once
#include <atomic>
#include <cstdint>

#include "onesweep/onesweep.hpp"

namespace radix::cuda_detail {

/// Tuning every later sort of this process uses (tests only; not thread-safe).
onesweep_tuning& tuning_override();

/// Sorts that read an input inset where it lies (key_inset: the inset's own
/// kernels), counted since the process started; the tests check that the
/// route they aim at ran.
std::atomic<std::uint64_t>& inset_sorts();

/// Sorts by one thread block cluster (cluster_sort_run), counted likewise.
std::atomic<std::uint64_t>& cluster_sorts();

}  // namespace radix::cuda_detail
