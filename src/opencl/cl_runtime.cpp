// The OpenCL engine's runtime side: error checking, device discovery and
// choice, the per-device tuning policy (Helluy 2011, "A portable
// implementation of the radix sort algorithm in OpenCL", §3.2.1 and Table 3:
// G, I and r chosen from the device's properties), and the program cache.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <ostream>
#include <sstream>
#include <string_view>
#include <tuple>

#include "cl_internal.hpp"
#include "radix/core/environment.hpp"
#include "radix/error.hpp"

namespace radix::opencl::detail {

extern const char* const kernel_source;  // generated from kernels/radix_sort.cl + chunked_sort.cl

const char* error_name(cl_int e) {
  switch (e) {
#define RX_CASE(x) \
  case x: return #x;
    RX_CASE(CL_SUCCESS)
    RX_CASE(CL_DEVICE_NOT_FOUND)
    RX_CASE(CL_DEVICE_NOT_AVAILABLE)
    RX_CASE(CL_COMPILER_NOT_AVAILABLE)
    RX_CASE(CL_MEM_OBJECT_ALLOCATION_FAILURE)
    RX_CASE(CL_OUT_OF_RESOURCES)
    RX_CASE(CL_OUT_OF_HOST_MEMORY)
    RX_CASE(CL_PROFILING_INFO_NOT_AVAILABLE)
    RX_CASE(CL_MEM_COPY_OVERLAP)
    RX_CASE(CL_BUILD_PROGRAM_FAILURE)
    RX_CASE(CL_MISALIGNED_SUB_BUFFER_OFFSET)
    RX_CASE(CL_INVALID_VALUE)
    RX_CASE(CL_INVALID_DEVICE_TYPE)
    RX_CASE(CL_INVALID_PLATFORM)
    RX_CASE(CL_INVALID_DEVICE)
    RX_CASE(CL_INVALID_CONTEXT)
    RX_CASE(CL_INVALID_QUEUE_PROPERTIES)
    RX_CASE(CL_INVALID_COMMAND_QUEUE)
    RX_CASE(CL_INVALID_HOST_PTR)
    RX_CASE(CL_INVALID_MEM_OBJECT)
    RX_CASE(CL_INVALID_BUFFER_SIZE)
    RX_CASE(CL_INVALID_BINARY)
    RX_CASE(CL_INVALID_BUILD_OPTIONS)
    RX_CASE(CL_INVALID_PROGRAM)
    RX_CASE(CL_INVALID_PROGRAM_EXECUTABLE)
    RX_CASE(CL_INVALID_KERNEL_NAME)
    RX_CASE(CL_INVALID_KERNEL)
    RX_CASE(CL_INVALID_ARG_INDEX)
    RX_CASE(CL_INVALID_ARG_VALUE)
    RX_CASE(CL_INVALID_ARG_SIZE)
    RX_CASE(CL_INVALID_KERNEL_ARGS)
    RX_CASE(CL_INVALID_WORK_DIMENSION)
    RX_CASE(CL_INVALID_WORK_GROUP_SIZE)
    RX_CASE(CL_INVALID_WORK_ITEM_SIZE)
    RX_CASE(CL_INVALID_GLOBAL_OFFSET)
    RX_CASE(CL_INVALID_EVENT_WAIT_LIST)
    RX_CASE(CL_INVALID_EVENT)
    RX_CASE(CL_INVALID_OPERATION)
    RX_CASE(CL_INVALID_GLOBAL_WORK_SIZE)
#undef RX_CASE
    case -1001: return "CL_PLATFORM_NOT_FOUND_KHR";
    default: return "unknown OpenCL error";
  }
}

void check(cl_int err, const char* call) {
  if (err == CL_SUCCESS) return;
  std::string msg = std::string("radix: OpenCL call ") + call + " failed: " + error_name(err) + " (" +
                    std::to_string(err) + ")";
  if (err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_HOST_MEMORY) throw out_of_memory(msg);
  throw device_error(msg);
}

namespace {

std::string info_string(cl_device_id d, cl_device_info what) {
  std::size_t n = 0;
  check(clGetDeviceInfo(d, what, 0, nullptr, &n), "clGetDeviceInfo");
  std::string s(n, '\0');
  check(clGetDeviceInfo(d, what, n, s.data(), nullptr), "clGetDeviceInfo");
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}
std::string platform_string(cl_platform_id p, cl_platform_info what) {
  std::size_t n = 0;
  check(clGetPlatformInfo(p, what, 0, nullptr, &n), "clGetPlatformInfo");
  std::string s(n, '\0');
  check(clGetPlatformInfo(p, what, n, s.data(), nullptr), "clGetPlatformInfo");
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}
template <class T>
T info_of(cl_device_id d, cl_device_info what) {
  T v{};
  check(clGetDeviceInfo(d, what, sizeof(T), &v, nullptr), "clGetDeviceInfo");
  return v;
}

std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

unsigned pow2_floor(std::size_t v) {
  unsigned p = 1;
  while (std::size_t(p) * 2 <= v && p < (1u << 30)) p *= 2;
  return p;
}

/// RADIX_OPENCL_POLICY="groups=64,items=32,digit_bits=8,transpose=1,scan_parts=64,scan_items=64,tile=16,
/// local_sort=2,ls_items=32,ls_keys=128,cs_items=256,cs_keys=16,cs_groups=4,cs_count_groups=32,cs_scan_blocks=128,cs_at_local=1".
void apply_env(policy& p) {
  core::env::for_each_setting(core::env::get("RADIX_OPENCL_POLICY"), [&](std::string_view key, unsigned long long v) {
    if (key == "groups" && v > 0) p.groups = unsigned(v);
    else if (key == "items" && v > 0) p.items = unsigned(v);
    else if (key == "digit_bits" && v >= 1 && v <= 16) p.digit_bits = int(v);
    else if (key == "transpose") p.transpose = v != 0;
    else if (key == "scan_parts" && v > 0) p.scan_parts = unsigned(v);
    else if (key == "scan_items" && v > 0) p.scan_items = pow2_floor(std::size_t(v));
    else if (key == "tile" && v > 0) p.tile = unsigned(v);
    else if (key == "local_sort") p.local_sort = unsigned(std::min(v, 2ull));
    else if (key == "cs_items" && v > 0) p.cs_items = unsigned(v);
    else if (key == "cs_keys" && v > 0) p.cs_keys = unsigned(v);
    else if (key == "cs_groups" && v > 0) p.cs_groups = unsigned(v);
    else if (key == "cs_count_groups" && v > 0) p.cs_count_groups = unsigned(v);
    else if (key == "cs_scan_blocks" && v > 0) p.cs_scan_blocks = unsigned(v);
    else if (key == "cs_at_local") p.cs_at_local = v != 0;
    else if (key == "ls_items" && v > 0) p.ls_items = unsigned(v);
    else if (key == "ls_keys" && v > 0) p.ls_keys = unsigned(v);
  });
}

}  // namespace

std::ostream& operator<<(std::ostream& os, const policy& p) {
  return os << "opencl.helluy{groups=" << p.groups << ", items=" << p.items << ", digit_bits=" << p.digit_bits
            << ", transpose=" << (p.transpose ? 1 : 0) << ", scan_parts=" << p.scan_parts
            << ", scan_items=" << p.scan_items << ", tile=" << p.tile << ", local_sort=" << p.local_sort
            << ", ls_items=" << p.ls_items << ", ls_keys=" << p.ls_keys << ", cs_items=" << p.cs_items
            << ", cs_keys=" << p.cs_keys << ", cs_groups=" << p.cs_groups
            << ", cs_count_groups=" << p.cs_count_groups << ", cs_scan_blocks=" << p.cs_scan_blocks
            << ", cs_at_local=" << p.cs_at_local << "}";
}

device_info query_device(cl_device_id d) {
  device_info i;
  i.device = d;
  i.platform = info_of<cl_platform_id>(d, CL_DEVICE_PLATFORM);
  i.platform_name = platform_string(i.platform, CL_PLATFORM_NAME);
  i.device_name = info_string(d, CL_DEVICE_NAME);
  i.version = info_string(d, CL_DEVICE_VERSION);
  i.type = info_of<cl_device_type>(d, CL_DEVICE_TYPE);
  i.local_mem = info_of<cl_ulong>(d, CL_DEVICE_LOCAL_MEM_SIZE);
  i.global_mem = info_of<cl_ulong>(d, CL_DEVICE_GLOBAL_MEM_SIZE);
  i.max_alloc = info_of<cl_ulong>(d, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
  i.max_wg = info_of<std::size_t>(d, CL_DEVICE_MAX_WORK_GROUP_SIZE);
  i.compute_units = info_of<cl_uint>(d, CL_DEVICE_MAX_COMPUTE_UNITS);
  i.base_align = std::max<std::size_t>(info_of<cl_uint>(d, CL_DEVICE_MEM_BASE_ADDR_ALIGN) / 8, 128);
  return i;
}

policy policy_for(const device_info& d) {
  policy p;
  const unsigned cu = std::max(1u, d.compute_units);
  if (d.type & CL_DEVICE_TYPE_GPU) {
    // A GPU: many items per group for coalesced reads of transposed rows, as
    // many 8-bit-digit counters per item as local memory allows (Helluy's
    // GTX 470 row of Table 3, scaled to the device), several groups per unit.
    p.items = 32;
    p.digit_bits = 8;
    p.groups = cu * 8;
    p.transpose = true;
    p.scan_items = 128;
    // Tiles sorted in local memory and written as digit runs (Helluy's
    // reorder scatters each item's keys alone, which a GPU cannot coalesce).
    // H100, NVIDIA OpenCL, 2^26 u32, 2026-11-22 (bench/results/opencl-h100-2026-11-22-b.md):
    // 24.3 ms with Helluy's reorder, 6.4 ms local-sorted with 64 x 32-key
    // tiles, 5.5 ms with 32 items x 128 keys and 1024 scan parts (the best of
    // the sweep). The geometry shrinks the tile (then the digit) where local
    // memory is short; local_sort=0 in RADIX_OPENCL_POLICY restores Helluy's.
    // local_sort=2 (the default since the second run of 2026-11-22): each
    // group walks a contiguous chunk of 256 x 8-key tiles, so the count matrix
    // is 2^r x G and the tile's ranking runs in registers (cl_sort.cpp); the
    // chunk counts (cs_groups, 128 a unit) and the rest of its tuning are the
    // policy struct's defaults. H100, 2^26 u32: 3.34 ms of device time, 0.44x
    // CUB (bench/results/opencl-h100-2026-11-23-b.md; 4.2-4.4 ms before).
    p.scan_parts = 1024;
    p.local_sort = 2;
    p.ls_items = 32;
    p.ls_keys = 128;
  } else {
    // A CPU (PoCL): one item per group, each a plain sequential LSD pass over
    // its contiguous row; a few groups per core for balance, no transpose
    // (Helluy's Phenom rows of Table 3).
    // Eight rows per core: measured on PoCL (2-core EPYC, 2^24 u32), 2 rows
    // per core took 1.8x longer, the write streams of few long rows
    // colliding in the caches.
    p.items = 1;
    p.digit_bits = 8;
    p.groups = cu * 8;
    p.transpose = false;
    p.scan_parts = cu * 2;
    p.scan_items = 1;
  }
  apply_env(p);
  // Keep the launches legal on this device.
  p.items = unsigned(std::min<std::size_t>(p.items, d.max_wg));
  p.ls_items = unsigned(std::min<std::size_t>(p.ls_items, d.max_wg));
  // The chunked scan rakes segments of 16 items: a power of two from 16 up.
  p.cs_items = std::max(16u, pow2_floor(std::min<std::size_t>(p.cs_items, d.max_wg)));
  if (p.local_sort == 2 && d.max_wg < 16) p.local_sort = 1;
  p.scan_items = pow2_floor(std::min<std::size_t>(p.scan_items, d.max_wg));
  while (std::size_t(p.tile) * p.tile > d.max_wg && p.tile > 1) p.tile /= 2;
  return p;
}

std::vector<device_info> all_devices() {
  std::vector<device_info> out;
  cl_uint np = 0;
  if (clGetPlatformIDs(0, nullptr, &np) != CL_SUCCESS || np == 0) return out;
  std::vector<cl_platform_id> ps(np);
  if (clGetPlatformIDs(np, ps.data(), nullptr) != CL_SUCCESS) return out;
  for (cl_platform_id p : ps) {
    cl_uint nd = 0;
    if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &nd) != CL_SUCCESS || nd == 0) continue;
    std::vector<cl_device_id> ds(nd);
    if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, nd, ds.data(), nullptr) != CL_SUCCESS) continue;
    for (cl_device_id d : ds) {
      try {
        device_info i = query_device(d);
        // The kernels are OpenCL C 1.2 with 64-bit integers; every device of
        // OpenCL 1.2 or later has them (CL_DEVICE_AVAILABLE checked too).
        if (info_of<cl_bool>(d, CL_DEVICE_AVAILABLE)) out.push_back(std::move(i));
      } catch (const error&) {
      }
    }
  }
  return out;
}

