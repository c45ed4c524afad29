// Block-wide exclusive prefix sum of one value per thread (warp shuffles,
// then a scan of the warp totals). Every thread of the block must call it.
#pragma once
#include "../common/common.cuh"

namespace radix::cuda_detail {

template <int Threads, class T>
struct block_scan {
  static constexpr int warps = Threads / 32;
  struct storage {
    T warp_total[warps];
  };

  /// Returns the exclusive prefix of v; *total (optional) gets the block sum.
  __device__ __forceinline__ static T exclusive(T v, storage& s, T* total = nullptr) {
    const unsigned lane = lane_id(), warp = threadIdx.x / 32;
    T inc = v;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
      const T y = __shfl_up_sync(0xFFFFFFFFu, inc, o);
      if (int(lane) >= o) inc += y;
    }
    if (lane == 31) s.warp_total[warp] = inc;
    __syncthreads();
    T before = 0, sum = 0;
#pragma unroll
    for (int w = 0; w < warps; ++w) {
      const T t = s.warp_total[w];
      if (w < int(warp)) before += t;
      sum += t;
    }
    if (total) *total = sum;
    __syncthreads();  // warp_total may be reused by the caller
    return before + inc - v;
  }
};

}  // namespace radix::cuda_detail
