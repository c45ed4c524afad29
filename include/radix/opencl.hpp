// radix — sorting OpenCL buffers with the OpenCL engine (Helluy 2011, "A
// portable implementation of the radix sort algorithm in OpenCL"), on any
// OpenCL 1.2 device: PoCL on a CPU, a GPU's
// OpenCL driver.
//
// For OpenCL users only: this header includes <CL/cl.h>. Host-only code uses
// radix/sort.hpp with options::use = engine::opencl (host data is copied to
// the device and back).
//
// WHERE THE RESULT LANDS: always in the caller's buffers. sort_keys and
// sort_pairs sort `keys` (and `values`) in place; argsort leaves `keys`
// untouched and writes the permutation to `indices`. Buffers start at offset
// 0 and hold at least n elements.
//
// THE QUEUE: every command is enqueued on `queue`, which must be an in-order
// queue; its context and device are the ones used. Nothing waits for the
// device unless stated: the results are there once the queue has finished
// (clFinish, or an event enqueued after the sort).
//
// TWO WAYS TO CALL:
//  - With a workspace: ask *_workspace_bytes(queue, n, options) once, create
//    a buffer of that size in the queue's context, pass it in. The sort then
//    creates no buffers of its own (its scratch lies in yours, at offsets),
//    and is the faster way (no buffer creation per call).
//  - Without: the call creates its scratch buffers and releases them once
//    the queued work no longer needs them (OpenCL keeps them alive until then).
//    (H100, 2^26 u32 keys: 3.97 ms a call against 3.39 with a workspace.)
//  - radix::opencl::sorter (below) keeps a workspace for you: it grows to the
//    largest sort seen, and later calls create no buffers.
//
// Semantics are the library's (README.md, "Semantics"): stable; floats (radix::float16,
// radix::bfloat16, float, double) by value with -0.0 == +0.0 and NaNs last
// (first when descending), or IEEE totalOrder with float_order::total;
// descending; bit ranges [begin_bit, end_bit) of the ordered key; 64-bit
// counts. digit_bits is honoured as far as the device's local memory allows
// (2^digit_bits x work-items counters; larger values are reduced). Values of
// 1, 2, 4 and 8 bytes ride along in the reorder; other sizes go through an
// argsort and a gather on the device. Errors are radix::error exceptions:
// invalid_argument (before anything is enqueued), out_of_memory (a buffer
// larger than the device allows, or a workspace too small), device_error
// (naming the failed OpenCL call).
//
// Device choice for the host API: a GPU if any platform has one, else a CPU
// device; RADIX_OPENCL_DEVICE (an index into the list engine_info() prints,
// or a case-insensitive substring of "platform / device") overrides it.
// RADIX_OPENCL_POLICY="groups=64,items=32,digit_bits=8,transpose=1,scan_parts=64"
// overrides the tuning (any subset); engine_info() prints what is used.
#pragma once
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "radix/sort.hpp"