namespace {

/// RADIX_OPENCL_DEVICE: an index into all_devices(), or a substring of
/// "platform / device"; unset: the first GPU, else the first CPU, else the first device.
int choose(const std::vector<device_info>& ds) {
  if (ds.empty()) return -1;
  if (const char* env = core::env::get("RADIX_OPENCL_DEVICE"); env && *env) {
    const std::string want(env);
    if (std::all_of(want.begin(), want.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
      const unsigned long i = std::strtoul(env, nullptr, 10);
      return i < ds.size() ? int(i) : -1;
    }
    for (std::size_t i = 0; i < ds.size(); ++i)
      if (lower(ds[i].platform_name + " / " + ds[i].device_name).find(lower(want)) != std::string::npos) return int(i);
    return -1;
  }
  for (std::size_t i = 0; i < ds.size(); ++i)
    if (ds[i].type & CL_DEVICE_TYPE_GPU) return int(i);
  for (std::size_t i = 0; i < ds.size(); ++i)
    if (ds[i].type & CL_DEVICE_TYPE_CPU) return int(i);
  return 0;
}

host_device* make_default() {
  const auto ds = all_devices();
  const int at = choose(ds);
  if (at < 0) return nullptr;
  auto* h = new host_device;
  h->info = ds[std::size_t(at)];
  cl_int err = CL_SUCCESS;
  const cl_context_properties props[] = {CL_CONTEXT_PLATFORM,
                                         reinterpret_cast<cl_context_properties>(h->info.platform), 0};
  h->context = clCreateContext(props, 1, &h->info.device, nullptr, nullptr, &err);
  if (err != CL_SUCCESS) {
    delete h;
    return nullptr;
  }
  // Profiling on: the host API's queue is ours, and it lets the benchmark
  // split the time into phases at no measurable cost.
  h->queue = clCreateCommandQueue(h->context, h->info.device, CL_QUEUE_PROFILING_ENABLE, &err);
  if (err != CL_SUCCESS) {
    clReleaseContext(h->context);
    delete h;
    return nullptr;
  }
  return h;  // lives until the process ends (drivers dislike release at exit)
}

}  // namespace

host_device* default_device() {
  static host_device* h = make_default();
  return h;
}

// ---- programs -----------------------------------------------------------------------

std::string build_options(const policy& pol, const program_key& k) {
  std::ostringstream s;
  s << "-cl-std=CL1.2 -DRX_KEY_BYTES=" << k.key_bytes << " -DRX_VAL_BYTES=" << k.val_bytes
    << " -DRX_WIDE=" << (k.wide ? 1 : 0) << " -DRX_ITEMS=" << pol.items << " -DRX_SCAN_WG=" << pol.scan_items
    << " -DRX_TILE=" << pol.tile << " -DRX_LS_ITEMS=" << pol.ls_items << " -DRX_CS_ITEMS=" << pol.cs_items
    << " -DRX_CS_KEYS=" << std::max(1, k.cs_keys) << " -DRX_CS_AT_LOCAL=" << (pol.cs_at_local ? 1 : 0);
  return s.str();
}

namespace {
std::mutex g_prog_mutex;
std::map<std::tuple<cl_context, cl_device_id, std::string>, cl_program> g_programs;
std::size_t g_built = 0;
}  // namespace

std::size_t programs_built() {
  std::lock_guard<std::mutex> lock(g_prog_mutex);
  return g_built;
}

cl_program get_program(cl_context ctx, cl_device_id dev, const policy& pol, const program_key& k) {
  // RADIX_OPENCL_BUILD_OPTIONS adds compiler options (tuning aid, e.g.
  // -cl-nv-verbose on NVIDIA); with RADIX_OPENCL_BUILD_LOG=1 every build log
  // (the register and local-memory use of each kernel) goes to stderr.
  const char* extra = core::env::get("RADIX_OPENCL_BUILD_OPTIONS");
  const std::string opts = build_options(pol, k) + (extra && *extra ? std::string(" ") + extra : "");
  std::lock_guard<std::mutex> lock(g_prog_mutex);
  auto key = std::make_tuple(ctx, dev, opts);
  if (auto it = g_programs.find(key); it != g_programs.end()) return it->second;
  cl_int err = CL_SUCCESS;
  const char* src = kernel_source;
  cl_program p = clCreateProgramWithSource(ctx, 1, &src, nullptr, &err);
  check(err, "clCreateProgramWithSource");
  err = clBuildProgram(p, 1, &dev, opts.c_str(), nullptr, nullptr);
  if (err != CL_SUCCESS) {
    std::size_t n = 0;
    clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n);
    std::string log(n, '\0');
    clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr);
    clReleaseProgram(p);
    throw device_error(std::string("radix: OpenCL call clBuildProgram failed: ") + error_name(err) + " with options '" +
                       opts + "'; build log:\n" + log);
  }
  if (core::env::flag("RADIX_OPENCL_BUILD_LOG")) {
    std::size_t n = 0;
    clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n);
    std::string log(n, '\0');
    clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr);
    std::fprintf(stderr, "radix opencl: built with '%s':\n%s\n", opts.c_str(), log.c_str());
  }
  ++g_built;
  // Kept for the life of the process: contexts are rarely many, and a
  // program is what makes the second sort cheap.
  clRetainContext(ctx);
  g_programs.emplace(key, p);
  return p;
}

