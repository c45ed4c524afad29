// Host side of Onesweep: workspace layout, the pass list, and the launches.
// Included by the per-key-width instantiation files (onesweep_k*.cu) only.
#pragma once
#include <algorithm>
#include <bit>
#include <mutex>
#include <string>

#include "../common/policy.hpp"
#include "../gather.cuh"  // widen_indices
#include "../testing.hpp"
#include "kernels.cuh"
#include "onesweep.hpp"
#include "radix/core/pass_plan.hpp"

namespace radix::cuda_detail {

/// The tiers of tile shapes by n (Alt of onesweep_kernels / onesweep_run):
/// sm90_small_tiles up to the policy's medium_n, sm90_mid_tiles up to mid_n,
/// the policy's own above; Alt = 1..3 are the A/B slots.
constexpr int small_tier = -1, mid_tier = -2;

/// The MSD buckets path (onesweep_buckets_kernel): 32- and 64-bit keys,
/// alone or with 4- or 8-byte values (argsort indices among them).
template <class U, class V>
constexpr bool msd_buckets_compiled =
    sizeof(U) >= 4 && (std::is_same_v<V, no_value> || std::is_same_v<V, std::uint32_t> || std::is_same_v<V, std::uint64_t>);

template <class U, class V, int Alt = 0>
struct onesweep_kernels {
  static constexpr int value_bytes = std::is_same_v<V, no_value> ? 0 : int(sizeof(V));
  static constexpr onesweep_policy pol =
      Alt == small_tier ? sm90_small_tiles(int(sizeof(U)), value_bytes)
      : Alt == mid_tier ? sm90_mid_tiles(int(sizeof(U)), value_bytes)
      : Alt > 0         ? sm90_alt_policy(int(sizeof(U)), value_bytes, Alt)
                        : sm90_policy(int(sizeof(U)), value_bytes);
  static constexpr int threads = pol.threads, items = pol.items;
  static constexpr int hist_threads = histogram_shape::threads, hist_vectors = histogram_shape::vectors;
  struct shape {
    static constexpr scatter_shape value = scatter_shape_of(pol, !std::is_same_v<V, no_value>);
  };
  using scatter = scatter_agent<U, V, shape>;
  using single = single_tile_agent<U, V, threads, items>;
  using block_sort = block_sort_agent<U, V>;
  /// linear for integer keys (codec.linear()); 1-byte keys are never floats.
  template <scatter_forms F>
  static constexpr auto scatter_kernel_for = onesweep_scatter_kernel<U, V, shape, F>;
  static constexpr bool may_be_float = sizeof(U) >= 2;
  static constexpr auto scatter_kernel =
      scatter_kernel_for<may_be_float ? scatter_forms::floats : scatter_forms::linear>;
  static auto scatter_kernel_of(const core::ordered_codec<U>& c) {
    if constexpr (may_be_float)
      return c.linear() ? scatter_kernel_for<scatter_forms::linear> : scatter_kernel_for<scatter_forms::floats>;
    else
      return scatter_kernel;
  }
  static constexpr auto histogram_kernel =
      onesweep_histogram_kernel<U, hist_threads, hist_vectors, histogram_shape::min_blocks>;
  /// Inputs with keys elsewhere (key_inset) read them in kernels of their
  /// own: integer keys alone of 4 or 8 bytes, on the long tiles (reads_inset).
  static constexpr bool inset_compiled = std::is_same_v<V, no_value> && sizeof(U) >= 4 && Alt == 0;
  struct residency {
    int scatter = 1, histogram = 1;  ///< blocks per SM
  };

  /// Raises the shared-memory limits of the kernels and finds how many
  /// scatter blocks an SM holds (once per device). Returns that number.
  static residency prepare() {
    struct prepared {
      cudaError_t status = cudaSuccess;
      int per_sm = 0, hist_per_sm = 0;
    };
    static per_device<prepared> known;
    const prepared& pr = known.get([] {
      prepared r;
      // Only kernels the device can hold: the others are never launched
      // there (use_single_tile, and the engine's choice of algorithm).
      const std::size_t optin = current_device_limits().shared_optin;
      // as much as the largest block sort the device holds (use_block_sort)
      r.status = cudaFuncSetAttribute(block_sort_kernel<U, V>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      int(std::min<std::size_t>(block_sort::smem_bytes(block_sort::max_threads), optin)));
      if constexpr (msd_buckets_compiled<U, V>)
        if (r.status == cudaSuccess)
          r.status = cudaFuncSetAttribute(onesweep_buckets_kernel<U, V>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          int(std::min<std::size_t>(block_sort::smem_bytes(block_sort::max_threads), optin)));
      if (r.status != cudaSuccess || scatter::smem_bytes > optin) return r;  // reported below, each time
      r.status = cudaFuncSetAttribute(scatter_kernel_for<scatter_forms::linear>,
                                      cudaFuncAttributeMaxDynamicSharedMemorySize, int(scatter::smem_bytes));
      if (r.status == cudaSuccess && may_be_float)
        r.status = cudaFuncSetAttribute(scatter_kernel_for<scatter_forms::floats>,
                                        cudaFuncAttributeMaxDynamicSharedMemorySize, int(scatter::smem_bytes));
      if constexpr (inset_compiled)
        if (r.status == cudaSuccess)
          r.status = cudaFuncSetAttribute(scatter_kernel_for<scatter_forms::linear_inset>,
                                          cudaFuncAttributeMaxDynamicSharedMemorySize, int(scatter::smem_bytes));
      // (only the default tier's single-tile kernel is ever launched: onesweep_run)
      if constexpr (Alt == 0)
        if (r.status == cudaSuccess && single::smem_bytes <= optin)
          r.status = cudaFuncSetAttribute(single_tile_kernel<U, V, threads, items>,
                                          cudaFuncAttributeMaxDynamicSharedMemorySize, int(single::smem_bytes));
      if (r.status == cudaSuccess)
        r.status = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&r.per_sm, scatter_kernel, threads, scatter::smem_bytes);
      if (r.status == cudaSuccess)
        r.status = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&r.hist_per_sm, histogram_kernel, hist_threads, 0);
      return r;
    });
    const cudaError_t status = pr.status;
    const int per_sm = pr.per_sm, hist_per_sm = pr.hist_per_sm;
    if (scatter::smem_bytes > current_device_limits().shared_optin)
      throw engine_unavailable("radix: Onesweep's tile for " + std::to_string(sizeof(U)) + "-byte keys needs " +
                               std::to_string(scatter::smem_bytes) + " bytes of shared memory per block; this GPU offers " +
                               std::to_string(current_device_limits().shared_optin) +
                               " (algorithm::automatic picks reduce_then_scan there)");
    if (status != cudaSuccess) throw_cuda(status, "cudaFuncSetAttribute / cudaOccupancyMaxActiveBlocksPerMultiprocessor", __FILE__, __LINE__);
    return {per_sm < 1 ? 1 : per_sm, hist_per_sm < 1 ? 1 : hist_per_sm};
  }
};

