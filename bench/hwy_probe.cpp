// radix_cpu_bench — which target Highway's dynamic dispatch picks. A trivial
// function is compiled for every target of HWY_TARGETS (this TU is built with
// default flags, like Debian's libhwy_contrib) and dispatched through the same
// process-wide hwy::GetChosenTarget() that the library's vqsort uses, so it
// reports the target vqsort runs (cpu_bench also checks the speed).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "hwy_probe.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace radix_bench {
namespace HWY_NAMESPACE {
int64_t ProbeTarget() { return HWY_TARGET; }
}  // namespace HWY_NAMESPACE
}  // namespace radix_bench
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <string>
namespace radix_bench {
HWY_EXPORT(ProbeTarget);
std::string hwy_dispatched_target() { return hwy::TargetName(HWY_DYNAMIC_DISPATCH(ProbeTarget)()); }
}  // namespace radix_bench
#endif