kernel::kernel(cl_program p, const char* name) {
  cl_int err = CL_SUCCESS;
  k = clCreateKernel(p, name, &err);
  check(err, "clCreateKernel");
}
kernel::~kernel() {
  if (k) clReleaseKernel(k);
}

queue_facts facts_of(cl_command_queue q) {
  static std::mutex m;
  static std::map<std::pair<cl_context, cl_device_id>, queue_facts> cache;
  queue_facts f;
  check(clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof(f.context), &f.context, nullptr),
        "clGetCommandQueueInfo(CL_QUEUE_CONTEXT)");
  check(clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof(f.device), &f.device, nullptr),
        "clGetCommandQueueInfo(CL_QUEUE_DEVICE)");
  cl_command_queue_properties props = 0;
  check(clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES, sizeof(props), &props, nullptr),
        "clGetCommandQueueInfo(CL_QUEUE_PROPERTIES)");
  if (props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)
    throw invalid_argument("radix: the OpenCL engine needs an in-order command queue");
  std::lock_guard<std::mutex> lock(m);
  auto key = std::make_pair(f.context, f.device);
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  f.info = query_device(f.device);
  f.pol = policy_for(f.info);
  cache.emplace(key, f);
  return f;
}

}  // namespace radix::opencl::detail
