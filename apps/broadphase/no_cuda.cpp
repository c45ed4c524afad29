// Builds without the CUDA engine (RADIX_ENABLE_CUDA=OFF): no GPU frame.
#include <stdexcept>

#include "broadphase.hpp"

namespace bp {
bool cuda_built() { return false; }
engine_result run_cuda(const config&) {
  throw std::runtime_error("radix_broadphase was built without CUDA (RADIX_ENABLE_CUDA=OFF)");
}
}  // namespace bp
