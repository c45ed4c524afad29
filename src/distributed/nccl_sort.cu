// The distributed sort over NCCL (include/radix/nccl.hpp), in two orders:
// sort first (a local sort with the CUDA engine, a splitter search over
// all-reduced counts, one exchange with grouped send/receive, a merge of the
// received runs) and partition first (a pass by the top digit, the same
// splitter search inside the boundary buckets, the buckets moved a group a
// step and sorted as they arrive). The planning arithmetic is
// src/core/radix/core/exchange_plan.hpp and bucket_exchange.hpp (tested on
// the CPU with virtual ranks); this file holds the device kernels and the
// collective sequence. Why these shapes and what they cost:
// src/distributed/NOTES.md.
#include <nccl.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "cuda/common/common.cuh"
#include "cuda/device_sort.hpp"
#include "distributed/testing.hpp"
#include "radix/core/bucket_exchange.hpp"
#include "radix/core/exchange_plan.hpp"
#include "radix/core/merge_path.hpp"
#include "radix/core/multiway_merge.hpp"
#include "radix/core/ordered_bits.hpp"
#include "radix/nccl.hpp"

#define RADIX_NCCL_CHECK(call)                                                                               \
  do {                                                                                                       \
    const ncclResult_t radix_r_ = (call);                                                                    \
    if (radix_r_ != ncclSuccess)                                                                             \
      throw ::radix::device_error(std::string("radix: NCCL call ") + #call + " failed: " +                   \
                                  ncclGetErrorString(radix_r_) + " at " + __FILE__ + ":" + std::to_string(__LINE__)); \
  } while (0)

namespace radix::nccl {
namespace {


using core::compare_key;

/// Partition first: buckets by the top digit of the compared key, which is
/// the splitter search's first digit, so that its first round's candidates
/// are the buckets' first keys (core/bucket_exchange.hpp).
constexpr int top_digit_bits = core::splitter_search::default_digit_bits;
constexpr int top_buckets = 1 << top_digit_bits;

template <class U>
compare_key<U> make_compare(const sort_request& req, int begin, int end) {
  return core::make_compare_key<U>(req.key, req.opts.direction, req.opts.floats, begin, end);
}

// ---- counting: how many of a rank's sorted keys lie below (or at most) each candidate ----

template <class U>
__global__ void count_keys(const U* keys, std::uint64_t n, compare_key<U> f, const std::uint64_t* candidates,
                           std::uint32_t m, std::uint64_t* out, bool at_most) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < m) out[i] = core::count_below<U, std::uint64_t>(keys, n, f, candidates[i], at_most);
}

// ---- the stable merge of two sorted runs (core/merge_path.hpp). Ties take
// the left run first: it holds the lower ranks. ----

/// 8 outputs per thread keep the per-thread co-rank search (11 steps over
/// shared memory) small against the copying; 256 threads x 8 = 2048 keys,
/// whose two tile buffers fit 36 KiB of shared memory at 8-byte keys.
constexpr int merge_threads = 256;
constexpr int merge_items = 8;
constexpr int merge_tile = merge_threads * merge_items;

struct alignas(16) value16 {
  std::uint64_t lo, hi;
};

template <class U>
__global__ void merge_partition(const U* a, std::uint64_t na, const U* b, std::uint64_t nb, compare_key<U> f,
                                std::uint64_t tiles, std::uint64_t* a_cut) {
  const std::uint64_t t = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t > tiles) return;
  const std::uint64_t k = std::min<std::uint64_t>(t * merge_tile, na + nb);
  a_cut[t] = core::co_rank<U, std::uint64_t>(a, na, b, nb, k, f);
}

template <class U, class V>
__global__ void __launch_bounds__(merge_threads)
    merge_tiles(const U* a, std::uint64_t na, const U* b, std::uint64_t nb, const V* va, const V* vb, U* out, V* vout,
                compare_key<U> f, const std::uint64_t* a_cut) {
  __shared__ U in[merge_tile];
  __shared__ U merged[merge_tile];
  __shared__ std::uint16_t from[merge_tile];  // position in `in` of each merged key (values follow it)
  const std::uint64_t t = blockIdx.x;
  const std::uint64_t k0 = t * merge_tile;
  const std::uint64_t k1 = std::min<std::uint64_t>(k0 + merge_tile, na + nb);
  const std::uint64_t a0 = a_cut[t], a1 = a_cut[t + 1];
  const std::uint64_t b0 = k0 - a0;
  const int la = int(a1 - a0);
  const int len = int(k1 - k0);
  const int lb = len - la;

  for (int i = threadIdx.x; i < len; i += merge_threads) in[i] = i < la ? a[a0 + i] : b[b0 + i - la];
  __syncthreads();

  core::merge_steps(in, la, lb, int(threadIdx.x) * merge_items, merge_items, f, merged, from);
  __syncthreads();

  for (int i = threadIdx.x; i < len; i += merge_threads) {
    out[k0 + i] = merged[i];
    if constexpr (!std::is_same_v<V, core::no_value>) {
      const int s = from[i];
      vout[k0 + i] = s < la ? va[a0 + s] : vb[b0 + s - la];
    }
  }
}

template <class U, class V>
void merge_runs(const void* keys_in, const void* values_in, std::uint64_t left, std::uint64_t na, std::uint64_t nb,
                void* keys_out, void* values_out, const compare_key<U>& f, cudaStream_t stream) {
  const U* a = static_cast<const U*>(keys_in) + left;
  const U* b = a + na;
  const V* va = nullptr;
  const V* vb = nullptr;
  V* vout = nullptr;
  if constexpr (!std::is_same_v<V, core::no_value>) {
    va = static_cast<const V*>(values_in) + left;
    vb = va + na;
    vout = static_cast<V*>(values_out) + left;
  }
  const std::uint64_t tiles = (na + nb + merge_tile - 1) / merge_tile;
  if (tiles > 0x7FFFFFFFull) throw invalid_argument("radix: distributed merge of more than 2^42 elements");
  std::uint64_t* a_cut = nullptr;
  RADIX_CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&a_cut), (tiles + 1) * sizeof(std::uint64_t), stream));
  merge_partition<U><<<unsigned((tiles + 1 + 255) / 256), 256, 0, stream>>>(a, na, b, nb, f, tiles, a_cut);
  RADIX_CUDA_CHECK_LAUNCH("merge_partition");
  merge_tiles<U, V><<<unsigned(tiles), merge_threads, 0, stream>>>(a, na, b, nb, va, vb,
                                                                    static_cast<U*>(keys_out) + left, vout, f, a_cut);
  RADIX_CUDA_CHECK_LAUNCH("merge_tiles");
  RADIX_CUDA_CHECK(cudaFreeAsync(a_cut, stream));
}

template <class U, class F>
decltype(auto) with_value_type(std::size_t value_bytes, F&& f) {
  switch (value_bytes) {
    case 0: return f.template operator()<core::no_value>();
    case 1: return f.template operator()<std::uint8_t>();
    case 2: return f.template operator()<std::uint16_t>();
    case 4: return f.template operator()<std::uint32_t>();
    case 8: return f.template operator()<std::uint64_t>();
    default: return f.template operator()<value16>();
  }
}

template <class F>
decltype(auto) with_key_type(int key_bytes, F&& f) {
  switch (key_bytes) {
    case 1: return f.template operator()<std::uint8_t>();
    case 2: return f.template operator()<std::uint16_t>();
    case 4: return f.template operator()<std::uint32_t>();
    default: return f.template operator()<std::uint64_t>();
  }
}

// ---- the collective sequence ----------------------------------------------------

/// What every rank tells the others first: its sizes, and a fingerprint of
/// its request that must match theirs.
enum meta_word : int {
  meta_valid,
  meta_n,
  meta_capacity,
  meta_key,
  meta_op,
  meta_options,
  meta_order,   ///< the exchange_order this rank can take (order_wish)
  meta_budget,  ///< partition first: the elements a receive slot holds
  meta_target,  ///< partition first: the group size it asks for
  meta_copies,  ///< partition first: 1 where the rank can copy its peers' buckets itself (peers_mapped)
  meta_words
};

std::uint64_t key_fingerprint(const sort_request& r) {
  return std::uint64_t(r.key.bytes) | std::uint64_t(r.key.kind) << 8 | std::uint64_t(r.value_bytes) << 16 |
         std::uint64_t(r.key.inf_bits) << 32;  // tells float16 from bfloat16
}
std::uint64_t options_fingerprint(const sort_request& r) {
  const auto& o = r.opts;
  return std::uint64_t(o.direction) | std::uint64_t(o.floats) << 8 | std::uint64_t(std::uint8_t(o.begin_bit)) << 16 |
         std::uint64_t(std::uint16_t(std::int16_t(o.end_bit))) << 24;
}

/// The local checks; an empty string when the request is fine.
std::string local_problem(const sort_request& req, const cuda::alternates& alt, std::uint64_t capacity) {
  if (req.op != operation::keys && req.op != operation::pairs)
    return "radix::nccl::sort sorts keys or pairs (argsort: pass global indices as values)";
  if (req.segs.segmented()) return "radix::nccl::sort does not take segments";
  if (req.key.bytes != 1 && req.key.bytes != 2 && req.key.bytes != 4 && req.key.bytes != 8)
    return "radix::nccl::sort takes keys of 1, 2, 4 or 8 bytes, not " + std::to_string(req.key.bytes);
  if (req.op == operation::pairs) {
    const std::size_t v = req.value_bytes;
    if (v != 1 && v != 2 && v != 4 && v != 8 && v != 16)
      return "radix::nccl::sort takes values of 1, 2, 4, 8 or 16 bytes, not " + std::to_string(v);
    for (const void* p : {static_cast<const void*>(req.values), static_cast<const void*>(alt.values)})
      if (reinterpret_cast<std::uintptr_t>(p) % v != 0) return "radix::nccl::sort: values not aligned to their size";
  }
  if (capacity < req.n)
    return "radix::nccl::sort: capacity " + std::to_string(capacity) + " is below this rank's n " +
           std::to_string(req.n);
  if (capacity > 0 && (req.keys == nullptr || alt.keys == nullptr ||
                       (req.op == operation::pairs && (req.values == nullptr || alt.values == nullptr))))
    return "radix::nccl::sort: null buffer";
  auto overlap = [&](const void* a, const void* b, std::size_t elem) {
    const auto x = reinterpret_cast<std::uintptr_t>(a), y = reinterpret_cast<std::uintptr_t>(b);
    const std::uintptr_t len = std::uintptr_t(capacity * elem);
    return x < y + len && y < x + len;
  };
  if (capacity > 0 && overlap(req.keys, alt.keys, req.key.bytes))
    return "radix::nccl::sort: the keys and their alternates overlap within `capacity` elements";
  if (capacity > 0 && req.op == operation::pairs && overlap(req.values, alt.values, req.value_bytes))
    return "radix::nccl::sort: the values and their alternates overlap within `capacity` elements";
  try {
    (void)cuda::workspace_bytes(req, alt);  // the single-GPU sort's own checks (bit range, overlaps)
  } catch (const invalid_argument& e) {
    return e.what();
  }
  return {};
}