/// The device workspace: key alternates, value alternate, control, ring
/// (control and ring, adjacent, are zeroed together before each sort). A
/// sort that fits one tile needs none.
struct onesweep_workspace {
  core::workspace_layout layout{device_alignment};
  int key_alt[2] = {-1, -1}, value_alt = -1, control = -1, ring = -1;
};

/// `caller_alternates` (keys/pairs, double-buffer API): the alternates are the caller's.
inline onesweep_workspace onesweep_layout(sort_mode mode, std::uint64_t n, int key_bytes, std::size_t value_bytes,
                                          const ring_config& rc, bool use_single, bool caller_alternates = false) {
  onesweep_workspace w;
  if (use_single) return w;
  const bool own = !caller_alternates || mode == sort_mode::argsort;
  if (own) w.key_alt[0] = w.layout.add("key alternate", n * key_bytes);
  // argsort leaves the caller's keys alone: two alternates of its own
  if (mode == sort_mode::argsort) w.key_alt[1] = w.layout.add("key alternate 2", n * key_bytes);
  if (own && mode != sort_mode::keys) w.value_alt = w.layout.add("value alternate", n * value_bytes);
  w.control = w.layout.add("control", sizeof(control));
  w.ring = w.layout.add("look-back ring", (std::uint64_t(1) << rc.log2) * radix_size * sizeof(unsigned long long));
  return w;
}

/// From 1025 to 8192 keys that comparison counting does not take (use_rank_sort,
/// checked first): one block with thread-private counters (block_sort_agent),
/// where the device holds its shared memory.
template <class U, class V>
inline bool use_block_sort(std::uint64_t n, const onesweep_tuning& t) {
  using B = block_sort_agent<U, V>;
  return !t.force_onesweep && t.block_sort && n > std::uint64_t(B::fewest) && n <= std::uint64_t(B::capacity) &&
         B::smem_bytes(B::threads_for(n)) <= current_device_limits().shared_optin;
}

/// One launch and no workspace: block_sort_agent, else single_tile_agent up to the policy's small_n.
template <class U, class V>
inline bool use_single_tile(std::uint64_t n, const onesweep_tuning& t) {
  using K = onesweep_kernels<U, V>;
  if (use_block_sort<U, V>(n, t)) return true;
  return !t.force_onesweep && n <= K::pol.small_n && K::single::smem_bytes <= current_device_limits().shared_optin;
}

/// Whether comparison counting sorts n keys (rank_sort_agent).
template <class U, class V>
inline bool use_rank_sort(std::uint64_t n, const onesweep_tuning& t) {
  using R = rank_sort_agent<U, V>;
  constexpr int vb = std::is_same_v<V, no_value> ? 0 : int(sizeof(V));
  const int most = t.rank_sort_max < 0 ? sm90_rank_sort_max(int(sizeof(U)), vb) : std::min(t.rank_sort_max, R::capacity);
  return !t.force_onesweep && n >= 1 && n <= std::uint64_t(most) &&
         R::smem_bytes(int(n)) <= current_device_limits().shared_optin;
}

/// Whether one block sorts the job by counting: 1-byte keys alone with every
/// bit in the sort, up to sm90_counting_block_max (counting_block_agent);
/// pairs of 1-byte keys up to sm90_counting_pairs_max (counting_pairs_agent).
template <class U, class V>
inline bool use_counting_block(const onesweep_job<U, V>& job) {
  if constexpr (sizeof(U) != 1) {
    return false;
  } else {
    const long long asked = job.tuning.counting_block_max;
    if (job.tuning.force_onesweep || job.n < 1 || !job.codec.linear()) return false;
    if constexpr (std::is_same_v<V, no_value>) {
      // (the block counts in 32 bits)
      const long long most = asked < 0 ? sm90_counting_block_max : std::min(asked, 0xFFFFFFFFll);
      return job.mode == sort_mode::keys && job.begin_bit == 0 && job.end_bit == 8 && job.n <= std::uint64_t(most);
    } else {
      using A = counting_pairs_agent<U, V>;
      const long long most = asked < 0 ? sm90_counting_pairs_max : std::min(asked, static_cast<long long>(A::capacity));
      return job.mode == sort_mode::pairs && job.n <= std::uint64_t(most) &&
             sizeof(typename A::storage) + A::staging_bytes(A::capacity) <= current_device_limits().shared_optin;
    }
  }
}

