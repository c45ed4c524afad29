// Tile loading: a warp reads its sub-tile of 32 x Items elements in
// warp-striped order (item i of lane l is element i*32 + l), the order the
// ranking needs for stability. striped(): 16-byte asynchronous copies
// (cp.async, global to shared without registers), then each lane reads its
// items from shared memory. Partial sub-tiles and unaligned sources fall back
// to scalar loads.

#pragma once
#include "../common/common.cuh"

namespace radix::cuda_detail {

template <class T, int Items>
struct warp_load {
  static constexpr int elems = 32 * Items;
  static constexpr bool vectorizable = (elems * sizeof(T)) % 16 == 0;
  static constexpr int vectors = vectorizable ? int(elems * sizeof(T) / 16) : 0;
  static constexpr int per_lane = (vectors + 31) / 32;

  /// src points at the warp's first element; `valid` elements exist from
  /// there. warp_smem: elems elements of scratch this warp alone uses. Lanes
  /// past `valid` get `fill`.
  __device__ __forceinline__ static void striped(const T* src, int valid, T (&out)[Items], T* warp_smem,
                                                 T fill) {
    const unsigned lane = lane_id();
    if constexpr (vectorizable) {
      if (valid >= elems && (reinterpret_cast<std::uintptr_t>(src) & 15u) == 0) {
        // 16-byte asynchronous copies global -> shared (no register staging)
        copy_async(src, warp_smem, lane);
        asm volatile("cp.async.wait_all;\n" ::: "memory");
        read_striped(out, warp_smem, lane);
        return;
      }
    }
    scalar(src, valid, out, fill, lane);
  }

  /// striped() for a source of half-width elements N that become high | N:
  /// the N are copied to the front of warp_smem (16-byte asynchronous copies
  /// where they can be), widened there in place, and read like striped()'s.
  /// Lanes past `valid` get `fill`.
  template <class N>
  __device__ __forceinline__ static void striped_widen(const N* src, int valid, T (&out)[Items], T* warp_smem,
                                                       T high, T fill) {
    static_assert(sizeof(N) * 2 == sizeof(T));
    const unsigned lane = lane_id();
    N* narrow = reinterpret_cast<N*>(warp_smem);
    if (valid >= elems && (reinterpret_cast<std::uintptr_t>(src) & 15u) == 0 && warp_load<N, Items>::vectorizable) {
      warp_load<N, Items>::copy_async(src, narrow, lane);
      asm volatile("cp.async.wait_all;\n" ::: "memory");
    } else {
#pragma unroll
      for (int i = 0; i < Items; ++i) {
        const int idx = i * 32 + int(lane);
        narrow[idx] = idx < valid ? ld_nc(src + idx) : N(0);
      }
    }
    // in place: every lane reads all its halves before any lane writes
    __syncwarp();
    N low[Items];
#pragma unroll
    for (int i = 0; i < Items; ++i) low[i] = narrow[i * 32 + lane];
    __syncwarp();
#pragma unroll
    for (int i = 0; i < Items; ++i) {
      const int idx = i * 32 + int(lane);
      warp_smem[idx] = idx < valid ? T(high | T(low[i])) : fill;
    }
    read_striped(out, warp_smem, lane);
  }

 private:
  template <class, int>
  friend struct warp_load;
  /// The fallback: one bounds-checked scalar load per item.
  __device__ __forceinline__ static void scalar(const T* src, int valid, T (&out)[Items], T fill, unsigned lane) {
#pragma unroll
    for (int i = 0; i < Items; ++i) {
      const int idx = i * 32 + int(lane);
      out[i] = idx < valid ? ld_nc(src + idx) : fill;
    }
  }

  /// Issues (does not wait for) the 16-byte copies of the warp's sub-tile.
  __device__ __forceinline__ static void copy_async(const T* src, T* warp_smem, unsigned lane) {
    const uint4* s = reinterpret_cast<const uint4*>(src);
    const unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(warp_smem));
#pragma unroll
    for (int k = 0; k < per_lane; ++k) {
      const int idx = k * 32 + int(lane);
      if (idx < vectors)
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(d + unsigned(idx) * 16u), "l"(s + idx)
                     : "memory");
    }
  }

  /// After this thread's copies completed: warp barrier, striped reads, warp barrier.
  __device__ __forceinline__ static void read_striped(T (&out)[Items], const T* warp_smem, unsigned lane) {
    __syncwarp();
#pragma unroll
    for (int i = 0; i < Items; ++i) out[i] = warp_smem[i * 32 + lane];
    __syncwarp();
  }
};

/// Value i of a pass's source: loaded, or, for argsort (vsrc null), generated:
/// the value is its index.
template <class V>
__device__ __forceinline__ V source_value(const V* vsrc, std::uint64_t i) {
  return vsrc ? ld_nc(vsrc + i) : index_value<V>(i);
}

/// A warp's values in the warp-striped order of its keys (item i of lane l is
/// tile position warp_base + i*32 + l, source element base + that); positions
/// at or past `valid` get V{}. The source and whether the warp's items are all
/// in range are decided once, not per item: a load cannot be speculated, so a
/// per-item test compiled to a branch around each load (a dozen instructions
/// an item where the load itself is one).
template <class V, int Items>
__device__ __forceinline__ void load_values_striped(const V* vsrc, std::uint64_t base, int warp_base, int valid,
                                                    V (&out)[Items]) {
  const int lane = int(lane_id());
  const std::uint64_t first = base + std::uint64_t(warp_base + lane);
  const bool full = warp_base + Items * 32 <= valid;  // the same in every lane
  if (vsrc == nullptr) {  // argsort: the value is its index
#pragma unroll
    for (int i = 0; i < Items; ++i)
      out[i] = full || warp_base + i * 32 + lane < valid ? index_value<V>(first + i * 32) : V{};
    return;
  }
  const V* src = vsrc + first;
  if (full) {
#pragma unroll
    for (int i = 0; i < Items; ++i) out[i] = ld_nc(src + i * 32);
  } else {
#pragma unroll
    for (int i = 0; i < Items; ++i) out[i] = warp_base + i * 32 + lane < valid ? ld_nc(src + i * 32) : V{};
  }
}

}  // namespace radix::cuda_detail