/// Where the control words live: what NCCL reads and writes in the
/// collective steps. In one process NCCL reaches a peer's buffers directly
/// (P2P pointers), so they must be memory the peers can see: cudaMalloc's,
/// not the stream-ordered pool's. cudaMalloc waits for every peer GPU, so it
/// happens once per communicator (prepare), not inside a sort.
/// What partition first's all-gather of the buckets carries a rank: where
/// its buckets 1 to top_buckets - 1 begin, then its bucket-ordered key and
/// value buffers' device addresses (for peers that copy from them).
constexpr std::size_t bucket_record_words = top_buckets + 1;

struct control_layout {
  std::size_t gather, candidates, counts, cuts, cut_gather, bucket_starts, bucket_gather, pointers, words;
  explicit control_layout(int p) {
    const std::size_t max_candidates = std::size_t(std::max(p - 1, 1)) * ((1u << core::splitter_search::default_digit_bits) - 1);
    const std::size_t per_round = std::max<std::size_t>(max_candidates, std::size_t(2) * p);
    gather = meta_words;
    candidates = gather + std::size_t(p) * meta_words;
    counts = candidates + per_round;
    cuts = counts + per_round;
    cut_gather = cuts + std::size_t(2) * p;
    bucket_starts = cut_gather + std::size_t(2) * p * p;
    bucket_gather = bucket_starts + bucket_record_words;
    pointers = bucket_gather + std::size_t(p) * bucket_record_words;
    words = pointers + 1;
  }
};

/// Partition first sorts its groups on this many streams (the caller's and
/// sort_streams() - 1 of its own): one group, a bucket of a few million keys,
/// leaves much of the GPU idle between its passes. On one H200, the 256
/// buckets of 2^30 u32 keys sort in 33.4 ms on one stream, 25.8 on two, 22.0
/// on four (bench/cuda/experiments/bucket_sweep.cu, 256 buckets). RADIX_NCCL_SORT_STREAMS
/// (1 to max_sort_streams) sets it for A/B measurements.
constexpr int default_sort_streams = 4;
constexpr int max_sort_streams = 8;
int sort_streams() {
  static const int n = [] {
    const char* e = std::getenv("RADIX_NCCL_SORT_STREAMS");
    if (!e || !*e) return default_sort_streams;
    char* end = nullptr;
    const long v = std::strtol(e, &end, 10);
    // (anything but a count of 1 to max_sort_streams keeps the default)
    return *end == '\0' && v >= 1 && v <= max_sort_streams ? int(v) : default_sort_streams;
  }();
  return n;
}

/// Per communicator: the control words; the streams partition first runs
/// beside the caller's: the exchange (high priority, so that NCCL's blocks
/// take the SMs the sorting frees first), the other sort streams, and the
/// control stream (high priority too: the boundary buckets' sorts and the
/// splitter search, which run beside the first groups' steps); the
/// pool the sort's scratch comes from; and whether the ranks share this
/// process with their peers mapped (gpu_group), so that a rank can copy a
/// peer's buckets itself with the copy engines.
struct control_memory {
  int device = -1;
  std::uint64_t* d = nullptr;
  std::size_t words = 0;
  cudaStream_t exchange = nullptr;
  cudaStream_t control = nullptr;
  cudaStream_t sorting[max_sort_streams - 1] = {};
  /// Stream-ordered, and keeping what the sort frees until release(): the
  /// device's default pool hands freed memory back at every synchronisation,
  /// and mapping partition first's receive slots anew (a fifth of the
  /// buffers) took 2.7 ms of a 25 ms sort of 2^31 keys on two H200s, and
  /// giving them back about as much again
  /// (bench/results/nccl-h200x2-2026-11-28-scratch-pool.md).
  cudaMemPool_t pool = nullptr;
  bool peers_mapped = false;
};
std::mutex control_mutex;
std::unordered_map<ncclComm_t, control_memory>& control_registry() {
  static std::unordered_map<ncclComm_t, control_memory> r;
  return r;
}

/// The communicator's control words on the current device, allocated on first use.
std::uint64_t* control_words(ncclComm_t comm, std::size_t words) {
  int device = 0;
  RADIX_CUDA_CHECK(cudaGetDevice(&device));
  std::lock_guard<std::mutex> lock(control_mutex);
  control_memory& m = control_registry()[comm];
  const bool moved = m.device >= 0 && m.device != device;  // (everything below belongs to one device)
  if (m.d && (moved || m.words < words)) {
    RADIX_CUDA_CHECK(cudaFree(m.d));
    m.d = nullptr;
  }
  if (m.exchange && moved) {
    RADIX_CUDA_CHECK(cudaStreamDestroy(m.exchange));
    RADIX_CUDA_CHECK(cudaStreamDestroy(m.control));
    m.exchange = nullptr;
    m.control = nullptr;
    for (auto& x : m.sorting) {
      RADIX_CUDA_CHECK(cudaStreamDestroy(x));
      x = nullptr;
    }
  }
  if (!m.d) {
    RADIX_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&m.d), words * sizeof(std::uint64_t)));
    m.device = device;
    m.words = words;
  }
  if (!m.exchange) {
    int least = 0, greatest = 0;
    RADIX_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    RADIX_CUDA_CHECK(cudaStreamCreateWithPriority(&m.exchange, cudaStreamNonBlocking, greatest));
    RADIX_CUDA_CHECK(cudaStreamCreateWithPriority(&m.control, cudaStreamNonBlocking, greatest));
    for (auto& x : m.sorting) RADIX_CUDA_CHECK(cudaStreamCreateWithFlags(&x, cudaStreamNonBlocking));
  }
  if (m.pool && moved) {
    RADIX_CUDA_CHECK(cudaMemPoolDestroy(m.pool));
    m.pool = nullptr;
  }
  if (!m.pool) m.pool = cuda_detail::make_keeping_pool(device, ~std::uint64_t(0));
  return m.d;
}

/// The communicator's control memory record (after control_words on this device).
control_memory control_of(ncclComm_t comm) {
  std::lock_guard<std::mutex> lock(control_mutex);
  return control_registry()[comm];
}

/// The control words, with a host mirror.
struct control_block {
  std::uint64_t* d = nullptr;
  cudaStream_t stream;
  std::vector<std::uint64_t> h;
  control_block(ncclComm_t comm, std::size_t words, cudaStream_t s)
      : d(control_words(comm, words)), stream(s), h(words) {}
  void upload(std::size_t at, const std::uint64_t* src, std::size_t words) {
    std::copy(src, src + words, h.begin() + at);
    RADIX_CUDA_CHECK(cudaMemcpyAsync(d + at, h.data() + at, words * 8, cudaMemcpyHostToDevice, stream));
  }
  void download(std::size_t at, std::size_t words) {
    RADIX_CUDA_CHECK(cudaMemcpyAsync(h.data() + at, d + at, words * 8, cudaMemcpyDeviceToHost, stream));
    RADIX_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
};

/// Sends of more than this many bytes are cut into pieces (matched in order
/// by the peer's receives of the same group), keeping each count well inside
/// what every NCCL version takes.
constexpr std::uint64_t exchange_piece_bytes = 1ull << 30;

void send_bytes(const void* p, std::uint64_t bytes, int peer, ncclComm_t comm, cudaStream_t s) {
  for (std::uint64_t at = 0; at < bytes; at += exchange_piece_bytes)
    RADIX_NCCL_CHECK(ncclSend(static_cast<const char*>(p) + at, std::min(exchange_piece_bytes, bytes - at), ncclUint8,
                              peer, comm, s));
}
void recv_bytes(void* p, std::uint64_t bytes, int peer, ncclComm_t comm, cudaStream_t s) {
  for (std::uint64_t at = 0; at < bytes; at += exchange_piece_bytes)
    RADIX_NCCL_CHECK(ncclRecv(static_cast<char*>(p) + at, std::min(exchange_piece_bytes, bytes - at), ncclUint8, peer,
                              comm, s));
}

struct run {
  std::uint64_t offset, length;
};

/// RADIX_NCCL_PROFILE=1: each rank prints the device time of its phases to
/// stderr when its sort ends (this synchronizes; for benchmarks only), and
/// when the host had enqueued each of them, from the call's entry: a phase
/// enqueued after its predecessor ended left the GPU idle meanwhile.
class phase_clock {
 public:
  using host_clock = std::chrono::steady_clock;
  phase_clock(cudaStream_t s, host_clock::time_point entry)
      : stream_(s), on_(std::getenv("RADIX_NCCL_PROFILE") != nullptr), entry_(entry) {
    mark("start");
  }
  void mark(const char* name) {
    if (!on_) return;
    cudaEvent_t e;
    RADIX_CUDA_CHECK(cudaEventCreate(&e));
    RADIX_CUDA_CHECK(cudaEventRecord(e, stream_));
    events_.push_back({name, e, std::chrono::duration<double, std::milli>(host_clock::now() - entry_).count()});
  }
  void report(int rank, int ranks, std::uint64_t n) {
    if (!on_) return;
    RADIX_CUDA_CHECK(cudaEventSynchronize(events_.back().event));
    const double synchronized = std::chrono::duration<double, std::milli>(host_clock::now() - entry_).count();
    std::string line = "radix::nccl rank " + std::to_string(rank) + "/" + std::to_string(ranks) + " n " +
                       std::to_string(n) + ":";
    float total = 0;
    for (std::size_t i = 1; i < events_.size(); ++i) {
      float ms = 0;
      RADIX_CUDA_CHECK(cudaEventElapsedTime(&ms, events_[i - 1].event, events_[i].event));
      total += ms;
      char b[96];
      std::snprintf(b, sizeof b, " %s %.3f ms (host +%.3f),", events_[i].name, ms, events_[i].host_ms);
      line += b;
    }
    char b[160];
    std::snprintf(b, sizeof b, " total %.3f ms; host: entry to start %.3f ms, entry to synchronized %.3f ms\n", total,
                  events_.front().host_ms, synchronized);
    std::fputs((line + b).c_str(), stderr);
  }
  ~phase_clock() {
    for (auto& e : events_) cudaEventDestroy(e.event);
  }

