// The distributed sort over NCCL (include/radix/nccl.hpp): a local sort with
// the CUDA engine, a splitter search over all-reduced counts, one exchange
// with grouped send/receive, and a merge of the received runs. The planning
// arithmetic is src/core/radix/core/exchange_plan.hpp (tested on the CPU with
// virtual ranks); this file holds the device kernels and the collective
// sequence. Why this shape and what it costs: src/distributed/NOTES.md.
#include <nccl.h>

#include <algorithm>
#include <atomic>
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
enum meta_word : int { meta_valid, meta_n, meta_capacity, meta_key, meta_op, meta_options, meta_words };

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
struct control_layout {
  std::size_t gather, candidates, counts, cuts, cut_gather, words;
  explicit control_layout(int p) {
    const std::size_t max_candidates = std::size_t(std::max(p - 1, 1)) * ((1u << core::splitter_search::default_digit_bits) - 1);
    const std::size_t per_round = std::max<std::size_t>(max_candidates, std::size_t(2) * p);
    gather = meta_words;
    candidates = gather + std::size_t(p) * meta_words;
    counts = candidates + per_round;
    cuts = counts + per_round;
    cut_gather = cuts + std::size_t(2) * p;
    words = cut_gather + std::size_t(2) * p * p;
  }
};

struct control_memory {
  int device = -1;
  std::uint64_t* d = nullptr;
  std::size_t words = 0;
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
  if (m.d && (m.device != device || m.words < words)) {
    RADIX_CUDA_CHECK(cudaFree(m.d));
    m.d = nullptr;
  }
  if (!m.d) {
    RADIX_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&m.d), words * sizeof(std::uint64_t)));
    m.device = device;
    m.words = words;
  }
  return m.d;
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
/// stderr when its sort ends (this synchronizes; for benchmarks only).
class phase_clock {
 public:
  explicit phase_clock(cudaStream_t s) : stream_(s), on_(std::getenv("RADIX_NCCL_PROFILE") != nullptr) {
    mark("start");
  }
  void mark(const char* name) {
    if (!on_) return;
    cudaEvent_t e;
    RADIX_CUDA_CHECK(cudaEventCreate(&e));
    RADIX_CUDA_CHECK(cudaEventRecord(e, stream_));
    events_.push_back({name, e});
  }
  void report(int rank, int ranks, std::uint64_t n) {
    if (!on_) return;
    RADIX_CUDA_CHECK(cudaEventSynchronize(events_.back().second));
    std::string line = "radix::nccl rank " + std::to_string(rank) + "/" + std::to_string(ranks) + " n " +
                       std::to_string(n) + ":";
    float total = 0;
    for (std::size_t i = 1; i < events_.size(); ++i) {
      float ms = 0;
      RADIX_CUDA_CHECK(cudaEventElapsedTime(&ms, events_[i - 1].second, events_[i].second));
      total += ms;
      char b[64];
      std::snprintf(b, sizeof b, " %s %.3f ms,", events_[i].first, ms);
      line += b;
    }
    char b[64];
    std::snprintf(b, sizeof b, " total %.3f ms\n", total);
    std::fputs((line + b).c_str(), stderr);
  }
  ~phase_clock() {
    for (auto& e : events_) cudaEventDestroy(e.second);
  }

 private:
  cudaStream_t stream_;
  bool on_;
  std::vector<std::pair<const char*, cudaEvent_t>> events_;
};

}  // namespace

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
  cudaFree(it->second.d);
  cudaSetDevice(current);
  control_registry().erase(it);
}

