// radix::tuning_cache_path(): where `radix calibrate` writes the CUDA tuning
// cache (Ha, Krüger & Silva 2009, §5: calibrate once, then use the best). In every build, with or without
// the CUDA engine, so tools can name the file either way.
#include <cstdlib>
#include <string>

#include "cuda/tuning_cache_text.hpp"
#include "radix/calibrate.hpp"
#include "radix/core/environment.hpp"

namespace radix {

std::string tuning_cache_path() {
  return cuda_detail::tuning_cache_path_from(core::env::get("RADIX_TUNING_CACHE"), std::getenv("XDG_CACHE_HOME"),
                                             std::getenv("HOME"));
}

}  // namespace radix
