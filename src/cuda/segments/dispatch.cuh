// Host side of the segmented sort: workspace, routes, launches. Included by
// the per-key-width instantiation files (segments_k*.cu) only.
#pragma once
#include <algorithm>
#include <cmath>
#include <mutex>
#include <string>
#include <vector>

#include "../onesweep/onesweep.hpp"  // declarations only: its kernels live in onesweep_k*.cu
#include "kernels.cuh"
#include "segments.hpp"

namespace radix::cuda_detail {

/// The segmented sort's workspace: the bins (offsets only), and Onesweep's
/// workspace for the longest segment that can reach it.
struct segmented_workspace {
  core::workspace_layout layout{device_alignment};
  int counts = -1, small = -1, large = -1, longer = -1, onesweep = -1;
  std::uint64_t onesweep_n = 0;  ///< elements the Onesweep slice is sized for
};

template <class U, class V>
segmented_workspace segmented_layout(sort_mode mode, std::uint64_t n, const segments& segs, const onesweep_tuning& t) {
  segmented_workspace w;
  const bool uniform = segs.layout == segment_layout::uniform;
  if (!uniform) {
    const std::uint64_t count = segs.count;
    w.counts = w.layout.add("bin counts", 4 * sizeof(unsigned));
    w.small = w.layout.add("small segments", std::min(count, n / (segment_tiers::tiny + 1)) * 4);
    w.large = w.layout.add("large segments", std::min(count, n / (segment_tiers::small_tile + 1)) * 4);
    w.longer = w.layout.add("long segments", std::min(count, n / (segment_tiers::large_tile + 1)) * sizeof(segment_range));
  }
  const std::uint64_t longest = uniform ? segs.length : n;
  if (longest > segment_tiers::large_tile) {
    w.onesweep_n = longest;
    w.onesweep = w.layout.add("onesweep", onesweep_workspace_bytes<U, V>(mode, longest, t));
  }
  return w;
}

template <class U, class V>
std::size_t segmented_workspace_bytes(sort_mode mode, std::uint64_t n, const segments& segs, const onesweep_tuning& t) {
  if constexpr (!onesweep_compiled<U, V>()) return 0;
  else return segmented_layout<U, V>(mode, n, segs, t).layout.total();
}

/// Raises the block route's shared-memory limit (once per kernel) and
/// returns how many of its blocks fill the GPU.
template <class U, class V, int Threads, int Items>
unsigned block_route_grid() {
  using agent = single_tile_agent<U, V, Threads, Items>;
  static std::once_flag once;
  static cudaError_t status = cudaSuccess;
  static unsigned grid = 0;
  std::call_once(once, [] {
    auto kernel = block_segments_kernel<U, V, Threads, Items>;
    status = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(agent::smem_bytes));
    int per_sm = 0, dev = 0, sms = 0;
    if (status == cudaSuccess)
      status = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, Threads, agent::smem_bytes);
    if (status == cudaSuccess) status = cudaGetDevice(&dev);
    if (status == cudaSuccess) status = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    grid = unsigned(std::max(1, per_sm) * std::max(1, sms));
  });
  if (status != cudaSuccess) throw_cuda(status, "cudaFuncSetAttribute / occupancy of block_segments_kernel", __FILE__, __LINE__);
  return grid;
}

template <class U, class V, int Threads, int Items>
void launch_block_route(const onesweep_params<U, V>& p, const pass_list& passes, const segment_reader& r,
                        const std::uint32_t* list, const unsigned* list_count, std::uint64_t most, cudaStream_t s) {
  using agent = single_tile_agent<U, V, Threads, Items>;
  if (agent::smem_bytes > current_device_limits().shared_optin)
    throw engine_unavailable("radix: the segmented sort's block of " + std::to_string(Threads * Items) +
                             " keys needs " + std::to_string(agent::smem_bytes) +
                             " bytes of shared memory per block; this GPU offers " +
                             std::to_string(current_device_limits().shared_optin));
  if (most == 0) return;
  const unsigned grid = unsigned(std::min<std::uint64_t>(most, block_route_grid<U, V, Threads, Items>()));
  block_segments_kernel<U, V, Threads, Items><<<grid, Threads, agent::smem_bytes, s>>>(p, passes, r, list, list_count);
  RADIX_CUDA_CHECK_LAUNCH("radix block_segments_kernel");
}

template <class U, class V, int G>
void launch_tiny_route(const segment_params<U, V>& p, const segment_reader& r, cudaStream_t s) {
  constexpr std::uint64_t per_block = 256 / G;
  const std::uint64_t blocks = std::min<std::uint64_t>((r.count + per_block - 1) / per_block, 132ull * 64);
  if (blocks == 0) return;
  tiny_segments_kernel<U, V, G><<<unsigned(blocks), 256, 0, s>>>(p, r);
  RADIX_CUDA_CHECK_LAUNCH("radix tiny_segments_kernel");
}

/// Uniform segments of length L <= tiny: groups of the smallest power of two >= L.
template <class U, class V>
void launch_tiny_uniform(const segment_params<U, V>& p, const segment_reader& r, std::uint64_t L, cudaStream_t s) {
  if (L <= 1) return launch_tiny_route<U, V, 1>(p, r, s);
  if (L <= 2) return launch_tiny_route<U, V, 2>(p, r, s);
  if (L <= 4) return launch_tiny_route<U, V, 4>(p, r, s);
  if (L <= 8) return launch_tiny_route<U, V, 8>(p, r, s);
  if (L <= 16) return launch_tiny_route<U, V, 16>(p, r, s);
  return launch_tiny_route<U, V, 32>(p, r, s);
}

