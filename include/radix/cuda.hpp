// radix — sorting device memory with the CUDA engine (Onesweep with a
// circular look-back buffer, after the GPUOpen article extending Adinets &
// Merrill's Onesweep).
//
// For CUDA users only: this header includes the CUDA runtime's API header and
// the 16-bit float types. Host-only code uses radix/sort.hpp, whose calls run
// on the GPU too when one is present (engine::automatic or engine::cuda).
//
// WHERE THE RESULT LANDS: in the caller's buffers. sort_keys and sort_pairs
// sort `d_keys` (and `d_values`) in place, or keys from `d_keys_in` into
// `d_keys_out` (out of place, no copy); argsort leaves `d_keys` untouched
// and writes the permutation to `d_indices`. The workspace only holds scratch
// (the alternate key/value buffers and a few megabytes of control state); its
// contents after a sort mean nothing. The double-buffer forms (double_buffer,
// as CUB's DoubleBuffer) take the alternates from the caller instead, and may
// leave the result in either buffer: its `selector` then says which. That
// saves the workspace's n-element alternates and, where the passes end in the
// alternate buffer (an odd number of passes: 1-byte keys, digit widths that
// do not divide the key), the copy home.
//
// TWO WAYS TO CALL:
//  - With a workspace: ask *_workspace_bytes(n, options) once, allocate that
//    much device memory (16-byte aligned; cudaMalloc gives 256), pass it in.
//    Such a sort enqueues its work on `stream` and returns: it never
//    synchronizes the host and never allocates, so it can be captured in a
//    CUDA graph. A workspace may be reused by later sorts on the same stream
//    (not by two sorts running at once).
//  - Without: the call allocates its workspace stream-ordered
//    (cudaMallocFromPoolAsync / cudaFreeAsync on `stream`) and does not wait
//    either. The memory comes from a pool of the library's on the device,
//    which keeps what the sorts freed for the next ones (the device's
//    default pool hands it back at every synchronisation, and mapping it
//    anew costs milliseconds a gigabyte), up to RADIX_CUDA_SCRATCH_CACHE
//    bytes (K/M/G; default an eighth of the device's memory; 0: the default
//    pool, nothing kept). release_scratch_cache() gives it back.
//
// Semantics are the library's (README.md, "Semantics"): stable; floats by value with
// -0.0 == +0.0 and NaNs last (first when descending), or IEEE totalOrder with
// float_order::total; descending; bit ranges [begin_bit, end_bit) of the
// ordered key; 64-bit counts. digit_bits is honoured up to 8 (larger values
// mean 8). Errors are radix::error exceptions: invalid_argument (before
// anything is enqueued: the input is untouched), out_of_memory, device_error
// (naming the failed CUDA call). Device errors of earlier, unrelated work on
// the stream may surface here too, as with any CUDA call.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "radix/sort.hpp"

