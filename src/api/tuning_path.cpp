// radix::tuning_cache_path(): where `radix calibrate` writes the CUDA tuning
// cache (seed 000 §5, Ha et al.; issue 4). In every build, with or without
// the CUDA engine, so tools can name the file either way.
#include <cstdlib>
#include <string>

#include "cuda/tuning_cache_text.hpp"
#include "radix/calibrate.hpp"

namespace radix {

std::string tuning_cache_path() {
  return cuda_detail::tuning_cache_path_from(std::getenv("RADIX_TUNING_CACHE"), std::getenv("XDG_CACHE_HOME"),
                                             std::getenv("HOME"));
}

}  // namespace radix
