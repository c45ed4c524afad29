// The CPU engine: runs a planned request (src/core/radix/core/sort_plan.hpp)
// as an LSD job of the plan's types, in the plan's workspace slices.
#include <array>
#include <cstdlib>
#include <type_traits>
#include <cstring>
#include <string>
#include <string_view>
#include <ostream>

#include "engine/engine.hpp"
#include "lsd.hpp"
#include "radix/core/environment.hpp"
#include "radix/core/ordered_bits.hpp"
#include "radix/core/sort_plan.hpp"

namespace radix::cpu {

std::ostream& operator<<(std::ostream& os, const lsd_policy& p) {
  return os << "cpu.lsd{digit_bits=" << p.digit_bits << ", wide_digit_bits=" << p.wide_digit_bits
            << ", wide_min_n=" << p.wide_min_n
            << ", small_n=" << p.small_n << ", expand_max_bits=" << p.expand_max_bits
            << ", per_thread_min=" << p.per_thread_min << ", single_thread_max_bytes=" << p.single_thread_max_bytes
            << ", stream_min_bytes=" << p.stream_min_bytes
            << ", in_cache_max_bytes=" << p.in_cache_max_bytes
            << ", hybrid_min_bytes=" << p.hybrid_min_bytes << ", bucket_bytes=" << p.bucket_bytes
            << ", max_msd_bits=" << p.max_msd_bits << ", fine_msd_bits=" << p.fine_msd_bits
            << ", bucket_digit_bits=" << p.bucket_digit_bits
            << ", tiny_bucket=" << p.tiny_bucket << ", keys_in_place_auto_bytes=" << p.keys_in_place_auto_bytes << "}";
}

std::ostream& operator<<(std::ostream& os, const lsd_policy& p);

namespace {
/// RADIX_CPU_POLICY="bucket_bytes=131072,max_msd_bits=11" overrides fields,
/// for tuning experiments without a rebuild; unknown names are ignored.
lsd_policy policy_from_env() {
  lsd_policy p{};
  core::env::for_each_setting(core::env::get("RADIX_CPU_POLICY"), [&](std::string_view key, unsigned long long v) {
    if (key == "digit_bits") p.digit_bits = int(v);
    else if (key == "wide_digit_bits") p.wide_digit_bits = int(v);
    else if (key == "wide_min_n") p.wide_min_n = v;
    else if (key == "small_n") p.small_n = v;
    else if (key == "expand_max_bits") p.expand_max_bits = std::min(int(v), 16);
    else if (key == "per_thread_min") p.per_thread_min = v;
    else if (key == "single_thread_max_bytes") p.single_thread_max_bytes = v;
    else if (key == "stream_min_bytes") p.stream_min_bytes = v;
    else if (key == "in_cache_max_bytes") p.in_cache_max_bytes = v;
    else if (key == "hybrid_min_bytes") p.hybrid_min_bytes = v;
    else if (key == "bucket_bytes") p.bucket_bytes = v;
    else if (key == "max_msd_bits") p.max_msd_bits = int(v);
    else if (key == "fine_msd_bits") p.fine_msd_bits = std::min(int(v), 16);
    else if (key == "bucket_digit_bits") p.bucket_digit_bits = int(v);
    else if (key == "tiny_bucket") p.tiny_bucket = std::min<unsigned long long>(v, 64);
    else if (key == "keys_in_place_auto_bytes") p.keys_in_place_auto_bytes = v;
  });
  return p;
}
}  // namespace

const lsd_policy& default_policy() {
  static const lsd_policy p = policy_from_env();
  return p;
}

namespace {

/// The slice `id` of the plan's workspace, as T*; null where the plan has none.
template <class T>
T* slice_of(const core::sort_plan& p, const workspace_slices& at, core::slice_id id) {
  return p.slice[id] == core::no_slice ? nullptr : reinterpret_cast<T*>(at[p.slice[id]]);
}

}  // namespace

/// The plan as an LSD job of the plan's types over all n elements: keys of U
/// carrying V (nothing, the values, or an index), in the workspace slices.
template <class U, class V>
lsd_job<U, V> job_of(const core::sort_plan& p, const sort_request& r, const workspace_slices& at) {
  lsd_job<U, V> j;
  j.n = p.n;
  j.keys = static_cast<U*>(r.keys);
  j.codec = core::make_codec<U>(r.key, r.opts.direction, r.opts.floats);
  j.begin_bit = p.begin_bit;
  j.end_bit = p.end_bit;
  j.digit_bits = p.digit_bits;
  j.threads = r.opts.threads;
  j.key_scratch[0] = slice_of<U>(p, at, core::key_scratch);
  switch (p.route) {
    case core::value_route::none: break;
    case core::value_route::native:
      j.pay = payload::values;
      j.values = static_cast<V*>(r.values);
      break;
    case core::value_route::indices:
      j.keys_readonly = true;
      j.key_scratch[1] = slice_of<U>(p, at, core::key_copy);
      j.pay = payload::index;
      j.values = static_cast<V*>(r.indices);
      break;
    case core::value_route::via_index:
      j.pay = payload::index;
      j.values = slice_of<V>(p, at, core::index_buffer);
      break;
  }
  if constexpr (!std::is_same_v<V, no_value>) {
    if (j.pay != payload::none) j.value_scratch = slice_of<V>(p, at, core::payload_scratch);
  }
  return j;
}

namespace {

/// The plan run as one LSD job, then the gather of the values' route.
template <class U, class V>
void run_typed(const core::sort_plan& p, const sort_request& r, std::span<std::byte> ws) {
  const auto at = p.workspace.carve(ws);
  const lsd_job<U, V> j = job_of<U, V>(p, r, at);
  lsd_sort<U, V>(j);
  if (p.route == core::value_route::via_index)
    detail::permute(r.values, r.value_bytes, r.n, j.values, std::uint8_t(p.index_bytes), r.opts.threads,
                    slice_of<std::byte>(p, at, core::value_copy));
}

class cpu_engine_impl final : public detail::engine_impl {
 public:
  const char* name() const override { return "cpu"; }
  core::engine_caps caps() const override {
    core::engine_caps c;
    c.keys_in_place = true;
    c.keys_in_place_auto_bytes = default_policy().keys_in_place_auto_bytes;
    return c;
  }

