// Types and small device and host helpers shared by every CUDA algorithm of
// the engine (Onesweep and the multipass algorithms alike):
// error checking that names the call, lane masks, relaxed device-scope loads
// and stores for inter-block communication.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <type_traits>
#include <utility>

#include "radix/core/sort_plan.hpp"
#include "radix/error.hpp"

namespace radix::cuda_detail {

/// Value type of a keys-only sort (the plan's, so that core::with_types
/// hands the kernels their own types).
using no_value = core::no_value;

/// Alignment of every device workspace slice: cudaMalloc's granule, so that a
/// slice starts as a fresh allocation would.
constexpr std::uint64_t device_alignment = 256;

/// What a sort moves: keys, keys and values, or keys and generated indices.
enum class sort_mode : int { keys = 0, pairs = 1, argsort = 2 };

/// Largest digit the kernels handle: 8 bits, 256 buckets.
constexpr int max_radix_bits = 8;
constexpr int radix_size = 1 << max_radix_bits;

[[noreturn]] inline void throw_cuda(cudaError_t e, const char* call, const char* file, int line) {
  throw device_error(std::string("radix: CUDA call ") + call + " failed: " + cudaGetErrorName(e) + " (" +
                     cudaGetErrorString(e) + ") at " + file + ":" + std::to_string(line));
}

}  // namespace radix::cuda_detail

/// Checks a CUDA runtime call; throws radix::device_error naming it.
#define RADIX_CUDA_CHECK(call)                                                        \
  do {                                                                                \
    const cudaError_t radix_e_ = (call);                                              \
    if (radix_e_ != cudaSuccess) ::radix::cuda_detail::throw_cuda(radix_e_, #call, __FILE__, __LINE__); \
  } while (0)

/// Checks the launch just made (name is the kernel's).
#define RADIX_CUDA_CHECK_LAUNCH(name)                                                 \
  do {                                                                                \
    const cudaError_t radix_e_ = cudaGetLastError();                                  \
    if (radix_e_ != cudaSuccess) ::radix::cuda_detail::throw_cuda(radix_e_, "launch of " name, __FILE__, __LINE__); \
  } while (0)

namespace radix::cuda_detail {

/// Programmatic Dependent Launch (sm_90 and later; a no-op before): a kernel
/// launched with launch_dependent() may be scheduled while the stream's
/// previous kernel finishes, so the gap between passes shrinks to nothing.
/// pdl_wait() blocks until that kernel has completed and its writes are
/// visible: every such kernel calls it before it touches global memory.
/// pdl_release() lets the next one be scheduled (its blocks take SM slots
/// only as this kernel's blocks exit, and wait there).
__device__ __forceinline__ void pdl_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}
__device__ __forceinline__ void pdl_release() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

/// What the current device offers the kernels, read once per device: the
/// same tile tables run on every architecture (policy.hpp), and a kernel
/// whose shared memory a device cannot hold is not launched there.
struct device_limits {
  std::size_t shared_optin = 0;  ///< dynamic shared memory one block may opt in to (bytes)
  int major = 0;                 ///< compute capability
  bool pdl() const { return major >= 9; }  ///< Programmatic Dependent Launch needs sm_90
};
const device_limits& current_device_limits();  // device_sort.cu

/// A stream-ordered memory pool on device `dev` that keeps up to `keep` bytes
/// of freed memory mapped across synchronisations (the device's default pool
/// keeps none, and the next allocation maps it anew).
inline cudaMemPool_t make_keeping_pool(int dev, std::uint64_t keep) {
  cudaMemPoolProps props{};
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = dev;
  cudaMemPool_t pool = nullptr;
  RADIX_CUDA_CHECK(cudaMemPoolCreate(&pool, &props));
  RADIX_CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
  return pool;
}

/// Bytes a memory pool holds mapped but not handed out: free for its next
/// allocations, though cudaMemGetInfo counts them as used (0 without a pool).
inline std::size_t pool_idle_bytes(cudaMemPool_t pool) {
  if (!pool) return 0;
  std::uint64_t reserved = 0, used = 0;
  RADIX_CUDA_CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved));
  RADIX_CUDA_CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used));
  return reserved > used ? std::size_t(reserved - used) : 0;
}

