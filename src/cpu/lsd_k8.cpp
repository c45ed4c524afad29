// Instantiations of the CPU LSD sort for 8-byte keys (one key width per
// translation unit, so the 2-core build spreads and rebuilds stay small).
#include "lsd_impl.hpp"

namespace radix::cpu {
using K = std::uint64_t;
template void lsd_sort<K, no_value>(const lsd_job<K, no_value>&);
template void lsd_sort<K, std::uint8_t>(const lsd_job<K, std::uint8_t>&);
template void lsd_sort<K, std::uint16_t>(const lsd_job<K, std::uint16_t>&);
template void lsd_sort<K, std::uint32_t>(const lsd_job<K, std::uint32_t>&);
template void lsd_sort<K, std::uint64_t>(const lsd_job<K, std::uint64_t>&);
}  // namespace radix::cpu
