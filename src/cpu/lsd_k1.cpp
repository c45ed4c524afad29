// Instantiations of the CPU LSD sort for 1-byte keys (one key width per
// translation unit, so the 2-core build spreads and rebuilds stay small).
#include "lsd_impl.hpp"

namespace radix::cpu {
RADIX_CPU_INSTANTIATE_LSD(std::uint8_t)
}  // namespace radix::cpu
