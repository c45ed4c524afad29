// The whole broad-phase frame on the GPU: our kernels compute the boxes and
// the endpoint keys, the library sorts the endpoints (radix::cuda::sort_pairs
// on a workspace allocated once per scene size), our kernels build the sweep
// records, walk from every min endpoint (one thread each) counting the pairs
// that survive the y/z filter, scan the counts and walk again to write the
// pairs at their offsets. Nothing is allocated and the host waits once per
// frame, for the pair count. The write checks the buffer's capacity; a frame
// that found more pairs than fit grows the buffer and writes again (never a
// silently dropped pair).
#include <cuda_runtime.h>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <radix/cuda.hpp>

#include "../common/device_buffer.cuh"

#include "broadphase.hpp"

namespace bp {
namespace {

/// Device memory owned by one scene size; freed at its end.
template <class T>
using dbuf = apps::device_buffer<T>;

using apps::block;
using apps::grid_for;
using apps::warp_sum;
#define GRID_STRIDE(i, n) APPS_GRID_STRIDE(std::uint64_t, i, n)

__global__ void step_kernel(world w, state_ptrs s, std::uint64_t n) {
  GRID_STRIDE(i, n) step(w, s, i);
}
__global__ void aabb_kernel(state_ptrs s, std::uint64_t n, box* boxes) {
  GRID_STRIDE(i, n) boxes[i] = aabb(s, i);
}
__global__ void generation_order_kernel(std::uint32_t* vals, std::uint64_t n) {
  GRID_STRIDE(i, n) {
    vals[2 * i] = endpoint(std::uint32_t(i), false);
    vals[2 * i + 1] = endpoint(std::uint32_t(i), true);
  }
}
/// Each endpoint's key, in the list's current order (the previous frame's).
__global__ void keys_kernel(const std::uint32_t* __restrict__ vals, std::uint64_t m, const box* __restrict__ boxes,
                            float* keys) {
  GRID_STRIDE(q, m) {
    const std::uint32_t v = vals[q];
    keys[q] = v & 1u ? boxes[v >> 1].hi[0] : boxes[v >> 1].lo[0];
  }
}
__global__ void shift_kernel(float* keys, std::uint64_t m, float x0) {
  GRID_STRIDE(q, m) keys[q] = __fsub_rn(keys[q], x0);
}
__global__ void rec_kernel(const float* __restrict__ keys, const std::uint32_t* __restrict__ vals, std::uint64_t m,
                           const box* __restrict__ boxes, sweep_rec* recs) {
  GRID_STRIDE(q, m) recs[q] = make_rec(keys[q], vals[q], boxes);
}

struct control {
  unsigned long long total;         ///< pairs found (the scan's total)
  unsigned long long x_candidates;  ///< pairs overlapping in x
};

// The walk of Ha, Krüger & Silva 2009 ("Fast 4-way parallel radix sorting on
// GPUs"), §6.1, from min endpoint p: the endpoints after p whose
// key is at most p's x max are exactly the boxes whose x min lies in p's x
// range (ties included), so every x-overlapping pair is met once, from the
// box whose min endpoint sorts first. Neighbouring threads walk overlapping
// stretches of the same records, which the caches serve.
template <bool Write>
__device__ unsigned walk(const sweep_rec* __restrict__ r, std::uint64_t m, std::uint64_t p, unsigned& xc, uint2* out) {
  const sweep_rec a = r[p];
  unsigned k = 0;
  for (std::uint64_t q = p + 1; q < m; ++q) {
    const sweep_rec b = r[q];
    if (b.key > a.xmax) break;
    xc += b.id != max_endpoint;
    if (overlap_yz(a, b)) {  // false for max endpoints (empty y range)
      if (Write) out[k] = make_uint2(min(a.id, b.id), max(a.id, b.id));
      ++k;
    }
  }
  return k;
}

__global__ void count_kernel(const sweep_rec* __restrict__ r, std::uint64_t m, std::uint32_t* counts, control* ctl) {
  unsigned long long xc_sum = 0;
  GRID_STRIDE(p, m) {
    unsigned xc = 0, k = 0;
    if (r[p].id != max_endpoint) k = walk<false>(r, m, p, xc, nullptr);
    counts[p] = k;
    xc_sum += xc;
  }
  xc_sum = warp_sum(xc_sum);
  if ((threadIdx.x & 31) == 0 && xc_sum) atomicAdd(&ctl->x_candidates, xc_sum);
}

__global__ void write_kernel(const sweep_rec* __restrict__ r, std::uint64_t m, const std::uint32_t* __restrict__ counts,
                             const unsigned long long* __restrict__ offsets, unsigned long long capacity, uint2* pairs) {
  GRID_STRIDE(p, m) {
    const unsigned c = counts[p];
    // A list that does not fit is not written at all: the host sees the total, grows the buffer, writes again.
    if (c == 0 || offsets[p] + c > capacity) continue;
    unsigned xc = 0;
    walk<true>(r, m, p, xc, pairs + offsets[p]);
  }
}

// ---- exclusive scan of the per-endpoint counts into 64-bit offsets ----
constexpr int scan_items = 8, scan_tile = block * scan_items;

/// Exclusive scan over the block of one value per thread; returns the block's total in `total`.
__device__ unsigned long long block_exclusive(unsigned long long v, unsigned long long& total) {
  __shared__ unsigned long long warp_tot[block / 32];
  const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
  unsigned long long inc = v;
  for (int d = 1; d < 32; d *= 2) {
    const unsigned long long y = __shfl_up_sync(0xFFFFFFFFu, inc, d);
    if (lane >= d) inc += y;
  }
  if (lane == 31) warp_tot[wid] = inc;
  __syncthreads();
  unsigned long long before = 0;
  total = 0;
  for (int w = 0; w < block / 32; ++w) {
    if (w < wid) before += warp_tot[w];
    total += warp_tot[w];
  }
  __syncthreads();  // warp_tot is reused by the next call
  return before + inc - v;
}

__global__ void __launch_bounds__(block) tile_sum_kernel(const std::uint32_t* __restrict__ counts, std::uint64_t m,
                                                         unsigned long long* sums) {
  const std::uint64_t base = std::uint64_t(blockIdx.x) * scan_tile;
  unsigned long long s = 0;
  for (int k = 0; k < scan_items; ++k) {
    const std::uint64_t i = base + std::uint64_t(k) * block + threadIdx.x;
    if (i < m) s += counts[i];
  }
  unsigned long long total;
  block_exclusive(s, total);
  if (threadIdx.x == 0) sums[blockIdx.x] = total;
}

/// One block: the tile sums become tile offsets; the grand total goes to ctl.
__global__ void __launch_bounds__(block) scan_top_kernel(unsigned long long* sums, std::uint64_t tiles, control* ctl) {
  unsigned long long carry = 0;
  for (std::uint64_t c = 0; c < tiles; c += block) {
    const std::uint64_t i = c + threadIdx.x;
    const unsigned long long v = i < tiles ? sums[i] : 0;
    unsigned long long total;
    const unsigned long long ex = block_exclusive(v, total);
    if (i < tiles) sums[i] = carry + ex;
    carry += total;
  }
  if (threadIdx.x == 0) ctl->total = carry;
}

__global__ void __launch_bounds__(block) scan_apply_kernel(const std::uint32_t* __restrict__ counts, std::uint64_t m,
                                                           const unsigned long long* __restrict__ sums,
                                                           unsigned long long* offsets) {
  const std::uint64_t base = std::uint64_t(blockIdx.x) * scan_tile + std::uint64_t(threadIdx.x) * scan_items;
  std::uint32_t c[scan_items];
  unsigned long long s = 0;
  for (int k = 0; k < scan_items; ++k) {
    c[k] = base + k < m ? counts[base + k] : 0;
    s += c[k];
  }
  unsigned long long total;
  unsigned long long o = sums[blockIdx.x] + block_exclusive(s, total);
  for (int k = 0; k < scan_items; ++k)
    if (base + k < m) {
      offsets[base + k] = o;
      o += c[k];
    }
}

class cuda_bp {
 public:
  cuda_bp(const config& c, std::uint64_t n) : c_(c), n_(n), m_(2 * n) {
    scene s = make_scene(c, n);
    CU(cudaMallocHost(&h_ctl_, sizeof(control)));
    state_.resize(9);
    std::vector<float>* host[9] = {&s.px, &s.py, &s.pz, &s.vx, &s.vy, &s.vz, &s.hx, &s.hy, &s.hz};
    for (int a = 0; a < 9; ++a) {
      state_[a] = std::make_unique<dbuf<float>>(n_);
      CU(cudaMemcpyAsync(state_[a]->get(), host[a]->data(), n_ * sizeof(float), cudaMemcpyHostToDevice, st_));
    }
    p_ = {state_[0]->get(), state_[1]->get(), state_[2]->get(), state_[3]->get(), state_[4]->get(),
          state_[5]->get(), state_[6]->get(), state_[7]->get(), state_[8]->get()};
    w_ = s.w;
    if (!s.heights.empty()) {
      heights_.reset(s.heights.size());
      CU(cudaMemcpyAsync(heights_.get(), s.heights.data(), s.heights.size() * sizeof(float), cudaMemcpyHostToDevice, st_));
      w_.height = heights_.get();
    } else {
      w_.height = nullptr;
    }
    boxes_.reset(n_);
    keys_.reset(m_);
    vals_.reset(m_);
    keys0_.reset(c.reps > 0 ? m_ : 0);
    vals0_.reset(c.reps > 0 ? m_ : 0);
    recs_.reset(m_);
    counts_.reset(m_);
    offsets_.reset(m_);
    tiles_ = (m_ + scan_tile - 1) / scan_tile;
    sums_.reset(tiles_);
    ctl_.reset(1);
    // Room for 8 pairs per object to start with; a frame with more grows it.
    pairs_.reset(std::max<std::uint64_t>(1 << 16, 8 * n_));
    ws_bytes_ = radix::cuda::sort_pairs_workspace_bytes<float, std::uint32_t>(m_);
    ws_.reset(ws_bytes_);
    generation_order();
    CU(cudaStreamSynchronize(st_));  // the host scene is freed on return
  }
  ~cuda_bp() {
    cudaStreamSynchronize(st_);  // the frame's work done before its buffers are freed
    if (h_ctl_) cudaFreeHost(h_ctl_);
  }