  std::size_t workspace_bytes(const core::sort_plan& p, const sort_request&) const override {
    return std::size_t(p.workspace.total());
  }

  bool native_segments() const override { return true; }

  void run(const core::sort_plan& p, const sort_request& r, std::span<std::byte> ws) override {
    if (p.nothing_to_move) {  // an argsort of one key is {0}
      if (r.op == operation::argsort && r.n == 1) std::memset(r.indices, 0, r.index_bytes);
      return;
    }
    detail::scratch own;
    if (ws.empty()) {
      own = detail::scratch(std::size_t(p.workspace.total()));
      ws = own.span();
    }
    if (r.segs.segmented())
      core::with_types(p, [&]<class U, class V>() { sort_segments<U, V>(p, r, ws); });
    else
      core::with_types(p, [&]<class U, class V>() { run_typed<U, V>(p, r, ws); });
  }
};

}  // namespace
}  // namespace radix::cpu

namespace radix::detail {
engine_impl& cpu_engine() {
  static cpu::cpu_engine_impl e;
  return e;
}
}  // namespace radix::detail

namespace radix::cpu {
#define RADIX_CPU_INSTANTIATE_JOB(U)                                                                          \
  template lsd_job<U, no_value> job_of<U, no_value>(const core::sort_plan&, const sort_request&,             \
                                                    const workspace_slices&);                                  \
  template lsd_job<U, std::uint8_t> job_of<U, std::uint8_t>(const core::sort_plan&, const sort_request&,     \
                                                            const workspace_slices&);                          \
  template lsd_job<U, std::uint16_t> job_of<U, std::uint16_t>(const core::sort_plan&, const sort_request&,   \
                                                              const workspace_slices&);                        \
  template lsd_job<U, std::uint32_t> job_of<U, std::uint32_t>(const core::sort_plan&, const sort_request&,   \
                                                              const workspace_slices&);                        \
  template lsd_job<U, std::uint64_t> job_of<U, std::uint64_t>(const core::sort_plan&, const sort_request&,   \
                                                              const workspace_slices&);
RADIX_CPU_INSTANTIATE_JOB(std::uint8_t)
RADIX_CPU_INSTANTIATE_JOB(std::uint16_t)
RADIX_CPU_INSTANTIATE_JOB(std::uint32_t)
RADIX_CPU_INSTANTIATE_JOB(std::uint64_t)
#undef RADIX_CPU_INSTANTIATE_JOB
}  // namespace radix::cpu
