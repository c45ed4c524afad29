// One plan per sort request: every decision that does not depend on the
// engine's algorithm, made once, in one place, before any data is touched.
// The host API (src/api) plans a request with the chosen engine's
// capabilities; the engine's workspace query and its run() both read the same
// plan, so they cannot disagree.
//
//   plan_sort(request, caps) -> sort_plan
//     key width, value route (none / native / via an index / indices out),
//     the resolved bit range and digit width, the workspace's named slices
//   with_types(plan, f)  -> f.template operator()<U, V>() for the plan's widths
//   workspace_layout     -> sizes a workspace and carves it, from one list
//
// Host-only (the device code gets typed jobs built from a plan).
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>

#include "radix/core/ordered_bits.hpp"
#include "radix/error.hpp"
#include "radix/sort.hpp"

namespace radix::core {

/// The payload type of a keys-only sort.
struct no_value {};

/// How values travel with the keys.
enum class value_route : std::uint8_t {
  none,       ///< keys only
  native,     ///< the values ride along in every pass (sizes the engine moves natively, aligned)
  via_index,  ///< other values: the keys carry a generated index, then one gather moves the values
  indices,    ///< argsort: the generated index is the output
};

/// What the `values` address of a request is, for judging the values'
/// alignment (values ride along natively only when aligned to their size).
enum class value_address : std::uint8_t {
  host,            ///< host memory, anywhere: judged from the pointer; a size query without it plans the index route
  device,          ///< device memory: judged from the pointer; a query without it assumes aligned, as allocations are
  buffer_handle,   ///< a buffer object (OpenCL cl_mem): always aligned, the "pointer" is a handle
};

/// What an engine does natively; the plan routes around the rest.
struct engine_caps {
  /// Bit b set: values of b bytes (b < 32) ride along in the passes.
  std::uint32_t native_value_sizes = (1u << 1) | (1u << 2) | (1u << 4) | (1u << 8);
  /// Whether run() carves its scratch from the caller's host workspace
  /// (false: the engine's scratch is device memory, the host workspace is 0).
  bool host_workspace = true;
  value_address values_at = value_address::host;
  /// Whether the engine sorts keys alone in place, with no key scratch in the
  /// workspace, where equal keys are equal bits (integers, or floats in total
  /// order; the whole key, the engine's own digits): asked for
  /// (memory_use::in_place), or automatically from keys_in_place_auto_bytes.
  /// The sort may then be unstable, which no caller can observe.
  bool keys_in_place = false;
  std::uint64_t keys_in_place_auto_bytes = 0;  ///< 0: only when asked for
};

/// A workspace cut into named slices, each aligned (in the spirit of CUB's
/// alias_temporaries: one description both sizes and carves). total() is
/// exactly what carve() needs, whatever the alignment of the base address;
/// a buffer object carved by offsets from its start (OpenCL) needs only
/// aligned_total().
class workspace_layout {
 public:
  /// The most any request carves: 20, the CUDA segmented sort of offsets
  /// with every route (its lists, the sweep route's tables, the alternates
  /// and an Onesweep workspace).
  static constexpr int max_slices = 24;

  /// `alignment`: a power of two. 64 (a cache line) keeps host threads off
  /// each other's slices; device memory uses 256, the allocation granule of
  /// cudaMalloc, so that every slice starts as a fresh allocation would.
  explicit workspace_layout(std::uint64_t alignment = 64) : alignment_(alignment) {}

  /// Adds a slice; returns its number for carve() and offset().
  int add(const char* name, std::uint64_t bytes) {
    if (count_ == max_slices) throw invalid_argument("radix: internal: too many workspace slices");
    slices_[count_] = {name, bytes, aligned_total()};
    return count_++;
  }
  int size() const { return count_; }
  const char* name(int i) const { return slices_[i].name; }
  std::uint64_t bytes(int i) const { return slices_[i].bytes; }
  std::uint64_t alignment() const { return alignment_; }
  /// Where slice i starts, from an aligned base.
  std::uint64_t offset(int i) const { return slices_[i].offset; }