placement sort(const sort_request& req, const cuda::alternates& alt, std::uint64_t capacity, ncclComm_t comm,
               cudaStream_t stream) {
  int p = 0, me = 0;
  RADIX_NCCL_CHECK(ncclCommCount(comm, &p));
  RADIX_NCCL_CHECK(ncclCommUserRank(comm, &me));

  // 1. Every rank's sizes and request, so that all of them agree, or all
  // throw. What can fail locally (checks, the workspace) happens before the
  // first collective and travels in it: a rank that threw after it would
  // leave its peers waiting in NCCL.
  const std::string problem = local_problem(req, alt, capacity);
  std::exception_ptr local_failure;  // out of memory, a device error
  std::size_t ws_bytes = 0;
  void* ws = nullptr;
  if (problem.empty()) {
    try {
      ws_bytes = cuda::workspace_bytes(req, alt);
      if (ws_bytes) RADIX_CUDA_CHECK(cudaMallocAsync(&ws, ws_bytes, stream));
    } catch (...) {
      local_failure = std::current_exception();
    }
  }
  struct workspace_guard {
    void*& p;
    cudaStream_t s;
    ~workspace_guard() {
      if (p) cudaFreeAsync(p, s);
    }
  } ws_guard{ws, stream};
  const control_layout lay(p);
  const std::size_t gather_at = lay.gather, cand_at = lay.candidates, count_at = lay.counts, cut_at = lay.cuts,
                    cut_gather_at = lay.cut_gather;
  control_block ctl(comm, lay.words, stream);
  const bool valid = problem.empty() && !local_failure;
  const std::uint64_t meta[meta_words] = {valid ? 1u : 0u,       req.n,      capacity, key_fingerprint(req),
                                          std::uint64_t(req.op), options_fingerprint(req)};
  ctl.upload(0, meta, meta_words);
  RADIX_NCCL_CHECK(ncclAllGather(ctl.d, ctl.d + gather_at, meta_words, ncclUint64, comm, stream));
  ctl.download(gather_at, std::size_t(p) * meta_words);
  const auto info = [&](int r, int w) { return ctl.h[gather_at + std::size_t(r) * meta_words + w]; };
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
  placement out;
  out.total = total;
  out.offset = core::share_begin(total, p, me);
  out.n = core::share_begin(total, p, me + 1) - out.offset;

  // 2. The local sort.
  phase_clock clock(stream);
  int sorted = cuda::sort(req, alt, ws, ws_bytes, stream);
  if (ws) RADIX_CUDA_CHECK(cudaFreeAsync(std::exchange(ws, nullptr), stream));
  clock.mark("local sort");
  if (p == 1) {
    clock.report(me, p, req.n);
    out.selector = sorted;
    return out;
  }
  void* const key_buf[2] = {req.keys, alt.keys};
  void* const value_buf[2] = {req.values, alt.values};
  const int kb = int(req.key.bytes);
  const std::size_t vb = req.op == operation::pairs ? req.value_bytes : 0;
  const int end_bit = req.opts.end_bit < 0 ? kb * 8 : req.opts.end_bit;
  const int begin_bit = req.opts.begin_bit;
  const std::uint64_t n = req.n;

  // 3. Where the shares begin: the key at each boundary, then each rank's cuts.
  std::vector<std::uint64_t> targets;
  for (int q = 1; q < p; ++q) targets.push_back(core::share_begin(total, p, q));
  core::splitter_search search(end_bit - begin_bit, targets, total);
  auto count = [&](const std::vector<std::uint64_t>& cands, std::size_t out_at, bool at_most) {
    with_key_type(kb, [&]<class U>() {
      const std::uint32_t m = std::uint32_t(cands.size());
      count_keys<U><<<(m + 127) / 128, 128, 0, stream>>>(static_cast<const U*>(key_buf[sorted]), n,
                                                         make_compare<U>(req, begin_bit, end_bit), ctl.d + cand_at, m,
                                                         ctl.d + out_at, at_most);
      RADIX_CUDA_CHECK_LAUNCH("count_keys");
    });
  };
  while (!search.done()) {
    const auto& c = search.candidates();
    ctl.upload(cand_at, c.data(), c.size());
    count(c, count_at, false);
    RADIX_NCCL_CHECK(ncclAllReduce(ctl.d + count_at, ctl.d + count_at, c.size(), ncclUint64, ncclSum, comm, stream));
    ctl.download(count_at, c.size());
    search.advance({ctl.h.data() + count_at, c.size()});
  }
  const std::size_t nb = std::size_t(p - 1);
  ctl.upload(cand_at, search.keys().data(), nb);
  count(search.keys(), cut_at, false);
  count(search.keys(), cut_at + nb, true);
  RADIX_NCCL_CHECK(ncclAllGather(ctl.d + cut_at, ctl.d + cut_gather_at, 2 * nb, ncclUint64, comm, stream));
  ctl.download(cut_gather_at, 2 * nb * p);
  std::vector<std::uint64_t> below(nb * p), at_most(nb * p);
  for (int r = 0; r < p; ++r)
    for (std::size_t b = 0; b < nb; ++b) {
      below[r * nb + b] = ctl.h[cut_gather_at + r * 2 * nb + b];
      at_most[r * nb + b] = ctl.h[cut_gather_at + r * 2 * nb + nb + b];
    }
  const core::exchange_plan plan(counts, below, at_most);
  clock.mark("splitters");

  // 4. The exchange: runs in rank order into the other buffer.
  const int spare = sorted ^ 1;
  auto key_at = [&](int buf, std::uint64_t i) { return static_cast<char*>(key_buf[buf]) + i * kb; };
  auto value_at = [&](int buf, std::uint64_t i) { return static_cast<char*>(value_buf[buf]) + i * vb; };
  RADIX_NCCL_CHECK(ncclGroupStart());
  for (int q = 0; q < p; ++q) {
    if (q == me) continue;
    if (const std::uint64_t c = plan.send_count(me, q)) {
      send_bytes(key_at(sorted, plan.cut(me, q)), c * kb, q, comm, stream);
      if (vb) send_bytes(value_at(sorted, plan.cut(me, q)), c * vb, q, comm, stream);
    }
    if (const std::uint64_t c = plan.send_count(q, me)) {
      recv_bytes(key_at(spare, plan.recv_offset(me, q)), c * kb, q, comm, stream);
      if (vb) recv_bytes(value_at(spare, plan.recv_offset(me, q)), c * vb, q, comm, stream);
    }
  }
  RADIX_NCCL_CHECK(ncclGroupEnd());
  if (const std::uint64_t c = plan.send_count(me, me)) {
    RADIX_CUDA_CHECK(cudaMemcpyAsync(key_at(spare, plan.recv_offset(me, me)), key_at(sorted, plan.cut(me, me)), c * kb,
                                     cudaMemcpyDeviceToDevice, stream));
    if (vb)
      RADIX_CUDA_CHECK(cudaMemcpyAsync(value_at(spare, plan.recv_offset(me, me)), value_at(sorted, plan.cut(me, me)),
                                       c * vb, cudaMemcpyDeviceToDevice, stream));
  }

  clock.mark("exchange");

  // 5. Merge the runs pairwise, lower ranks on the left, between the two buffers.
  std::vector<run> runs;
  for (int r = 0; r < p; ++r)
    if (const std::uint64_t c = plan.send_count(r, me)) runs.push_back({plan.recv_offset(me, r), c});
  int cur = spare;
  while (runs.size() > 1) {
    std::vector<run> next;
    const int dst = cur ^ 1;
    for (std::size_t i = 0; i < runs.size(); i += 2) {
      if (i + 1 == runs.size()) {
        RADIX_CUDA_CHECK(cudaMemcpyAsync(key_at(dst, runs[i].offset), key_at(cur, runs[i].offset),
                                         runs[i].length * kb, cudaMemcpyDeviceToDevice, stream));
        if (vb)
          RADIX_CUDA_CHECK(cudaMemcpyAsync(value_at(dst, runs[i].offset), value_at(cur, runs[i].offset),
                                           runs[i].length * vb, cudaMemcpyDeviceToDevice, stream));
        next.push_back(runs[i]);
        continue;
      }
      with_key_type(kb, [&]<class U>() {
        with_value_type<U>(vb, [&]<class V>() {
          merge_runs<U, V>(key_buf[cur], value_buf[cur], runs[i].offset, runs[i].length, runs[i + 1].length,
                           key_buf[dst], value_buf[dst], make_compare<U>(req, begin_bit, end_bit), stream);
        });
      });
      next.push_back({runs[i].offset, runs[i].length + runs[i + 1].length});
    }
    runs.swap(next);
    cur = dst;
  }
  clock.mark("merge");
  clock.report(me, p, req.n);
  out.selector = cur;
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
