// Blocked tile access for the seed algorithms whose local sort scans over
// threads (four_way, split): thread t holds the tile's elements
// t * Items .. t * Items + Items - 1, so "earlier thread, then earlier item"
// is input order and the sort stays stable. Loads are 16-byte vectors where
// the tile is full and aligned (a warp then reads whole cache lines across
// its Items / vector instructions), scalar otherwise.
#pragma once
#include <cstdint>

#include "common.cuh"

namespace radix::cuda_detail {

template <class T, int Items>
__device__ __forceinline__ void load_blocked(const T* tile_src, int valid, T (&out)[Items]) {
  const int first = int(threadIdx.x) * Items;
  const T* src = tile_src + first;
  constexpr bool vec = (Items * sizeof(T)) % 16 == 0;
  if constexpr (vec) {
    if (first + Items <= valid && (reinterpret_cast<std::uintptr_t>(src) & 15u) == 0) {
      const uint4* v = reinterpret_cast<const uint4*>(src);
#pragma unroll
      for (int k = 0; k < int(Items * sizeof(T) / 16); ++k) {
        const uint4 x = __ldg(v + k);
        constexpr int per = int(16 / sizeof(T));
        T part[per];
        memcpy(part, &x, 16);  // register moves once unrolled
#pragma unroll
        for (int q = 0; q < per; ++q) out[k * per + q] = part[q];
      }
      return;
    }
  }
#pragma unroll
  for (int i = 0; i < Items; ++i) out[i] = first + i < valid ? ld_nc(src + i) : T{};
}

/// Shared-memory slot of tile element j, padded so that threads reading their
/// Items consecutive elements (stride Items) fall on distinct banks.
template <class T>
__device__ __forceinline__ int smem_slot(int j) {
  return j + j / (sizeof(T) >= 8 ? 16 : 32);
}
template <class T>
constexpr int smem_slots(int tile) {
  return tile + tile / (sizeof(T) >= 8 ? 16 : 32) + 1;
}

}  // namespace radix::cuda_detail