/// How one cluster sorts n keys (cluster_sort_agent): `blocks` blocks of
/// `threads`, 2^chunk_log2 keys each (the last fewer), digits of at most
/// `digit_bits`; blocks = 0 where it does not.
struct cluster_shape {
  int blocks = 0, threads = 0, digit_bits = 0;
  unsigned chunk_log2 = 0;
};

/// The chunks a block of a cluster sort may hold: 2048 or 4096 keys, in 256
/// threads (its counters of 7-bit digits), 8 or 16 keys a thread.
constexpr int cluster_chunks[] = {2048, 4096};
constexpr int cluster_chunk_kinds = int(sizeof(cluster_chunks) / sizeof(cluster_chunks[0]));

/// The cluster sort is compiled only for the requests its policy can send
/// it (sm90_cluster_sort_max): keys alone of 2, 4 and 8 bytes, and 2-byte
/// keys with values (or indices) of up to 4 bytes. Its three forms of the
/// ordered-bits transform cost each instantiation seconds of compile time.
template <class U, class V>
constexpr bool cluster_sort_compiled =
    sizeof(U) >= 2 && (std::is_same_v<V, no_value> || (sizeof(U) == 2 && sizeof(V) <= 4));

/// The largest cluster this device launches of each shape (0: none; before
/// sm_90, or the shape's shared memory more than a block may have).
struct cluster_limits {
  int most[cluster_chunk_kinds] = {};
};

/// A launch of one cluster of `blocks` blocks (the configuration points at
/// its own attribute: keep the object alive through the launch).
struct cluster_launch {
  cudaLaunchAttribute attr[1]{};
  cudaLaunchConfig_t cfg{};
  cluster_launch(int blocks, int threads, std::size_t smem, cudaStream_t stream) {
    cfg.gridDim = dim3(unsigned(blocks));
    cfg.blockDim = dim3(unsigned(threads));
    cfg.dynamicSmemBytes = smem;
    cfg.stream = stream;
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = unsigned(blocks);
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
  }
  cluster_launch(const cluster_launch&) = delete;  // cfg.attrs points into this object
  cluster_launch& operator=(const cluster_launch&) = delete;
};

/// Asks the device (cluster_sort_limits, once per device).
template <class U, class V>
cluster_limits query_cluster_limits() {
  using C = cluster_sort_agent<U, V>;
  cluster_limits l;
  const device_limits& d = current_device_limits();
  if (d.major < 9) return l;
  const auto kernel = cluster_sort_kernel<U, V>;
  // A size the device refuses (an error here) is a size it lacks: each is
  // asked on its own, the error cleared.
  const bool non_portable = cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) == cudaSuccess;
  if (!non_portable) (void)cudaGetLastError();
  constexpr int threads = C::max_threads;
  std::size_t largest = 0;
  for (int c : cluster_chunks)
    if (C::smem_bytes(threads, c) <= d.shared_optin) largest = std::max(largest, C::smem_bytes(threads, c));
  if (largest == 0) return l;
  if (cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(largest)) != cudaSuccess) {
    (void)cudaGetLastError();
    return l;
  }
  for (int ci = 0; ci < cluster_chunk_kinds; ++ci) {
    const int chunk = cluster_chunks[ci];
    const std::size_t smem = C::smem_bytes(threads, chunk);
    if (smem > d.shared_optin || chunk > C::items * threads) continue;
    for (int blocks = non_portable ? C::max_blocks : 8; blocks >= 2; blocks /= 2) {
      const cluster_launch launch(blocks, threads, smem, nullptr);
      int clusters = 0;
      if (cudaOccupancyMaxActiveClusters(&clusters, kernel, &launch.cfg) != cudaSuccess) {
        (void)cudaGetLastError();
        continue;
      }
      if (clusters > 0) {
        l.most[ci] = blocks;  // (smaller clusters then fit too)
        break;
      }
    }
  }
  return l;
}

template <class U, class V>
const cluster_limits& cluster_sort_limits() {
  static per_device<cluster_limits> known;
  return known.get([] {
    if constexpr (cluster_sort_compiled<U, V>) return query_cluster_limits<U, V>();
    else return cluster_limits{};
  });
}

/// Above block_sort_agent::capacity and up to the tuning's limit: the
/// smallest chunk whose cluster holds n (the tuning may ask for another
/// chunk, or 6-bit digits); blocks = 0: not this route.
template <class U, class V>
cluster_shape cluster_sort_shape(std::uint64_t n, const onesweep_tuning& t) {
  cluster_shape s;
  constexpr int vb = std::is_same_v<V, no_value> ? 0 : int(sizeof(V));
  const long long most = t.cluster_sort_max < 0 ? sm90_cluster_sort_max(int(sizeof(U)), vb) : t.cluster_sort_max;
  if (t.force_onesweep || n <= std::uint64_t(block_sort_agent<U, V>::capacity) || n > std::uint64_t(most)) return s;
  const cluster_limits& l = cluster_sort_limits<U, V>();
  for (int ci = 0; ci < cluster_chunk_kinds; ++ci) {
    const int chunk = cluster_chunks[ci];
    if (t.cluster_chunk != 0 && t.cluster_chunk != chunk) continue;
    const std::uint64_t blocks = (n + std::uint64_t(chunk) - 1) / std::uint64_t(chunk);
    if (l.most[ci] > 0 && blocks <= std::uint64_t(l.most[ci])) {
      s.blocks = int(blocks);
      s.threads = cluster_sort_agent<U, V>::max_threads;
      s.digit_bits = t.cluster_digit_bits == 6 || t.cluster_digit_bits == 7 ? t.cluster_digit_bits
                                                                            : sm90_cluster_digit_bits(int(sizeof(U)));
      s.chunk_log2 = unsigned(std::countr_zero(unsigned(chunk)));
      return s;
    }
  }
  return s;
}

