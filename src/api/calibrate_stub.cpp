// Built when RADIX_ENABLE_CUDA is OFF: calibration (Ha, Krüger & Silva 2009, §5)
// measures CUDA variants, so without the CUDA engine there is nothing to time.
#include "radix/calibrate.hpp"
#include "radix/error.hpp"

namespace radix {

calibration_report calibrate(const calibrate_options&) {
  throw engine_unavailable(
      "radix: calibrate needs the CUDA engine, and this build has none (configure with nvcc present, "
      "RADIX_ENABLE_CUDA=ON)");
}

}  // namespace radix