  void generation_order() {
    generation_order_kernel<<<grid_for(n_), block, 0, st_>>>(vals_.get(), n_);
    CU_LAUNCHED(generation_order_kernel);
  }
  void simulate() {
    step_kernel<<<grid_for(n_), block, 0, st_>>>(w_, p_, n_);
    CU_LAUNCHED(step_kernel);
  }
  void aabb_keys() {
    aabb_kernel<<<grid_for(n_), block, 0, st_>>>(p_, n_, boxes_.get());
    CU_LAUNCHED(aabb_kernel);
    keys_kernel<<<grid_for(m_), block, 0, st_>>>(vals_.get(), m_, boxes_.get(), keys_.get());
    CU_LAUNCHED(keys_kernel);
  }
  void sort() { radix::cuda::sort_pairs(keys_.get(), vals_.get(), m_, ws_.get(), ws_bytes_, st_); }
  void sweep() {
    CU(cudaMemsetAsync(ctl_.get(), 0, sizeof(control), st_));
    rec_kernel<<<grid_for(m_), block, 0, st_>>>(keys_.get(), vals_.get(), m_, boxes_.get(), recs_.get());
    CU_LAUNCHED(rec_kernel);
    count_kernel<<<grid_for(m_), block, 0, st_>>>(recs_.get(), m_, counts_.get(), ctl_.get());
    CU_LAUNCHED(count_kernel);
    tile_sum_kernel<<<unsigned(tiles_), block, 0, st_>>>(counts_.get(), m_, sums_.get());
    CU_LAUNCHED(tile_sum_kernel);
    scan_top_kernel<<<1, block, 0, st_>>>(sums_.get(), tiles_, ctl_.get());
    CU_LAUNCHED(scan_top_kernel);
    scan_apply_kernel<<<unsigned(tiles_), block, 0, st_>>>(counts_.get(), m_, sums_.get(), offsets_.get());
    CU_LAUNCHED(scan_apply_kernel);
    write();
  }
  void write() {
    write_kernel<<<grid_for(m_), block, 0, st_>>>(recs_.get(), m_, counts_.get(), offsets_.get(), pairs_.size(),
                                                  pairs_.get());
    CU_LAUNCHED(write_kernel);
  }
  /// Waits for the frame; grows the pair buffer and writes again when it was too small.
  control finish(std::uint32_t& grown) {
    CU(cudaMemcpyAsync(h_ctl_, ctl_.get(), sizeof(control), cudaMemcpyDeviceToHost, st_));
    CU(cudaStreamSynchronize(st_));
    const control c = *h_ctl_;
    if (c.total > pairs_.size()) {
      ++grown;
      pairs_.reset(c.total + c.total / 4);
      write();
      CU(cudaStreamSynchronize(st_));
    }
    return c;
  }

