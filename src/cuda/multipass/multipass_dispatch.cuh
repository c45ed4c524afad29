// Host side of the seed algorithms: workspace layout, the pass plan and the
// launches (per pass: reduce_then_scan count, scan, scatter; four_way order
// check, local sort, scan, mapping; split local sort, scan, scatter).
// Included by the per-key-width instantiation files (multipass_k*.cu) only.
#pragma once
#include <algorithm>
#include <mutex>
#include <string>

#include "../common/policy.hpp"
#include "matrix_scan.cuh"
#include "radix/core/pass_plan.hpp"
#include "multipass.hpp"
#include "multipass_kernels.cuh"

namespace radix::cuda_detail {

inline multipass_tile_shape multipass_shape(const multipass_variant& v) {
  switch (v.algo) {
    case algorithm::reduce_then_scan: return sm90_rts_tiles[v.tile];
    case algorithm::four_way: return sm90_four_way_tiles[v.tile];
    default: return sm90_split_tiles[v.tile];
  }
}

/// The device workspace: control, tile counts (one row per digit of the
/// widest pass), the scan's partials, key and value alternates, and four_way's
/// element prefixes when it maps without coalescing.
struct multipass_workspace {
  core::workspace_layout layout{device_alignment};
  int control = -1, counts = -1, partials = -1, key_alt[2] = {-1, -1}, value_alt = -1, prefix = -1;
  std::uint64_t tiles = 0, matrix = 0;
};

inline multipass_workspace multipass_layout(sort_mode mode, std::uint64_t n, int key_bytes, std::size_t value_bytes,
                                            const multipass_variant& v) {
  multipass_workspace w;
  const multipass_tile_shape shape = multipass_shape(v);
  w.tiles = (n + shape.tile() - 1) / shape.tile();
  w.matrix = w.tiles << v.digit_bits;
  auto& l = w.layout;
  w.control = l.add("control", sizeof(multipass_control));
  w.counts = l.add("tile counts", w.matrix * 4);
  w.partials = l.add("scan partials", matrix_scan::chunks(w.matrix) * 4);
  w.key_alt[0] = l.add("key alternate", n * key_bytes);
  if (mode == sort_mode::argsort) w.key_alt[1] = l.add("key alternate 2", n * key_bytes);
  if (mode != sort_mode::keys) w.value_alt = l.add("value alternate", n * value_bytes);
  if (v.algo == algorithm::four_way && !v.coalesced) w.prefix = l.add("element prefixes", n * 4);
  return w;
}

template <class U, class V>
std::size_t multipass_workspace_bytes(sort_mode mode, std::uint64_t n, const multipass_variant& v) {
  const std::size_t vb = std::is_same_v<V, no_value> ? 0 : sizeof(V);
  return multipass_layout(mode, n, int(sizeof(U)), vb, v).layout.total();
}

/// Raises a kernel's dynamic shared memory limit once per device. The kernel
/// is a template argument: kernels of different tile shapes share a type, and
/// each needs its own call.
template <auto Kernel>
void multipass_allow_smem(std::size_t bytes) {
  static per_device<cudaError_t> raised;
  const cudaError_t status = raised.get([&] {
    return bytes > 48 * 1024 ? cudaFuncSetAttribute(Kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes))
                             : cudaSuccess;
  });
  if (status != cudaSuccess) throw_cuda(status, "cudaFuncSetAttribute (seed kernel shared memory)", __FILE__, __LINE__);
}

/// The per-pass launches of one algorithm and tile shape.
template <class U, class V, int Threads, int Items>
struct multipass_launcher {
  using P = multipass_params<U, V>;

  static void rts_pass(const P& p, int e, int shift, int bits, cudaStream_t s) {
    using scatter = rts_scatter_agent<U, V, Threads, Items>;
    constexpr auto k = rts_scatter_kernel<U, V, Threads, Items>;
    multipass_allow_smem<k>(scatter::smem_bytes);
    rts_count_kernel<U, V, Threads, Items><<<p.num_tiles, Threads, 0, s>>>(p, e, shift, bits);
    RADIX_CUDA_CHECK_LAUNCH("radix rts_count_kernel");
    matrix_scan::run(p.counts, p.partials, std::uint64_t(p.num_tiles) << bits, p.ctl, e, s);
    k<<<p.num_tiles, Threads, scatter::smem_bytes, s>>>(p, e, shift, bits);
    RADIX_CUDA_CHECK_LAUNCH("radix rts_scatter_kernel");
  }

