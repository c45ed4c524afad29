// radix — the host API: sort keys, pairs, argsort and records held in host
// memory, on the engine the options choose (CPU by default when no GPU).
//
// Every function is a thin template over one type-erased call, radix::run(),
// so that engines instantiate per key width, not per user type.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "radix/error.hpp"
#include "radix/key_traits.hpp"
#include "radix/options.hpp"

namespace radix {

enum class operation : std::uint8_t {
  keys,     ///< sort `keys` in place
  pairs,    ///< sort `keys` in place and move `values` with them
  argsort,  ///< leave `keys` alone; write the stable sorting permutation to `indices`
};

/// How the n elements of a request are cut into independent arrays.
enum class segment_layout : std::uint8_t {
  none,     ///< one array: a plain sort of all n elements
  offsets,  ///< segment s is [offsets[s], offsets[s + 1]); count + 1 offsets, from 0 up to n
  uniform,  ///< count segments of `length` elements each, back to back (rows of a matrix)
};

/// A batch of arrays in one buffer, each sorted on its own (a segmented
/// sort). Offsets are 32- or 64-bit, non-decreasing, start at 0 and end at n;
/// empty segments are allowed. The offsets live where the data do (host
/// memory for the host API, device memory for radix::cuda).
struct segments {
  segment_layout layout = segment_layout::none;
  std::uint64_t count = 0;         ///< number of segments
  const void* offsets = nullptr;   ///< layout offsets: count + 1 entries
  std::uint8_t offset_bytes = 0;   ///< layout offsets: 4 or 8
  std::uint64_t length = 0;        ///< layout uniform: elements per segment

  bool segmented() const { return layout != segment_layout::none; }
  static segments uniform(std::uint64_t count, std::uint64_t length) {
    return {segment_layout::uniform, count, nullptr, 0, length};
  }
  /// `offsets` holds count + 1 entries (of 4 or 8 bytes, given as std::uint32_t / std::uint64_t).
  template <class O>
    requires(std::is_same_v<O, std::uint32_t> || std::is_same_v<O, std::uint64_t> ||
             std::is_same_v<O, std::int32_t> || std::is_same_v<O, std::int64_t>)
  static segments from_offsets(const O* offsets, std::uint64_t count) {
    return {segment_layout::offsets, count, offsets, std::uint8_t(sizeof(O)), 0};
  }
};

/// One sort, with the types erased. Engines implement exactly this.
struct sort_request {
  operation op = operation::keys;
  key_desc key{};
  std::uint64_t n = 0;
  void* keys = nullptr;            ///< n keys (read-only for argsort)
  void* values = nullptr;          ///< pairs: n values of value_bytes each
  std::size_t value_bytes = 0;
  void* indices = nullptr;         ///< argsort: n indices of index_bytes (4 or 8) each
  std::uint8_t index_bytes = 0;
  /// Optional, n keys' room apart from `keys` (not overlapping them):
  /// - argsort: where the keys are written in sorted order too (what
  ///   torch.sort returns with its indices);
  /// - keys: where the sorted keys go, `keys` being only read (a sort out of
  ///   place, as CUB's d_keys_in / d_keys_out; equal to `keys`: in place).
  /// The CUDA engine's device API writes them in its last pass (Onesweep;
  /// its other algorithms gather them after the argsort, or sort a copy);
  /// the host API gathers them after the argsort, or sorts a copy.
  /// Pairs sort in place only.
  void* sorted_keys = nullptr;
  options opts{};
  /// Segmented: every segment sorted on its own; argsort indices are then
  /// positions inside the element's segment.
  segments segs{};
};

/// Runs a request on the engine `req.opts.use` names (automatic: the best
/// available). With an empty workspace the engine allocates its own scratch;
/// otherwise the workspace must be at least workspace_bytes(req) long and the
/// engine allocates nothing.
void run(const sort_request& req, std::span<std::byte> workspace = {});

/// Scratch bytes run() needs for `req` on the engine it would use: exactly
/// what run(req, workspace) requires (0 when n < 2). On the CPU engine:
/// n x (key + value bytes) for keys and pairs, n x (2 key + index bytes) for
/// argsort, plus up to 63 bytes for alignment and 63 per buffer; pairs whose
/// values are not 1, 2, 4 or 8 bytes (or not aligned to their size) go
/// through an index: n x (key + 2 index + value bytes). A query whose
/// `values` is null (asked before the buffers exist) answers for the index
/// route, which is enough either way. Besides this, the CPU engine's threads
/// each use a few MiB of cache-sized buffers of their own.
std::size_t workspace_bytes(const sort_request& req);

/// Frees the scratch memory kept between calls. radix::sort and friends
/// reuse their scratch through a process-wide cache, bounded by
/// RADIX_SCRATCH_CACHE (bytes, K/M/G; default an eighth of physical memory,
/// at most 4 GiB; 0: off), whose buffers are freed after two seconds unused.
/// Also gives back the device memory the CUDA engine keeps between sorts
/// (radix::cuda::release_scratch_cache, RADIX_CUDA_SCRATCH_CACHE).
void release_scratch_cache();

/// The engine `automatic` resolves to on this machine.
engine default_engine();
/// Whether an engine is compiled in and has a device to run on.
bool engine_available(engine e);

namespace detail {
/// Scratch memory as the library likes it: 2 MiB aligned, transparent huge
/// pages requested, not zero-filled, taken from and given back to the
/// process-wide scratch cache (release_scratch_cache). Throws
/// radix::out_of_memory.
class scratch {
 public:
  scratch() = default;
  explicit scratch(std::size_t bytes);
  scratch(scratch&& o) noexcept : p_(o.p_), n_(o.n_), capacity_(o.capacity_) {
    o.p_ = nullptr;
    o.n_ = o.capacity_ = 0;
  }
  scratch& operator=(scratch&& o) noexcept {
    std::swap(p_, o.p_);
    std::swap(n_, o.n_);
    std::swap(capacity_, o.capacity_);
    return *this;
  }
  ~scratch();
  std::byte* data() const { return p_; }
  std::size_t size() const { return n_; }
  std::span<std::byte> span() const { return {p_, n_}; }