  pair_list download_pairs(std::uint64_t count) {
    pair_list h(count);
    static_assert(sizeof(h[0]) == sizeof(uint2));
    if (count) CU(cudaMemcpyAsync(h.data(), pairs_.get(), count * sizeof(uint2), cudaMemcpyDeviceToHost, st_));
    CU(cudaStreamSynchronize(st_));
    return h;
  }
  std::vector<box> download_boxes() {
    std::vector<box> h(n_);
    CU(cudaMemcpyAsync(h.data(), boxes_.get(), n_ * sizeof(box), cudaMemcpyDeviceToHost, st_));
    CU(cudaStreamSynchronize(st_));
    return h;
  }

  float elapsed(int a, int b) { return ev_.elapsed(a, b); }
  void record(int e) { ev_.record(e, st_); }

  /// Median of reps event-timed sorts of the list `prepare` sets up (untimed), after one warm-up.
  template <class F>
  double time_sort(F&& prepare) {
    std::vector<double> t;
    for (int r = 0; r <= c_.reps; ++r) {
      prepare();
      record(0);
      sort();
      record(1);
      CU(cudaEventSynchronize(ev_[1]));
      if (r) t.push_back(elapsed(0, 1));
    }
    return median(t);
  }
  void save_list() {
    CU(cudaMemcpyAsync(keys0_.get(), keys_.get(), m_ * sizeof(float), cudaMemcpyDeviceToDevice, st_));
    CU(cudaMemcpyAsync(vals0_.get(), vals_.get(), m_ * sizeof(std::uint32_t), cudaMemcpyDeviceToDevice, st_));
  }
  void restore_list() {
    CU(cudaMemcpyAsync(keys_.get(), keys0_.get(), m_ * sizeof(float), cudaMemcpyDeviceToDevice, st_));
    CU(cudaMemcpyAsync(vals_.get(), vals0_.get(), m_ * sizeof(std::uint32_t), cudaMemcpyDeviceToDevice, st_));
  }
  void shift_keys() {
    shift_kernel<<<grid_for(m_), block, 0, st_>>>(keys_.get(), m_, w_.x0);
    CU_LAUNCHED(shift_kernel);
  }

