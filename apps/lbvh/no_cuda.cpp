// Builds without the CUDA engine (RADIX_ENABLE_CUDA=OFF): no GPU build.
#include <stdexcept>

#include "engine.hpp"

namespace lbvh {
bool cuda_built() { return false; }
result run_cuda(const config&, const mesh&) {
  throw std::runtime_error("radix_lbvh was built without CUDA (RADIX_ENABLE_CUDA=OFF)");
}
}  // namespace lbvh