 private:
  std::byte* p_ = nullptr;
  std::size_t n_ = 0;
  std::size_t capacity_ = 0;  ///< bytes allocated (size() rounded up, or a cached buffer's)
};

/// Permutes fixed-size records in place: out[i] = in[perm[i]] (parallel, via
/// one scratch copy of the records, taken from `copy` when given, which must
/// hold n x record_bytes, else allocated). perm holds n indices of
/// index_bytes each.
void permute(void* records, std::size_t record_bytes, std::uint64_t n, const void* perm,
             std::uint8_t index_bytes, unsigned threads, std::byte* copy = nullptr);

template <class K>
sort_request make_request(operation op, std::span<K> keys, const options& o) {
  sort_request r;
  r.op = op;
  r.key = key_desc_of<K>();
  r.n = keys.size();
  r.keys = const_cast<std::remove_cv_t<K>*>(keys.data());
  r.opts = o;
  return r;
}

template <class I>
constexpr bool index_type = std::is_same_v<I, std::uint32_t> || std::is_same_v<I, std::uint64_t> ||
                            std::is_same_v<I, std::int32_t> || std::is_same_v<I, std::int64_t>;

inline void check_same_size(std::size_t a, std::size_t b, const char* what) {
  if (a != b)
    throw invalid_argument(std::string(what) + " has " + std::to_string(b) + " elements but keys has " +
                           std::to_string(a));
}
}  // namespace detail

/// Sorts keys in place, stably.
template <sortable_key K>
void sort(std::span<K> keys, const options& o = {}) {
  run(detail::make_request(operation::keys, keys, o));
}

/// Writes `keys` sorted, stably, to `sorted` (of the same size; the two must
/// not overlap) and leaves `keys` as they are. On the CUDA engine's device
/// API this reads the keys once and costs no copy; the host engines sort a
/// copy in place.
template <sortable_key K>
void sort(std::span<const K> keys, std::span<K> sorted, const options& o = {}) {
  detail::check_same_size(keys.size(), sorted.size(), "sorted");
  auto r = detail::make_request(operation::keys, keys, o);
  r.sorted_keys = sorted.data();
  run(r);
}

/// Sorts keys in place and applies the same permutation to values (any
/// trivially copyable type). Stable.
template <sortable_key K, class V>
  requires std::is_trivially_copyable_v<V>
void sort_pairs(std::span<K> keys, std::span<V> values, const options& o = {}) {
  detail::check_same_size(keys.size(), values.size(), "values");
  auto r = detail::make_request(operation::pairs, keys, o);
  r.values = values.data();
  r.value_bytes = sizeof(V);
  run(r);
}

/// Writes to `indices` the permutation that sorts `keys` stably:
/// keys[indices[0]] <= keys[indices[1]] <= ... . keys is not modified.
/// Indices are 32- or 64-bit; 32-bit indices need keys.size() <= 2^32.
template <sortable_key K, class I>
  requires detail::index_type<I>
void argsort(std::span<const K> keys, std::span<I> indices, const options& o = {}) {
  detail::check_same_size(keys.size(), indices.size(), "indices");
  auto r = detail::make_request(operation::argsort, keys, o);
  r.indices = indices.data();
  r.index_bytes = sizeof(I);
  run(r);
}

/// Sorts every segment of `keys` on its own, stably (a batch of arrays in
/// one buffer: rows of a matrix with segments::uniform, or variable-length
/// runs given by offsets).
template <sortable_key K>
void sort_segments(std::span<K> keys, const segments& segs, const options& o = {}) {
  auto r = detail::make_request(operation::keys, keys, o);
  r.segs = segs;
  run(r);
}

/// Sorts every segment of `keys` on its own and moves `values` with them.
template <sortable_key K, class V>
  requires std::is_trivially_copyable_v<V>
void sort_segments(std::span<K> keys, std::span<V> values, const segments& segs, const options& o = {}) {
  detail::check_same_size(keys.size(), values.size(), "values");
  auto r = detail::make_request(operation::pairs, keys, o);
  r.values = values.data();
  r.value_bytes = sizeof(V);
  r.segs = segs;
  run(r);
}

/// The stable sorting permutation of every segment: indices[i] is the
/// position, inside its segment, of the element that goes to place i.
/// 32-bit indices need segments of at most 2^32 elements.
template <sortable_key K, class I>
  requires detail::index_type<I>
void argsort_segments(std::span<const K> keys, std::span<I> indices, const segments& segs, const options& o = {}) {
  detail::check_same_size(keys.size(), indices.size(), "indices");
  auto r = detail::make_request(operation::argsort, keys, o);
  r.indices = indices.data();
  r.index_bytes = sizeof(I);
  r.segs = segs;
  run(r);
}

/// Where the key of a fixed-size record is.
struct record_key {
  std::size_t offset = 0;  ///< byte offset of the key inside the record
  key_desc type{};         ///< the key's type, e.g. key_desc_of<float>(), key_desc_of<radix::int128>(), or byte_key_desc(10)
  bool big_endian = false; ///< numeric key stored most significant byte first (byte strings always are)
};

/// Sorts `count` records of `record_bytes` bytes each, stored back to back
/// at `data`, by the key `key` describes. Stable. Done as key + index sort
/// followed by a gather (Ha, Krüger & Silva 2009, "Fast 4-way parallel radix
/// sorting on GPUs", §4.7). Scratch: count x (record + key +
/// index bytes) plus the argsort's.
void sort_records(void* data, std::size_t record_bytes, std::uint64_t count, const record_key& key,
                  const options& o = {});

/// Sorts records (any trivially copyable type) by key_of(record), which must
/// return a sortable key type. Stable.
template <class R, class F>
  requires std::is_trivially_copyable_v<R> && sortable_key<std::invoke_result_t<F&, const R&>>
void sort_records(std::span<R> records, F key_of, const options& o = {}) {
  using K = std::remove_cvref_t<std::invoke_result_t<F&, const R&>>;
  const std::size_t n = records.size();
  std::vector<K> keys(n);
  for (std::size_t i = 0; i < n; ++i) keys[i] = key_of(records[i]);
  if (n <= 0xFFFFFFFFull) {
    std::vector<std::uint32_t> perm(n);
    argsort(std::span<const K>(keys), std::span<std::uint32_t>(perm), o);
    detail::permute(records.data(), sizeof(R), n, perm.data(), 4, o.threads);
  } else {
    std::vector<std::uint64_t> perm(n);
    argsort(std::span<const K>(keys), std::span<std::uint64_t>(perm), o);
    detail::permute(records.data(), sizeof(R), n, perm.data(), 8, o.threads);
  }
}

}  // namespace radix