namespace radix::cuda {

/// Key description of a device key type: the host key types (byte_key<L> and
/// the 128-bit integers included: wide keys are sorted LSD over 64-bit
/// chunks), plus __half and __nv_bfloat16 (sorted as radix::float16 /
/// radix::bfloat16).
template <class K>
struct device_key {
  static constexpr key_desc desc = key_desc_of<K>();
};
template <>
struct device_key<__half> {
  static constexpr key_desc desc = key_desc_of<float16>();
};
template <>
struct device_key<__nv_bfloat16> {
  static constexpr key_desc desc = key_desc_of<bfloat16>();
};
template <class K>
concept device_sortable = requires { device_key<std::remove_cv_t<K>>::desc; };

/// The tuning the engine uses on the current device (policy structs), printable.
std::string engine_info();

// ---- type-erased entry points (pointers in the request are device pointers) ----

/// Device bytes of workspace `sort` needs for this request.
std::size_t workspace_bytes(const sort_request& req);
/// Sorts with a caller-provided device workspace; enqueues on `stream`, no
/// host synchronization, no allocation.
void sort(const sort_request& req, void* d_workspace, std::size_t workspace_bytes, cudaStream_t stream);
/// Sorts, allocating the workspace stream-ordered on `stream` (from the
/// library's pool: see TWO WAYS TO CALL above).
void sort(const sort_request& req, cudaStream_t stream);
/// Gives back the device memory the library's pools keep between sorts
/// called without a workspace (every device's, down to what is in use).
void release_scratch_cache();

/// The caller's second buffers of a double-buffered keys or pairs sort: room
/// for n keys (and n values), not overlapping the request's buffers.
struct alternates {
  void* keys = nullptr;
  void* values = nullptr;  ///< pairs only
};
/// Device bytes of workspace a double-buffered sort of `req` needs: the
/// control state only where Onesweep moves the request natively (keys, and
/// values of 1, 2, 4, 8 or 16 aligned bytes); else as workspace_bytes(req).
std::size_t workspace_bytes(const sort_request& req, const alternates& alt);
/// Sorts req's keys (and values; keys and pairs only) using `alt` as the
/// alternate buffers, whose contents it may overwrite. Returns where the
/// result is: 0 in req.keys / req.values, 1 in alt.keys / alt.values. Known
/// when the call returns (it depends on the passes planned, not on the data).
int sort(const sort_request& req, const alternates& alt, void* d_workspace, std::size_t workspace_bytes,
         cudaStream_t stream);

// ---- algorithms (from the source papers) and the automatic choice ----
//
// options.algo picks the algorithm: onesweep (the GPUOpen article on Onesweep
// with a circular look-back buffer; the default), reduce_then_scan (the
// course slides "CUDA LSD Radix Sort" and Helluy 2011, "A portable
// implementation of the radix sort algorithm in OpenCL": per-tile histograms,
// a scan over the digit-major tile x digit matrix, a local sort and scatter;
// digit_bits 1, 2, 4 or 8), four_way (Ha, Krüger & Silva 2009, "Fast 4-way
// parallel radix sorting on GPUs": 2-bit digits, or 3 bits for the 8-way
// variant, with an order check before each pass), split (García, Alvizo,
// Olivares & Ramos 2014, "Fast Data Parallel Radix Sort Implementation in
// DirectX 11 Compute Shader to Accelerate Ray Tracing Algorithms": 4-bit
// digits, local sort by four 1-bit splits). The seed
// algorithms need n x (key + value) bytes of workspace more than Onesweep
// and sort at most 2^32 - 1 elements (more throws invalid_argument).
// algorithm::automatic runs what `radix calibrate` measured fastest on this
// device for the nearest calibrated size (the tuning cache, see
// radix/calibrate.hpp), else Onesweep. RADIX_CUDA_ALGORITHM=<variant text>
// in the environment overrides the automatic choice (tests, experiments).

/// One configuration of a CUDA algorithm: what the calibration times and the
/// tuning cache records. Printable as text and parsed back by parse_variant:
/// "onesweep", "reduce_then_scan/8", "four_way/2", "four_way/2/t1/elementwise", "split/4".
struct variant {
  algorithm algo = algorithm::onesweep;  ///< never automatic
  int digit_bits = 0;                    ///< 0: the algorithm's default
  int tile = 0;                          ///< tile shape: 0 .. tile_shapes(algo) - 1
  bool coalesced = true;                 ///< four_way: cluster-wise mapping (Ha et al. 2009, §4.6); false: element-wise
  friend bool operator==(const variant&, const variant&) = default;
};
std::string to_string(const variant& v);
/// Parses to_string's text; false (v untouched) when it is not one.
bool parse_variant(const std::string& text, variant& v);
/// How many tile shapes the algorithm has (each a compiled instantiation).
int tile_shapes(algorithm a);
/// Every variant the calibration tries, for requests like `req` (its key
/// width and operation decide nothing yet: the same list for all).
std::vector<variant> candidates();
/// The variant a sort of `req` runs: options.algo (with options.digit_bits)
/// when not automatic, else RADIX_CUDA_ALGORITHM, else the tuning cache,
/// else Onesweep. Throws invalid_argument for a digit width the algorithm
/// does not have.
variant choose(const sort_request& req);
/// Workspace bytes and sort for an explicit variant (calibration, benchmarks).
std::size_t workspace_bytes(const sort_request& req, const variant& v);
void sort(const sort_request& req, const variant& v, void* d_workspace, std::size_t workspace_bytes,
          cudaStream_t stream);

namespace detail {
template <class K>
sort_request request(operation op, const K* keys, std::uint64_t n, const options& o) {
  sort_request r;
  r.op = op;
  r.key = device_key<std::remove_cv_t<K>>::desc;
  r.n = n;
  r.keys = const_cast<std::remove_cv_t<K>*>(keys);
  r.opts = o;
  return r;
}
template <class K, class V>
sort_request pairs_request(K* keys, V* values, std::uint64_t n, const options& o) {
  auto r = request(operation::pairs, keys, n, o);
  r.values = values;
  r.value_bytes = sizeof(V);
  return r;
}
template <class K, class I>
sort_request argsort_request(const K* keys, I* indices, std::uint64_t n, const options& o) {
  auto r = request(operation::argsort, keys, n, o);
  r.indices = indices;
  r.index_bytes = sizeof(I);
  return r;
}
}  // namespace detail

// ---- keys ----

template <device_sortable K>
std::size_t sort_keys_workspace_bytes(std::uint64_t n, const options& o = {}) {
  return ::radix::cuda::workspace_bytes(detail::request<K>(operation::keys, nullptr, n, o));
}
/// Sorts n keys at d_keys in place.
template <device_sortable K>
void sort_keys(K* d_keys, std::uint64_t n, void* d_workspace, std::size_t workspace_bytes, cudaStream_t stream = 0,
               const options& o = {}) {
  ::radix::cuda::sort(detail::request(operation::keys, d_keys, n, o), d_workspace, workspace_bytes, stream);
}
template <device_sortable K>
void sort_keys(K* d_keys, std::uint64_t n, cudaStream_t stream = 0, const options& o = {}) {
  ::radix::cuda::sort(detail::request(operation::keys, d_keys, n, o), stream);
}
/// Writes the n keys at d_keys_in, sorted, to d_keys_out (not overlapping
/// them), leaving d_keys_in as they are: the first pass reads the input and
/// the last writes the output, so it costs no copy. Its workspace is the
/// in-place sort's (sort_keys_workspace_bytes).
template <device_sortable K>
void sort_keys(const K* d_keys_in, K* d_keys_out, std::uint64_t n, void* d_workspace, std::size_t workspace_bytes,
               cudaStream_t stream = 0, const options& o = {}) {
  auto r = detail::request(operation::keys, d_keys_in, n, o);
  r.sorted_keys = d_keys_out;
  ::radix::cuda::sort(r, d_workspace, workspace_bytes, stream);
}

// ---- double buffers: the caller's alternates, the result in either buffer ----

/// Two device buffers of n elements each; `selector` names the one holding
/// the data (CUB's DoubleBuffer). A double-buffered sort sorts current(),
/// may overwrite both, and flips `selector` when the result ends in the other.
template <class T>
struct double_buffer {
  T* d_buffers[2] = {nullptr, nullptr};
  int selector = 0;
  double_buffer() = default;
  double_buffer(T* current, T* alternate) : d_buffers{current, alternate} {}
  T* current() const { return d_buffers[selector]; }
  T* alternate() const { return d_buffers[selector ^ 1]; }
};

template <device_sortable K>
std::size_t sort_keys_workspace_bytes(const double_buffer<K>& keys, std::uint64_t n, const options& o = {}) {
  return ::radix::cuda::workspace_bytes(detail::request<K>(operation::keys, nullptr, n, o),
                                        alternates{keys.alternate(), nullptr});
}
template <device_sortable K>
void sort_keys(double_buffer<K>& keys, std::uint64_t n, void* d_workspace, std::size_t workspace_bytes,
               cudaStream_t stream = 0, const options& o = {}) {
  keys.selector ^= ::radix::cuda::sort(detail::request(operation::keys, keys.current(), n, o),
                                       alternates{keys.alternate(), nullptr}, d_workspace, workspace_bytes, stream);
}
template <device_sortable K, class V>
  requires std::is_trivially_copyable_v<V>
std::size_t sort_pairs_workspace_bytes(const double_buffer<K>& keys, const double_buffer<V>& values, std::uint64_t n,
                                       const options& o = {}) {
  return ::radix::cuda::workspace_bytes(detail::pairs_request<K, V>(nullptr, nullptr, n, o),
                                        alternates{keys.alternate(), values.alternate()});
}
template <device_sortable K, class V>
  requires std::is_trivially_copyable_v<V>
void sort_pairs(double_buffer<K>& keys, double_buffer<V>& values, std::uint64_t n, void* d_workspace,
                std::size_t workspace_bytes, cudaStream_t stream = 0, const options& o = {}) {
  const int moved = ::radix::cuda::sort(detail::pairs_request(keys.current(), values.current(), n, o),
                                        alternates{keys.alternate(), values.alternate()}, d_workspace,
                                        workspace_bytes, stream);
  keys.selector ^= moved;
  values.selector ^= moved;
}

// ---- keys with values (any trivially copyable type; 1, 2, 4, 8 and 16 bytes ride along in
// the scatter, other sizes go through an argsort and a gather) ----

template <device_sortable K, class V>
  requires std::is_trivially_copyable_v<V>
std::size_t sort_pairs_workspace_bytes(std::uint64_t n, const options& o = {}) {
  return ::radix::cuda::workspace_bytes(detail::pairs_request<K, V>(nullptr, nullptr, n, o));
}
/// Sorts n keys at d_keys in place and moves the n values at d_values with them.
template <device_sortable K, class V>
  requires std::is_trivially_copyable_v<V>
void sort_pairs(K* d_keys, V* d_values, std::uint64_t n, void* d_workspace, std::size_t workspace_bytes,
                cudaStream_t stream = 0, const options& o = {}) {
  ::radix::cuda::sort(detail::pairs_request(d_keys, d_values, n, o), d_workspace, workspace_bytes, stream);
}
template <device_sortable K, class V>
  requires std::is_trivially_copyable_v<V>
void sort_pairs(K* d_keys, V* d_values, std::uint64_t n, cudaStream_t stream = 0, const options& o = {}) {
  ::radix::cuda::sort(detail::pairs_request(d_keys, d_values, n, o), stream);
}

// ---- argsort (indices generated inside the sort) ----

template <device_sortable K, class I>
  requires radix::detail::index_type<I>
std::size_t argsort_workspace_bytes(std::uint64_t n, const options& o = {}) {
  return ::radix::cuda::workspace_bytes(detail::argsort_request<K, I>(nullptr, nullptr, n, o));
}
/// Writes to d_indices the stable permutation that sorts the n keys at
/// d_keys; d_keys is not modified. 32-bit indices need n <= 2^32.
template <device_sortable K, class I>
  requires radix::detail::index_type<I>
void argsort(const K* d_keys, I* d_indices, std::uint64_t n, void* d_workspace, std::size_t workspace_bytes,
             cudaStream_t stream = 0, const options& o = {}) {
  ::radix::cuda::sort(detail::argsort_request(d_keys, d_indices, n, o), d_workspace, workspace_bytes, stream);
}
template <device_sortable K, class I>
  requires radix::detail::index_type<I>
void argsort(const K* d_keys, I* d_indices, std::uint64_t n, cudaStream_t stream = 0, const options& o = {}) {
  ::radix::cuda::sort(detail::argsort_request(d_keys, d_indices, n, o), stream);
}

// ---- segments: a batch of arrays in one buffer, each sorted on its own ----
//
// `segs` is segments::uniform(count, length) (rows of a matrix) or
// segments::from_offsets(d_offsets, count) with count + 1 offsets in DEVICE
// memory (non-decreasing, from 0 to n; they are not checked on the device).
// Segments up to 8192 elements are sorted in registers or shared memory,
// longer ones by Onesweep one after another. Uniform segments and offsets
// with n <= 8192 enqueue everything and return; offsets with a larger n read
// the bounds of the long segments back (one stream synchronisation) and are
// refused under graph capture. Values of 1, 2, 4 or 8 bytes; argsort
// indices are local to the segment. Other value sizes: radix::sort_segments
// on host data.

template <device_sortable K>
std::size_t sort_segments_workspace_bytes(std::uint64_t n, const segments& segs, const options& o = {}) {
  auto r = detail::request<K>(operation::keys, nullptr, n, o);
  r.segs = segs;
  return ::radix::cuda::workspace_bytes(r);
}
template <device_sortable K>
void sort_segments(K* d_keys, std::uint64_t n, const segments& segs, void* d_workspace, std::size_t workspace_bytes,
                   cudaStream_t stream = 0, const options& o = {}) {
  auto r = detail::request(operation::keys, d_keys, n, o);
  r.segs = segs;
  ::radix::cuda::sort(r, d_workspace, workspace_bytes, stream);
}
template <device_sortable K, class V>
  requires std::is_trivially_copyable_v<V>
std::size_t sort_segments_workspace_bytes(std::uint64_t n, const segments& segs, const options& o = {}) {
  auto r = detail::pairs_request<K, V>(nullptr, nullptr, n, o);
  r.segs = segs;
  return ::radix::cuda::workspace_bytes(r);
}
template <device_sortable K, class V>
  requires std::is_trivially_copyable_v<V>
void sort_segments(K* d_keys, V* d_values, std::uint64_t n, const segments& segs, void* d_workspace,
                   std::size_t workspace_bytes, cudaStream_t stream = 0, const options& o = {}) {
  auto r = detail::pairs_request(d_keys, d_values, n, o);
  r.segs = segs;
  ::radix::cuda::sort(r, d_workspace, workspace_bytes, stream);
}
template <device_sortable K, class I>
  requires radix::detail::index_type<I>
std::size_t argsort_segments_workspace_bytes(std::uint64_t n, const segments& segs, const options& o = {}) {
  auto r = detail::argsort_request<K, I>(nullptr, nullptr, n, o);
  r.segs = segs;
  return ::radix::cuda::workspace_bytes(r);
}
template <device_sortable K, class I>
  requires radix::detail::index_type<I>
void argsort_segments(const K* d_keys, I* d_indices, std::uint64_t n, const segments& segs, void* d_workspace,
                      std::size_t workspace_bytes, cudaStream_t stream = 0, const options& o = {}) {
  auto r = detail::argsort_request(d_keys, d_indices, n, o);
  r.segs = segs;
  ::radix::cuda::sort(r, d_workspace, workspace_bytes, stream);
}

// ---- records (Ha et al. 2009, §4.7): fixed-size records of any byte size sorted by a key inside them ----
//
// A key + index sort (the key extracted from the records: any key type of
// radix::record_key, including byte strings and 128-bit integers, at any
// offset and alignment) followed by a gather tuned to the record size
// (16-, 8-, 4-, 2- or 1-byte words by alignment, warps writing whole
// output runs). Stable.
//
// WHERE THE RESULT LANDS: in d_out. d_out == d_in sorts in place (the
// workspace then also holds one copy of the records: ask for it with
// placement::in_place); otherwise d_in is not modified and the two ranges
// must not overlap.

enum class placement : std::uint8_t { out_of_place, in_place };

std::size_t sort_records_workspace_bytes(std::size_t record_bytes, std::uint64_t n, const record_key& key,
                                         const options& o = {}, placement p = placement::out_of_place);
void sort_records(const void* d_in, void* d_out, std::size_t record_bytes, std::uint64_t n, const record_key& key,
                  void* d_workspace, std::size_t workspace_bytes, cudaStream_t stream = 0, const options& o = {});
/// In place, allocating the workspace stream-ordered.
void sort_records(void* d_records, std::size_t record_bytes, std::uint64_t n, const record_key& key,
                  cudaStream_t stream = 0, const options& o = {});

/// d_out[i] = d_in[d_perm[i]] for n elements of `bytes` bytes (the gather of
/// the record sort; d_perm holds 4- or 8-byte indices). d_out must not
/// overlap d_in.
void gather(const void* d_in, void* d_out, std::size_t bytes, const void* d_perm, int index_bytes, std::uint64_t n,
            cudaStream_t stream = 0);

// ---- structure of arrays: one sort permutes several columns ----

/// A column of n elements of `bytes` bytes, read from `in`, written to `out`
/// in key order; out == in permutes it in place.
struct column {
  const void* in = nullptr;
  void* out = nullptr;
  std::size_t bytes = 0;
};

/// Type-erased: `keys` is a request with op == operation::keys on device
/// memory (sorted in place); every column is permuted the same way.
std::size_t sort_columns_workspace_bytes(const sort_request& keys, const column* columns, std::size_t count);
void sort_columns(const sort_request& keys, const column* columns, std::size_t count, void* d_workspace,
                  std::size_t workspace_bytes, cudaStream_t stream = 0);

template <device_sortable K>
std::size_t sort_columns_workspace_bytes(std::uint64_t n, const column* columns, std::size_t count,
                                         const options& o = {}) {
  return ::radix::cuda::sort_columns_workspace_bytes(detail::request<K>(operation::keys, nullptr, n, o), columns,
                                                     count);
}
/// Sorts n keys at d_keys in place and permutes each column with them. Stable.
template <device_sortable K>
void sort_columns(K* d_keys, std::uint64_t n, const column* columns, std::size_t count, void* d_workspace,
                  std::size_t workspace_bytes, cudaStream_t stream = 0, const options& o = {}) {
  ::radix::cuda::sort_columns(detail::request(operation::keys, d_keys, n, o), columns, count, d_workspace,
                              workspace_bytes, stream);
}

}  // namespace radix::cuda
