// Built when RADIX_ENABLE_CUDA is OFF: there is no CUDA engine.
#include "engine/engine.hpp"

namespace radix::detail {
engine_impl* cuda_engine() { return nullptr; }
void release_cuda_scratch() {}
}  // namespace radix::detail
