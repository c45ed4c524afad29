// Test hooks of the CUDA engine (not a public API): the kernel-level tests
// force a tiny look-back ring and the multi-block path on small inputs.
#pragma once
#include "onesweep/onesweep.hpp"

namespace radix::cuda_detail {

/// Tuning every later sort of this process uses (tests only; not thread-safe).
onesweep_tuning& tuning_override();

}  // namespace radix::cuda_detail