/// The kernel parameters every route fills from the job alike.
template <class U, class V>
onesweep_params<U, V> params_of(const onesweep_job<U, V>& job) {
  onesweep_params<U, V> p;
  p.keys = job.keys;
  p.values = job.values;
  p.n = job.n;
  p.mode = job.mode;
  p.codec = job.codec;
  p.range_mask = core::bit_range_mask<U>(job.begin_bit, job.end_bit);
  return p;
}

/// Enqueues the cluster sort: one launch, no workspace; it reads all of its
/// input before writing any output, so it sorts in place. Returns 0 (the
/// result where the keys were, or in sorted_keys), as onesweep_sort.
template <class U, class V>
int cluster_sort_run(const onesweep_job<U, V>& job, const cluster_shape& shape) {
  using C = cluster_sort_agent<U, V>;
  const onesweep_params<U, V> p = params_of(job);
  block_sort_io<U, V> io;
  io.kin = job.keys;
  io.n = int(job.n);
  if (job.mode == sort_mode::argsort) {
    io.kout = job.sorted_keys;  // may be null
    io.vout = job.values;
    if constexpr (std::is_same_v<V, std::uint32_t>) io.vwide = job.wide_indices;
  } else {
    // keys out of place where asked (the double-buffer forms have none); pairs in place
    const bool elsewhere = job.mode == sort_mode::keys && job.sorted_keys != nullptr && job.key_alt == nullptr;
    io.kout = elsewhere ? job.sorted_keys : job.keys;
    io.vin = job.values;
    io.vout = job.values;
  }
  if constexpr (cluster_sort_compiled<U, V>) {
    const cluster_launch launch(shape.blocks, shape.threads, C::smem_bytes(shape.threads, 1 << shape.chunk_log2),
                                static_cast<cudaStream_t>(job.stream));
    RADIX_CUDA_CHECK(cudaLaunchKernelEx(&launch.cfg, cluster_sort_kernel<U, V>, p, io, shape.chunk_log2, shape.digit_bits));
    RADIX_CUDA_CHECK_LAUNCH("radix cluster_sort_kernel");
  }  // (else cluster_sort_shape never chose this route)
  cluster_sorts().fetch_add(1, std::memory_order_relaxed);
  return 0;
}

/// The comparison-counting sort's workspace: where an in-place sort of keys
/// or pairs puts its output before the copy home (the other blocks still
/// read the input). Argsort and sorts into other memory (the caller's
/// alternates, keys out of place: `elsewhere`) need none.
struct rank_sort_workspace {
  core::workspace_layout layout{device_alignment};
  int keys = -1, values = -1;
};
inline rank_sort_workspace rank_sort_layout(sort_mode mode, std::uint64_t n, int key_bytes, std::size_t value_bytes,
                                            bool elsewhere) {
  rank_sort_workspace w;
  if (mode == sort_mode::argsort || elsewhere) return w;
  w.keys = w.layout.add("sorted keys", n * key_bytes);
  if (mode == sort_mode::pairs) w.values = w.layout.add("sorted values", n * value_bytes);
  return w;
}

/// Enqueues comparison counting. Returns where the result is, as onesweep_sort.
template <class U, class V>
int rank_sort_run(const onesweep_job<U, V>& job) {
  using R = rank_sort_agent<U, V>;
  static per_device<cudaError_t> prepared;
  const cudaError_t st = prepared.get([] {
    return cudaFuncSetAttribute(rank_sort_kernel<U, V>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                int(std::min<std::size_t>(R::smem_bytes(R::capacity), current_device_limits().shared_optin)));
  });
  if (st != cudaSuccess) throw_cuda(st, "cudaFuncSetAttribute", __FILE__, __LINE__);
  const int n = int(job.n);
  cudaStream_t stream = static_cast<cudaStream_t>(job.stream);
  const std::size_t vb = std::is_same_v<V, no_value> ? 0 : sizeof(V);
  const bool caller_alternates = job.mode != sort_mode::argsort && job.key_alt != nullptr;

  block_sort_io<U, V> io;
  io.kin = job.keys;
  io.n = n;
  int result = 0;
  bool home = false;
  if (job.mode == sort_mode::argsort) {
    io.kout = job.sorted_keys;  // may be null
    io.vout = job.values;
    if constexpr (std::is_same_v<V, std::uint32_t>) io.vwide = job.wide_indices;
  } else if (caller_alternates) {
    io.kout = job.key_alt;
    io.vin = job.values;
    io.vout = job.value_alt;
    result = 1;
  } else if (job.mode == sort_mode::keys && job.sorted_keys != nullptr && job.sorted_keys != job.keys) {
    io.kout = job.sorted_keys;
  } else {
    const rank_sort_workspace w = rank_sort_layout(job.mode, job.n, int(sizeof(U)), vb, false);
    const auto at = w.layout.carve({static_cast<std::byte*>(job.workspace), job.workspace_bytes});
    io.kout = reinterpret_cast<U*>(at[w.keys]);
    io.vin = job.values;
    io.vout = w.values >= 0 ? reinterpret_cast<V*>(at[w.values]) : nullptr;
    home = true;
  }
  const core::ordered_codec<U> codec = job.codec;
  const U range_mask = core::bit_range_mask<U>(job.begin_bit, job.end_bit);
  rank_sort_kernel<U, V><<<R::blocks(job.n), R::threads, R::smem_bytes(n), stream>>>(codec, range_mask, io);
  RADIX_CUDA_CHECK_LAUNCH("radix rank_sort_kernel");
  if (home) {
    const bool pdl = job.tuning.pdl && current_device_limits().pdl();
    launch_dependent(pdl, copy_home_kernel<U, V>, unsigned((n + 255) / 256), 256, 0, stream,
                     static_cast<const U*>(io.kout), job.keys, static_cast<const V*>(io.vout), job.values, n);
  }
  return result;
}