/// A value computed once per device and kept: a kernel's shared-memory limit
/// (cudaFuncSetAttribute) and its occupancy belong to the device current when
/// they were set or asked, so a process that sorts on several GPUs needs each
/// device's own. compute() runs with that device current, under a lock.
template <class T>
class per_device {
 public:
  template <class F>
  const T& get(F&& compute) {
    int dev = 0;
    RADIX_CUDA_CHECK(cudaGetDevice(&dev));
    std::lock_guard<std::mutex> lock(m_);
    auto it = values_.find(dev);
    if (it == values_.end()) it = values_.emplace(dev, compute()).first;  // std::map: references stay valid
    return it->second;
  }

 private:
  std::mutex m_;
  std::map<int, T> values_;
};

/// Launches kernel<<<grid, block, smem, s>>>(args...), with Programmatic
/// Dependent Launch when `pdl` (the kernel must begin with pdl_wait(); the
/// caller asks device_limits::pdl() once per sort).
template <class... Params, class... Args>
void launch_dependent(bool pdl, void (*kernel)(Params...), unsigned grid, unsigned block, std::size_t smem,
                      cudaStream_t s, Args&&... args) {
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(grid);
  cfg.blockDim = dim3(block);
  cfg.dynamicSmemBytes = smem;
  cfg.stream = s;
  cudaLaunchAttribute attr[1]{};
  attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr[0].val.programmaticStreamSerializationAllowed = 1;
  cfg.attrs = attr;
  cfg.numAttrs = pdl ? 1 : 0;
  RADIX_CUDA_CHECK(cudaLaunchKernelEx(&cfg, kernel, std::forward<Args>(args)...));
}

__device__ __forceinline__ unsigned lane_id() { return threadIdx.x & 31u; }
__device__ __forceinline__ unsigned lanemask_lt() {
  unsigned m;
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(m));
  return m;
}

/// Device-scope relaxed accesses (the look-back ring, tickets, flags).
__device__ __forceinline__ unsigned long long ld_relaxed(const unsigned long long* p) {
  unsigned long long v;
  asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ unsigned ld_relaxed(const unsigned* p) {
  unsigned v;
  asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void st_relaxed(unsigned long long* p, unsigned long long v) {
  asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
__device__ __forceinline__ unsigned ld_acquire(const unsigned* p) {
  unsigned v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

/// The smallest `lo` and the largest `hi` of the warp, in every lane: one
/// redux instruction each for 32-bit words (sm_80 and later, as the engine
/// requires), five rounds of shuffles for 64-bit ones.
template <class U>
__device__ __forceinline__ void warp_span(U& lo, U& hi) {
  if constexpr (sizeof(U) == 4) {
    lo = U(__reduce_min_sync(0xFFFFFFFFu, unsigned(lo)));
    hi = U(__reduce_max_sync(0xFFFFFFFFu, unsigned(hi)));
  } else {
#pragma unroll
    for (int o = 16; o > 0; o /= 2) {
      const U l = U(__shfl_xor_sync(0xFFFFFFFFu, (unsigned long long)lo, o));
      const U h = U(__shfl_xor_sync(0xFFFFFFFFu, (unsigned long long)hi, o));
      lo = l < lo ? l : lo;
      hi = h > hi ? h : hi;
    }
  }
}

/// 16-byte payload type (values of 16 bytes travel as one of these).
struct alignas(16) v128 {
  std::uint32_t w[4];
};

template <class T>
__device__ __forceinline__ T ld_nc(const T* p) {
  return __ldg(p);
}
template <>
__device__ __forceinline__ v128 ld_nc<v128>(const v128* p) {
  const uint4 x = __ldg(reinterpret_cast<const uint4*>(p));
  return v128{{x.x, x.y, x.z, x.w}};
}

/// The index `i` as a value of type V (argsort); V is then an unsigned integer.
template <class V>
__device__ __forceinline__ V index_value(std::uint64_t i) {
  if constexpr (std::is_integral_v<V>) return static_cast<V>(i);
  else return V{};
}

}  // namespace radix::cuda_detail