  template <int Ways, bool Coalesced>
  static void four_way_pass(const P& p, int e, int shift, int bits, cudaStream_t s, unsigned check_grid) {
    order_check_kernel<U, V, false><<<check_grid, 256, 0, s>>>(p, e);
    RADIX_CUDA_CHECK_LAUNCH("radix order_check_kernel (quick)");
    order_check_kernel<U, V, true><<<check_grid, 256, 0, s>>>(p, e);
    RADIX_CUDA_CHECK_LAUNCH("radix order_check_kernel (full)");
    using local = four_way_local_agent<U, V, Threads, Items, Ways, Coalesced>;
    constexpr auto lk = four_way_local_kernel<U, V, Threads, Items, Ways, Coalesced>;
    multipass_allow_smem<lk>(local::smem_bytes);
    lk<<<p.num_tiles, Threads, local::smem_bytes, s>>>(p, e, shift, bits);
    RADIX_CUDA_CHECK_LAUNCH("radix four_way_local_kernel");
    matrix_scan::run(p.counts, p.partials, std::uint64_t(p.num_tiles) << bits, p.ctl, e, s);
    if constexpr (Coalesced) {
      using map = four_way_mapping_agent<U, V, Threads, Items, Ways>;
      constexpr auto mk = four_way_mapping_kernel<U, V, Threads, Items, Ways>;
      multipass_allow_smem<mk>(map::smem_bytes);
      mk<<<p.num_tiles, Threads, map::smem_bytes, s>>>(p, e, shift, bits);
      RADIX_CUDA_CHECK_LAUNCH("radix four_way_mapping_kernel");
    } else {
      using map = four_way_elementwise_agent<U, V, Threads, Items, Ways>;
      four_way_elementwise_kernel<U, V, Threads, Items, Ways><<<p.num_tiles, Threads, map::smem_bytes, s>>>(
          p, e, shift, bits);
      RADIX_CUDA_CHECK_LAUNCH("radix four_way_elementwise_kernel");
    }
  }

  static void split_pass(const P& p, int e, int shift, int bits, cudaStream_t s) {
    using local = split_local_agent<U, V, Threads, Items>;
    using scatter = split_scatter_agent<U, V, Threads, Items>;
    constexpr auto lk = split_local_kernel<U, V, Threads, Items>;
    constexpr auto sk = split_scatter_kernel<U, V, Threads, Items>;
    multipass_allow_smem<lk>(local::smem_bytes);
    multipass_allow_smem<sk>(scatter::smem_bytes);
    lk<<<p.num_tiles, Threads, local::smem_bytes, s>>>(p, e, shift, bits);
    RADIX_CUDA_CHECK_LAUNCH("radix split_local_kernel");
    matrix_scan::run(p.counts, p.partials, std::uint64_t(p.num_tiles) << bits, p.ctl, e, s);
    sk<<<p.num_tiles, Threads, scatter::smem_bytes, s>>>(p, e, shift, bits);
    RADIX_CUDA_CHECK_LAUNCH("radix split_scatter_kernel");
  }
};

/// reduce_then_scan's pass on tile shape t of sm90_rts_tiles (one instantiation each).
template <class U, class V, int T = 0>
void rts_tile_pass(int t, const multipass_params<U, V>& p, int e, int shift, int bits, cudaStream_t s) {
  constexpr int shapes = int(std::size(sm90_rts_tiles));
  if constexpr (T < shapes) {
    if (t == T) return multipass_launcher<U, V, sm90_rts_tiles[T].threads, sm90_rts_tiles[T].items>::rts_pass(p, e, shift, bits, s);
    rts_tile_pass<U, V, T + 1>(t, p, e, shift, bits, s);
  }
}