/// Keys alone, pairs and argsort, from buckets of the top digit averaging
/// the block sort's fewest keys (2^18 for 8-bit digits) to three quarters of
/// its capacity (1.5 x 2^20):
/// the threads of a block of onesweep_buckets_kernel, should the histogram
/// kernel find every bucket within 16 keys a thread (256 threads where they
/// average 2048 keys or fewer: two blocks an SM; else 512), or 0 where that
/// path is not open. Not with values of other widths, 1- and 2-byte keys,
/// one pass, the caller's alternates or RADIX_CUDA_MSD=0: smaller buckets
/// lost to every pass (u32 keys at 2^14-2^16), as did 16-bit keys (two
/// passes; 2^20 lost a fifth). bench/results/cuda-h100-2026-11-26-msd-buckets.md
/// has the A/B.
template <class U, class V>
inline int msd_bucket_threads(const onesweep_job<U, V>& job, std::uint64_t n, const pass_list& passes,
                              bool caller_alternates) {
  using B = block_sort_agent<U, V>;
  if constexpr (!msd_buckets_compiled<U, V>) {
    return 0;
  } else {
    if (!job.tuning.msd_buckets || job.tuning.force_onesweep || caller_alternates || passes.count < 2) return 0;
    const std::uint64_t buckets = std::uint64_t(1) << passes.bits[passes.count - 1];
    // (nearer the capacity on average, some bucket of random keys is over it: the path is never taken)
    if (n < buckets * B::fewest || n > buckets * B::capacity / 4 * 3 ||
        B::smem_bytes(B::max_threads) > current_device_limits().shared_optin)
      return 0;
    return n <= buckets * B::items * 256 / 2 ? 256 : 512;
  }
}

/// Shared memory per block of the scatter kernel a sort of n keys uses (the
/// single-tile kernel steps aside by itself where a device cannot hold it).
template <class U, class V>
std::size_t onesweep_shared_bytes(std::uint64_t n, const onesweep_tuning& t) {
  using K = onesweep_kernels<U, V>;
  if constexpr (K::pol.medium_n > 0) {
    if (t.small_tiles && n <= K::pol.medium_n) return onesweep_kernels<U, V, small_tier>::scatter::smem_bytes;
  }
  if constexpr (K::pol.mid_n > 0) {
    if (t.mid_tiles && n > K::pol.medium_n && n <= K::pol.mid_n)
      return onesweep_kernels<U, V, mid_tier>::scatter::smem_bytes;
  }
  return K::scatter::smem_bytes;
}

template <class U, class V>
std::size_t onesweep_workspace_bytes(sort_mode mode, std::uint64_t n, const onesweep_tuning& t, bool caller_alternates,
                                     bool keys_out_of_place) {
  const std::size_t vb = std::is_same_v<V, no_value> ? 0 : sizeof(V);
  if (use_rank_sort<U, V>(n, t))
    return rank_sort_layout(mode, n, int(sizeof(U)), vb, caller_alternates || (mode == sort_mode::keys && keys_out_of_place))
        .layout.total();
  // (the cluster sort needs none, but a request with an inset that the tiles
  // read in place takes them instead: the size covers both)
  return onesweep_layout(mode, n, int(sizeof(U)), vb, t.ring, use_single_tile<U, V>(n, t), caller_alternates)
      .layout.total();
}

/// Whether onesweep_run reads a job's inset where it lies: integer keys alone
/// of 4 or 8 bytes with the caller's alternates, on the long tiles of the
/// default policy (onesweep_kernels::inset_compiled). The single-block
/// kernels, comparison counting and the other tiers read the input their
/// own ways; the MSD buckets never run with the caller's alternates.
template <class U, class V>
bool reads_inset(const onesweep_job<U, V>& job) {
  using K = onesweep_kernels<U, V>;
  if constexpr (!K::inset_compiled) {
    return false;
  } else {
    const onesweep_tuning& t = job.tuning;
    const bool small = K::pol.medium_n > 0 && t.small_tiles && job.n <= K::pol.medium_n;
    const bool mid = K::pol.mid_n > 0 && t.mid_tiles && job.n > K::pol.medium_n && job.n <= K::pol.mid_n;
    return job.mode == sort_mode::keys && job.key_alt != nullptr && job.codec.linear() && t.alt_policy == 0 && !small &&
           !mid && !use_rank_sort<U, V>(job.n, t) && !use_single_tile<U, V>(job.n, t);
  }
}


template <class U, class V, int Alt>
int onesweep_run(const onesweep_job<U, V>& job);