  /// Bytes from an aligned base: every slice rounded up to the alignment.
  std::uint64_t aligned_total() const {
    return count_ ? slices_[count_ - 1].offset + round_up(slices_[count_ - 1].bytes) : 0;
  }
  /// Bytes from any base: aligned_total() plus the worst-case padding in
  /// front of the first slice (none without slices).
  std::uint64_t total() const { return count_ ? aligned_total() + alignment_ - 1 : 0; }

  /// The slices' start addresses inside `ws`, which must hold total() bytes
  /// whatever its alignment (so that a size asked once fits any base).
  std::array<std::byte*, max_slices> carve(std::span<std::byte> ws) const {
    if (ws.size() < total())
      throw out_of_memory("radix: workspace of " + std::to_string(ws.size()) + " bytes is too small; need " +
                          std::to_string(total()));
    const auto base = reinterpret_cast<std::uintptr_t>(ws.data());
    const std::uint64_t pad = (alignment_ - base % alignment_) % alignment_;
    std::array<std::byte*, max_slices> at{};
    for (int i = 0; i < count_; ++i) at[i] = ws.data() + pad + slices_[i].offset;
    return at;
  }

 private:
  std::uint64_t round_up(std::uint64_t b) const { return (b + alignment_ - 1) / alignment_ * alignment_; }
  struct slice {
    const char* name = nullptr;
    std::uint64_t bytes = 0;
    std::uint64_t offset = 0;
  };
  std::uint64_t alignment_;
  std::array<slice, max_slices> slices_{};
  int count_ = 0;
};

/// The named slices of a host workspace (indices into workspace_layout).
enum slice_id : int {
  key_scratch,      ///< n keys: the other buffer of every pass
  key_copy,         ///< n keys: argsort leaves the input keys alone, so two buffers of its own
  payload_scratch,  ///< n payloads (values or indices): the other buffer of every pass
  index_buffer,     ///< via_index: the generated permutation
  value_copy,       ///< via_index: the values' copy the gather reads from
  no_slice = -1,
};

struct sort_plan {
  operation op = operation::keys;
  std::uint64_t n = 0;
  key_desc key{};                ///< the caller's key (kind and width)
  order direction = order::ascending;
  float_order floats = float_order::numeric;
  int key_bytes = 0;             ///< width of the ordered key type: 1, 2, 4 or 8
  value_route route = value_route::none;
  int payload_bytes = 0;         ///< bytes of what moves with the keys (values or index); 0: nothing
  int index_bytes = 0;           ///< via_index and indices: width of the generated index
  std::size_t value_bytes = 0;   ///< pairs: the caller's value size
  int begin_bit = 0, end_bit = 0;  ///< resolved: end_bit is never -1
  int digit_bits = 0;            ///< as requested; 0: the engine's choice
  bool nothing_to_move = false;  ///< n < 2: no element changes place (an argsort of one key writes 0)
  bool keys_in_place = false;    ///< keys alone sorted in place (engine_caps::keys_in_place): no key scratch
  workspace_layout workspace;    ///< empty when the engine keeps no host scratch
  std::array<int, 5> slice{no_slice, no_slice, no_slice, no_slice, no_slice};  ///< slice_id -> layout index