 private:
  struct stamp {
    const char* name;
    cudaEvent_t event;
    double host_ms;  // enqueued, from the call's entry
  };
  cudaStream_t stream_;
  bool on_;
  host_clock::time_point entry_;
  std::vector<stamp> events_;
};

}  // namespace

}  // namespace radix::nccl

namespace radix::nccl_detail {
std::atomic<std::uint64_t>& overlapped_cut_searches() {
  static std::atomic<std::uint64_t> n{0};
  return n;
}
}  // namespace radix::nccl_detail

namespace radix::nccl {

void prepare(ncclComm_t comm) {
  int p = 0;
  RADIX_NCCL_CHECK(ncclCommCount(comm, &p));
  (void)control_words(comm, control_layout(p).words);
}

void release(ncclComm_t comm) {
  std::lock_guard<std::mutex> lock(control_mutex);
  auto it = control_registry().find(comm);
  if (it == control_registry().end()) return;
  int current = 0;
  cudaGetDevice(&current);
  cudaSetDevice(it->second.device);
  if (it->second.exchange) cudaStreamDestroy(it->second.exchange);
  if (it->second.control) cudaStreamDestroy(it->second.control);
  for (auto x : it->second.sorting)
    if (x) cudaStreamDestroy(x);
  // (memory still owed to pending frees goes back once they complete)
  if (it->second.pool) cudaMemPoolDestroy(it->second.pool);
  cudaFree(it->second.d);
  cudaSetDevice(current);
  control_registry().erase(it);
}

namespace {

// ---- the collective sequence, step by step --------------------------------------

/// The two shapes of the distributed sort (src/distributed/NOTES.md).
enum class exchange_order {
  /// Sort locally, find the cuts, send the sorted runs, merge them. Every key
  /// and value type; no memory beyond the caller's buffers.
  sort_first,
  /// One stable pass by the top digit; the cuts found inside the buckets that
  /// hold a share boundary (those sorted whole first); each share's buckets
  /// sent a group (an aligned block of buckets) at a time and each group
  /// sorted by the bits below those its keys share as it arrives, so that the
  /// link and the sorting overlap and nothing is merged. 4- and 8-byte keys
  /// alone or with 4- or 8-byte values, a bit range wider than one digit. It
  /// needs receive slots besides (receive_slots::count x capacity /
  /// group_fraction elements), and sends the sorted runs as sort_first does
  /// where one bucket outgrows a slot (skewed keys).
  partition_first,
};

/// Partition first: a receive slot, and so a group, holds at most
/// capacity / group_fraction elements: many steps keep the last groups'
/// sorts, which nothing overlaps, short, and the six slots take about a
/// fifth of the buffers' memory more. Uniform keys over p ranks fill a
/// bucket to capacity / 256 x p, well inside a slot.
constexpr std::uint64_t group_fraction = 32;
/// Partition first: blocks of buckets are halved down to this many elements
/// (or one bucket): a group of one bucket sorts in a pass less than a wider
/// block (its keys share all the top digit's bits), and smaller groups only
/// add steps, each with its launches and look-back.
constexpr std::uint64_t group_target = std::uint64_t(1) << 20;
/// The automatic choice partitions first where the ranks copy the groups
/// with the copy engines and hold at least this many bytes of keys and
/// values each over `p` ranks. On H200s (bench/results/nccl-h200x4-2026-11-28-orders.md):
/// two ranks win from 2 GiB a rank (u32 keys 2^30: 13.5 against sort first's
/// 18.2 ms; u64/u64 pairs 2^28: 16.1 against 17.8), about tie at 1 GiB (u32
/// keys 8.2 against 8.9; pairs 11.3 against 10.3) and lose below; four win
/// from 512 MiB a rank (u32 keys 2^29: 6.1 against 7.8) and lose at 256 MiB
/// (6.0 against 4.4), where a bucket's sort is too short to fill the GPU.
/// Sort first's merge grows with the ranks. Over NCCL's send and receive
/// partition first lost even at 4 GiB a rank.
std::uint64_t partition_first_min_bytes(int p) {
  return p >= 4 ? std::uint64_t(512) << 20 : std::uint64_t(2) << 30;
}

/// What a rank can take, told to the others in meta_order.
enum order_wish : std::uint64_t { wish_sort_first = 0, wish_automatic = 1, wish_partition_first = 2 };

bool partition_capable(const sort_request& req) {
  const int kb = int(req.key.bytes);
  const int end = req.opts.end_bit < 0 ? kb * 8 : req.opts.end_bit;
  const bool values_ok = req.op == operation::keys || req.value_bytes == 4 || req.value_bytes == 8;
  return (kb == 4 || kb == 8) && values_ok && end - req.opts.begin_bit > top_digit_bits;
}

/// RADIX_NCCL_ORDER=sort_first or partition_first (tests, A/B measurements),
/// else the automatic choice; sort first where the request cannot take the other.
std::uint64_t wish_of(const sort_request& req) {
  if (!partition_capable(req)) return wish_sort_first;
  const char* e = std::getenv("RADIX_NCCL_ORDER");
  if (e && std::strcmp(e, "sort_first") == 0) return wish_sort_first;
  if (e && std::strcmp(e, "partition_first") == 0) return wish_partition_first;
  return wish_automatic;
}

/// Device scratch on a stream, grown when a step needs more (stream-ordered:
/// nothing NCCL reaches, nothing that waits for peers), from the
/// communicator's pool (control_memory::pool).
struct scratch {
  cudaStream_t stream;
  cudaMemPool_t pool;
  void* p = nullptr;
  std::size_t bytes = 0;
  void ensure(std::size_t need) {
    if (need <= bytes) return;
    if (p) RADIX_CUDA_CHECK(cudaFreeAsync(std::exchange(p, nullptr), stream));
    bytes = 0;
    RADIX_CUDA_CHECK(cudaMallocFromPoolAsync(&p, need, pool, stream));
    bytes = need;
  }
  ~scratch() {
    if (p) cudaFreeAsync(p, stream);
  }
};

/// One rank's view of the sort, shared by the steps below.
struct rank_state {
  const sort_request& req;
  ncclComm_t comm;
  cudaStream_t stream;
  int p, me;
  control_block& ctl;
  const control_layout& lay;
  phase_clock& clock;
  void* key_buf[2];
  void* value_buf[2];
  int kb;
  std::size_t vb;
  int begin_bit, end_bit;
  std::vector<std::uint64_t> counts;  // every rank's n
  std::uint64_t total;

