// The OpenCL engine behind the host API (engine::opencl: host spans copied
// to the device, sorted there, copied back) and the cl_mem entry points of
// include/radix/opencl.hpp.
#include <cstring>
#include <sstream>
#include <utility>

#include "cl_internal.hpp"
#include "engine/engine.hpp"
#include "radix/error.hpp"

namespace radix::opencl {

namespace {
/// The host API's checks. Segmented requests are the host API's alone
/// (radix::sort_segments sorts them there as two whole-array sorts): a
/// buffer sort would ignore the segments.
void validate(const sort_request& req, bool check_pointers) {
  radix::detail::validate_request(req, check_pointers);
  if (req.segs.segmented())
    throw invalid_argument("radix: segments: the OpenCL engine sorts buffers whole; sort batches of host data "
                           "with radix::sort_segments");
}
}  // namespace

std::string engine_info() {
  std::ostringstream s;
  const auto ds = detail::all_devices();
  s << "OpenCL devices (RADIX_OPENCL_DEVICE picks by index or name):\n";
  for (std::size_t i = 0; i < ds.size(); ++i)
    s << "  [" << i << "] " << ds[i].platform_name << " / " << ds[i].device_name << " (" << ds[i].version << ", "
      << ds[i].compute_units << " units, " << ds[i].local_mem / 1024 << " KiB local, "
      << ds[i].global_mem / (1024 * 1024) << " MiB)\n";
  if (auto* h = detail::default_device()) {
    s << "host API device: " << h->info.platform_name << " / " << h->info.device_name << "\n";
    s << "policy: " << detail::policy_for(h->info) << "\n";
  } else {
    s << "host API device: none\n";
  }
  return s.str();
}

cl_command_queue host_queue() {
  auto* h = detail::default_device();
  return h ? h->queue : nullptr;
}

std::size_t workspace_bytes(cl_command_queue queue, const sort_request& req) {
  validate(req, false);
  return detail::workspace_impl(detail::facts_of(queue), req);
}

void sort(const sort_request& req, cl_mem workspace, std::size_t workspace_bytes, cl_command_queue queue) {
  validate(req, true);
  if (!workspace) throw invalid_argument("radix: the OpenCL workspace buffer is null");
  detail::sort_impl(req, queue, workspace, workspace_bytes, nullptr);
}

void sort(const sort_request& req, cl_command_queue queue, phase_times* profile) {
  validate(req, true);
  if (profile) *profile = {};
  detail::sort_impl(req, queue, nullptr, 0, profile);
}

sorter::sorter(cl_command_queue queue) : queue_(queue) {
  if (!queue) throw invalid_argument("radix: opencl::sorter needs a command queue");
  detail::check(clRetainCommandQueue(queue), "clRetainCommandQueue");
}

sorter::~sorter() {
  if (ws_) clReleaseMemObject(ws_);
  if (queue_) clReleaseCommandQueue(queue_);
}

sorter::sorter(sorter&& o) noexcept
    : queue_(std::exchange(o.queue_, nullptr)), ws_(std::exchange(o.ws_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}

sorter& sorter::operator=(sorter&& o) noexcept {
  if (this != &o) {
    if (ws_) clReleaseMemObject(ws_);
    if (queue_) clReleaseCommandQueue(queue_);
    queue_ = std::exchange(o.queue_, nullptr);
    ws_ = std::exchange(o.ws_, nullptr);
    bytes_ = std::exchange(o.bytes_, 0);
  }
  return *this;
}

bool sorter::fit(const sort_request& req) {
  if (!queue_) throw invalid_argument("radix: opencl::sorter was moved from");
  const detail::queue_facts f = detail::facts_of(queue_);
  const std::size_t need = detail::workspace_impl(f, req);
  if (need <= bytes_) return true;
  if (need > f.info.max_alloc) return false;
  cl_int err = CL_SUCCESS;
  cl_mem m = clCreateBuffer(f.context, CL_MEM_READ_WRITE, std::max<std::size_t>(need, 1), nullptr, &err);
  if (err == CL_INVALID_BUFFER_SIZE || err == CL_OUT_OF_RESOURCES) err = CL_MEM_OBJECT_ALLOCATION_FAILURE;
  detail::check(err, "clCreateBuffer(sorter workspace)");
  if (ws_) clReleaseMemObject(ws_);  // freed once the work queued on it is done
  ws_ = m;
  bytes_ = need;
  return true;
}

void sorter::reserve(const sort_request& req) {
  validate(req, false);
  fit(req);
}

void sorter::sort(const sort_request& req) {
  validate(req, true);
  if (fit(req)) detail::sort_impl(req, queue_, ws_, bytes_, nullptr);
  else detail::sort_impl(req, queue_, nullptr, 0, nullptr);
}

namespace {

/// A device buffer that releases itself.
struct buffer {
  cl_mem m = nullptr;
  buffer(cl_context ctx, std::uint64_t bytes, std::uint64_t max_alloc, const char* what) {
    if (bytes > max_alloc)
      throw out_of_memory("radix: " + std::string(what) + " need " + std::to_string(bytes) +
                          " bytes of device memory in one buffer; the OpenCL device allows " +
                          std::to_string(max_alloc) + " (CL_DEVICE_MAX_MEM_ALLOC_SIZE)");
    cl_int err = CL_SUCCESS;
    m = clCreateBuffer(ctx, CL_MEM_READ_WRITE, std::size_t(std::max<std::uint64_t>(bytes, 1)), nullptr, &err);
    if (err == CL_INVALID_BUFFER_SIZE || err == CL_OUT_OF_RESOURCES) err = CL_MEM_OBJECT_ALLOCATION_FAILURE;
    detail::check(err, "clCreateBuffer");
  }
  buffer(const buffer&) = delete;
  buffer& operator=(const buffer&) = delete;
  ~buffer() {
    if (m) clReleaseMemObject(m);
  }
};

class opencl_engine_impl final : public radix::detail::engine_impl {
 public:
  explicit opencl_engine_impl(detail::host_device* h) : h_(h) {}
  const char* name() const override { return "opencl"; }

  /// Host data sorts with device scratch: no host workspace.
  /// Host data sorts with device scratch (the plan's routes are the device
  /// API's own, src/opencl/cl_sort.cpp).
  core::engine_caps caps() const override {
    core::engine_caps c;
    c.host_workspace = false;
    return c;
  }
  std::size_t workspace_bytes(const core::sort_plan&, const sort_request&) const override { return 0; }

  void run(const core::sort_plan&, const sort_request& r, std::span<std::byte>) override {
    const std::uint64_t n = r.n;
    if (n == 0) return;
    cl_command_queue q = h_->queue;
    const std::uint64_t max_alloc = h_->info.max_alloc;
    buffer K(h_->context, n * r.key.bytes, max_alloc, "the keys");
    sort_request d = r;
    d.keys = K.m;
    // Nothing is written to host memory before the device sort has finished
    // without error: the caller's data stays intact on failure.
    detail::check(clEnqueueWriteBuffer(q, K.m, CL_FALSE, 0, n * r.key.bytes, r.keys, 0, nullptr, nullptr),
                  "clEnqueueWriteBuffer(keys)");
    switch (r.op) {
      case operation::keys:
        detail::sort_impl(d, q, nullptr, 0, nullptr);
        read(K.m, r.keys, n * r.key.bytes, "keys");
        break;
      case operation::pairs: {
        buffer V(h_->context, n * r.value_bytes, max_alloc, "the values");
        d.values = V.m;
        detail::check(clEnqueueWriteBuffer(q, V.m, CL_FALSE, 0, n * r.value_bytes, r.values, 0, nullptr, nullptr),
                      "clEnqueueWriteBuffer(values)");
        detail::sort_impl(d, q, nullptr, 0, nullptr);
        detail::check(clFinish(q), "clFinish");
        read(K.m, r.keys, n * r.key.bytes, "keys");
        read(V.m, r.values, n * r.value_bytes, "values");
        break;
      }
      case operation::argsort: {
        buffer I(h_->context, n * r.index_bytes, max_alloc, "the indices");
        d.indices = I.m;
        detail::sort_impl(d, q, nullptr, 0, nullptr);
        read(I.m, r.indices, n * r.index_bytes, "indices");
        break;
      }
    }
  }

 private:
  void read(cl_mem m, void* to, std::uint64_t bytes, const char* what) {
    const cl_int err = clEnqueueReadBuffer(h_->queue, m, CL_TRUE, 0, std::size_t(bytes), to, 0, nullptr, nullptr);
    if (err != CL_SUCCESS) detail::check(err, (std::string("clEnqueueReadBuffer(") + what + ")").c_str());
  }
  detail::host_device* h_;
};

}  // namespace
}  // namespace radix::opencl

namespace radix::detail {
engine_impl* opencl_engine() {
  static opencl::opencl_engine_impl* e = [] {
    auto* h = opencl::detail::default_device();
    return h ? new opencl::opencl_engine_impl(h) : nullptr;
  }();
  return e;
}
}  // namespace radix::detail