/// Alt = 1..3 (sm90_alt_policy) are not instantiated in production builds:
/// they are slots for A/B experiments (NOTES.md), compiled in only when
/// RADIX_CUDA_ALT_POLICY_BUILD is defined, and then chosen at run time with
/// RADIX_CUDA_ALT_POLICY=N for the rows sm90_alt_policy varies.
/// small_tier: sm90_small_tiles, for inputs above small_n and at most medium_n;
/// mid_tier: sm90_mid_tiles, above medium_n and at most mid_n.
template <class U, class V>
int onesweep_sort(const onesweep_job<U, V>& job) {
  if (job.inset.active() && !reads_inset(job)) {  // the inset copied into the input first
    RADIX_CUDA_CHECK(cudaMemcpyAsync(job.keys + job.inset.begin, job.inset.keys,
                                     (job.inset.end - job.inset.begin) * sizeof(U), cudaMemcpyDeviceToDevice,
                                     static_cast<cudaStream_t>(job.stream)));
    onesweep_job<U, V> whole = job;
    whole.inset = {};
    return onesweep_sort(whole);
  }
  if constexpr (sizeof(U) == 1) {
    if (use_counting_block(job)) {
      onesweep_params<U, V> p = params_of(job);
      if (job.sorted_keys != job.keys) p.sorted_keys = job.sorted_keys;  // keys out of place
      const cudaStream_t stream = static_cast<cudaStream_t>(job.stream);
      if constexpr (std::is_same_v<V, no_value>) {
        counting_block_kernel<U><<<1, counting_block_agent<U>::threads_for(job.n), 0, stream>>>(p);
        RADIX_CUDA_CHECK_LAUNCH("radix counting_block_kernel");
      } else {
        using A = counting_pairs_agent<U, V>;
        static per_device<cudaError_t> raised;  // the staging's shared memory, once per device
        const cudaError_t e = raised.get([] {
          return cudaFuncSetAttribute(counting_pairs_kernel<U, V>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      int(A::staging_bytes(A::capacity)));
        });
        if (e != cudaSuccess) throw_cuda(e, "cudaFuncSetAttribute(counting_pairs_kernel)", __FILE__, __LINE__);
        counting_pairs_kernel<U, V><<<1, A::threads_for(job.n), A::staging_bytes(job.n), stream>>>(p);
        RADIX_CUDA_CHECK_LAUNCH("radix counting_pairs_kernel");
      }
      return 0;  // where the keys were (or in sorted_keys)
    }
  }
  if (job.n > 0 && use_rank_sort<U, V>(job.n, job.tuning)) return rank_sort_run<U, V>(job);
  // (an inset the tiles read in place keeps them: the cluster reads only its input)
  if (const cluster_shape c = cluster_sort_shape<U, V>(job.n, job.tuning); c.blocks > 0 && !job.inset.active())
    return cluster_sort_run<U, V>(job, c);
#if defined(RADIX_CUDA_ALT_POLICY_BUILD)
  // a slot replaces the small tiles too: it is measured against both
  constexpr bool alt_row = (sizeof(U) >= 4 && std::is_same_v<V, v128>) ||
                           (sizeof(U) == 4 && (std::is_same_v<V, std::uint32_t> || std::is_same_v<V, std::uint64_t> ||
                                               std::is_same_v<V, no_value>));
  if constexpr (alt_row) {
    switch (job.tuning.alt_policy) {
      case 1: return onesweep_run<U, V, 1>(job);
      case 2: return onesweep_run<U, V, 2>(job);
      case 3: return onesweep_run<U, V, 3>(job);
      default: break;
    }
  }
#endif
  using K = onesweep_kernels<U, V>;
  if constexpr (K::pol.medium_n > 0) {
    if (job.tuning.small_tiles && job.n <= K::pol.medium_n && !use_single_tile<U, V>(job.n, job.tuning))
      return onesweep_run<U, V, small_tier>(job);
  }
  if constexpr (K::pol.mid_n > 0) {
    if (job.tuning.mid_tiles && job.n > K::pol.medium_n && job.n <= K::pol.mid_n)
      return onesweep_run<U, V, mid_tier>(job);
  }
  return onesweep_run<U, V, 0>(job);
}