template <class U, class V>
void segmented_sort(const segmented_job<U, V>& job) {
  if constexpr (!onesweep_compiled<U, V>()) {
    throw engine_unavailable("radix: this build of the CUDA engine (RADIX_CUDA_TYPES=dev) has no segmented kernels for " +
                             std::to_string(sizeof(U)) + "-byte keys with these values");
  } else {
    auto s = static_cast<cudaStream_t>(job.stream);
    const std::uint64_t n = job.n;
    const segments& segs = job.segs;
    if (n == 0 || segs.count == 0) return;
    const segmented_workspace w = segmented_layout<U, V>(job.mode, n, segs, job.tuning);
    const auto at = w.layout.carve({static_cast<std::byte*>(job.workspace), job.workspace_bytes});

    const int end_bit = job.end_bit < 0 ? int(sizeof(U)) * 8 : job.end_bit;
    segment_reader r;
    r.count = segs.count;
    if (segs.layout == segment_layout::uniform) r.length = segs.length;
    else r.offsets = segs.offsets, r.offset_bytes = segs.offset_bytes;

    segment_params<U, V> sp;
    sp.keys = job.keys;
    sp.values = job.values;
    sp.mode = job.mode;
    sp.codec = job.codec;
    sp.range_mask = core::bit_range_mask<U>(job.begin_bit, end_bit);
    onesweep_params<U, V> op;
    op.keys = job.keys;
    op.values = job.values;
    op.mode = job.mode;
    op.codec = job.codec;
    op.range_mask = sp.range_mask;
    const pass_list passes = make_pass_list(job.begin_bit, end_bit, job.digit_bits);
    using T = segment_tiers;

    // One segment on its own through Onesweep (its indices are local by nature).
    auto onesweep_one = [&](std::uint64_t b, std::uint64_t e) {
      onesweep_job<U, V> o;
      o.mode = job.mode;
      o.keys = job.keys + b;
      if constexpr (!std::is_same_v<V, no_value>) o.values = job.values ? job.values + b : nullptr;
      o.n = e - b;
      o.codec = job.codec;
      o.begin_bit = job.begin_bit;
      o.end_bit = end_bit;
      o.digit_bits = job.digit_bits;
      o.workspace = at[w.onesweep];
      o.workspace_bytes = std::size_t(w.layout.bytes(w.onesweep));
      o.stream = s;
      o.tuning = job.tuning;
      onesweep_sort<U, V>(o);
    };

    if (segs.layout == segment_layout::uniform) {
      const std::uint64_t L = segs.length;
      if (L <= T::tiny) return launch_tiny_uniform<U, V>(sp, r, L, s);
      if (L <= T::small_tile)
        return launch_block_route<U, V, T::small_threads, T::small_items>(op, passes, r, nullptr, nullptr, r.count, s);
      if (L <= T::large_tile)
        return launch_block_route<U, V, T::large_threads, T::large_items>(op, passes, r, nullptr, nullptr, r.count, s);
      for (std::uint64_t i = 0; i < r.count; ++i) onesweep_one(i * L, (i + 1) * L);
      return;
    }

    // Offsets on the device: bin by length there, then every route.
    segment_bins bins;
    bins.counts = reinterpret_cast<unsigned*>(at[w.counts]);
    bins.small = reinterpret_cast<std::uint32_t*>(at[w.small]);
    bins.large = reinterpret_cast<std::uint32_t*>(at[w.large]);
    bins.longer = reinterpret_cast<segment_range*>(at[w.longer]);
    RADIX_CUDA_CHECK(cudaMemsetAsync(bins.counts, 0, 4 * sizeof(unsigned), s));
    const std::uint64_t bin_blocks = std::min<std::uint64_t>((r.count + 255) / 256, 132ull * 32);
    bin_segments_kernel<<<unsigned(bin_blocks), 256, 0, s>>>(r, bins);
    RADIX_CUDA_CHECK_LAUNCH("radix bin_segments_kernel");
    launch_tiny_route<U, V, 32>(sp, r, s);
    launch_block_route<U, V, T::small_threads, T::small_items>(op, passes, r, bins.small, bins.counts + 0,
                                                               std::min(r.count, n / (T::tiny + 1)), s);
    launch_block_route<U, V, T::large_threads, T::large_items>(op, passes, r, bins.large, bins.counts + 1,
                                                               std::min(r.count, n / (T::small_tile + 1)), s);
    if (n <= T::large_tile) return;  // no segment can be longer

    // The long segments: their bounds come back to the host to size Onesweep.
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    RADIX_CUDA_CHECK(cudaStreamIsCapturing(s, &capture));
    if (capture != cudaStreamCaptureStatusNone)
      throw invalid_argument("radix: segments: under CUDA graph capture, offsets on the device allow segments of at "
                             "most " + std::to_string(T::large_tile) +
                             " elements when n is larger (longer ones are sized on the host); use "
                             "segments::uniform, or sort outside the capture");
    unsigned count_longer = 0;
    RADIX_CUDA_CHECK(cudaMemcpyAsync(&count_longer, bins.counts + 2, sizeof(unsigned), cudaMemcpyDeviceToHost, s));
    RADIX_CUDA_CHECK(cudaStreamSynchronize(s));
    std::vector<segment_range> longer(count_longer);
    if (count_longer) {
      RADIX_CUDA_CHECK(cudaMemcpyAsync(longer.data(), bins.longer, count_longer * sizeof(segment_range),
                                       cudaMemcpyDeviceToHost, s));
      RADIX_CUDA_CHECK(cudaStreamSynchronize(s));
    }
    for (const auto& g : longer) onesweep_one(g.begin, g.end);
  }
}

}  // namespace radix::cuda_detail