  /// The ordered-bits codec of the plan's key, direction and float order.
  template <class U>
  ordered_codec<U> codec() const { return make_codec<U>(key, direction, floats); }
};

/// Index width for n elements: 32 bits while they suffice.
inline int index_bytes_for(std::uint64_t n) { return n <= 0xFFFFFFFFull ? 4 : 8; }

/// Plans a validated request whose key is at most 8 bytes (wider keys are
/// sorted as 64-bit chunks before an engine sees them). When `values` is
/// null (a size query before the buffers exist), pairs are planned for the
/// index route, whose workspace is the larger, so that the answer is enough
/// either way (unless the engine's caps say its callers' values are aligned).
inline sort_plan plan_sort(const sort_request& r, const engine_caps& caps) {
  sort_plan p;
  p.op = r.op;
  p.n = r.n;
  p.key = r.key;
  p.direction = r.opts.direction;
  p.floats = r.opts.floats;
  p.key_bytes = r.key.bytes;
  p.value_bytes = r.value_bytes;
  p.begin_bit = r.opts.begin_bit;
  p.end_bit = r.opts.end_bit < 0 ? r.key.bits() : r.opts.end_bit;
  p.digit_bits = r.opts.digit_bits;
  p.nothing_to_move = r.n < 2;
  switch (r.op) {
    case operation::keys: break;
    case operation::argsort:
      p.route = value_route::indices;
      p.index_bytes = p.payload_bytes = r.index_bytes;
      break;
    case operation::pairs: {
      const std::size_t v = r.value_bytes;
      // Values ride along when the engine moves their size and they are
      // aligned to it; a query without the pointer cannot know, and plans the
      // index route, which needs the larger workspace.
      const bool native_size = v < 32 && (caps.native_value_sizes >> v & 1u);
      const bool aligned = caps.values_at == value_address::buffer_handle ? true
                           : r.values ? reinterpret_cast<std::uintptr_t>(r.values) % v == 0
                                      : caps.values_at == value_address::device;
      if (native_size && aligned) {
        p.route = value_route::native;
        p.payload_bytes = int(v);
      } else {
        p.route = value_route::via_index;
        p.index_bytes = p.payload_bytes = index_bytes_for(r.n);
      }
      break;
    }
  }
  if (!caps.host_workspace || p.nothing_to_move) return p;
  const std::uint64_t n = r.n;
  // Equal keys are equal bits only where the ordered-bits transform folds
  // nothing (floats in numeric order fold -0.0 into +0.0 and NaNs together).
  const bool bijective = r.key.kind != key_kind::floating || p.floats == float_order::total;
  const std::uint64_t key_total = n * std::uint64_t(p.key_bytes);
  const bool wanted = r.opts.memory == memory_use::in_place ||
                      (caps.keys_in_place_auto_bytes > 0 && key_total >= caps.keys_in_place_auto_bytes);
  p.keys_in_place = caps.keys_in_place && wanted && r.op == operation::keys && !r.segs.segmented() &&
                    p.key_bytes >= 4 && p.digit_bits == 0 && p.begin_bit == 0 && p.end_bit == p.key_bytes * 8 &&
                    bijective;
  auto add = [&](slice_id id, const char* name, std::uint64_t bytes) { p.slice[id] = p.workspace.add(name, bytes); };
  if (!p.keys_in_place) add(key_scratch, "key scratch", n * std::uint64_t(p.key_bytes));
  if (p.route == value_route::indices) add(key_copy, "key copy", n * std::uint64_t(p.key_bytes));
  if (p.route != value_route::none) add(payload_scratch, "payload scratch", n * std::uint64_t(p.payload_bytes));
  if (p.route == value_route::via_index) {
    add(index_buffer, "index", n * std::uint64_t(p.index_bytes));
    add(value_copy, "value copy", n * std::uint64_t(p.value_bytes));
  }
  return p;
}

/// Calls f.template operator()<U, V>() with U the plan's ordered-key type
/// (uint8_t .. uint64_t) and V what moves with the keys: no_value, the
/// native value type (uint8_t .. uint64_t, or Value16 for an engine that
/// moves 16-byte values natively), or the index type.
template <class Value16 = no_value, class F>
decltype(auto) with_types(const sort_plan& p, F&& f) {
  const auto with_v = [&]<class U>() -> decltype(auto) {
    switch (p.route == value_route::none ? 0 : p.payload_bytes) {
      case 1: return f.template operator()<U, std::uint8_t>();
      case 2: return f.template operator()<U, std::uint16_t>();
      case 4: return f.template operator()<U, std::uint32_t>();
      case 8: return f.template operator()<U, std::uint64_t>();
      case 16:
        if constexpr (!std::is_same_v<Value16, no_value>) return f.template operator()<U, Value16>();
        [[fallthrough]];
      default: return f.template operator()<U, no_value>();
    }
  };
  switch (p.key_bytes) {
    case 1: return with_v.template operator()<std::uint8_t>();
    case 2: return with_v.template operator()<std::uint16_t>();
    case 4: return with_v.template operator()<std::uint32_t>();
    default: return with_v.template operator()<std::uint64_t>();
  }
}

}  // namespace radix::core