  char* key_at(int buf, std::uint64_t i) const { return static_cast<char*>(key_buf[buf]) + i * kb; }
  char* value_at(int buf, std::uint64_t i) const { return static_cast<char*>(value_buf[buf]) + i * vb; }
  /// The request cut to [first, first + n) of buffer `buf`, sorting bits [begin, end).
  sort_request part(int buf, std::uint64_t first, std::uint64_t n, int begin, int end) const {
    sort_request r = req;
    r.keys = key_at(buf, first);
    r.values = vb ? value_at(buf, first) : nullptr;
    r.n = n;
    r.opts.begin_bit = begin;
    r.opts.end_bit = end;
    return r;
  }
  cuda::alternates part_alternates(int buf, std::uint64_t first) const {
    return {key_at(buf, first), vb ? value_at(buf, first) : nullptr};
  }
  /// The same rank's view working on another stream, through control block
  /// `c` (a host mirror of its own; the device words are the same, so the
  /// two views must use different regions while both are in flight).
  rank_state on(cudaStream_t other, control_block& c) const {
    return {req,       comm, other, p,  me, c,        lay,     clock, {key_buf[0], key_buf[1]}, {value_buf[0], value_buf[1]},
            kb,        vb,   begin_bit, end_bit, counts, total};
  }
  /// How many of buffer buf's n keys compare below (at most) each candidate,
  /// by binary search: the keys must be partitioned by every question asked.
  void count(int buf, std::uint64_t n, std::size_t cand_at, std::size_t m, std::size_t out_at, bool at_most) const {
    if (m == 0) return;
    with_key_type(kb, [&]<class U>() {
      count_keys<U><<<unsigned((m + 127) / 128), 128, 0, stream>>>(
          static_cast<const U*>(key_buf[buf]), n, make_compare<U>(req, begin_bit, end_bit), ctl.d + cand_at,
          std::uint32_t(m), ctl.d + out_at, at_most);
      RADIX_CUDA_CHECK_LAUNCH("count_keys");
    });
  }
};

/// A sort of `r` between its buffers and `alt`, the result moved back into
/// r's buffers where it ended in the alternates.
void sort_in_place(const rank_state& s, const sort_request& r, const cuda::alternates& alt, scratch& ws) {
  if (r.n == 0) return;
  ws.ensure(cuda::workspace_bytes(r, alt));
  if (cuda::sort(r, alt, ws.p, ws.bytes, s.stream) == 0) return;
  RADIX_CUDA_CHECK(cudaMemcpyAsync(r.keys, alt.keys, r.n * s.kb, cudaMemcpyDeviceToDevice, s.stream));
  if (s.vb)
    RADIX_CUDA_CHECK(cudaMemcpyAsync(r.values, alt.values, r.n * s.vb, cudaMemcpyDeviceToDevice, s.stream));
}

/// Where the shares begin in every rank's buffer `buf` (sorted, or in
/// buckets with the boundary buckets sorted): the splitter search, then each
/// rank's counts below and at the boundary keys, all-gathered.
core::exchange_plan find_cuts(rank_state& s, int buf) {
  control_block& ctl = s.ctl;
  const int p = s.p;
  const std::uint64_t n = s.counts[s.me];
  std::vector<std::uint64_t> targets;
  for (int q = 1; q < p; ++q) targets.push_back(core::share_begin(s.total, p, q));
  core::splitter_search search(s.end_bit - s.begin_bit, targets, s.total);
  while (!search.done()) {
    const auto& c = search.candidates();
    ctl.upload(s.lay.candidates, c.data(), c.size());
    s.count(buf, n, s.lay.candidates, c.size(), s.lay.counts, false);
    RADIX_NCCL_CHECK(ncclAllReduce(ctl.d + s.lay.counts, ctl.d + s.lay.counts, c.size(), ncclUint64, ncclSum, s.comm,
                                   s.stream));
    ctl.download(s.lay.counts, c.size());
    search.advance({ctl.h.data() + s.lay.counts, c.size()});
  }
  const std::size_t nb = std::size_t(p - 1);
  ctl.upload(s.lay.candidates, search.keys().data(), nb);
  s.count(buf, n, s.lay.candidates, nb, s.lay.cuts, false);
  s.count(buf, n, s.lay.candidates, nb, s.lay.cuts + nb, true);
  RADIX_NCCL_CHECK(ncclAllGather(ctl.d + s.lay.cuts, ctl.d + s.lay.cut_gather, 2 * nb, ncclUint64, s.comm, s.stream));
  ctl.download(s.lay.cut_gather, 2 * nb * p);
  std::vector<std::uint64_t> below(nb * p), at_most(nb * p);
  for (int r = 0; r < p; ++r)
    for (std::size_t b = 0; b < nb; ++b) {
      below[r * nb + b] = ctl.h[s.lay.cut_gather + r * 2 * nb + b];
      at_most[r * nb + b] = ctl.h[s.lay.cut_gather + r * 2 * nb + nb + b];
    }
  return core::exchange_plan(s.counts, below, at_most);
}

/// Sort first's exchange: each rank's sorted runs in rank order into the
/// other buffer, then merged pairwise, lower ranks on the left, between the
/// two buffers. Returns the buffer that holds the share.
int exchange_runs_and_merge(rank_state& s, int sorted, const core::exchange_plan& plan) {
  const int p = s.p, me = s.me, kb = s.kb;
  const std::size_t vb = s.vb;
  const cudaStream_t stream = s.stream;
  const int spare = sorted ^ 1;
  RADIX_NCCL_CHECK(ncclGroupStart());
  for (int q = 0; q < p; ++q) {
    if (q == me) continue;
    if (const std::uint64_t c = plan.send_count(me, q)) {
      send_bytes(s.key_at(sorted, plan.cut(me, q)), c * kb, q, s.comm, stream);
      if (vb) send_bytes(s.value_at(sorted, plan.cut(me, q)), c * vb, q, s.comm, stream);
    }
    if (const std::uint64_t c = plan.send_count(q, me)) {
      recv_bytes(s.key_at(spare, plan.recv_offset(me, q)), c * kb, q, s.comm, stream);
      if (vb) recv_bytes(s.value_at(spare, plan.recv_offset(me, q)), c * vb, q, s.comm, stream);
    }
  }
  RADIX_NCCL_CHECK(ncclGroupEnd());
  if (const std::uint64_t c = plan.send_count(me, me)) {
    RADIX_CUDA_CHECK(cudaMemcpyAsync(s.key_at(spare, plan.recv_offset(me, me)), s.key_at(sorted, plan.cut(me, me)),
                                     c * kb, cudaMemcpyDeviceToDevice, stream));
    if (vb)
      RADIX_CUDA_CHECK(cudaMemcpyAsync(s.value_at(spare, plan.recv_offset(me, me)),
                                       s.value_at(sorted, plan.cut(me, me)), c * vb, cudaMemcpyDeviceToDevice, stream));
  }
  s.clock.mark("exchange");

  std::vector<run> runs;
  for (int r = 0; r < p; ++r)
    if (const std::uint64_t c = plan.send_count(r, me)) runs.push_back({plan.recv_offset(me, r), c});
  int cur = spare;
  while (runs.size() > 1) {
    std::vector<run> next;
    const int dst = cur ^ 1;
    for (std::size_t i = 0; i < runs.size(); i += 2) {
      if (i + 1 == runs.size()) {
        RADIX_CUDA_CHECK(cudaMemcpyAsync(s.key_at(dst, runs[i].offset), s.key_at(cur, runs[i].offset),
                                         runs[i].length * kb, cudaMemcpyDeviceToDevice, stream));
        if (vb)
          RADIX_CUDA_CHECK(cudaMemcpyAsync(s.value_at(dst, runs[i].offset), s.value_at(cur, runs[i].offset),
                                           runs[i].length * vb, cudaMemcpyDeviceToDevice, stream));
        next.push_back(runs[i]);
        continue;
      }
      with_key_type(kb, [&]<class U>() {
        with_value_type<U>(vb, [&]<class V>() {
          merge_runs<U, V>(s.key_buf[cur], s.value_buf[cur], runs[i].offset, runs[i].length, runs[i + 1].length,
                           s.key_buf[dst], s.value_buf[dst], make_compare<U>(s.req, s.begin_bit, s.end_bit), stream);
        });
      });
      next.push_back({runs[i].offset, runs[i].length + runs[i + 1].length});
    }
    runs.swap(next);
    cur = dst;
  }
  s.clock.mark("merge");
  return cur;
}

/// Partition first: every rank's bucket counts (buffer `buf` ordered by top
/// digit), rank-major, counted below each bucket's first key and all-gathered,
/// with every rank's buffer addresses (`peers`: keys and values, rank by rank).
std::vector<std::uint64_t> gather_bucket_counts(rank_state& s, int buf, std::vector<std::uint64_t>& peers) {
  control_block& ctl = s.ctl;
  const int shift = s.end_bit - s.begin_bit - top_digit_bits;
  std::vector<std::uint64_t> firsts(top_buckets - 1);
  for (int d = 1; d < top_buckets; ++d) firsts[d - 1] = std::uint64_t(d) << shift;
  const std::uint64_t mine[2] = {reinterpret_cast<std::uintptr_t>(s.key_buf[buf]),
                                 reinterpret_cast<std::uintptr_t>(s.value_buf[buf])};
  ctl.upload(s.lay.candidates, firsts.data(), firsts.size());
  ctl.upload(s.lay.bucket_starts + top_buckets - 1, mine, 2);
  s.count(buf, s.counts[s.me], s.lay.candidates, firsts.size(), s.lay.bucket_starts, false);
  RADIX_NCCL_CHECK(ncclAllGather(ctl.d + s.lay.bucket_starts, ctl.d + s.lay.bucket_gather, bucket_record_words,
                                 ncclUint64, s.comm, s.stream));
  ctl.download(s.lay.bucket_gather, std::size_t(s.p) * bucket_record_words);
  std::vector<std::uint64_t> counts(std::size_t(s.p) * top_buckets);
  peers.assign(std::size_t(2) * s.p, 0);
  for (int r = 0; r < s.p; ++r) {
    const std::uint64_t* starts = ctl.h.data() + s.lay.bucket_gather + std::size_t(r) * bucket_record_words;
    std::uint64_t prev = 0;
    for (int d = 0; d < top_buckets; ++d) {
      const std::uint64_t next = d + 1 < top_buckets ? starts[d] : s.counts[r];
      if (next < prev || next > s.counts[r])
        throw device_error("radix::nccl::sort: rank " + std::to_string(r) + "'s bucket counts are inconsistent");
      counts[std::size_t(r) * top_buckets + d] = next - prev;
      prev = next;
    }
    peers[2 * r] = starts[top_buckets - 1];
    peers[2 * r + 1] = starts[top_buckets];
  }
  return counts;
}

/// Partition first's receive slots: room for `count` groups' keys and
/// values. Group j arrives in, or sorts through, slot j % count; the steps
/// before and after it use the others.
struct receive_slots {
  /// One a sort stream, the group being received, and one whose sort has
  /// yet to start.
  const int count = sort_streams() + 2;
  scratch memory;
  std::uint64_t elements = 0;  // a slot's room
  int kb = 0;
  std::size_t vb = 0;
  std::size_t key_room = 0;
  receive_slots(cudaStream_t s, cudaMemPool_t pool, std::uint64_t n, int key_bytes, std::size_t value_bytes)
      : memory{s, pool}, elements(n), kb(key_bytes), vb(value_bytes), key_room((n * key_bytes + 255) / 256 * 256) {
    memory.ensure(count * key_room + count * n * vb);
  }
  char* key(int slot) const { return static_cast<char*>(memory.p) + slot * key_room; }
  char* value(int slot) const {
    return vb ? static_cast<char*>(memory.p) + count * key_room + std::size_t(slot) * elements * vb : nullptr;
  }
};

/// How partition first's groups travel.
enum class bucket_transport {
  /// Grouped ncclSend / ncclRecv, a step at a time: any layout of processes.
  nccl,
  /// Each rank copies its groups' runs out of its peers' buffers itself
  /// (cudaMemcpyAsync between devices: the copy engines, no SM, and both
  /// directions of the link at once). Ranks of one process whose devices map
  /// each other's memory (gpu_group); one barrier at the end keeps every
  /// sender's buffer until its peers are done.
  copy_engines,
};

/// Passes the CUDA engine plans for `bits` bits (its digits: 8 bits unless
/// the options say otherwise): their parity says which of a double buffer's
/// sides ends with the result.
int planned_passes(const sort_request& req, int bits) {
  const int digit = req.opts.digit_bits > 0 ? std::min(req.opts.digit_bits, 8) : 8;
  return (bits + digit - 1) / digit;
}

/// Partition first's exchange (core/bucket_exchange.hpp): step j moves every
/// share's group j on the exchange stream while the sort streams sort the
/// groups that arrived before. A group whose sort takes an odd number of
/// passes arrives in a slot and is sorted into its place in the share; an
/// even number, it arrives in place and sorts through the slot. The steps are
/// enqueued in runs (run_steps), so that the first ones can start before the
/// cuts are known; finish() joins the streams.
class bucket_pipeline {
 public:
  /// peers: every rank's bucket-ordered key and value buffers (copy engines).
  bucket_pipeline(rank_state& s, int buf, const core::bucket_exchange& ex, receive_slots& slots, scratch& ws,
                  const std::vector<std::unique_ptr<scratch>>& sorter_ws, bucket_transport transport,
                  std::vector<std::uint64_t> peers)
      : s_(s), ex_(ex), slots_(slots), transport_(transport), buf_(buf), out_(buf ^ 1), peers_(std::move(peers)),
        streams_used_(sort_streams()), sorted_(ex.steps(), nullptr), slot_ready_(slots.count, nullptr),
        profile_(std::getenv("RADIX_NCCL_PROFILE") != nullptr) {
    const control_memory streams = control_of(s.comm);
    exchange_ = streams.exchange;
    sorters_[0] = s.stream;
    sort_ws_[0] = &ws;
    for (int i = 1; i < streams_used_; ++i) {
      sorters_[i] = streams.sorting[i - 1];
      sort_ws_[i] = sorter_ws[i - 1].get();
    }
    ready_ = record(s.stream);  // the buckets are in place
    RADIX_CUDA_CHECK(cudaStreamWaitEvent(exchange_, ready_, 0));
    for (int i = 1; i < streams_used_; ++i) RADIX_CUDA_CHECK(cudaStreamWaitEvent(sorters_[i], ready_, 0));
    loop_begin_ = host_clock::now();
  }
  ~bucket_pipeline() {
    // Unwinding (a peer failed, a check threw): the slots are freed on the
    // caller's stream, so it waits for everything that may still use them.
    if (!finished_) join(false);
    for (auto* list : {&events_, &transfer_marks_, &sort_marks_})
      for (auto e : *list) cudaEventDestroy(e);
  }
  bucket_pipeline(const bucket_pipeline&) = delete;
  bucket_pipeline& operator=(const bucket_pipeline&) = delete;