template <class U, class V, int Alt>
int onesweep_run(const onesweep_job<U, V>& job) {
  using K = onesweep_kernels<U, V, Alt>;
  const std::uint64_t n = job.n;
  if (n == 0) return 0;
  const ring_config& rc = job.tuning.ring;
  if (rc.log2 < 1 || rc.log2 > 20 || rc.lookback < 1 || rc.lookback >= (1u << rc.log2) ||
      (1u << rc.log2) - rc.lookback < (1u << rc.tail_bits) || rc.tail_bits > rc.log2 ||
      (1u << (rc.log2 - rc.tail_bits)) + 2 > ring_groups)
    throw invalid_argument("radix: look-back ring of 2^" + std::to_string(rc.log2) + " tiles, limit " +
                           std::to_string(rc.lookback) + ", tail groups of 2^" + std::to_string(rc.tail_bits) +
                           " cannot work (need 1 <= L < 2^log2, 2^log2 - L >= 2^tail_bits and at most " +
                           std::to_string(ring_groups - 2) + " tail groups in the ring)");
  const auto resident = K::prepare();
  const bool pdl = job.tuning.pdl && current_device_limits().pdl();  // PDL needs sm_90
  cudaStream_t stream = static_cast<cudaStream_t>(job.stream);
  const int key_bits = int(sizeof(U)) * 8;
  const int end_bit = job.end_bit;  // resolved by the plan
  const pass_list passes = make_pass_list(job.begin_bit, end_bit, job.digit_bits);

  onesweep_params<U, V> p = params_of(job);
  if constexpr (std::is_same_v<V, std::uint32_t>)
    if (job.mode == sort_mode::argsort) p.wide_values = job.wide_indices;
  // argsort's sorted keys where asked; keys out of place (the double-buffer form has none)
  if (job.mode == sort_mode::argsort || (job.mode == sort_mode::keys && job.key_alt == nullptr &&
                                         job.sorted_keys != job.keys))
    p.sorted_keys = job.sorted_keys;
  p.ring_cfg = job.tuning.ring;
  p.whole_tiles = job.tuning.whole_tiles && sm90_whole_tiles(int(sizeof(U)), K::value_bytes, n);
  // The scatter reads the inset a warp's keys at a time: its ends, where they
  // fall inside a warp's keys, are copied home by the histogram kernel.
  if (job.inset.active()) {
    if (!K::inset_compiled) throw invalid_argument("radix: internal: an inset reached kernels that cannot read it");
    constexpr std::uint64_t warp_keys = 32 * std::uint64_t(K::items);
    const std::uint64_t inner_begin = (job.inset.begin + warp_keys - 1) / warp_keys * warp_keys;
    const std::uint64_t inner_end = job.inset.end / warp_keys * warp_keys;
    if (inner_begin < inner_end) p.inset = {job.inset.keys + (inner_begin - job.inset.begin), inner_begin, inner_end};
    inset_sorts().fetch_add(1, std::memory_order_relaxed);
  }

  const std::size_t vb = std::is_same_v<V, no_value> ? 0 : sizeof(V);
  const bool single = use_single_tile<U, V>(n, job.tuning);
  if (single) {
    // always the default policy's block: the single-tile decision (and the
    // workspace size) is the default's, whatever tiles an A/B slot uses
    using S = onesweep_kernels<U, V, 0>;
    if constexpr (Alt != 0) S::prepare();
    if (use_block_sort<U, V>(n, job.tuning)) {
      const int threads = S::block_sort::threads_for(n);
      block_sort_kernel<U, V><<<1, threads, S::block_sort::smem_bytes(threads), stream>>>(p);
      RADIX_CUDA_CHECK_LAUNCH("radix block_sort_kernel");
    } else {
      single_tile_kernel<U, V, S::threads, S::items><<<1, S::threads, S::single::smem_bytes, stream>>>(p, passes);
      RADIX_CUDA_CHECK_LAUNCH("radix single_tile_kernel");
    }
    // (the single-tile kernel writes 4-byte indices as they are; the block sort widens them)
    if constexpr (std::is_same_v<V, std::uint32_t>)
      if (p.wide_values && !use_block_sort<U, V>(n, job.tuning)) widen_indices(p.wide_values, job.values, n, stream);
    return 0;  // in place
  }

  const bool caller_alternates = job.mode != sort_mode::argsort && job.key_alt != nullptr;
  const onesweep_workspace w = onesweep_layout(job.mode, n, int(sizeof(U)), vb, job.tuning.ring, false, caller_alternates);
  const auto at = w.layout.carve({static_cast<std::byte*>(job.workspace), job.workspace_bytes});
  p.ctl = reinterpret_cast<control*>(at[w.control]);
  p.ring = reinterpret_cast<unsigned long long*>(at[w.ring]);
  p.key_alt[0] = caller_alternates ? job.key_alt : reinterpret_cast<U*>(at[w.key_alt[0]]);
  p.key_alt[1] = w.key_alt[1] >= 0 ? reinterpret_cast<U*>(at[w.key_alt[1]]) : nullptr;
  p.value_alt = caller_alternates ? job.value_alt : w.value_alt >= 0 ? reinterpret_cast<V*>(at[w.value_alt]) : nullptr;
  // Where the planned passes end: the device may skip some, and the finish kernel then copies.
  if (caller_alternates && (passes.count & 1)) p.result = result_buffer::alternate;

  const std::uint64_t tiles = (n + K::threads * K::items - 1) / (K::threads * K::items);
  if (tiles * std::uint64_t(passes.count) >= (1ull << 31) || n >= (1ull << 40))
    throw invalid_argument("radix: " + std::to_string(n) + " elements are more than the CUDA engine handles");
  p.num_tiles = std::uint32_t(tiles);

  int dev = 0, sms = 0;
  RADIX_CUDA_CHECK(cudaGetDevice(&dev));
  RADIX_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));

  // 1. zero the control block and the part of the ring this sort will use
  const std::uint64_t ring_slots = std::min<std::uint64_t>(std::uint64_t(1) << job.tuning.ring.log2,
                                                           tiles * std::uint64_t(passes.count));
  RADIX_CUDA_CHECK(cudaMemsetAsync(at[w.control], 0, (at[w.ring] - at[w.control]) + ring_slots * radix_size * sizeof(unsigned long long),
                                   stream));

  // 2. all-digit histogram, order check, device-side pass plan
  histogram_params<U> hp;
  hp.keys = job.keys;
  hp.n = n;
  hp.codec = p.codec;
  hp.range_mask = p.range_mask;
  hp.passes = passes;
  hp.ctl = p.ctl;
  // 32-bit keys only (scatter_agent::can_narrow); the high half must be in range to be checked
  // (not with an inset: the plan takes the high half from the input's first key)
  hp.narrow_ok = !std::is_void_v<narrow_key_t<U>> && job.mode == sort_mode::keys && end_bit == key_bits &&
                 job.tuning.narrow && !job.inset.active();
  hp.inset = job.inset;
  if (job.inset.active()) {
    hp.inset_home = job.keys;
    hp.inner_begin = p.inset.begin;
    hp.inner_end = p.inset.end;
  }
  hp.byte_digits = passes.count == int(sizeof(U));
  for (int ps = 0; ps < passes.count; ++ps)
    hp.byte_digits &= passes.shift[ps] == 8 * ps && passes.bits[ps] == 8 && passes.bin_offset[ps] == 256 * ps;
  // the buckets kernel after the top pass, where the histogram kernel finds
  // every bucket of the top digit within a block's capacity (control::msd)
  const int bucket_threads = msd_bucket_threads<U, V>(job, n, passes, caller_alternates);
  hp.bucket_capacity = unsigned(bucket_threads) * block_sort_agent<U, V>::items;
  constexpr std::uint64_t chunk = std::uint64_t(K::hist_threads) * K::hist_vectors * (16 / sizeof(U));
  const std::uint64_t hist_grid = std::min<std::uint64_t>((n + chunk - 1) / chunk, std::uint64_t(sms) * resident.histogram);
  if constexpr (K::inset_compiled) {
    if (hp.inset.active())
      onesweep_histogram_kernel<U, K::hist_threads, K::hist_vectors, histogram_shape::min_blocks, true>
          <<<unsigned(hist_grid), K::hist_threads, 0, stream>>>(hp);
    else
      K::histogram_kernel<<<unsigned(hist_grid), K::hist_threads, 0, stream>>>(hp);
  } else {
    K::histogram_kernel<<<unsigned(hist_grid), K::hist_threads, 0, stream>>>(hp);
  }
  RADIX_CUDA_CHECK_LAUNCH("radix onesweep_histogram_kernel");

  // 3'. keys only, every bit of 1-byte integer keys: a counting sort writes them out
  if constexpr (sizeof(U) == 1 && std::is_same_v<V, no_value>) {
    if (job.mode == sort_mode::keys && p.codec.linear() && job.begin_bit == 0 && end_bit == key_bits &&
        passes.count == 1) {
      const std::uint64_t grid = std::min<std::uint64_t>((n + 4095) / 4096, std::uint64_t(sms) * 8);
      launch_dependent(pdl, onesweep_expand_kernel<U>, unsigned(grid), 256, 0, stream, p,
                       int(passes.bin_offset[0]));
      return 0;  // written in place
    }
  }

  // 3. one kernel per digit, a persistent grid taking tiles by ticket
  const std::uint64_t scatter_grid = std::min<std::uint64_t>(tiles, std::uint64_t(sms) * resident.scatter);
  auto scatter_kernel = K::scatter_kernel_of(p.codec);
  if constexpr (K::inset_compiled)
    if (job.inset.active()) scatter_kernel = K::template scatter_kernel_for<scatter_forms::linear_inset>;
  // (each launched as a dependent of the kernel before it: no gap between passes)
  for (int ps = 0; ps < passes.count; ++ps)
    launch_dependent(pdl, scatter_kernel, unsigned(scatter_grid), K::threads, K::scatter::smem_bytes, stream,
                     p, ps, int(passes.shift[ps]), int(passes.bits[ps]), int(passes.bin_offset[ps]));
  if constexpr (msd_buckets_compiled<U, V>) {
    if (bucket_threads > 0) {
      const int top = passes.count - 1;
      launch_dependent(pdl, onesweep_buckets_kernel<U, V>, 1u << passes.bits[top], unsigned(bucket_threads),
                       block_sort_agent<U, V>::smem_bytes(bucket_threads), stream, p, int(passes.bin_offset[top]));
    }
  }

  // 4. copy to p.result's buffer where the passes that ran ended in the other / identity argsort
  // (the buckets kernel does it where it was launched: one launch fewer at the sizes it serves)
  if (bucket_threads > 0) return p.result == result_buffer::alternate ? 1 : 0;
  const std::uint64_t fin_grid = std::min<std::uint64_t>((n + 1023) / 1024, std::uint64_t(sms) * 8);
  launch_dependent(pdl, onesweep_finish_kernel<U, V>, unsigned(fin_grid), 256, 0, stream, p);
  return p.result == result_buffer::alternate ? 1 : 0;
}