template <class U, class V>
void multipass_sort(const multipass_job<U, V>& job) {
  const std::uint64_t n = job.n;
  if (n == 0) return;
  const multipass_variant& v = job.variant;
  if (n > 0xFFFFFFFFull)
    throw invalid_argument("radix: the " + std::string(v.algo == algorithm::four_way ? "four_way"
                                                        : v.algo == algorithm::split ? "split"
                                                                                     : "reduce_then_scan") +
                           " algorithm sorts at most 2^32 - 1 elements (" + std::to_string(n) +
                           " given); use algorithm::onesweep");
  cudaStream_t stream = static_cast<cudaStream_t>(job.stream);
  const int end_bit = job.end_bit;  // resolved by the plan
  const core::pass_plan plan = core::plan_passes(job.begin_bit, end_bit, v.digit_bits);
  if (plan.count > multipass_max_passes)
    throw invalid_argument("radix: " + std::to_string(plan.count) + " passes are more than the seed algorithms plan");

  const std::size_t vb = std::is_same_v<V, no_value> ? 0 : sizeof(V);
  const multipass_workspace w = multipass_layout(job.mode, n, int(sizeof(U)), vb, v);
  const auto at = w.layout.carve({static_cast<std::byte*>(job.workspace), job.workspace_bytes});
  const auto slice = [&]<class T>(int id) { return id >= 0 ? reinterpret_cast<T*>(at[id]) : nullptr; };
  multipass_params<U, V> p;
  p.keys = job.keys;
  p.values = job.values;
  p.key_alt[0] = slice.template operator()<U>(w.key_alt[0]);
  p.key_alt[1] = slice.template operator()<U>(w.key_alt[1]);
  p.value_alt = slice.template operator()<V>(w.value_alt);
  p.prefix = slice.template operator()<std::uint32_t>(w.prefix);
  p.counts = slice.template operator()<std::uint32_t>(w.counts);
  p.partials = slice.template operator()<std::uint32_t>(w.partials);
  p.ctl = slice.template operator()<multipass_control>(w.control);
  p.n = std::uint32_t(n);
  p.num_tiles = std::uint32_t(w.tiles);
  p.passes = plan.count;
  p.mode = job.mode;
  p.codec = job.codec;
  p.range_mask = core::bit_range_mask<U>(job.begin_bit, end_bit);

  // four_way: every pass "unsorted" until its order check runs; the others never check
  const bool checks = v.algo == algorithm::four_way;
  RADIX_CUDA_CHECK(cudaMemsetAsync(p.ctl, checks ? 0 : 1, sizeof(multipass_control), stream));

  int dev = 0, sms = 0;
  RADIX_CUDA_CHECK(cudaGetDevice(&dev));
  RADIX_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  const unsigned check_grid = unsigned(std::min<std::uint64_t>((n + 255) / 256, std::uint64_t(sms) * 4));

  for (int e = 0; e < plan.count; ++e) {
    const int shift = plan[e].shift, bits = plan[e].bits;
    switch (v.algo) {
      case algorithm::reduce_then_scan:
        rts_tile_pass<U, V>(v.tile, p, e, shift, bits, stream);
        break;
      case algorithm::four_way: {
        using L = multipass_launcher<U, V, sm90_four_way_tiles[0].threads, sm90_four_way_tiles[0].items>;
        if (v.digit_bits <= 2) {
          if (v.coalesced) L::template four_way_pass<4, true>(p, e, shift, bits, stream, check_grid);
          else L::template four_way_pass<4, false>(p, e, shift, bits, stream, check_grid);
        } else {
          if (v.coalesced) L::template four_way_pass<8, true>(p, e, shift, bits, stream, check_grid);
          else L::template four_way_pass<8, false>(p, e, shift, bits, stream, check_grid);
        }
        break;
      }
      default:
        multipass_launcher<U, V, sm90_split_tiles[0].threads, sm90_split_tiles[0].items>::split_pass(p, e, shift, bits, stream);
        break;
    }
  }
  const std::uint64_t fin_grid = std::min<std::uint64_t>((n + 1023) / 1024, std::uint64_t(sms) * 8);
  multipass_finish_kernel<U, V><<<unsigned(fin_grid), 256, 0, stream>>>(p);
  RADIX_CUDA_CHECK_LAUNCH("radix multipass_finish_kernel");
}

#define RADIX_MULTIPASS_INSTANTIATE(U, V)                          \
  template void multipass_sort<U, V>(const multipass_job<U, V>&); \
  template std::size_t multipass_workspace_bytes<U, V>(sort_mode, std::uint64_t, const multipass_variant&);

/// Every value type of keys U (multipass_k<bytes>.cu): keys only, 4- and 8-byte
/// values or indices (other sizes go through an argsort and a gather). The dev
/// build keeps keys only and 4-byte values where IN_DEV is 1 (multipass_compiled).
#if defined(RADIX_CUDA_DEV_TYPES) && RADIX_CUDA_DEV_TYPES
#define RADIX_MULTIPASS_INSTANTIATE_KEY(U, IN_DEV) RADIX_MULTIPASS_DEV_##IN_DEV(U)
#define RADIX_MULTIPASS_DEV_0(U)
#define RADIX_MULTIPASS_DEV_1(U) RADIX_MULTIPASS_INSTANTIATE(U, no_value) RADIX_MULTIPASS_INSTANTIATE(U, std::uint32_t)
#else
#define RADIX_MULTIPASS_INSTANTIATE_KEY(U, IN_DEV)                                     \
  RADIX_MULTIPASS_INSTANTIATE(U, no_value) RADIX_MULTIPASS_INSTANTIATE(U, std::uint32_t) \
  RADIX_MULTIPASS_INSTANTIATE(U, std::uint64_t)
#endif

}  // namespace radix::cuda_detail