namespace radix::opencl {

/// The OpenCL devices seen, the one the host API uses, and its tuning.
std::string engine_info();

/// The in-order queue (created with CL_QUEUE_PROFILING_ENABLE) the host API
/// sorts on, on the device it chose; nullptr when there is no device. Buffers
/// for it live in its context (clGetCommandQueueInfo(CL_QUEUE_CONTEXT)).
cl_command_queue host_queue();

/// Device time of the phases of one sort (milliseconds), Helluy's Table 4-6
/// columns. Filled only when asked for (see sort below).
struct phase_times {
  double transpose_ms = 0, histogram_ms = 0, scan_ms = 0, reorder_ms = 0, other_ms = 0;
  int passes = 0;
  double total_ms() const { return transpose_ms + histogram_ms + scan_ms + reorder_ms + other_ms; }
};

// ---- type-erased entry points: the pointers of the request are cl_mem handles ----

/// Bytes of workspace `sort` needs for this request on the queue's device.
std::size_t workspace_bytes(cl_command_queue queue, const sort_request& req);
/// Sorts with a caller-provided workspace buffer (in the queue's context).
void sort(const sort_request& req, cl_mem workspace, std::size_t workspace_bytes, cl_command_queue queue);
/// Sorts, creating its scratch buffers. With `profile` non-null the call
/// waits for the sort and fills in the device time of each phase; the queue
/// must then have been created with CL_QUEUE_PROFILING_ENABLE.
void sort(const sort_request& req, cl_command_queue queue, phase_times* profile = nullptr);

namespace detail {
inline void* handle(cl_mem m) { return static_cast<void*>(m); }
template <class K>
sort_request request(operation op, cl_mem keys, std::uint64_t n, const options& o) {
  sort_request r;
  r.op = op;
  r.key = key_desc_of<K>();
  r.n = n;
  r.keys = handle(keys);
  r.opts = o;
  r.opts.use = engine::opencl;
  return r;
}
template <class K, class V>
sort_request pairs_request(cl_mem keys, cl_mem values, std::uint64_t n, const options& o) {
  auto r = request<K>(operation::pairs, keys, n, o);
  r.values = handle(values);
  r.value_bytes = sizeof(V);
  return r;
}
template <class K, class I>
sort_request argsort_request(cl_mem keys, cl_mem indices, std::uint64_t n, const options& o) {
  auto r = request<K>(operation::argsort, keys, n, o);
  r.indices = handle(indices);
  r.index_bytes = sizeof(I);
  return r;
}
}  // namespace detail

// ---- keys: K is the element type of the buffer (any radix key type) ----

template <sortable_key K>
std::size_t sort_keys_workspace_bytes(cl_command_queue queue, std::uint64_t n, const options& o = {}) {
  return workspace_bytes(queue, detail::request<K>(operation::keys, nullptr, n, o));
}
template <sortable_key K>
void sort_keys(cl_mem keys, std::uint64_t n, cl_mem workspace, std::size_t workspace_bytes, cl_command_queue queue,
               const options& o = {}) {
  sort(detail::request<K>(operation::keys, keys, n, o), workspace, workspace_bytes, queue);
}
template <sortable_key K>
void sort_keys(cl_mem keys, std::uint64_t n, cl_command_queue queue, const options& o = {}) {
  sort(detail::request<K>(operation::keys, keys, n, o), queue);
}

// ---- keys with values (any trivially copyable V) ----

template <sortable_key K, class V>
  requires std::is_trivially_copyable_v<V>
std::size_t sort_pairs_workspace_bytes(cl_command_queue queue, std::uint64_t n, const options& o = {}) {
  return workspace_bytes(queue, detail::pairs_request<K, V>(nullptr, nullptr, n, o));
}
template <sortable_key K, class V>
  requires std::is_trivially_copyable_v<V>
void sort_pairs(cl_mem keys, cl_mem values, std::uint64_t n, cl_mem workspace, std::size_t workspace_bytes,
                cl_command_queue queue, const options& o = {}) {
  sort(detail::pairs_request<K, V>(keys, values, n, o), workspace, workspace_bytes, queue);
}
template <sortable_key K, class V>
  requires std::is_trivially_copyable_v<V>
void sort_pairs(cl_mem keys, cl_mem values, std::uint64_t n, cl_command_queue queue, const options& o = {}) {
  sort(detail::pairs_request<K, V>(keys, values, n, o), queue);
}

// ---- argsort (I = uint32_t, uint64_t, int32_t or int64_t) ----

template <sortable_key K, class I>
  requires radix::detail::index_type<I>
std::size_t argsort_workspace_bytes(cl_command_queue queue, std::uint64_t n, const options& o = {}) {
  return workspace_bytes(queue, detail::argsort_request<K, I>(nullptr, nullptr, n, o));
}
/// Writes to `indices` the stable permutation that sorts the n keys; `keys`
/// is not modified. 32-bit indices need n <= 2^32.
template <sortable_key K, class I>
  requires radix::detail::index_type<I>
void argsort(cl_mem keys, cl_mem indices, std::uint64_t n, cl_mem workspace, std::size_t workspace_bytes,
             cl_command_queue queue, const options& o = {}) {
  sort(detail::argsort_request<K, I>(keys, indices, n, o), workspace, workspace_bytes, queue);
}
template <sortable_key K, class I>
  requires radix::detail::index_type<I>
void argsort(cl_mem keys, cl_mem indices, std::uint64_t n, cl_command_queue queue, const options& o = {}) {
  sort(detail::argsort_request<K, I>(keys, indices, n, o), queue);
}

/// A reusable sorter on one in-order queue (ips4o's front door, Orochi's
/// object that owns its buffers): it keeps a workspace buffer in the queue's
/// context between calls, grown to the largest sort seen (the old one is
/// released, and OpenCL keeps it until the work queued on it is done), so a
/// call creates no buffers once the workspace is large enough. A sort whose
/// workspace would exceed one buffer (CL_DEVICE_MAX_MEM_ALLOC_SIZE) runs with
/// scratch buffers of its own instead. The queue is retained for the sorter's
/// life. Not for concurrent use from several threads.
class sorter {
 public:
  explicit sorter(cl_command_queue queue);
  ~sorter();
  sorter(const sorter&) = delete;
  sorter& operator=(const sorter&) = delete;
  sorter(sorter&& o) noexcept;
  sorter& operator=(sorter&& o) noexcept;

  /// The sort of `req` (as radix::opencl::sort), in the kept workspace.
  void sort(const sort_request& req);
  /// Grows the workspace to what `req` needs now (e.g. before timing).
  void reserve(const sort_request& req);
  /// Bytes of workspace held.
  std::size_t scratch_bytes() const { return bytes_; }

  template <sortable_key K>
  void sort_keys(cl_mem keys, std::uint64_t n, const options& o = {}) {
    sort(detail::request<K>(operation::keys, keys, n, o));
  }
  template <sortable_key K, class V>
    requires std::is_trivially_copyable_v<V>
  void sort_pairs(cl_mem keys, cl_mem values, std::uint64_t n, const options& o = {}) {
    sort(detail::pairs_request<K, V>(keys, values, n, o));
  }
  template <sortable_key K, class I>
    requires radix::detail::index_type<I>
  void argsort(cl_mem keys, cl_mem indices, std::uint64_t n, const options& o = {}) {
    sort(detail::argsort_request<K, I>(keys, indices, n, o));
  }

 private:
  /// False when the workspace would exceed one buffer (the sort then makes its own).
  bool fit(const sort_request& req);
  cl_command_queue queue_ = nullptr;
  cl_mem ws_ = nullptr;
  std::size_t bytes_ = 0;
};

}  // namespace radix::opencl
