// The CUDA engine's device sort: the public device API of radix/cuda.hpp, on
// which the host API's engine (engine_adapter.cu) also runs.
//
// A request becomes a typed job of the chosen algorithm (Onesweep or a
// multipass one): keys by width (the key kind and the
// order are masks of the ordered-bits codec, not types), values by size.
// Values of other sizes (any size works), or misaligned ones, go through an
// argsort and a gather.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <ostream>
#include <sstream>
#include <string>

#include "device_sort.hpp"
#include "api/scratch_cache.hpp"
#include "host_staging.cuh"
#include "engine/engine.hpp"
#include "gather.cuh"
#include "onesweep/onesweep.hpp"
#include "segments/segments.hpp"
#include "multipass/multipass.hpp"
#include "common/policy.hpp"
#include "radix/core/environment.hpp"
#include "radix/core/ordered_bits.hpp"
#include "radix/cuda.hpp"
#include "testing.hpp"
#include "wide_keys.cuh"

namespace radix::cuda_detail {

std::ostream& operator<<(std::ostream& os, const onesweep_policy& p) {
  constexpr const char* ranking[] = {"rank_then_count", "count_then_rank"};
  constexpr const char* values[] = {"with_keys", "prefetched", "late"};
  constexpr const char* digits[] = {"staged", "recomputed"};
  return os << "cuda.onesweep{threads=" << p.threads << ", items=" << p.items << ", tile=" << p.tile()
            << ", min_blocks=" << p.min_blocks << ", small_n=" << p.small_n << ", medium_n=" << p.medium_n
            << ", ranking=" << ranking[int(p.ranking)] << ", lookback_batch=" << p.lookback_batch
            << ", values=" << values[int(p.values)] << ", digits=" << digits[int(p.digits)];
  if (p.mid_n) os << ", mid_n=" << p.mid_n;
  return os << "}";
}

onesweep_tuning& tuning_override() {
  static onesweep_tuning t = [] {
    onesweep_tuning d;
    const char* alt = core::env::get("RADIX_CUDA_ALT_POLICY");
    d.alt_policy = alt && alt[0] >= '1' && alt[0] <= '3' ? alt[0] - '0' : 0;
    // RADIX_CUDA_NARROW=0: no half-width keys between passes (for A/B measurements)
    const char* narrow = core::env::get("RADIX_CUDA_NARROW");
    d.narrow = !(narrow && narrow[0] == '0');
    const char* pdl = core::env::get("RADIX_CUDA_PDL");
    d.pdl = !(pdl && pdl[0] == '0');
    if (const char* c = core::env::get("RADIX_CUDA_COUNTING_MAX")) d.counting_block_max = std::strtoll(c, nullptr, 10);
    const char* block = core::env::get("RADIX_CUDA_BLOCK_SORT");
    d.block_sort = !(block && block[0] == '0');
    if (const char* r = core::env::get("RADIX_CUDA_RANK_SORT_MAX")) d.rank_sort_max = int(std::strtol(r, nullptr, 10));
    if (const char* c = core::env::get("RADIX_CUDA_CLUSTER_SORT_MAX")) d.cluster_sort_max = std::strtoll(c, nullptr, 10);
    if (const char* c = core::env::get("RADIX_CUDA_CLUSTER_DIGIT_BITS")) d.cluster_digit_bits = int(std::strtol(c, nullptr, 10));
    if (const char* c = core::env::get("RADIX_CUDA_CLUSTER_CHUNK")) d.cluster_chunk = int(std::strtol(c, nullptr, 10));
    const char* msd = core::env::get("RADIX_CUDA_MSD");
    d.msd_buckets = !(msd && msd[0] == '0');
    const char* small = core::env::get("RADIX_CUDA_SMALL_TILES");
    d.small_tiles = !(small && small[0] == '0');
    const char* whole = core::env::get("RADIX_CUDA_WHOLE_TILES");
    d.whole_tiles = !(whole && whole[0] == '0');
    const char* mid = core::env::get("RADIX_CUDA_MID_TILES");
    d.mid_tiles = !(mid && mid[0] == '0');
    if (const char* w = core::env::get("RADIX_CUDA_SEGMENT_WARP_MAX")) d.segment_warp_max = std::uint32_t(std::strtoul(w, nullptr, 10));
    const char* bin = core::env::get("RADIX_CUDA_BIN_SORT");
    d.bin_sort = !(bin && bin[0] == '0');
    if (const char* b = core::env::get("RADIX_CUDA_BIN_SORT_MIN")) d.bin_sort_min = std::uint32_t(std::strtoul(b, nullptr, 10));
    const char* split = core::env::get("RADIX_CUDA_SPLIT_ROWS");
    d.split_rows = !(split && split[0] == '0');
    if (const char* m = core::env::get("RADIX_CUDA_SEGMENT_SWEEP_MIN")) d.segment_sweep_min = std::strtoull(m, nullptr, 10);
    return d;
  }();
  return t;
}

std::atomic<std::uint64_t>& inset_sorts() {
  static std::atomic<std::uint64_t> count{0};
  return count;
}

std::atomic<std::uint64_t>& cluster_sorts() {
  static std::atomic<std::uint64_t> count{0};
  return count;
}

namespace {

[[noreturn]] void bad(const std::string& what) { throw invalid_argument("radix: " + what); }

}  // namespace

/// The host API's checks (radix::detail::validate_request, same words), plus
/// what only the device API needs, for requests that come straight to it.
void validate(const sort_request& r, bool check_pointers) {
  const bool wide = radix::detail::is_wide_key(r.key);  // any width: wide_keys.cu
  if (!wide && r.key.bytes != 1 && r.key.bytes != 2 && r.key.bytes != 4 && r.key.bytes != 8)
    bad("the CUDA engine has no keys of " + std::to_string(r.key.bytes) + " bytes");
  if (r.opts.use != engine::automatic && r.opts.use != engine::cuda)
    bad("radix::cuda calls run on the CUDA engine; options.use names another");
  radix::detail::validate_request(r, check_pointers);
  if (!check_pointers) return;
  if (!wide && r.n > 0 && reinterpret_cast<std::uintptr_t>(r.keys) % r.key.bytes != 0)
    bad("device keys are not aligned to their size");
  if (r.op == operation::argsort && r.n > 0 && reinterpret_cast<std::uintptr_t>(r.indices) % r.index_bytes != 0)
    bad("device indices are not aligned to their size");
  if (!wide && r.n > 0 && reinterpret_cast<std::uintptr_t>(r.sorted_keys) % r.key.bytes != 0)
    bad("device sorted_keys are not aligned to their size");
}

namespace {

using radix::cuda::variant;

bool is_multipass(const variant& v) { return v.algo != algorithm::onesweep; }

multipass_variant to_multipass(const variant& v) { return {v.algo, v.digit_bits, v.tile, v.coalesced}; }

/// What the chosen algorithm moves natively: Onesweep 1 to 16 bytes of
/// values, the multipass algorithms 4 and 8. The workspace is device memory
/// the device sort lays out itself; a size query without pointers plans
/// values aligned, as device allocations are (a misaligned sort then asks
/// for more and says so).
core::engine_caps caps_of(const variant& algo) {
  core::engine_caps c;
  c.native_value_sizes = is_multipass(algo) ? (1u << 4) | (1u << 8) : (1u << 1) | (1u << 2) | (1u << 4) | (1u << 8) | (1u << 16);
  c.host_workspace = false;
  c.values_at = core::value_address::device;
  return c;
}

template <class U, class V>
void require_compiled(const variant& algo) {
  const auto missing = [&](const std::string& what) {
    throw engine_unavailable("radix: this build of the CUDA engine (RADIX_CUDA_TYPES=dev) has no " + what + "kernels for " +
                             std::to_string(sizeof(U)) + "-byte keys with " +
                             (std::is_same_v<V, no_value> ? std::string("no values")
                                                          : std::to_string(sizeof(V)) + "-byte values"));
  };
  if (is_multipass(algo)) {
    if constexpr (!multipass_compiled<U, V>()) missing(radix::cuda::to_string(algo) + " ");
    return;
  }
  if constexpr (!onesweep_compiled<U, V>()) missing("");
}

sort_mode mode_of(const core::sort_plan& p) {
  switch (p.route) {
    case core::value_route::none: return sort_mode::keys;
    case core::value_route::native: return sort_mode::pairs;
    default: return sort_mode::argsort;  // indices out, or the index of the via_index route
  }
}

using radix::cuda::alternates;

/// Whether a double-buffered request runs with the caller's alternates:
/// Onesweep, and keys alone or values it moves natively from both the
/// caller's buffers (an alternate aligned otherwise than the values would
/// move them misaligned). Others sort in place in a workspace of their own
/// (the result then stays in the caller's buffers).
bool uses_alternates(const core::sort_plan& p, const sort_request& r, const alternates& alt, const variant& algo) {
  if (is_multipass(algo)) return false;
  if (p.route == core::value_route::none) return true;
  if (p.route != core::value_route::native) return false;
  sort_request other = r;
  other.values = alt.values;
  return core::plan_sort(other, caps_of(algo)).route == core::value_route::native;
}

template <class U, class V>
std::size_t typed_workspace(const core::sort_plan& p, const variant& algo, bool caller_alternates = false,
                            bool keys_out_of_place = false) {
  require_compiled<U, V>(algo);
  if (is_multipass(algo)) {
    if constexpr (multipass_compiled<U, V>()) return multipass_workspace_bytes<U, V>(mode_of(p), p.n, to_multipass(algo));
    return 0;
  }
  if constexpr (onesweep_compiled<U, V>())
    return onesweep_workspace_bytes<U, V>(mode_of(p), p.n, tuning_override(), caller_alternates, keys_out_of_place);
  return 0;
}

/// The fields every algorithm's job shares, from the plan.
template <class Job, class U, class V>
Job job_for(const core::sort_plan& p, U* keys, V* values, void* ws, std::size_t wsb, cudaStream_t s) {
  Job j;
  j.mode = mode_of(p);
  j.keys = keys;
  j.values = values;
  j.n = p.n;
  j.codec = p.codec<U>();
  j.begin_bit = p.begin_bit;
  j.end_bit = p.end_bit;
  j.workspace = ws;
  j.workspace_bytes = wsb;
  j.stream = s;
  return j;
}

/// Returns where the result is: 0 in keys/values, 1 in the alternates (only
/// where `alt` names them).
template <class U, class V>
int typed_sort(const core::sort_plan& p, U* keys, V* values, void* ws, std::size_t wsb, cudaStream_t s,
               const variant& algo, const alternates& alt = {}, void* sorted_keys = nullptr,
               std::uint64_t* wide_indices = nullptr, const input_inset& inset = {}) {
  require_compiled<U, V>(algo);
  if (is_multipass(algo)) {
    if constexpr (multipass_compiled<U, V>()) {
      auto j = job_for<multipass_job<U, V>>(p, keys, values, ws, wsb, s);
      j.variant = to_multipass(algo);
      multipass_sort<U, V>(j);
    }
    return 0;
  }
  if constexpr (onesweep_compiled<U, V>()) {
    auto j = job_for<onesweep_job<U, V>>(p, keys, values, ws, wsb, s);
    j.digit_bits = algo.digit_bits;
    j.tuning = tuning_override();
    j.sorted_keys = static_cast<U*>(sorted_keys);
    j.wide_indices = wide_indices;
    j.key_alt = static_cast<U*>(alt.keys);
    if constexpr (!std::is_same_v<V, no_value>) j.value_alt = static_cast<V*>(alt.values);
    j.inset = {static_cast<const U*>(inset.keys), inset.begin, inset.end};
    return onesweep_sort<U, V>(j);
  }
  return 0;
}

/// The via_index route's device workspace: the argsort's own, the
/// permutation, and the gathered keys and values (copied back over the
/// caller's at the end).
struct index_route {
  core::workspace_layout layout{device_alignment};
  int argsort = -1, perm = -1, keys = -1, values = -1;
};

template <class U, class I>
index_route index_route_layout(const core::sort_plan& p, const variant& algo) {
  index_route w;
  w.argsort = w.layout.add("argsort", typed_workspace<U, I>(p, algo));
  w.perm = w.layout.add("permutation", p.n * p.index_bytes);
  w.keys = w.layout.add("gathered keys", p.n * p.key_bytes);
  w.values = w.layout.add("gathered values", p.n * p.value_bytes);
  return w;
}

/// Argsort into 8-byte indices of at most 2^32 keys: the passes move 4-byte
/// indices (a third less traffic each), widened once: by Onesweep's last
/// pass, which writes them 8 bytes wide, or (the multipass algorithms) by a
/// kernel after, which reads 4 and writes 8 bytes a key. Below about 2^20
/// keys the passes are latency-bound: that kernel's launch would cost more
/// than it saves (Onesweep's own widening is not measured there).
bool narrows_indices(const core::sort_plan& p) {
  return p.route == core::value_route::indices && p.index_bytes == 8 && p.n >= (std::uint64_t(1) << 20) &&
         p.n <= 0x100000000ull;
}

struct narrow_route {
  core::workspace_layout layout{device_alignment};
  int argsort = -1, indices = -1;
};

template <class U>
narrow_route narrow_route_layout(const core::sort_plan& p, const variant& algo) {
  narrow_route w;
  w.argsort = w.layout.add("argsort", typed_workspace<U, std::uint32_t>(p, algo));
  w.indices = w.layout.add("4-byte indices", p.n * 4);
  return w;
}

/// with_types hands the via_index route its index type as V.
/// `keys_out_of_place`: a keys request with sorted_keys elsewhere, sorted natively (device_sort).
std::size_t planned_workspace(const core::sort_plan& p, const variant& algo, bool keys_out_of_place = false) {
  return core::with_types<v128>(p, [&]<class U, class V>() -> std::size_t {
    if (p.route == core::value_route::via_index) return index_route_layout<U, V>(p, algo).layout.total();
    if (narrows_indices(p)) return narrow_route_layout<U>(p, algo).layout.total();
    return typed_workspace<U, V>(p, algo, false, keys_out_of_place);
  });
}

void planned_sort(const core::sort_plan& p, const sort_request& r, void* ws, std::size_t wsb, cudaStream_t s,
               const variant& algo) {
  core::with_types<v128>(p, [&]<class U, class V>() {
    auto* keys = static_cast<U*>(r.keys);
    if (narrows_indices(p)) {
      const narrow_route w = narrow_route_layout<U>(p, algo);
      const auto at = w.layout.carve({static_cast<std::byte*>(ws), wsb});
      auto* idx = reinterpret_cast<std::uint32_t*>(at[w.indices]);
      auto* wide = static_cast<std::uint64_t*>(r.indices);
      // Onesweep's last pass writes them 8 bytes wide; the others widen after
      typed_sort<U, std::uint32_t>(p, keys, idx, at[w.argsort], w.layout.bytes(w.argsort), s, algo, {}, r.sorted_keys,
                                   is_multipass(algo) ? nullptr : wide);
      if (is_multipass(algo)) widen_indices(wide, idx, p.n, s);
      return;
    }
    if (p.route != core::value_route::via_index) {
      void* vals = p.route == core::value_route::indices ? r.indices : r.values;
      typed_sort<U, V>(p, keys, static_cast<V*>(vals), ws, wsb, s, algo, {}, r.sorted_keys);  // in place: its result is there
      return;
    }
    const index_route w = index_route_layout<U, V>(p, algo);
    const auto at = w.layout.carve({static_cast<std::byte*>(ws), wsb});
    auto* perm = reinterpret_cast<V*>(at[w.perm]);
    typed_sort<U, V>(p, keys, perm, at[w.argsort], w.layout.bytes(w.argsort), s, algo);
    gather_bytes(at[w.keys], r.keys, p.key_bytes, perm, p.index_bytes, p.n, s);
    gather_bytes(at[w.values], r.values, p.value_bytes, perm, p.index_bytes, p.n, s);
    RADIX_CUDA_CHECK(cudaMemcpyAsync(r.keys, at[w.keys], p.n * p.key_bytes, cudaMemcpyDeviceToDevice, s));
    RADIX_CUDA_CHECK(cudaMemcpyAsync(r.values, at[w.values], p.n * p.value_bytes, cudaMemcpyDeviceToDevice, s));
  });
}

/// The double-buffered sort: the caller's alternates where Onesweep moves
/// the request natively, else the in-place sort in its own workspace.
std::size_t double_buffered_workspace(const sort_request& r, const alternates& alt, const variant& algo) {
  const core::sort_plan p = core::plan_sort(r, caps_of(algo));
  if (!uses_alternates(p, r, alt, algo)) return planned_workspace(p, algo);
  return core::with_types<v128>(p, [&]<class U, class V>() { return typed_workspace<U, V>(p, algo, true); });
}

int double_buffered_sort(const sort_request& r, const alternates& alt, void* ws, std::size_t wsb, cudaStream_t s,
                         const variant& algo, const input_inset& inset = {}) {
  const core::sort_plan p = core::plan_sort(r, caps_of(algo));
  const bool native = uses_alternates(p, r, alt, algo);
  if (inset.active() && (!native || is_multipass(algo) || p.route != core::value_route::none)) {
    // only Onesweep's keys read an inset where it lies: the others have it copied in
    RADIX_CUDA_CHECK(cudaMemcpyAsync(static_cast<char*>(r.keys) + inset.begin * p.key_bytes, inset.keys,
                                     (inset.end - inset.begin) * p.key_bytes, cudaMemcpyDeviceToDevice, s));
    return double_buffered_sort(r, alt, ws, wsb, s, algo);
  }
  if (!native) {
    planned_sort(p, r, ws, wsb, s, algo);
    return 0;
  }
  return core::with_types<v128>(p, [&]<class U, class V>() {
    return typed_sort<U, V>(p, static_cast<U*>(r.keys), static_cast<V*>(r.values), ws, wsb, s, algo, alt, nullptr,
                            nullptr, inset);
  });
}

}  // namespace

const device_limits& current_device_limits() {
  static std::mutex m;
  static std::map<int, device_limits> known;
  int dev = 0;
  RADIX_CUDA_CHECK(cudaGetDevice(&dev));
  std::lock_guard<std::mutex> lock(m);
  auto it = known.find(dev);
  if (it == known.end()) {
    device_limits d;
    int optin = 0;
    RADIX_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    RADIX_CUDA_CHECK(cudaDeviceGetAttribute(&d.major, cudaDevAttrComputeCapabilityMajor, dev));
    d.shared_optin = std::size_t(optin);
    // a smaller GPU, simulated: the fallbacks run where the tests can reach them
    if (const char* lim = core::env::get("RADIX_CUDA_SHARED_LIMIT"); lim && *lim)
      d.shared_optin = std::min<std::size_t>(d.shared_optin, std::strtoull(lim, nullptr, 10));
    it = known.emplace(dev, d).first;  // std::map: the reference stays valid as devices are added
  }
  return it->second;
}

namespace {
/// The library pool's limit on the current device: RADIX_CUDA_SCRATCH_CACHE
/// (bytes, K/M/G, as RADIX_SCRATCH_CACHE), else an eighth of the device's
/// memory: sorts of up to 2^30 4-byte keys on an 80 GB GPU keep their
/// alternates between calls.
std::size_t scratch_cache_limit(int dev) {
  if (const char* v = core::env::get("RADIX_CUDA_SCRATCH_CACHE"); v && *v) {
    try {
      return radix::detail::parse_scratch_cache_limit(v);
    } catch (const invalid_argument&) {
      throw invalid_argument(std::string("radix: RADIX_CUDA_SCRATCH_CACHE='") + v +
                             "' is not a byte count (examples: 0, 512M, 2G)");
    }
  }
  cudaDeviceProp prop{};
  RADIX_CUDA_CHECK(cudaGetDeviceProperties(&prop, dev));
  return prop.totalGlobalMem / 8;
}

struct scratch_pools {
  std::mutex m;
  std::map<int, cudaMemPool_t> pools;  // nullptr: the cache is off there
};
scratch_pools& pools() {
  static auto* p = new scratch_pools;  // (never destroyed: a sort from a static destructor still finds it)
  return *p;
}
}  // namespace

cudaMemPool_t scratch_pool() {
  int dev = 0;
  RADIX_CUDA_CHECK(cudaGetDevice(&dev));
  scratch_pools& all = pools();
  std::lock_guard<std::mutex> lock(all.m);
  auto it = all.pools.find(dev);
  if (it != all.pools.end()) return it->second;
  const std::size_t limit = scratch_cache_limit(dev);
  const cudaMemPool_t pool = limit > 0 ? make_keeping_pool(dev, limit) : nullptr;
  all.pools.emplace(dev, pool);
  return pool;
}

bool onesweep_fits(const sort_request& r) {
  if (radix::detail::is_wide_key(r.key)) return true;  // wide keys choose per sub-request
  const variant onesweep{algorithm::onesweep, 0, 0, true};
  const core::sort_plan p = core::plan_sort(r, caps_of(onesweep));
  const std::size_t need = core::with_types<v128>(p, [&]<class U, class V>() -> std::size_t {
    if constexpr (onesweep_compiled<U, V>()) return onesweep_shared_bytes<U, V>(p.n, tuning_override());
    return 0;
  });
  return need <= current_device_limits().shared_optin;
}

namespace {

/// A segmented request's plan: keys of 1 to 8 bytes, values of 1, 2, 4 or 8
/// aligned bytes (the host API sorts the others as two whole-array sorts).
core::sort_plan segmented_plan(const sort_request& r) {
  if (radix::detail::is_wide_key(r.key))
    bad("segments: keys wider than 8 bytes are sorted in segments by the host API only (radix::sort_segments)");
  if (r.segs.layout == segment_layout::offsets && r.segs.count > 0xFFFFFFFFull)
    bad("segments: the CUDA engine takes fewer than 2^32 segments, not " + std::to_string(r.segs.count));
  core::engine_caps c;
  c.native_value_sizes = (1u << 1) | (1u << 2) | (1u << 4) | (1u << 8);
  c.host_workspace = false;
  c.values_at = core::value_address::device;
  const core::sort_plan p = core::plan_sort(r, c);
  if (p.route == core::value_route::via_index)
    bad("segments: the CUDA engine moves values of 1, 2, 4 or 8 bytes, aligned to their size, not " +
        std::to_string(r.value_bytes) + " (the host API, radix::sort_segments, takes any)");
  return p;
}

/// Argsort of uniform rows longer than the block routes into 8-byte
/// positions: the long route moves the positions through every pass, so it
/// moves 4-byte ones and they are widened once at the end (as
/// narrows_indices does for one array). The short routes write positions
/// only once and write the 8-byte ones directly.
bool segmented_narrows_indices(const core::sort_plan& p, const sort_request& r) {
  return p.route == core::value_route::indices && p.index_bytes == 8 && r.segs.layout == segment_layout::uniform &&
         r.segs.length > segment_tiers::large_tile && r.segs.length <= 0xFFFFFFFFull;
}

template <class U, class V>
segmented_job<U, V> segmented_job_for(const core::sort_plan& p, const sort_request& r, V* values, void* ws,
                                      std::size_t wsb, cudaStream_t s) {
  segmented_job<U, V> j;
  j.mode = mode_of(p);
  j.keys = static_cast<U*>(r.keys);
  j.values = values;
  j.sorted_keys = static_cast<U*>(r.sorted_keys);
  j.n = p.n;
  j.segs = r.segs;
  j.codec = p.codec<U>();
  j.begin_bit = p.begin_bit;
  j.end_bit = p.end_bit;
  j.digit_bits = p.digit_bits;
  j.workspace = ws;
  j.workspace_bytes = wsb;
  j.stream = s;
  j.tuning = tuning_override();
  return j;
}

std::size_t segmented_request_workspace(const sort_request& r) {
  const core::sort_plan p = segmented_plan(r);
  return core::with_types(p, [&]<class U, class V>() -> std::size_t {
    if (segmented_narrows_indices(p, r) && !segmented_splits_rows<U, V>(mode_of(p), r.segs, tuning_override()))
      return segmented_workspace_bytes<U, std::uint32_t>(mode_of(p), p.n, r.segs, tuning_override()) +
             device_alignment + p.n * 4;
    return segmented_workspace_bytes<U, V>(mode_of(p), p.n, r.segs, tuning_override());
  });
}

void segmented_request_sort(const sort_request& r, void* ws, std::size_t wsb, cudaStream_t s) {
  const core::sort_plan p = segmented_plan(r);
  core::with_types(p, [&]<class U, class V>() {
    if (segmented_narrows_indices(p, r) && !segmented_splits_rows<U, V>(mode_of(p), r.segs, tuning_override())) {
      // [4-byte positions | the segmented sort's workspace]
      const std::size_t idx_bytes = (p.n * 4 + device_alignment - 1) / device_alignment * device_alignment;
      auto* idx = static_cast<std::uint32_t*>(ws);
      segmented_sort<U, std::uint32_t>(segmented_job_for<U, std::uint32_t>(
          p, r, idx, static_cast<std::byte*>(ws) + idx_bytes, wsb - idx_bytes, s));
      widen_indices(static_cast<std::uint64_t*>(r.indices), idx, p.n, s);
      return;
    }
    segmented_sort<U, V>(segmented_job_for<U, V>(
        p, r, static_cast<V*>(p.route == core::value_route::indices ? r.indices : r.values), ws, wsb, s));
  });
}

}  // namespace

/// Wide keys are sorted through sub-requests of the public API (each makes
/// its own choice); `algo` applies to 1- to 8-byte keys. Segmented requests
/// take the segmented sort whatever `algo` says.
std::size_t device_workspace(const sort_request& r, const variant& algo) {
  if (r.segs.segmented()) return segmented_request_workspace(r);
  if (radix::detail::is_wide_key(r.key)) return wide_request_workspace(r);
  // (the native route of keys out of place in device_sort)
  const bool keys_out_of_place =
      r.op == operation::keys && r.sorted_keys && r.sorted_keys != r.keys && !is_multipass(algo);
  return planned_workspace(core::plan_sort(r, caps_of(algo)), algo, keys_out_of_place);
}

void device_sort(const sort_request& r, void* ws, std::size_t wsb, cudaStream_t s, const variant& algo) {
  if (r.n == 0) return;
  if (r.op == operation::keys && r.sorted_keys) {
    // Keys out of place: Onesweep reads the input in its first pass and
    // writes sorted_keys in its last; the other routes sort a copy in place.
    sort_request plain = r;
    plain.sorted_keys = nullptr;
    if (r.sorted_keys != r.keys) {
      const bool native = !r.segs.segmented() && !radix::detail::is_wide_key(r.key) && !is_multipass(algo);
      if (native) return planned_sort(core::plan_sort(r, caps_of(algo)), r, ws, wsb, s, algo);
      RADIX_CUDA_CHECK(cudaMemcpyAsync(r.sorted_keys, r.keys, r.n * r.key.bytes, cudaMemcpyDeviceToDevice, s));
      plain.keys = r.sorted_keys;
    }
    return device_sort(plain, ws, wsb, s, algo);
  }
  if (r.segs.segmented()) return segmented_request_sort(r, ws, wsb, s);
  if (r.sorted_keys && (radix::detail::is_wide_key(r.key) || is_multipass(algo))) {
    // Onesweep writes argsort's sorted keys in its last pass; the others
    // fetch each by its index afterwards.
    sort_request plain = r;
    plain.sorted_keys = nullptr;
    device_sort(plain, ws, wsb, s, algo);
    gather_bytes(r.sorted_keys, r.keys, r.key.bytes, r.indices, r.index_bytes, r.n, s);
    return;
  }
  if (radix::detail::is_wide_key(r.key)) return wide_request_sort(r, ws, wsb, s);
  planned_sort(core::plan_sort(r, caps_of(algo)), r, ws, wsb, s, algo);
}

std::size_t device_workspace(const sort_request& r) { return device_workspace(r, radix::cuda::choose(r)); }

}  // namespace radix::cuda_detail

