// Internals of the OpenCL engine shared by its translation units and by
// tests/opencl: error checking, device discovery, the tuning policy, the
// program cache, and the phases of one sort.
#pragma once
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "radix/core/sort_plan.hpp"
#include "radix/opencl.hpp"

namespace radix::opencl::detail {

/// Name of an OpenCL error code ("CL_OUT_OF_RESOURCES").
const char* error_name(cl_int err);
/// Throws radix::device_error naming `call` (radix::out_of_memory for the
/// allocation failures) when err != CL_SUCCESS.
void check(cl_int err, const char* call);

/// Tuning of one device (Helluy's Table 3 parameters), printable.
struct policy {
  unsigned groups = 4;      ///< G: work-groups of the histogram and reorder kernels
  unsigned items = 1;       ///< I: work-items per group; each owns one row of the keys
  int digit_bits = 8;       ///< r: digit width when options::digit_bits is 0
  bool transpose = false;   ///< transpose the keys first so that items read neighbouring slots
  unsigned scan_parts = 16; ///< s: parts of the histogram scanned separately
  unsigned scan_items = 64; ///< work-items per group of the scan kernels
  unsigned tile = 16;       ///< side of the transpose tile
  /// The GPU path: tiles of ls_items x ls_keys contiguous keys, each sorted
  /// stably in local memory and written out as coalesced digit runs (instead
  /// of Helluy's per-item scatter). Default on for GPUs, off for CPUs.
  /// 0: Helluy's reorder; 1: one tile per group (rx_ls_*); 2: each group
  /// walks a contiguous chunk of tiles (rx_cs_*), the GPU default.
  unsigned local_sort = 0;
  unsigned ls_items = 64;   ///< work-items per group of the local-sort kernels
  unsigned ls_keys = 32;    ///< keys per item at most (fewer when local memory is short)
  unsigned cs_items = 256;  ///< work-items per group of the chunked kernels
  unsigned cs_keys = 8;     ///< keys per item of a chunked tile at most (fewer when local memory is short)
  /// Chunked groups (chunks) per compute unit. H100, 2^26 u32: 32 -> 128
  /// took the reorder from 3.27 to 2.86 ms (bench/results/opencl-h100-2026-11-23-b.md).
  unsigned cs_groups = 128;
  /// Groups per compute unit of the chunked count kernel, each counting
  /// chunks g, g + groups, ... (16, 32 or 64: the same time on the H100).
  unsigned cs_count_groups = 32;
  /// Blocks of chunks in the chunked scan (rx_cs_block_sums / _starts): each
  /// block's group reads all blocks' sums, so a few hundred at most.
  unsigned cs_scan_blocks = 128;
  /// Chunked reorder: each item's 16 sub-digit starts go to local memory,
  /// lane-major, and a key reads its own with one load (1), or picks it out of
  /// a uint8 with a chain of selects (0). H100, 2^26 u32: reorder 3.55 -> 3.27 ms.
  unsigned cs_at_local = 1;
};
std::ostream& operator<<(std::ostream& os, const policy& p);

/// What the engine knows about one device.
struct device_info {
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  std::string platform_name, device_name, version;
  cl_device_type type = 0;
  std::uint64_t local_mem = 0, global_mem = 0, max_alloc = 0;
  std::size_t max_wg = 1;
  unsigned compute_units = 1;
  std::size_t base_align = 128;  ///< bytes; sub-buffer origins are multiples of it
};
device_info query_device(cl_device_id d);
/// The default policy for a device, then RADIX_OPENCL_POLICY applied.
policy policy_for(const device_info& d);

/// Every device of every platform, in platform order (the list the
/// RADIX_OPENCL_DEVICE index refers to).
std::vector<device_info> all_devices();

/// The host API's device: a context and an in-order queue of its own.
struct host_device {
  device_info info;
  cl_context context = nullptr;
  cl_command_queue queue = nullptr;
};
/// nullptr when there is no OpenCL platform or device (or the one named by
/// RADIX_OPENCL_DEVICE does not exist).
host_device* default_device();

/// One compiled program (for one key width and value width) and its kernels'
/// names. Programs are cached per (context, device, build options).
struct program_key {
  int key_bytes = 4, val_bytes = 0;
  bool wide = false;  ///< 64-bit positions
  int cs_keys = 1;    ///< keys per item of the chunked path's tile (a register array)
};
cl_program get_program(cl_context ctx, cl_device_id dev, const policy& pol, const program_key& k);
/// Build options of that program (for the tests and engine_info).
std::string build_options(const policy& pol, const program_key& k);
/// How many programs have been built (not found in the cache) so far.
std::size_t programs_built();

/// A kernel object that releases itself.
struct kernel {
  cl_kernel k = nullptr;
  kernel(cl_program p, const char* name);
  kernel(const kernel&) = delete;
  kernel& operator=(const kernel&) = delete;
  ~kernel();
  template <class T>
  void arg(cl_uint i, const T& v) {
    check(clSetKernelArg(k, i, sizeof(T), &v), "clSetKernelArg");
  }
  void local(cl_uint i, std::size_t bytes) { check(clSetKernelArg(k, i, bytes, nullptr), "clSetKernelArg(local)"); }
};

/// Per-queue facts the sort needs: context, device, its info and policy.
struct queue_facts {
  cl_context context = nullptr;
  cl_device_id device = nullptr;
  device_info info;
  policy pol;
};
queue_facts facts_of(cl_command_queue q);

/// The codec masks of core::make_codec for a key, as 64-bit kernel arguments.
struct codec_args {
  std::uint64_t pos_xor = 0, neg_xor = 0, flip = 0, nan_above = 0;
  int canon = 0;
};
codec_args codec_for(key_desc key, order dir, float_order floats);

/// Positions past this need 64-bit counters in the kernels.
constexpr std::uint64_t four_g = 0x100000000ull;
inline std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }

