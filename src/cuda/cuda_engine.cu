// CUDA engine entry point. The engine itself (Onesweep, seed 004) arrives
// with its own issue; until then this only tells the host API whether a GPU
// is visible and reports that no CUDA engine is implemented yet.
#include <cuda_runtime.h>

#include "engine/engine.hpp"
#include "radix/core/ordered_bits.hpp"
#include "radix/core/pass_plan.hpp"

namespace radix::detail {

namespace {
// Keeps the shared core compiling under nvcc, in device code, from day one.
__global__ void core_probe(unsigned* out, unsigned key) {
  constexpr key_desc d{key_kind::floating, 4, 0x7F800000u};
  const auto codec = core::make_codec<unsigned>(d, order::ascending, float_order::numeric);
  const auto plan = core::plan_passes(0, 32, 8);
  out[0] = core::digit_of<unsigned>(codec(key), plan[1].shift, plan[1].bits);
}
}  // namespace

engine_impl* cuda_engine() { return nullptr; }

}  // namespace radix::detail