// ---- public device API ----
namespace radix::cuda {

std::string engine_info() {
  std::ostringstream os;
  os << "onesweep sm_90 policies:";
  for (int kb : {1, 2, 4, 8})
    for (int vb : {0, 4, 8, 16}) {
      os << " " << kb * 8 << "-bit keys";
      if (vb == 0) os << ", keys only ";
      else os << ", " << vb << "-byte values ";
      os << cuda_detail::sm90_policy(kb, vb) << ";";
    }
  os << " up to medium_n (where it is not 0) the small tiles " << cuda_detail::sm90_small_tiles(4, 0) << ";";
  os << " up to mid_n the mid tiles: 32-bit keys, 4-byte values " << cuda_detail::sm90_mid_tiles(4, 4)
     << "; 16-bit keys only " << cuda_detail::sm90_mid_tiles(2, 0) << ";";
  os << " reduce_then_scan tiles:";
  for (const auto& t : cuda_detail::sm90_rts_tiles) os << " " << t;
  os << "; four_way tiles:";
  for (const auto& t : cuda_detail::sm90_four_way_tiles) os << " " << t;
  os << "; split tiles:";
  for (const auto& t : cuda_detail::sm90_split_tiles) os << " " << t;
  int dev = 0;
  if (cudaGetDevice(&dev) == cudaSuccess) {
    const auto& d = cuda_detail::current_device_limits();
    os << "; this device: compute capability " << d.major << ".x, " << d.shared_optin / 1024
       << " KiB of shared memory per block (Onesweep where its tile fits, else reduce_then_scan), PDL "
       << (d.pdl() ? "on" : "off (needs sm_90)");
  }
  return os.str();
}

std::size_t workspace_bytes(const sort_request& req) {
  cuda_detail::validate(req, false);
  return cuda_detail::device_workspace(req);
}

namespace {
/// An explicit variant, checked and with its defaults filled in (choose()
/// does that for options.algo; the tile and the mapping are the variant's).
variant resolved(const sort_request& req, const variant& v) {
  if (v.tile < 0 || v.tile >= tile_shapes(v.algo))
    throw invalid_argument("radix: " + to_string(v) + ": no such tile shape");
  sort_request r = req;
  r.opts.algo = v.algo;
  r.opts.digit_bits = v.digit_bits;
  variant c = choose(r);
  c.tile = v.tile;
  c.coalesced = v.algo == algorithm::four_way ? v.coalesced : true;
  return c;
}
}  // namespace

std::size_t workspace_bytes(const sort_request& req, const variant& v) {
  cuda_detail::validate(req, false);
  return cuda_detail::device_workspace(req, resolved(req, v));
}

void sort(const sort_request& req, const variant& v, void* d_workspace, std::size_t bytes, cudaStream_t stream) {
  cuda_detail::validate(req, true);
  const variant c = resolved(req, v);
  const std::size_t need = cuda_detail::device_workspace(req, c);
  if (bytes < need || (need && d_workspace == nullptr))
    throw out_of_memory("radix: CUDA workspace of " + std::to_string(bytes) + " bytes is too small; " +
                        std::to_string(need) + " needed");
  cuda_detail::device_sort(req, d_workspace, bytes, stream, c);
}

void sort(const sort_request& req, void* d_workspace, std::size_t bytes, cudaStream_t stream) {
  cuda_detail::validate(req, true);
  const variant algo = choose(req);
  const std::size_t need = cuda_detail::device_workspace(req, algo);
  if (bytes < need || (need && d_workspace == nullptr))
    throw out_of_memory("radix: CUDA workspace of " + std::to_string(bytes) + " bytes is too small; " +
                        std::to_string(need) + " needed");
  cuda_detail::device_sort(req, d_workspace, bytes, stream, algo);
}

namespace {
/// The double-buffer forms' own checks: keys or pairs, alternates given
/// (where there is something to sort), aligned like the keys, distinct.
void validate_alternates(const sort_request& req, const alternates& alt, bool check_pointers) {
  if (req.op == operation::argsort)
    throw invalid_argument("radix: argsort has no double-buffer form (its keys stay untouched; use argsort)");
  if (req.sorted_keys && req.sorted_keys != req.keys)
    throw invalid_argument("radix: a double-buffered sort has no sorted_keys (its result is in one of its buffers)");
  if (req.segs.segmented())
    throw invalid_argument("radix: segmented sorts have no double-buffer form (sort them in place)");
  if (radix::detail::is_wide_key(req.key))
    throw invalid_argument("radix: keys of " + std::to_string(req.key.bytes) +
                           " bytes have no double-buffer form (sort them in place)");
  if (!check_pointers || req.n == 0) return;
  if (alt.keys == nullptr || (req.op == operation::pairs && alt.values == nullptr))
    throw invalid_argument("radix: a double-buffered sort needs the alternate keys" +
                           std::string(req.op == operation::pairs ? " and values" : ""));
  if (reinterpret_cast<std::uintptr_t>(alt.keys) % req.key.bytes != 0)
    throw invalid_argument("radix: the alternate keys are not aligned to their size");
  if (alt.keys == req.keys || (req.op == operation::pairs && alt.values == req.values))
    throw invalid_argument("radix: an alternate buffer is the buffer it alternates with");
}
}  // namespace

std::size_t workspace_bytes(const sort_request& req, const alternates& alt) {
  cuda_detail::validate(req, false);
  validate_alternates(req, alt, false);
  return cuda_detail::double_buffered_workspace(req, alt, choose(req));
}

int sort(const sort_request& req, const alternates& alt, void* d_workspace, std::size_t bytes, cudaStream_t stream) {
  cuda_detail::validate(req, true);
  validate_alternates(req, alt, true);
  if (req.n == 0) return 0;
  const variant algo = choose(req);
  const std::size_t need = cuda_detail::double_buffered_workspace(req, alt, algo);
  if (bytes < need || (need && d_workspace == nullptr))
    throw out_of_memory("radix: CUDA workspace of " + std::to_string(bytes) + " bytes is too small; " +
                        std::to_string(need) + " needed");
  return cuda_detail::double_buffered_sort(req, alt, d_workspace, bytes, stream, algo);
}

}  // namespace radix::cuda

