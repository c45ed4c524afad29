// Instantiations of the CPU LSD sort for 2-byte keys (one key width per
// translation unit, so the 2-core build spreads and rebuilds stay small).
#include "lsd_impl.hpp"

namespace radix::cpu {
RADIX_CPU_INSTANTIATE_LSD(std::uint16_t)
}  // namespace radix::cpu
