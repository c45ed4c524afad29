// Builds without the CUDA engine (RADIX_ENABLE_CUDA=OFF): no GPU step.
#include <stdexcept>

#include "pic.hpp"

namespace pic {
bool cuda_built() { return false; }
engine_result run_cuda(const config&, const particles&) {
  throw std::runtime_error("radix_pic was built without CUDA (RADIX_ENABLE_CUDA=OFF)");
}
}  // namespace pic