namespace radix::cuda_detail {

int sort_with_inset(const sort_request& req, const radix::cuda::alternates& alt, const input_inset& inset,
                    void* d_workspace, std::size_t bytes, cudaStream_t stream) {
  validate(req, true);
  radix::cuda::validate_alternates(req, alt, true);
  if (inset.active() && (inset.keys == nullptr || inset.end > req.n))
    throw invalid_argument("radix: an inset of keys [" + std::to_string(inset.begin) + ", " +
                           std::to_string(inset.end) + ") does not lie in an input of " + std::to_string(req.n) +
                           (inset.keys ? "" : " (and has no keys)"));
  if (req.n == 0) return 0;
  const radix::cuda::variant algo = radix::cuda::choose(req);
  const std::size_t need = double_buffered_workspace(req, alt, algo);
  if (bytes < need || (need && d_workspace == nullptr))
    throw out_of_memory("radix: CUDA workspace of " + std::to_string(bytes) + " bytes is too small; " +
                        std::to_string(need) + " needed");
  return double_buffered_sort(req, alt, d_workspace, bytes, stream, algo, inset);
}

}  // namespace radix::cuda_detail

namespace radix::cuda {

void release_scratch_cache() {
  auto& all = cuda_detail::pools();
  std::lock_guard<std::mutex> lock(all.m);
  for (const auto& [dev, pool] : all.pools)
    if (pool) RADIX_CUDA_CHECK(cudaMemPoolTrimTo(pool, 0));
}

void sort(const sort_request& req, cudaStream_t stream) {
  cuda_detail::validate(req, true);
  const variant algo = choose(req);
  const std::size_t need = cuda_detail::device_workspace(req, algo);
  cuda_detail::device_buffer ws(need, stream);
  cuda_detail::device_sort(req, ws.p, need, stream, algo);
}

}  // namespace radix::cuda
