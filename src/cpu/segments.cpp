// The CPU engine's segmented sort: a batch of independent arrays in one
// buffer, as a plan's LSD job (lsd_sort_segments, in lsd_segments.hpp: long
// segments by all threads, the others by one thread each in its cache).
// Every segment uses the plan's workspace at its own offsets, so threads
// never share scratch.
#include "lsd.hpp"
#include "radix/core/segments.hpp"

namespace radix::cpu {

template <class U, class V>
void sort_segments(const core::sort_plan& p, const sort_request& r, std::span<std::byte> ws) {
  const auto at = p.workspace.carve(ws);
  const lsd_job<U, V> whole = job_of<U, V>(p, r, at);
  lsd_sort_segments<U, V>(whole, r.segs);
  if constexpr (!std::is_same_v<V, no_value>) {
    if (p.route != core::value_route::via_index) return;
    // The values follow the index, which numbers positions inside each
    // segment: made global, then one gather of the whole array.
    core::segment_view(r.segs, r.n).for_each([&](std::uint64_t, std::uint64_t b, std::uint64_t e) {
      for (std::uint64_t i = b; i < e; ++i) whole.values[i] = V(whole.values[i] + b);
    });
    detail::permute(r.values, r.value_bytes, r.n, whole.values, std::uint8_t(p.index_bytes), r.opts.threads,
                    at[p.slice[core::value_copy]]);
  }
}

#define RADIX_CPU_INSTANTIATE_SEGMENTS(U)                                                                        \
  template void sort_segments<U, no_value>(const core::sort_plan&, const sort_request&, std::span<std::byte>);      \
  template void sort_segments<U, std::uint8_t>(const core::sort_plan&, const sort_request&, std::span<std::byte>);  \
  template void sort_segments<U, std::uint16_t>(const core::sort_plan&, const sort_request&, std::span<std::byte>); \
  template void sort_segments<U, std::uint32_t>(const core::sort_plan&, const sort_request&, std::span<std::byte>); \
  template void sort_segments<U, std::uint64_t>(const core::sort_plan&, const sort_request&, std::span<std::byte>);
RADIX_CPU_INSTANTIATE_SEGMENTS(std::uint8_t)
RADIX_CPU_INSTANTIATE_SEGMENTS(std::uint16_t)
RADIX_CPU_INSTANTIATE_SEGMENTS(std::uint32_t)
RADIX_CPU_INSTANTIATE_SEGMENTS(std::uint64_t)
#undef RADIX_CPU_INSTANTIATE_SEGMENTS

}  // namespace radix::cpu