  /// The event after which the bucket-ordered buffers are complete (on the
  /// caller's stream).
  cudaEvent_t buckets_ready() const { return ready_; }
  /// Lends `slot` to work enqueued on `borrower` until return_slot(): the
  /// slot's first transfer waits for that work, and finish() (or unwinding)
  /// joins the borrower too.
  void lend_slot(int slot, cudaStream_t borrower) {
    lent_ = slot;
    borrower_ = borrower;
  }
  void return_slot() { slot_ready_[lent_] = record(borrower_); }

  /// Enqueues the steps whose pieces this rank needs are planned: over the
  /// copy engines it pulls only its own share's runs; over NCCL each step
  /// sends as well.
  void run_ready_steps() {
    run_steps(transport_ == bucket_transport::copy_engines ? ex_.ready_steps(s_.me) : ex_.ready_steps());
  }

  /// Enqueues steps [next, end): each step's transfer, then its group's sort.
  void run_steps(int end) {
    if (end > (transport_ == bucket_transport::copy_engines ? ex_.ready_steps(s_.me) : ex_.ready_steps()))
      throw device_error("radix::nccl::sort: internal: a step ran before its runs were planned");
    for (; next_ < end; ++next_) {
      const int j = next_;
      const bool mine = std::size_t(j) < ex_.groups(s_.me).size();
      const core::bucket_exchange::group g = mine ? ex_.groups(s_.me)[j] : core::bucket_exchange::group{};
      const int bits = s_.end_bit - g.shared_bits - s_.begin_bit;
      // (NCCL writes only into the caller's buffers: in one process its peers
      // reach them directly, and the slots, stream-ordered, they cannot)
      const bool in_slot =
          mine && transport_ == bucket_transport::copy_engines && planned_passes(s_.req, bits) % 2 == 1;
      const int slot = j % slots_.count;
      wait_for_slot(j, slot);
      const cuda_detail::input_inset inset = own_run_in_place(j, g, mine);
      stamp(transfer_marks_, exchange_);
      transfer(j, g, in_slot, slot, inset);
      stamp(transfer_marks_, exchange_);
      const cudaEvent_t arrived = record(exchange_);
      if (mine) sort_group(j, g, in_slot, slot, inset, arrived);
    }
  }

  /// The caller's stream waits for the others, and the send buffers stay
  /// until every peer has its runs. Returns the buffer that holds the share.
  int finish() {
    if (next_ != ex_.steps()) throw device_error("radix::nccl::sort: internal: partition first left steps out");
    const double loop_ms = since(loop_begin_);
    finished_ = true;
    join(true);
    if (transport_ == bucket_transport::copy_engines) {
      RADIX_NCCL_CHECK(ncclAllReduce(s_.ctl.d + s_.lay.pointers, s_.ctl.d + s_.lay.pointers, 1, ncclUint64, ncclSum,
                                     s_.comm, s_.stream));
    }
    if (profile_) report(loop_ms);
    s_.clock.mark("exchange and group sorts");
    return out_;
  }

 private:
  using host_clock = std::chrono::steady_clock;
  static double since(host_clock::time_point t) {
    return std::chrono::duration<double, std::milli>(host_clock::now() - t).count();
  }
  cudaEvent_t record(cudaStream_t on) {
    cudaEvent_t e;
    RADIX_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    events_.push_back(e);
    RADIX_CUDA_CHECK(cudaEventRecord(e, on));
    return e;
  }
  /// The caller's stream waits for the exchange, the other sort streams and
  /// the borrower of a slot (checked, or, unwinding, as far as it goes).
  void join(bool checked) {
    std::vector<cudaStream_t> others{exchange_};
    for (int i = 1; i < streams_used_; ++i) others.push_back(sorters_[i]);
    if (borrower_) others.push_back(borrower_);
    for (const cudaStream_t o : others) {
      if (checked) {
        RADIX_CUDA_CHECK(cudaStreamWaitEvent(s_.stream, record(o), 0));
        continue;
      }
      cudaEvent_t e;
      if (cudaEventCreateWithFlags(&e, cudaEventDisableTiming) != cudaSuccess) continue;
      events_.push_back(e);
      if (cudaEventRecord(e, o) == cudaSuccess) (void)cudaStreamWaitEvent(s_.stream, e, 0);
    }
  }
  /// RADIX_NCCL_PROFILE: each step's transfer and each group's sort, timed.
  void stamp(std::vector<cudaEvent_t>& marks, cudaStream_t on) {
    if (!profile_) return;
    cudaEvent_t e;
    RADIX_CUDA_CHECK(cudaEventCreate(&e));
    marks.push_back(e);
    RADIX_CUDA_CHECK(cudaEventRecord(e, on));
  }

  /// Step j reuses slot j % count once group j - count's sort is done (and
  /// the slot's first use waits for whatever borrowed it).
  void wait_for_slot(int j, int slot) {
    if (j >= slots_.count && sorted_[j - slots_.count])
      RADIX_CUDA_CHECK(cudaStreamWaitEvent(exchange_, sorted_[j - slots_.count], 0));
    if (j < slots_.count && slot_ready_[slot]) RADIX_CUDA_CHECK(cudaStreamWaitEvent(exchange_, slot_ready_[slot], 0));
  }

  /// Keys alone: the group's sort reads this rank's own run where it lies
  /// (an inset of its input), which saves a read and a write of it.
  cuda_detail::input_inset own_run_in_place(int j, const core::bucket_exchange::group& g, bool mine) const {
    cuda_detail::input_inset inset;
    if (mine && s_.vb == 0)
      for (const auto& pc : ex_.pieces(j))
        if (pc.from == s_.me && pc.to == s_.me && pc.length > 0)
          inset = {s_.key_at(buf_, pc.source), pc.target - g.begin, pc.target - g.begin + pc.length};
    return inset;
  }

  /// Step j's runs into this rank's group j (and, over NCCL, this rank's
  /// runs out to its peers'), on the exchange stream.
  void transfer(int j, const core::bucket_exchange::group& g, bool in_slot, int slot,
                const cuda_detail::input_inset& inset) {
    const int me = s_.me, kb = s_.kb;
    const std::size_t vb = s_.vb;
    auto key_to = [&](std::uint64_t target) {
      return in_slot ? slots_.key(slot) + (target - g.begin) * kb : s_.key_at(out_, target);
    };
    auto value_to = [&](std::uint64_t target) {
      return in_slot ? slots_.value(slot) + (target - g.begin) * vb : s_.value_at(out_, target);
    };
    auto copy = [&](void* to, const void* from, std::uint64_t bytes) {
      RADIX_CUDA_CHECK(cudaMemcpyAsync(to, from, bytes, cudaMemcpyDeviceToDevice, exchange_));
    };
    if (transport_ == bucket_transport::copy_engines) {
      for (const auto& pc : ex_.pieces(j)) {
        if (pc.to != me || (pc.from == me && inset.active())) continue;
        const char* keys = reinterpret_cast<const char*>(std::uintptr_t(peers_[2 * pc.from]));
        const char* values = reinterpret_cast<const char*>(std::uintptr_t(peers_[2 * pc.from + 1]));
        copy(key_to(pc.target), keys + pc.source * kb, pc.length * kb);
        if (vb) copy(value_to(pc.target), values + pc.source * vb, pc.length * vb);
      }
      return;
    }
    RADIX_NCCL_CHECK(ncclGroupStart());
    for (const auto& pc : ex_.pieces(j)) {
      if (pc.from == me && pc.to != me) {
        send_bytes(s_.key_at(buf_, pc.source), pc.length * kb, pc.to, s_.comm, exchange_);
        if (vb) send_bytes(s_.value_at(buf_, pc.source), pc.length * vb, pc.to, s_.comm, exchange_);
      } else if (pc.to == me && pc.from != me) {
        recv_bytes(key_to(pc.target), pc.length * kb, pc.from, s_.comm, exchange_);
        if (vb) recv_bytes(value_to(pc.target), pc.length * vb, pc.from, s_.comm, exchange_);
      }
    }
    RADIX_NCCL_CHECK(ncclGroupEnd());
    for (const auto& pc : ex_.pieces(j))
      if (pc.from == me && pc.to == me && !inset.active()) {
        copy(key_to(pc.target), s_.key_at(buf_, pc.source), pc.length * kb);
        if (vb) copy(value_to(pc.target), s_.value_at(buf_, pc.source), pc.length * vb);
      }
  }