#define RADIX_ONESWEEP_INSTANTIATE(U, V)                                                                  \
  template int onesweep_sort<U, V>(const onesweep_job<U, V>&);                                            \
  template std::size_t onesweep_workspace_bytes<U, V>(sort_mode, std::uint64_t, const onesweep_tuning&, bool, bool); \
  template std::size_t onesweep_shared_bytes<U, V>(std::uint64_t, const onesweep_tuning&);

/// Every value type of keys U (onesweep_k<bytes>.cu, one key width each).
/// The dev build (RADIX_CUDA_TYPES=dev) keeps keys only and 4-byte values,
/// and only where IN_DEV is 1 (32- and 64-bit keys): onesweep_compiled says the same.
#if defined(RADIX_CUDA_DEV_TYPES) && RADIX_CUDA_DEV_TYPES
#define RADIX_ONESWEEP_INSTANTIATE_KEY(U, IN_DEV) RADIX_ONESWEEP_DEV_##IN_DEV(U)
#define RADIX_ONESWEEP_DEV_0(U)
#define RADIX_ONESWEEP_DEV_1(U) RADIX_ONESWEEP_INSTANTIATE(U, no_value) RADIX_ONESWEEP_INSTANTIATE(U, std::uint32_t)
#else
#define RADIX_ONESWEEP_INSTANTIATE_KEY(U, IN_DEV)                                          \
  RADIX_ONESWEEP_INSTANTIATE(U, no_value) RADIX_ONESWEEP_INSTANTIATE(U, std::uint8_t)       \
  RADIX_ONESWEEP_INSTANTIATE(U, std::uint16_t) RADIX_ONESWEEP_INSTANTIATE(U, std::uint32_t) \
  RADIX_ONESWEEP_INSTANTIATE(U, std::uint64_t) RADIX_ONESWEEP_INSTANTIATE(U, v128)
#endif

}  // namespace radix::cuda_detail