  const config& c_;
  std::uint64_t n_, m_, tiles_ = 0;
  apps::cuda_stream st_;
  apps::cuda_events ev_{5};
  control* h_ctl_ = nullptr;
  std::vector<std::unique_ptr<dbuf<float>>> state_;
  state_ptrs p_{};
  world w_{};
  dbuf<float> heights_, keys_, keys0_;
  dbuf<box> boxes_;
  dbuf<std::uint32_t> vals_, vals0_, counts_;
  dbuf<sweep_rec> recs_;
  dbuf<unsigned long long> offsets_, sums_;
  dbuf<control> ctl_;
  dbuf<uint2> pairs_;
  dbuf<std::byte> ws_;
  std::size_t ws_bytes_ = 0;
};

}  // namespace

bool cuda_built() { return true; }

engine_result run_cuda(const config& c) {
  engine_result r;
  r.engine = "cuda";
  r.device = apps::device_name();
  for (std::uint64_t n : c.sizes) {
    if (n >= (1ull << 31)) throw std::runtime_error("the GPU frame uses 32-bit endpoint values: fewer than 2^31 objects");
    cuda_bp d(c, n);
    size_result z;
    z.n = n;
    z.w = d.w_;
    std::vector<double> t_sim, t_ak, t_sort, t_sweep, t_total;
    double xc = 0, np = 0;
    pair_list last;
    for (int f = 1; f <= c.frames; ++f) {
      d.record(0);
      if (f > 1) d.simulate();
      d.record(1);
      d.aabb_keys();
      d.record(2);
      d.sort();
      d.record(3);
      d.sweep();
      d.record(4);
      const control ctl = d.finish(z.pair_buffer_grown);
      frame_times ft{d.elapsed(1, 2), d.elapsed(2, 3), d.elapsed(3, 4), d.elapsed(1, 4), f > 1 ? d.elapsed(0, 1) : -1};
      if (f == 1) {
        z.first = ft;
      } else {
        t_sim.push_back(ft.simulate);
        t_ak.push_back(ft.aabb_keys);
        t_sort.push_back(ft.sort);
        t_sweep.push_back(ft.sweep);
        t_total.push_back(ft.total);
      }
      xc += double(ctl.x_candidates);
      np += double(ctl.total);
      last = d.download_pairs(ctl.total);
      z.list_hash = hash_pairs(z.list_hash, reinterpret_cast<const std::uint32_t*>(last.data()), last.size());
      if (verified_frame(c, f)) {
        std::string method;
        const std::string m = verify_frame(c, d.download_boxes(), last, method);
        z.verified_by = method;
        ++z.frames_verified;
        if (!m.empty()) r.failures.push_back("cuda, " + std::to_string(n) + " objects, frame " + std::to_string(f) + ": " + m);
      }
    }
    z.later = {median(t_ak), median(t_sort), median(t_sweep), median(t_total), median(t_sim)};
    z.x_candidates = xc / c.frames;
    z.pairs = np / c.frames;
    z.last_pairs = last.size();
    if (n == c.sizes.front()) {
      z.last_boxes = d.download_boxes();
      z.last_pair_list = std::move(last);
    }
    if (c.reps > 0) {
      d.simulate();
      d.aabb_keys();
      d.save_list();
      z.coh.previous = d.time_sort([&] { d.restore_list(); });
      z.coh.sorted = d.time_sort([] {});
      z.coh.origin = d.time_sort([&] {
        d.restore_list();
        d.shift_keys();
      });
      z.coh.generation = d.time_sort([&] {
        d.generation_order();
        d.aabb_keys();
      });
    }
    r.sizes.push_back(std::move(z));
  }
  return r;
}

}  // namespace bp