  /// Group j is here: one stable sort by the bits below those its keys share,
  /// on sort stream j % streams.
  void sort_group(int j, const core::bucket_exchange::group& g, bool in_slot, int slot,
                  const cuda_detail::input_inset& inset, cudaEvent_t arrived) {
    const int kb = s_.kb;
    const std::size_t vb = s_.vb;
    const int bits = s_.end_bit - g.shared_bits - s_.begin_bit;
    const cudaStream_t on = sorters_[j % streams_used_];
    scratch& w = *sort_ws_[j % streams_used_];
    RADIX_CUDA_CHECK(cudaStreamWaitEvent(on, arrived, 0));
    stamp(sort_marks_, on);
    const std::uint64_t n = g.end - g.begin;
    sort_request r = s_.part(out_, g.begin, n, s_.begin_bit, s_.end_bit - g.shared_bits);
    cuda::alternates alt{slots_.key(slot), slots_.value(slot)};
    if (in_slot) {
      std::swap(r.keys, alt.keys);
      std::swap(r.values, alt.values);
    }
    // (the workspace a slot's worth of these bits needs, planned once: the
    // host enqueues a step in less time than the GPU runs it)
    std::size_t& need = workspace_for_bits_[bits];
    if (need == 0) {
      sort_request widest = r;
      widest.n = slots_.elements;
      need = std::max<std::size_t>(1, cuda::workspace_bytes(widest, alt));
    }
    w.ensure(need);
    const auto call_begin = host_clock::now();
    const int ended = cuda_detail::sort_with_inset(r, alt, inset, w.p, w.bytes, on);
    if (profile_) sort_calls_ms_ += since(call_begin);
    if ((ended == 1) != in_slot) {  // the result is in the slot: move it into place
      ++copies_back_;
      RADIX_CUDA_CHECK(cudaMemcpyAsync(s_.key_at(out_, g.begin), slots_.key(slot), n * kb, cudaMemcpyDeviceToDevice, on));
      if (vb)
        RADIX_CUDA_CHECK(
            cudaMemcpyAsync(s_.value_at(out_, g.begin), slots_.value(slot), n * vb, cudaMemcpyDeviceToDevice, on));
    }
    stamp(sort_marks_, on);
    sorted_[j] = record(on);
  }

  void report(double loop_ms) {
    RADIX_CUDA_CHECK(cudaStreamSynchronize(s_.stream));
    auto spans = [](const std::vector<cudaEvent_t>& m) {
      std::string text;
      for (std::size_t i = 0; i + 1 < m.size(); i += 2) {
        float ms = 0;
        RADIX_CUDA_CHECK(cudaEventElapsedTime(&ms, m[i], m[i + 1]));
        char t[24];
        std::snprintf(t, sizeof t, " %.2f", ms);
        text += t;
      }
      return text;
    };
    std::fputs(("radix::nccl rank " + std::to_string(s_.me) + " " + std::to_string(ex_.steps()) + " steps (" +
                (transport_ == bucket_transport::copy_engines ? "copy engines" : "NCCL") + "), " +
                std::to_string(copies_back_) + " copied back; host: steps enqueued in " + std::to_string(loop_ms) +
                " ms, " + std::to_string(sort_calls_ms_) + " of them in cuda::sort; transfers (ms):" +
                spans(transfer_marks_) + "; group sorts (ms):" + spans(sort_marks_) + "\n")
                   .c_str(),
               stderr);
  }

