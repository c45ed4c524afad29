// The host API's front door: validates a request (so every engine rejects the
// same things with the same words, before touching any data), picks the
// engine, and runs it.
#include <cstring>
#include <sstream>
#include <string>

#include "engine/engine.hpp"
#include "radix/core/segments.hpp"

namespace radix {
namespace {

[[noreturn]] void bad(const std::string& what) { throw invalid_argument("radix: " + what); }

void validate(const sort_request& r, bool check_pointers = true) {
  const int kb = r.key.bytes;
  switch (r.key.kind) {
    case key_kind::unsigned_int:
    case key_kind::signed_int:
      // 16-byte integers are wide keys: sorted as two 64-bit chunks (byte_keys.cpp).
      if (kb != 1 && kb != 2 && kb != 4 && kb != 8 && kb != 16)
        bad("integer keys of " + std::to_string(kb) + " bytes are not supported (1, 2, 4, 8 or 16)");
      break;
    case key_kind::floating:
      if (kb != 2 && kb != 4 && kb != 8) bad("float keys of " + std::to_string(kb) + " bytes are not supported (2, 4 or 8)");
      break;
    case key_kind::bytes:
      if (kb < 1) bad("byte-string keys need 1..255 bytes");
      break;
    default: bad("unknown key kind");
  }
  const int w = r.key.bits();
  const options& o = r.opts;
  if (o.begin_bit < 0) bad("begin_bit " + std::to_string(o.begin_bit) + " < 0");
  if (o.begin_bit > w) bad("begin_bit " + std::to_string(o.begin_bit) + " > key width " + std::to_string(w));
  if (o.end_bit != -1) {
    if (o.end_bit < 0) bad("end_bit " + std::to_string(o.end_bit) + " < 0 (use -1 for the whole key)");
    if (o.end_bit > w) bad("end_bit " + std::to_string(o.end_bit) + " > key width " + std::to_string(w));
    if (o.begin_bit > o.end_bit)
      bad("begin_bit " + std::to_string(o.begin_bit) + " > end_bit " + std::to_string(o.end_bit));
  }
  if (o.digit_bits < 0 || o.digit_bits > 16)
    bad("digit_bits " + std::to_string(o.digit_bits) + " outside 1..16 (0 = automatic)");
  if (check_pointers && r.n > 0 && r.keys == nullptr) bad("keys is null but n = " + std::to_string(r.n));
  switch (r.op) {
    case operation::keys: break;
    case operation::pairs:
      if (r.value_bytes == 0) bad("pairs need a value size > 0");
      if (check_pointers && r.n > 0 && r.values == nullptr) bad("values is null but n = " + std::to_string(r.n));
      break;
    case operation::argsort:
      if (r.index_bytes != 4 && r.index_bytes != 8)
        bad("argsort indices must be 4 or 8 bytes, not " + std::to_string(r.index_bytes));
      // (segmented: the indices number positions inside a segment, checked with the segments)
      if (r.index_bytes == 4 && r.n > 0x100000000ull && !r.segs.segmented())
        bad("argsort with 32-bit indices needs n <= 2^32, got n = " + std::to_string(r.n));
      if (check_pointers && r.n > 0 && r.indices == nullptr) bad("indices is null but n = " + std::to_string(r.n));
      break;
  }
  if (r.sorted_keys && r.op == operation::pairs)
    bad("sorted_keys is an output of argsort and of keys sorted out of place; pairs sort in place");
  // (keys: sorted_keys == keys is a sort in place)
  if (r.sorted_keys && r.n > 0 && r.keys && (r.op == operation::argsort || r.sorted_keys != r.keys)) {
    const auto* k = static_cast<const std::byte*>(r.keys);
    const auto* o = static_cast<const std::byte*>(r.sorted_keys);
    const std::uint64_t bytes = r.n * std::uint64_t(r.key.bytes);
    if (o < k + bytes && k < o + bytes) bad("sorted_keys overlaps keys (the sort reads them to the end)");
  }
  core::check_segments_shape(r.segs, r.n, r.op, r.index_bytes, check_pointers);
}

detail::engine_impl& pick(engine e) {
  switch (e) {
    case engine::automatic:
      if (auto* c = detail::cuda_engine()) return *c;
      return detail::cpu_engine();
    case engine::cpu: return detail::cpu_engine();
    case engine::cuda:
      if (auto* c = detail::cuda_engine()) return *c;
#ifdef RADIX_HAS_CUDA
      throw engine_unavailable("radix: engine cuda: no CUDA device is visible");
#else
      throw engine_unavailable("radix: engine cuda: this build of radix has no CUDA engine (RADIX_ENABLE_CUDA=OFF)");
#endif
    case engine::opencl:
      if (auto* c = detail::opencl_engine()) return *c;
#ifdef RADIX_HAS_OPENCL
      throw engine_unavailable("radix: engine opencl: no OpenCL platform or device found (RADIX_OPENCL_DEVICE can name one)");
#else
      throw engine_unavailable("radix: engine opencl: this build of radix has no OpenCL engine (RADIX_ENABLE_OPENCL=OFF)");
#endif
  }
  throw invalid_argument("radix: unknown engine");
}

}  // namespace

namespace detail {
void validate_request(const sort_request& req, bool check_pointers) { validate(req, check_pointers); }
engine_impl& pick_engine(engine e) { return pick(e); }
}  // namespace detail

void run(const sort_request& req, std::span<std::byte> workspace) {
  validate(req);
  if (req.op == operation::keys && req.sorted_keys) {
    // Keys out of place: the host engines sort a copy in place.
    sort_request plain = req;
    plain.sorted_keys = nullptr;
    if (req.sorted_keys != req.keys && req.n > 0) {
      std::memcpy(req.sorted_keys, req.keys, req.n * std::size_t(req.key.bytes));
      plain.keys = req.sorted_keys;
    }
    run(plain, workspace);
    return;
  }
  if (req.sorted_keys) {
    // The argsort, then each key fetched by its index (the host engines
    // have no pass that writes them on the way).
    sort_request plain = req;
    plain.sorted_keys = nullptr;
    run(plain, workspace);
    detail::gather_sorted_keys(req);
    return;
  }
  auto& e = pick(req.opts.use);
  if (req.segs.segmented()) {
    core::check_host_offsets(req.segs, req.n, req.op, req.index_bytes);
    if (detail::is_wide_key(req.key) || !e.native_segments()) return detail::run_segments_by_sorts(req);
  }
  if (detail::is_wide_key(req.key) && !e.native_wide_keys()) {
    // Wider than the engine's native key: LSD over 64-bit chunks (byte_keys.cpp).
    detail::run_byte_keys(req, req.keys, req.key.bytes, 0);
    return;
  }
  // Decided once: the query below and the engine's run read the same plan.
  const core::sort_plan plan = core::plan_sort(req, e.caps());
  if (!workspace.empty()) {
    const std::size_t need = e.workspace_bytes(plan, req);
    if (workspace.size() < need)
      throw out_of_memory("radix: workspace of " + std::to_string(workspace.size()) + " bytes is too small; " +
                          e.name() + " engine needs " + std::to_string(need));
  }
  if (req.n < 2 && req.op != operation::argsort) return;
  e.run(plan, req, workspace);  // segmented requests too (native_segments)
}

std::size_t workspace_bytes(const sort_request& req) {
  validate(req, false);
  auto& e = pick(req.opts.use);
  if (detail::is_wide_key(req.key) && !e.native_wide_keys()) return 0;  // allocates its own (byte_keys.cpp)
  if (req.segs.segmented() && (detail::is_wide_key(req.key) || !e.native_segments()))
    return 0;  // two whole-array sorts, which allocate their own (segments.cpp)
  return e.workspace_bytes(core::plan_sort(req, e.caps()), req);
}

engine default_engine() { return detail::cuda_engine() ? engine::cuda : engine::cpu; }

bool engine_available(engine e) {
  switch (e) {
    case engine::automatic:
    case engine::cpu: return true;
    case engine::cuda: return detail::cuda_engine() != nullptr;
    case engine::opencl: return detail::opencl_engine() != nullptr;
  }
  return false;
}

#ifndef RADIX_HAS_OPENCL
namespace detail {
// Built without the OpenCL engine (RADIX_ENABLE_OPENCL=OFF); src/opencl defines it otherwise.
engine_impl* opencl_engine() { return nullptr; }
}  // namespace detail
#endif

}  // namespace radix
