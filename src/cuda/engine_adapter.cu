// The CUDA engine behind the host API (radix/sort.hpp): host spans are
// copied to the device (pinned in place when large, else staged), sorted
// there by the device sort, and copied back; host records are sorted whole on
// the device when they fit.
#include <cuda_runtime.h>

#include <map>
#include <memory>
#include <mutex>

#include "common/common.cuh"
#include "device_sort.hpp"
#include "engine/engine.hpp"
#include "host_staging.cuh"
#include "radix/core/sort_plan.hpp"
#include "radix/cuda.hpp"

namespace radix::cuda_detail {
namespace {

using radix::cuda::variant;

class cuda_engine_impl final : public detail::engine_impl {
 public:
  const char* name() const override { return "cuda"; }
  /// Device memory is its own: no host workspace (the routes by value size
  /// and alignment are the device API's, width_sort above).
  core::engine_caps caps() const override {
    core::engine_caps c;
    c.native_value_sizes |= 1u << 16;
    c.host_workspace = false;
    return c;
  }
  std::size_t workspace_bytes(const core::sort_plan&, const sort_request&) const override { return 0; }

  void run(const core::sort_plan&, const sort_request& r, std::span<std::byte>) override {
    if (r.segs.segmented() && !segmented_natively(r)) return detail::run_segments_by_sorts(r);
    sort_request d = r;
    d.opts.use = engine::cuda;
    validate(d, false);  // the host API checked the (host) pointers already
    if (r.n == 0) return;
    device_lane& lane = lane_of_current_device();
    std::lock_guard<std::mutex> lock(lane.mutex);
    const cudaStream_t stream = lane.stream;
    stager& staging = lane.staging;
    const std::uint64_t n = r.n;
    const std::size_t kb = n * r.key.bytes;
    const std::size_t vb = r.op == operation::pairs ? n * r.value_bytes
                           : r.op == operation::argsort ? n * r.index_bytes
                                                        : 0;
    device_buffer keys(kb, stream), vals(vb, stream);
    d.keys = keys.p;
    const std::size_t ob = r.segs.layout == segment_layout::offsets ? (r.segs.count + 1) * r.segs.offset_bytes : 0;
    device_buffer offsets(ob, stream);
    if (ob) {
      RADIX_CUDA_CHECK(cudaMemcpyAsync(offsets.p, r.segs.offsets, ob, cudaMemcpyHostToDevice, stream));
      d.segs.offsets = offsets.p;
    }
    if (r.op == operation::pairs) d.values = vals.p;
    if (r.op == operation::argsort) d.indices = vals.p;
    const variant algo = radix::cuda::choose(d);
    const std::size_t wsb = device_workspace(d, algo);
    device_buffer ws(wsb, stream);
    host_pin pin_keys(r.keys, kb, stream);
    host_pin pin_vals(r.op == operation::pairs ? r.values : r.indices, vb, stream);
    auto in = [&](void* dst, const void* src, std::size_t bytes, const host_pin& pin) {
      if (pin.pinned())
        RADIX_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream));
      else
        staging.to_device(dst, src, bytes, stream);
    };
    auto out = [&](void* dst, const void* src, std::size_t bytes, const host_pin& pin) {
      if (pin.pinned())
        RADIX_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream));
      else
        staging.to_host(dst, src, bytes, stream);
    };
    in(keys.p, r.keys, kb, pin_keys);
    if (r.op == operation::pairs) in(vals.p, r.values, vb, pin_vals);
    device_sort(d, ws.p, wsb, stream, algo);
    if (r.op != operation::argsort) out(r.keys, keys.p, kb, pin_keys);
    if (r.op == operation::pairs) out(r.values, vals.p, vb, pin_vals);
    if (r.op == operation::argsort) out(r.indices, vals.p, vb, pin_vals);
    RADIX_CUDA_CHECK(cudaStreamSynchronize(stream));
  }

  bool native_wide_keys() const override { return true; }
  bool native_segments() const override { return true; }

  /// Segmented requests the device sort takes (the rest go as two whole-array
  /// sorts): values of 1, 2, 4 or 8 bytes (the device copies are aligned),
  /// fewer than 2^32 segments.
  static bool segmented_natively(const sort_request& r) {
    const std::size_t v = r.value_bytes;
    if (r.op == operation::pairs && v != 1 && v != 2 && v != 4 && v != 8) return false;
    return r.segs.layout != segment_layout::offsets || r.segs.count <= 0xFFFFFFFFull;
  }

  /// Host records sorted whole on the device: copied in, key + index sort and
  /// gather there (radix::cuda::sort_records, out of place), copied back.
  /// Declines (false: the host API argsorts here and permutes on the CPU)
  /// when two copies of the records and the workspace do not fit the GPU.
  bool run_records(void* data, std::size_t record_bytes, std::uint64_t n, const record_key& key,
                   const options& o) override {
    options d = o;
    d.use = engine::cuda;
    const std::size_t bytes = n * record_bytes;
    const std::size_t wsb = radix::cuda::sort_records_workspace_bytes(record_bytes, n, key, d);
    std::size_t free_b = 0, total_b = 0;
    RADIX_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    free_b += pool_idle_bytes(scratch_pool());  // (what earlier sorts left in the pool is ours to reuse)
    if (2 * bytes + wsb + (std::size_t(256) << 20) > free_b) return false;
    device_lane& lane = lane_of_current_device();
    std::lock_guard<std::mutex> lock(lane.mutex);
    const cudaStream_t stream = lane.stream;
    stager& staging = lane.staging;
    device_buffer in(bytes, stream), out(bytes, stream), ws(wsb, stream);
    host_pin pin(data, bytes, stream);
    if (pin.pinned()) RADIX_CUDA_CHECK(cudaMemcpyAsync(in.p, data, bytes, cudaMemcpyHostToDevice, stream));
    else staging.to_device(in.p, data, bytes, stream);
    radix::cuda::sort_records(in.p, out.p, record_bytes, n, key, ws.p, wsb, stream, d);
    if (pin.pinned()) RADIX_CUDA_CHECK(cudaMemcpyAsync(data, out.p, bytes, cudaMemcpyDeviceToHost, stream));
    else staging.to_host(data, out.p, bytes, stream);
    RADIX_CUDA_CHECK(cudaStreamSynchronize(stream));
    return true;
  }

 private:
  /// The host API sorts on the calling thread's current device; a stream
  /// and staging buffers (whose events) belong to one device, so each device
  /// gets its own, and sorts on different devices do not wait for each other.
  struct device_lane {
    std::mutex mutex;
    cudaStream_t stream = nullptr;
    stager staging;
  };
  device_lane& lane_of_current_device() {
    int dev = 0;
    RADIX_CUDA_CHECK(cudaGetDevice(&dev));
    std::lock_guard<std::mutex> lock(lanes_mutex_);
    auto& l = lanes_[dev];
    if (!l) {
      auto fresh = std::make_unique<device_lane>();
      RADIX_CUDA_CHECK(cudaStreamCreateWithFlags(&fresh->stream, cudaStreamNonBlocking));
      l = std::move(fresh);
    }
    return *l;
  }
  std::mutex lanes_mutex_;
  std::map<int, std::unique_ptr<device_lane>> lanes_;
};


}  // namespace
}  // namespace radix::cuda_detail

namespace radix::detail {

void release_cuda_scratch() { radix::cuda::release_scratch_cache(); }

engine_impl* cuda_engine() {
  static engine_impl* e = []() -> engine_impl* {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
      (void)cudaGetLastError();
      return nullptr;
    }
    static cuda_detail::cuda_engine_impl impl;
    return &impl;
  }();
  return e;
}

}  // namespace radix::detail