  rank_state& s_;
  const core::bucket_exchange& ex_;
  receive_slots& slots_;
  bucket_transport transport_;
  int buf_, out_;
  std::vector<std::uint64_t> peers_;  // copy engines: every rank's key and value pointers
  int streams_used_;
  cudaStream_t exchange_ = nullptr;
  cudaStream_t sorters_[max_sort_streams] = {};
  scratch* sort_ws_[max_sort_streams] = {};
  std::vector<cudaEvent_t> events_, transfer_marks_, sort_marks_;  // (marks: begin, end pairs)
  std::vector<cudaEvent_t> sorted_;      // group j's sort done: slot j % count is free
  std::vector<cudaEvent_t> slot_ready_;  // a slot's first use waits for this (lend_slot)
  cudaEvent_t ready_ = nullptr;
  cudaStream_t borrower_ = nullptr;
  int lent_ = 0;
  bool profile_;
  bool finished_ = false;
  int next_ = 0;
  std::size_t workspace_for_bits_[65] = {};
  int copies_back_ = 0;
  host_clock::time_point loop_begin_;
  double sort_calls_ms_ = 0;  // the host's time in cuda::sort (profile)
};

/// Partition first's memory beside the caller's buffers, all of it taken
/// before the first collective (a rank that failed later would leave its
/// peers waiting): the receive slots, the workspaces of the sort streams but
/// the caller's, and the control stream's.
struct partition_memory {
  std::unique_ptr<receive_slots> slots;
  std::vector<std::unique_ptr<scratch>> sorter_ws;
  std::unique_ptr<scratch> control_ws;
};

/// Whether the boundary buckets can be sorted, and the cuts found, beside the
/// first steps: over the copy engines (where the exchange makes no NCCL call
/// of its own), with every rank's boundary buckets small enough to sort
/// through a receive slot. A plan of every rank's counts, so that all ranks
/// agree (it orders their collective calls). RADIX_NCCL_NO_OVERLAP=1 turns
/// it off (A/B measurements; the copy engines mean one process, so every
/// rank sees the same environment).
bool overlap_cuts(const std::vector<std::uint64_t>& bucket_counts, const std::vector<int>& boundary, int p,
                  std::uint64_t slot_elements, bucket_transport transport) {
  if (transport != bucket_transport::copy_engines) return false;
  if (const char* e = std::getenv("RADIX_NCCL_NO_OVERLAP"); e && *e && std::strcmp(e, "0") != 0) return false;
  for (int r = 0; r < p; ++r)
    for (const int d : boundary)
      if (bucket_counts[std::size_t(r) * top_buckets + d] > slot_elements) return false;
  return true;
}

/// Partition first, from the caller's buffers to the share: returns the
/// buffer that holds it.
int partition_first(rank_state& s, const cuda::alternates& alt, scratch& ws, partition_memory& mem,
                    std::uint64_t target, bucket_transport transport, bool& buckets_sent) {
  receive_slots& slots = *mem.slots;
  // 1. One stable pass by the top digit.
  const int top_begin = s.end_bit - top_digit_bits;
  sort_request top = s.req;
  top.opts.begin_bit = top_begin;
  ws.ensure(cuda::workspace_bytes(top, alt));
  const int buf = cuda::sort(top, alt, ws.p, ws.bytes, s.stream);
  s.clock.mark("top digit");

  // 2. Every rank's buckets, and the groups they make: everything but the
  // runs of the groups that hold a share boundary.
  std::vector<std::uint64_t> peers;
  const std::vector<std::uint64_t> bucket_counts = gather_bucket_counts(s, buf, peers);
  s.clock.mark("bucket counts");
  const std::uint64_t* mine = bucket_counts.data() + std::size_t(s.me) * top_buckets;
  auto bucket_first = [&](int d) {
    std::uint64_t first = 0;
    for (int e = 0; e < d; ++e) first += mine[e];
    return first;
  };
  const std::vector<int> boundary = core::bucket_exchange::boundary_buckets(bucket_counts, s.p, top_buckets);
  core::bucket_exchange ex(bucket_counts, s.p, top_buckets, target, slots.elements);
  if (!ex.fits()) {
    // A bucket outgrows a group: sort every rank's keys whole, then sort
    // first's cuts, exchange and merge.
    sort_in_place(s, s.part(buf, 0, s.counts[s.me], s.begin_bit, s.end_bit), s.part_alternates(buf ^ 1, 0), ws);
    s.clock.mark("local sort (buckets too large)");
    const core::exchange_plan plan = find_cuts(s, buf);
    s.clock.mark("splitters");
    return exchange_runs_and_merge(s, buf, plan);
  }
  buckets_sent = true;

  // 3. The boundary buckets sorted whole, and the cuts found inside them.
  // 4. The buckets, a group a step, each sorted as it arrives.
  if (!overlap_cuts(bucket_counts, boundary, s.p, slots.elements, transport)) {
    for (const int d : boundary)
      sort_in_place(s, s.part(buf, bucket_first(d), mine[d], s.begin_bit, top_begin),
                    s.part_alternates(buf ^ 1, bucket_first(d)), ws);
    ex.place_cuts(find_cuts(s, buf));
    s.clock.mark("splitters");
    bucket_pipeline steps(s, buf, ex, slots, ws, mem.sorter_ws, transport, peers);
    steps.run_steps(ex.steps());
    return steps.finish();
  }
  // Beside the first steps: the steps before ready_steps() read no boundary
  // bucket. The control stream sorts those through the last receive slot,
  // whose first step waits for it, then runs the splitter search, whose host
  // round trips wait for nothing else.
  bucket_pipeline steps(s, buf, ex, slots, ws, mem.sorter_ws, transport, peers);
  const cudaStream_t control = control_of(s.comm).control;
  control_block control_words_mirror(s.comm, s.lay.words, control);
  rank_state cs = s.on(control, control_words_mirror);
  RADIX_CUDA_CHECK(cudaStreamWaitEvent(control, steps.buckets_ready(), 0));
  const int lent = slots.count - 1;
  steps.lend_slot(lent, control);
  for (const int d : boundary)
    sort_in_place(cs, cs.part(buf, bucket_first(d), mine[d], s.begin_bit, top_begin),
                  {slots.key(lent), s.vb ? slots.value(lent) : nullptr}, *mem.control_ws);
  steps.return_slot();
  nccl_detail::overlapped_cut_searches().fetch_add(1, std::memory_order_relaxed);
  steps.run_ready_steps();
  ex.place_cuts(find_cuts(cs, buf));  // (ends with the host waiting for the control stream)
  steps.run_steps(ex.steps());
  return steps.finish();
}

}  // namespace

placement sort(const sort_request& req, const cuda::alternates& alt, std::uint64_t capacity, ncclComm_t comm,
               cudaStream_t stream) {
  const auto entry = std::chrono::steady_clock::now();
  int p = 0, me = 0;
  RADIX_NCCL_CHECK(ncclCommCount(comm, &p));
  RADIX_NCCL_CHECK(ncclCommUserRank(comm, &me));

  // 1. Every rank's sizes and request, so that all of them agree, or all
  // throw. What can fail locally (checks, the workspace) happens before the
  // first collective and travels in it: a rank that threw after it would
  // leave its peers waiting in NCCL.
  const std::string problem = local_problem(req, alt, capacity);
  std::exception_ptr local_failure;  // out of memory, a device error
  const control_layout lay(p);
  control_block ctl(comm, lay.words, stream);
  const control_memory streams = control_of(comm);
  scratch ws{stream, streams.pool};
  partition_memory mem;
  std::uint64_t wish = wish_sort_first, budget = 0, target = 0;
  if (problem.empty()) {
    try {
      ws.ensure(cuda::workspace_bytes(req, alt));
      wish = wish_of(req);
    } catch (...) {
      local_failure = std::current_exception();
    }
  }
  const std::uint64_t element_bytes = req.key.bytes + (req.op == operation::pairs ? req.value_bytes : 0);
  // (a share is at most `capacity`: below the automatic choice's bytes, sort first)
  if (wish == wish_automatic && capacity * element_bytes < partition_first_min_bytes(p)) wish = wish_sort_first;
  if (problem.empty() && !local_failure && wish != wish_sort_first) {
    // Partition first's memory, all of it now (a rank that failed later
    // would leave its peers waiting): the receive slots and the workspaces
    // of the top-digit pass, of every sort stream and of the control
    // stream. Where it cannot be had, this rank asks for sort first.
    try {
      budget = std::max<std::uint64_t>(1, capacity / group_fraction);
      if (const char* g = std::getenv("RADIX_NCCL_GROUP")) budget = std::max<std::uint64_t>(1, std::strtoull(g, nullptr, 10));
      budget = std::min(budget, std::max<std::uint64_t>(capacity, 1));
      target = group_target;
      if (const char* g = std::getenv("RADIX_NCCL_GROUP_TARGET")) target = std::max<std::uint64_t>(1, std::strtoull(g, nullptr, 10));
      mem.slots = std::make_unique<receive_slots>(stream, streams.pool, budget, int(req.key.bytes),
                                                  req.op == operation::pairs ? req.value_bytes : 0);
      receive_slots& slots = *mem.slots;
      sort_request top = req;
      top.opts.begin_bit = (req.opts.end_bit < 0 ? int(req.key.bytes) * 8 : req.opts.end_bit) - top_digit_bits;
      sort_request group = req;
      group.n = budget;
      group.keys = slots.key(0);
      group.values = slots.value(0);
      const std::size_t group_bytes = cuda::workspace_bytes(group, alt);
      ws.ensure(std::max(cuda::workspace_bytes(top, alt), group_bytes));
      for (int i = 1; i < sort_streams(); ++i) {
        mem.sorter_ws.push_back(std::make_unique<scratch>(streams.sorting[i - 1], streams.pool));
        mem.sorter_ws.back()->ensure(group_bytes);
      }
      // (the control stream sorts boundary buckets of up to a slot's worth,
      // through a slot, by the bits below the top digit)
      sort_request boundary = group;
      boundary.keys = slots.key(1 % slots.count);
      boundary.values = slots.value(1 % slots.count);
      boundary.opts.begin_bit = req.opts.begin_bit;
      boundary.opts.end_bit = top.opts.begin_bit;
      mem.control_ws = std::make_unique<scratch>(streams.control, streams.pool);
      mem.control_ws->ensure(cuda::workspace_bytes(boundary, {slots.key(0), slots.value(0)}));
    } catch (const std::exception&) {
      (void)cudaGetLastError();  // (a failed allocation must not fail the next launch check)
      wish = wish_sort_first;
      budget = 0;
      mem = partition_memory{};
    }
  }
  const bool valid = problem.empty() && !local_failure;
  const std::uint64_t meta[meta_words] = {valid ? 1u : 0u,       req.n, capacity, key_fingerprint(req),
                                          std::uint64_t(req.op), options_fingerprint(req), wish, budget, target,
                                          control_of(comm).peers_mapped && !std::getenv("RADIX_NCCL_NO_COPY_ENGINES")
                                              ? 1u
                                              : 0u};
  ctl.upload(0, meta, meta_words);
  RADIX_NCCL_CHECK(ncclAllGather(ctl.d, ctl.d + lay.gather, meta_words, ncclUint64, comm, stream));
  ctl.download(lay.gather, std::size_t(p) * meta_words);
  const auto info = [&](int r, int w) { return ctl.h[lay.gather + std::size_t(r) * meta_words + w]; };
  if (!problem.empty()) throw invalid_argument(problem);
  if (local_failure) std::rethrow_exception(local_failure);
  std::vector<std::uint64_t> counts(p);
  std::uint64_t total = 0;
  for (int r = 0; r < p; ++r) {
    if (!info(r, meta_valid))
      throw invalid_argument("radix::nccl::sort: rank " + std::to_string(r) + "'s request is invalid or failed to start");
    if (info(r, meta_key) != meta[meta_key] || info(r, meta_op) != meta[meta_op] ||
        info(r, meta_options) != meta[meta_options])
      throw invalid_argument("radix::nccl::sort: rank " + std::to_string(r) +
                             " sorts another key type, operation or options than rank " + std::to_string(me));
    total += counts[r] = info(r, meta_n);
  }
  for (int r = 0; r < p; ++r) {
    const std::uint64_t share = core::share_begin(total, p, r + 1) - core::share_begin(total, p, r);
    if (info(r, meta_capacity) < share)
      throw invalid_argument("radix::nccl::sort: rank " + std::to_string(r) + "'s capacity " +
                             std::to_string(info(r, meta_capacity)) + " is below its share " + std::to_string(share) +
                             " (share_capacity)");
  }
  // The order all ranks take: the least any rank can, the smallest budget.
  std::uint64_t least_wish = wish_partition_first, least_budget = ~std::uint64_t(0), least_target = least_budget;
  bool copies = true;
  for (int r = 0; r < p; ++r) {
    copies = copies && info(r, meta_copies) == 1;
    least_wish = std::min(least_wish, info(r, meta_order));
    least_budget = std::min(least_budget, info(r, meta_budget));
    least_target = std::min(least_target, info(r, meta_target));
  }
  const exchange_order order =
      p > 1 && (least_wish == wish_partition_first ||
                (least_wish == wish_automatic && copies && total * element_bytes >= p * partition_first_min_bytes(p)))
          ? exchange_order::partition_first
          : exchange_order::sort_first;

  placement out;
  out.total = total;
  out.offset = core::share_begin(total, p, me);
  out.n = core::share_begin(total, p, me + 1) - out.offset;
  phase_clock clock(stream, entry);
  const int kb = int(req.key.bytes);
  rank_state s{req,
               comm,
               stream,
               p,
               me,
               ctl,
               lay,
               clock,
               {req.keys, alt.keys},
               {req.values, alt.values},
               kb,
               req.op == operation::pairs ? req.value_bytes : 0,
               req.opts.begin_bit,
               req.opts.end_bit < 0 ? kb * 8 : req.opts.end_bit,
               counts,
               total};

  if (order == exchange_order::partition_first) {
    mem.slots->elements = least_budget;  // (every rank plans with the same groups)
    out.selector = partition_first(s, alt, ws, mem, least_target,
                                   copies ? bucket_transport::copy_engines : bucket_transport::nccl,
                                   out.partition_first);
  } else {
    // 2. The local sort, 3. the cuts, 4. the exchange and merge.
    const int sorted = cuda::sort(req, alt, ws.p, ws.bytes, stream);
    clock.mark("local sort");
    out.selector = sorted;
    if (p > 1) {
      const core::exchange_plan plan = find_cuts(s, sorted);
      clock.mark("splitters");
      out.selector = exchange_runs_and_merge(s, sorted, plan);
    }
  }
  clock.report(me, p, req.n);
  return out;
}

// ---- a communicator per GPU of this process -------------------------------------

gpu_group::gpu_group(int gpus) {
  int visible = 0;
  if (cudaGetDeviceCount(&visible) != cudaSuccess) visible = 0;
  if (gpus <= 0) gpus = visible;
  if (gpus <= 0 || gpus > visible)
    throw engine_unavailable("radix::nccl::gpu_group: " + std::to_string(gpus) + " GPUs asked, " +
                             std::to_string(visible) + " visible");
  devices_.resize(gpus);
  for (int i = 0; i < gpus; ++i) devices_[i] = i;
  comms_.resize(gpus);
  RADIX_NCCL_CHECK(ncclCommInitAll(comms_.data(), gpus, devices_.data()));
  // Every rank's control memory now, while no NCCL kernel can be waiting.
  int current = 0;
  RADIX_CUDA_CHECK(cudaGetDevice(&current));
  for (int r = 0; r < gpus; ++r) {
    RADIX_CUDA_CHECK(cudaSetDevice(devices_[r]));
    prepare(comms_[r]);
  }
  // Each device maps every other's memory where it can (NCCL may have done
  // so already): partition first then copies the buckets with the copy
  // engines (control_memory::peers_mapped).
  bool mapped = true;
  for (int r = 0; r < gpus; ++r) {
    RADIX_CUDA_CHECK(cudaSetDevice(devices_[r]));
    for (int q = 0; q < gpus; ++q) {
      if (q == r) continue;
      int can = 0;
      RADIX_CUDA_CHECK(cudaDeviceCanAccessPeer(&can, devices_[r], devices_[q]));
      const cudaError_t e = can ? cudaDeviceEnablePeerAccess(devices_[q], 0) : cudaErrorPeerAccessUnsupported;
      if (e != cudaSuccess) (void)cudaGetLastError();  // (already enabled, or not possible: no error)
      mapped = mapped && (e == cudaSuccess || e == cudaErrorPeerAccessAlreadyEnabled);
    }
  }
  {
    std::lock_guard<std::mutex> lock(control_mutex);
    for (auto c : comms_) control_registry()[c].peers_mapped = mapped;
  }
  RADIX_CUDA_CHECK(cudaSetDevice(current));
}

gpu_group::~gpu_group() {
  for (auto c : comms_) {
    release(c);
    if (!aborted_) ncclCommDestroy(c);  // an aborted communicator is already freed
  }
}

void gpu_group::each(const std::function<void(int)>& f) const { run_ranks(f, true); }
void gpu_group::each_local(const std::function<void(int)>& f) const { run_ranks(f, false); }

void gpu_group::run_ranks(const std::function<void(int)>& f, bool abort_on_failure) const {
  if (aborted_) throw device_error("radix::nccl::gpu_group: a rank failed earlier and the group was aborted; make a new one");
  std::vector<std::exception_ptr> errors(devices_.size());
  std::atomic<int> first_failure{-1};
  std::once_flag abort_once;
  std::vector<std::thread> threads;
  for (int r = 0; r < size(); ++r)
    threads.emplace_back([&, r] {
      try {
        RADIX_CUDA_CHECK(cudaSetDevice(devices_[r]));
        f(r);
      } catch (...) {
        errors[r] = std::current_exception();
        int none = -1;
        first_failure.compare_exchange_strong(none, r);
        // The other ranks may wait in NCCL for this one forever: abort the
        // communicators so that their calls return (with errors).
        if (abort_on_failure)
          std::call_once(abort_once, [&] {
          for (auto c : comms_) ncclCommAbort(c);
          aborted_ = true;
        });
      }
    });
  for (auto& t : threads) t.join();
  if (first_failure >= 0) std::rethrow_exception(errors[first_failure]);
}

// ---- host memory to host memory -------------------------------------------------

namespace {

/// sort_host for data that fits the GPUs: each GPU takes its share, the
/// shares are sorted together, and each GPU copies its part back.
void sort_host_fitting(const gpu_group& group, const sort_request& req) {
  const int p = group.size();
  const std::uint64_t capacity = share_capacity(req.n, p);
  const std::size_t kb = req.key.bytes;
  const std::size_t vb = req.op == operation::pairs ? req.value_bytes : 0;
  // Three rounds, so that no GPU allocates or frees (cudaMalloc / cudaFree
  // wait for every peer) while another waits in NCCL: allocate and copy in,
  // sort, copy out and free.
  struct rank_state {
    cudaStream_t stream = nullptr;
    void* buf[4] = {nullptr, nullptr, nullptr, nullptr};  // keys, alternate keys, values, alternate values
    placement placed;
  };
  std::vector<rank_state> st(p);
  auto part = [&](int r) { return core::share_begin(req.n, p, r); };
  // Frees on the calling thread, GPU by GPU (all ranks have returned, and
  // this works on a group that a failure aborted).
  auto free_all = [&] {
    int current = 0;
    cudaGetDevice(&current);
    for (int r = 0; r < p; ++r) {
      cudaSetDevice(group.device(r));
      if (st[r].stream) cudaStreamSynchronize(st[r].stream);
      for (void*& b : st[r].buf)
        if (b) cudaFree(std::exchange(b, nullptr));
      if (st[r].stream) cudaStreamDestroy(std::exchange(st[r].stream, nullptr));
    }
    (void)cudaGetLastError();
    cudaSetDevice(current);
  };
  try {
    group.each_local([&](int r) {
      RADIX_CUDA_CHECK(cudaStreamCreateWithFlags(&st[r].stream, cudaStreamNonBlocking));
      for (int i = 0; i < (vb ? 4 : 2); ++i) {
        if (!capacity) continue;
        const cudaError_t e = cudaMalloc(&st[r].buf[i], capacity * (i < 2 ? kb : vb));
        if (e == cudaErrorMemoryAllocation) {
          (void)cudaGetLastError();
          throw out_of_memory("radix::nccl::sort_host: GPU " + std::to_string(group.device(r)) +
                              " cannot hold its share");
        }
        RADIX_CUDA_CHECK(e);
      }
      const std::uint64_t n = part(r + 1) - part(r);
      RADIX_CUDA_CHECK(cudaMemcpyAsync(st[r].buf[0], static_cast<const char*>(req.keys) + part(r) * kb, n * kb,
                                       cudaMemcpyHostToDevice, st[r].stream));
      if (vb)
        RADIX_CUDA_CHECK(cudaMemcpyAsync(st[r].buf[2], static_cast<const char*>(req.values) + part(r) * vb, n * vb,
                                         cudaMemcpyHostToDevice, st[r].stream));
      RADIX_CUDA_CHECK(cudaStreamSynchronize(st[r].stream));
    });
    group.each([&](int r) {
      sort_request local = req;
      local.n = part(r + 1) - part(r);
      local.keys = st[r].buf[0];
      local.values = vb ? st[r].buf[2] : nullptr;
      st[r].placed = sort(local, cuda::alternates{st[r].buf[1], vb ? st[r].buf[3] : nullptr}, capacity, group.comm(r),
                          st[r].stream);
      RADIX_CUDA_CHECK(cudaStreamSynchronize(st[r].stream));
    });
    // Every rank's input was on its GPU before any sort began: the host
    // buffers may be overwritten now.
    group.each_local([&](int r) {
      const placement& pl = st[r].placed;
      RADIX_CUDA_CHECK(cudaMemcpyAsync(static_cast<char*>(req.keys) + pl.offset * kb, st[r].buf[pl.selector],
                                       pl.n * kb, cudaMemcpyDeviceToHost, st[r].stream));
      if (vb)
        RADIX_CUDA_CHECK(cudaMemcpyAsync(static_cast<char*>(req.values) + pl.offset * vb, st[r].buf[2 + pl.selector],
                                         pl.n * vb, cudaMemcpyDeviceToHost, st[r].stream));
      RADIX_CUDA_CHECK(cudaStreamSynchronize(st[r].stream));
    });
  } catch (...) {
    free_all();
    throw;
  }
  free_all();
}

/// Elements whose shares fit every GPU of the group at once (two buffers of
/// keys and values each, and a margin). RADIX_NCCL_HOST_CHUNK (elements)
/// lowers it, so that tests reach the chunked route.
std::uint64_t host_chunk_elements(const gpu_group& group, std::size_t kb, std::size_t vb) {
  int current = 0;
  RADIX_CUDA_CHECK(cudaGetDevice(&current));
  std::uint64_t least = ~std::uint64_t(0);
  for (int r = 0; r < group.size(); ++r) {
    std::size_t free_b = 0, total_b = 0;
    RADIX_CUDA_CHECK(cudaSetDevice(group.device(r)));
    RADIX_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    // (the communicator's pool keeps earlier sorts' scratch: free for this one)
    free_b += cuda_detail::pool_idle_bytes(control_of(group.comm(r)).pool);
    least = std::min<std::uint64_t>(least, free_b);
  }
  RADIX_CUDA_CHECK(cudaSetDevice(current));
  const std::uint64_t margin = std::uint64_t(256) << 20;
  std::uint64_t chunk = least > margin ? (least - margin) / (2 * (kb + vb)) * std::uint64_t(group.size()) : 0;
  if (const char* e = std::getenv("RADIX_NCCL_HOST_CHUNK"); e && *e)
    chunk = std::min<std::uint64_t>(chunk, std::strtoull(e, nullptr, 10));
  return chunk;
}

template <class F>
void parallel_ranges(std::uint64_t n, F&& f) {
  const unsigned t = std::max(1u, std::min(16u, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (unsigned i = 0; i < t; ++i) pool.emplace_back([&, i] { f(n * i / t, n * (i + 1) / t); });
  for (auto& x : pool) x.join();
}

}  // namespace

void sort_host(const gpu_group& group, const sort_request& req) {
  if (req.op != operation::keys && req.op != operation::pairs)
    throw invalid_argument("radix::nccl::sort_host sorts keys or pairs");
  if (req.n > 0 && (req.keys == nullptr || (req.op == operation::pairs && req.values == nullptr)))
    throw invalid_argument("radix::nccl::sort_host: null buffer");
  const std::size_t kb = req.key.bytes;
  const std::size_t vb = req.op == operation::pairs ? req.value_bytes : 0;
  const std::uint64_t chunk = host_chunk_elements(group, kb, vb);
  if (req.n <= chunk) return sort_host_fitting(group, req);
  if (chunk < std::uint64_t(group.size()))
    throw out_of_memory("radix::nccl::sort_host: the GPUs have no room for a chunk");
  if (kb != 1 && kb != 2 && kb != 4 && kb != 8)
    throw invalid_argument("radix::nccl::sort_host takes keys of 1, 2, 4 or 8 bytes");

  // Larger than the GPUs together: chunks that fit, each sorted over the
  // GPUs in place, then one stable merge of the chunks on the host.
  std::vector<std::uint64_t> starts{0};
  for (std::uint64_t off = 0; off < req.n; off += chunk) {
    sort_request sub = req;
    sub.n = std::min(chunk, req.n - off);
    sub.keys = static_cast<char*>(req.keys) + off * kb;
    if (vb) sub.values = static_cast<char*>(req.values) + off * vb;
    sort_host_fitting(group, sub);
    starts.push_back(off + sub.n);
  }
  std::unique_ptr<std::byte[]> out_keys(new (std::nothrow) std::byte[req.n * kb]);
  std::unique_ptr<std::byte[]> out_values(vb ? new (std::nothrow) std::byte[req.n * vb] : nullptr);
  if (!out_keys || (vb && !out_values))
    throw out_of_memory("radix::nccl::sort_host: no host memory for the merge of the chunks (n x (key + value) bytes)");
  const int end_bit = req.opts.end_bit < 0 ? int(kb) * 8 : req.opts.end_bit;
  with_key_type(int(kb), [&]<class U>() {
    const auto f = make_compare<U>(req, req.opts.begin_bit, end_bit);
    with_value_type<U>(vb, [&]<class V>() {
      core::merge_sorted_runs<U, V>(static_cast<const U*>(req.keys), static_cast<const V*>(req.values), starts, f,
                                    end_bit - req.opts.begin_bit, reinterpret_cast<U*>(out_keys.get()),
                                    reinterpret_cast<V*>(out_values.get()), std::thread::hardware_concurrency());
    });
  });
  parallel_ranges(req.n, [&](std::uint64_t b, std::uint64_t e) {
    std::memcpy(static_cast<char*>(req.keys) + b * kb, out_keys.get() + b * kb, (e - b) * kb);
    if (vb) std::memcpy(static_cast<char*>(req.values) + b * vb, out_values.get() + b * vb, (e - b) * vb);
  });
}

}  // namespace radix::nccl
