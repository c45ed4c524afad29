// The one interface every engine implements (CPU, CUDA, OpenCL). The host API
// (src/api) validates a request, picks an engine and calls it; engines never
// know of each other.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>

#include "radix/core/sort_plan.hpp"
#include "radix/sort.hpp"

namespace radix::detail {

class engine_impl {
 public:
  virtual ~engine_impl() = default;
  virtual const char* name() const = 0;
  /// What the engine moves natively; the host API plans every request with it.
  virtual core::engine_caps caps() const = 0;
  /// Host scratch bytes run() needs for this planned request (validated).
  virtual std::size_t workspace_bytes(const core::sort_plan& plan, const sort_request& req) const = 0;
  /// Sorts. `workspace` is at least workspace_bytes(plan, req) long, or
  /// empty, in which case the engine allocates.
  virtual void run(const core::sort_plan& plan, const sort_request& req, std::span<std::byte> workspace) = 0;
  /// Whether run() sorts segmented requests (req.segs) itself; otherwise the
  /// host API sorts them with run_segments_by_sorts over this engine.
  virtual bool native_segments() const { return false; }
  /// Whether run() takes wide keys (detail::is_wide_key) itself; otherwise
  /// the host API sorts them with run_byte_keys over this engine's argsorts.
  virtual bool native_wide_keys() const { return false; }
  /// Sorts host records in place on this engine (key + index sort and the
  /// gather both on the device). Returns false when the engine has no such
  /// path; the host API then argsorts on the engine and permutes on the CPU.
  virtual bool run_records(void* /*data*/, std::size_t /*record_bytes*/, std::uint64_t /*count*/,
                           const record_key& /*key*/, const options& /*o*/) {
    return false;
  }
};

/// Keys wider than an engine's native 64 bits: byte strings of any width.
inline bool is_wide_key(const key_desc& k) { return k.kind == key_kind::bytes || k.bytes > 8; }

/// The checks every entry point makes before touching data, with the same
/// words everywhere (throws radix::invalid_argument). With check_pointers
/// false (a workspace-size query) the buffers may not exist yet.
void validate_request(const sort_request& req, bool check_pointers);

/// Byte-string keys (key_kind::bytes): a stable LSD sort over 64-bit chunks
/// of the key, each chunk an argsort on the engine req.opts.use names. The
/// key of element i is the req.key.bytes bytes at keys_base + i * stride +
/// offset (records pass their own stride). Does req.op on req's buffers.
void run_byte_keys(const sort_request& req, const void* keys_base, std::size_t stride, std::size_t offset);

/// A segmented request on any engine, as two stable whole-array sorts: the
/// keys first, then the segment of each element (so segments keep their
/// keys' order), and one gather (the permutation of the second sort).
/// Host buffers; allocates its own scratch.
void run_segments_by_sorts(const sort_request& req);

/// Argsort's sorted_keys on the host, after the argsort: sorted_keys[i] =
/// the key at indices[i] (inside its segment, for a segmented request).
void gather_sorted_keys(const sort_request& req);

/// The engine `e` resolves to (automatic: the best available); throws
/// radix::engine_unavailable when it is not there.
engine_impl& pick_engine(engine e);

/// Always present.
engine_impl& cpu_engine();
/// nullptr when the CUDA engine is not compiled in or no GPU is visible.
engine_impl* cuda_engine();
/// Gives back the device memory the CUDA engine's pools keep between sorts
/// (radix::cuda::release_scratch_cache); nothing without the CUDA engine, and
/// nothing that starts CUDA where no sort ran on a GPU.
void release_cuda_scratch();
/// nullptr when the OpenCL engine is not compiled in or no device is found.
engine_impl* opencl_engine();

}  // namespace radix::detail