/// What the reorder carries natively (values of 1, 2, 4 and 8 bytes; others
/// through an index), for core::plan_sort. Buffers are handles: the plan
/// does not judge their alignment.
inline core::engine_caps device_caps() {
  core::engine_caps c;
  c.host_workspace = false;
  c.values_at = core::value_address::buffer_handle;
  return c;
}

/// Geometry of one sort (cl_geometry.cpp): rows (items), row length, padded slots.
struct geometry {
  std::uint64_t items = 1;   ///< T = G * I
  std::uint64_t chunk = 0;   ///< slots per item
  std::uint64_t slots = 0;   ///< T * chunk (>= n): size of the scratch arrays
  bool wide = false;         ///< slots >= 2^32: 64-bit positions
  int digit_bits = 8;        ///< effective r (after the local-memory cap)
  // Local-sort path: `items` is the number of tiles, `chunk` the tile size
  // (ls_items x per_item keys), `slots` = n.
  bool local_sort = false;
  unsigned per_item = 0;     ///< keys per work-item of a tile
  // Chunked path: `items` is the number of groups, `chunk` the keys of each
  // group (a multiple of the tile, cs_items x per_item), `slots` = n.
  bool chunked = false;
};
geometry geometry_for(const queue_facts& f, const core::sort_plan& plan);

/// Internal entry: sorts with `ws` (a workspace buffer, or null: allocate),
/// recording phase times when `profile` is given.
void sort_impl(const sort_request& req, cl_command_queue q, cl_mem ws, std::size_t ws_bytes, phase_times* profile);
/// The same with the facts (and so the policy) given: tests run both paths.
void sort_with(const queue_facts& f, const sort_request& req, cl_command_queue q, cl_mem ws, std::size_t ws_bytes,
               phase_times* profile);
/// Bytes of local memory the chunked reorder declares (rx_cs_reorder).
/// at_local: policy::cs_at_local (16 ushorts more an item).
std::uint64_t chunked_local_bytes(unsigned items, unsigned per_item, std::size_t key_bytes, std::size_t val_bytes,
                                  bool wide, bool at_local = false);
/// Bytes of local memory the local-sort reorder needs.
std::uint64_t local_sort_bytes(int digit_bits, unsigned items, unsigned per_item, std::size_t key_bytes,
                               std::size_t val_bytes, bool wide);
std::size_t workspace_impl(const queue_facts& f, const sort_request& req);

}  // namespace radix::opencl::detail
