// The whole PIC step on the GPU: our kernels move the particles and compute
// cell keys, gather the particle arrays and deposit the charge; the sort is
// the library's device API (radix::cuda::argsort) on a workspace allocated
// once, so a step allocates nothing and never synchronizes until the
// verification reads its results.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <radix/cuda.hpp>

#include "../common/device_buffer.cuh"

#include "pic.hpp"

namespace pic {
namespace {

/// Device memory owned by the step; freed when the step is done.
template <class T>
using dbuf = apps::device_buffer<T>;

struct dparticles {
  float *x, *y, *u, *v;
};

using apps::block;
using apps::grid_for;
using apps::warp_sum;
#define GRID_STRIDE(i, n) APPS_GRID_STRIDE(std::uint64_t, i, n)

__global__ void move_key_kernel(dparticles p, std::uint64_t n, grid2d g, bool move, std::uint32_t* keys,
                                std::uint32_t* wide) {
  GRID_STRIDE(i, n) {
    float x = p.x[i], y = p.y[i];
    if (move) {
      x = advance(x, p.u[i], g.fnx);
      y = advance(y, p.v[i], g.fny);
      p.x[i] = x;
      p.y[i] = y;
    }
    keys[i] = cell_key(x, y, g);
    if (wide) wide[i] = wide_key(x, y, g);
  }
}

/// dst = src permuted, array by array (structure of arrays).
__global__ void gather_kernel(const std::uint32_t* __restrict__ perm, std::uint64_t n, dparticles src, dparticles dst) {
  GRID_STRIDE(i, n) {
    const std::uint32_t k = perm[i];
    dst.x[i] = src.x[k];
    dst.y[i] = src.y[k];
    dst.u[i] = src.u[k];
    dst.v[i] = src.v[k];
  }
}

/// The straightforward deposition: a thread per particle, four atomic adds.
/// With `counts` it also counts particles per cell (the reference run).
__global__ void deposit_unsorted_kernel(const float* __restrict__ x, const float* __restrict__ y, std::uint64_t n,
                                        grid2d g, double* q, std::uint32_t* counts) {
  GRID_STRIDE(i, n) {
    const cic w = weights(x[i], y[i], g);
    atomicAdd(&q[node(w.i, w.j, g)], double(w.w00));
    atomicAdd(&q[node(w.i + 1, w.j, g)], double(w.w10));
    atomicAdd(&q[node(w.i, w.j + 1, g)], double(w.w01));
    atomicAdd(&q[node(w.i + 1, w.j + 1, g)], double(w.w11));
    if (counts) atomicAdd(&counts[std::uint32_t(w.i) * g.ny + w.j], 1u);
  }
}

// Deposition of a list sorted by cell. A block takes a tile of consecutive
// particles; a warp sums each run of equal cells in registers (segmented
// scan: equal keys are adjacent, so "same key at distance d" means "same run");
// the run's last lane adds the sums to the tile's per-cell slots in shared
// memory, and the block adds the non-zero slots to the grid. A tile spanning
// more cells than there are slots (sparse particles on a large grid) adds
// each run's sums to the grid directly.
constexpr int dep_items = 16, dep_tile = block * dep_items, dep_slots = 512;

__global__ void __launch_bounds__(block) deposit_sorted_kernel(const float* __restrict__ x, const float* __restrict__ y,
                                                               std::uint64_t n, grid2d g, double* q) {
  __shared__ double slot[dep_slots * 4];
  const std::uint64_t begin = std::uint64_t(blockIdx.x) * dep_tile;
  const std::uint64_t end = n - begin < std::uint64_t(dep_tile) ? n : begin + dep_tile;
  const std::uint32_t kfirst = cell_key(x[begin], y[begin], g), klast = cell_key(x[end - 1], y[end - 1], g);
  // Unsigned: an unsorted tile (klast < kfirst) takes the direct path and the check reports it.
  const std::uint32_t span = klast - kfirst + 1;
  const bool in_shared = span <= dep_slots;
  if (in_shared)
    for (std::uint32_t s = threadIdx.x; s < span * 4; s += block) slot[s] = 0;
  __syncthreads();
  const int lane = threadIdx.x & 31;
  for (int it = 0; it < dep_items; ++it) {
    const std::uint64_t i = begin + std::uint64_t(it) * block + threadIdx.x;
    const bool valid = i < end;
    std::uint32_t k = 0xFFFFFFFFu;  // invalid lanes (the end of the last tile) form their own run
    int ci = 0, cj = 0;
    double w[4] = {0, 0, 0, 0};
    if (valid) {
      const cic c = weights(x[i], y[i], g);
      ci = c.i;
      cj = c.j;
      k = std::uint32_t(ci) * g.ny + cj;
      w[0] = c.w00;
      w[1] = c.w10;
      w[2] = c.w01;
      w[3] = c.w11;
    }
    for (int d = 1; d < 32; d *= 2) {
      const std::uint32_t kd = __shfl_up_sync(0xFFFFFFFFu, k, d);
      double wd[4];
      for (int c = 0; c < 4; ++c) wd[c] = __shfl_up_sync(0xFFFFFFFFu, w[c], d);
      if (lane >= d && kd == k)
        for (int c = 0; c < 4; ++c) w[c] += wd[c];
    }
    const std::uint32_t knext = __shfl_down_sync(0xFFFFFFFFu, k, 1);
    if (valid && (lane == 31 || knext != k)) {
      if (in_shared) {
        double* s = slot + std::size_t(k - kfirst) * 4;
        for (int c = 0; c < 4; ++c) atomicAdd(&s[c], w[c]);
      } else {
        for (int c = 0; c < 4; ++c) atomicAdd(&q[node(ci + (c & 1), cj + (c >> 1), g)], w[c]);
      }
    }
  }
  if (!in_shared) return;  // block-uniform
  __syncthreads();
  for (std::uint32_t s = threadIdx.x; s < span * 4; s += block) {
    const double v = slot[s];
    if (v == 0) continue;
    const std::uint32_t kk = kfirst + s / 4, c = s % 4;
    const int ci = int(kk / std::uint32_t(g.ny)), cj = int(kk % std::uint32_t(g.ny));
    atomicAdd(&q[node(ci + int(c & 1), cj + int(c >> 1), g)], v);
  }
}

// ---- verification kernels ----

struct verify_sums {
  unsigned long long sum_before, sum_after, unsorted, bad_nodes, worst_bits;
};

// Record-hash sum (mod 2^64) of the particle set.
__global__ void checksum_kernel(dparticles p, std::uint64_t n, unsigned long long* out) {
  unsigned long long h = 0;
  GRID_STRIDE(i, n) h += record_hash(p.x[i], p.y[i], p.u[i], p.v[i]);
  h = warp_sum(h);
  if ((threadIdx.x & 31) == 0) atomicAdd(out, h);
}

// Particles whose cell is below their predecessor's.
__global__ void order_kernel(const float* x, const float* y, std::uint64_t n, grid2d g, unsigned long long* out) {
  unsigned long long bad = 0;
  GRID_STRIDE(i, n) if (i > 0) bad += cell_key(x[i], y[i], g) < cell_key(x[i - 1], y[i - 1], g);
  bad = warp_sum(bad);
  if ((threadIdx.x & 31) == 0 && bad) atomicAdd(out, bad);
}

// Nodes where the sorted deposition differs from the reference beyond the tolerance.
__global__ void compare_kernel(const double* q, const double* ref, const std::uint32_t* counts, grid2d g,
                               verify_sums* out) {
  GRID_STRIDE(k, std::uint64_t(g.nx) * g.ny) {
    const int i = int(k / std::uint64_t(g.ny)), j = int(k % std::uint64_t(g.ny));
    const double diff = fabs(q[k] - ref[k]);
    const double tol = charge_tolerance(ref[k], node_contributions(counts, i, j, g));
    if (!(diff <= tol)) atomicAdd(&out->bad_nodes, 1ull);  // a NaN fails too
    // Non-negative doubles order like their bit patterns.
    const double r = tol > 0 ? diff / tol : (diff > 0 ? INFINITY : 0.0);
    if (r > 0) atomicMax(&out->worst_bits, (unsigned long long)__double_as_longlong(r));
  }
}

class cuda_pic {
 public:
  cuda_pic(const config& c) : c_(c), g_(c.grid), n_(c.n), nodes_(std::uint64_t(g_.nx) * g_.ny) {
    for (auto* b : {&a_, &b_}) {
      b->x = alloc_floats();
      b->y = alloc_floats();
      b->u = alloc_floats();
      b->v = alloc_floats();
    }
    keys_ = std::make_unique<dbuf<std::uint32_t>>(n_);
    wide_ = std::make_unique<dbuf<std::uint32_t>>(c.compare ? n_ : 0);
    perm_ = std::make_unique<dbuf<std::uint32_t>>(n_);
    q_ = std::make_unique<dbuf<double>>(nodes_);
    ref_ = std::make_unique<dbuf<double>>(c.verify ? nodes_ : 0);
    counts_ = std::make_unique<dbuf<std::uint32_t>>(c.verify ? nodes_ : 0);
    vs_ = std::make_unique<dbuf<verify_sums>>(1);
    // One workspace for every sort of the run: the largest any variant needs.
    radix::options o;
    for (int end_bit : {-1, g_.cell_bits}) {
      o.end_bit = end_bit;
      ws_bytes_ = std::max(ws_bytes_, radix::cuda::argsort_workspace_bytes<std::uint32_t, std::uint32_t>(n_, o));
    }
    ws_ = std::make_unique<dbuf<std::byte>>(ws_bytes_);
    cur_ = &a_;
    tmp_ = &b_;
  }
  ~cuda_pic() { cudaStreamSynchronize(s_); }  // the step's work done before its buffers are freed

  void upload(const particles& p) {
    const std::size_t bytes = n_ * sizeof(float);
    CU(cudaMemcpyAsync(cur_->x, p.x.data(), bytes, cudaMemcpyHostToDevice, s_));
    CU(cudaMemcpyAsync(cur_->y, p.y.data(), bytes, cudaMemcpyHostToDevice, s_));
    CU(cudaMemcpyAsync(cur_->u, p.u.data(), bytes, cudaMemcpyHostToDevice, s_));
    CU(cudaMemcpyAsync(cur_->v, p.v.data(), bytes, cudaMemcpyHostToDevice, s_));
    CU(cudaStreamSynchronize(s_));
  }
  particles download() {
    particles p;
    p.resize(n_);
    const std::size_t bytes = n_ * sizeof(float);
    CU(cudaMemcpyAsync(p.x.data(), cur_->x, bytes, cudaMemcpyDeviceToHost, s_));
    CU(cudaMemcpyAsync(p.y.data(), cur_->y, bytes, cudaMemcpyDeviceToHost, s_));
    CU(cudaMemcpyAsync(p.u.data(), cur_->u, bytes, cudaMemcpyDeviceToHost, s_));
    CU(cudaMemcpyAsync(p.v.data(), cur_->v, bytes, cudaMemcpyDeviceToHost, s_));
    CU(cudaStreamSynchronize(s_));
    return p;
  }
  template <class T>
  std::vector<T> to_host(const dbuf<T>& b) { return apps::to_host(b, s_); }

  void move_key(bool move, bool wide) {
    move_key_kernel<<<grid_for(n_), block, 0, s_>>>(*cur_, n_, g_, move, keys_->get(), wide ? wide_->get() : nullptr);
    CU_LAUNCHED(move_key_kernel);
  }
  void argsort(bool wide, int end_bit) {
    radix::options o;
    o.end_bit = end_bit;
    radix::cuda::argsort((wide ? wide_ : keys_)->get(), perm_->get(), n_, ws_->get(), ws_bytes_, s_, o);
  }
  void gather() {
    gather_kernel<<<grid_for(n_), block, 0, s_>>>(perm_->get(), n_, *cur_, *tmp_);
    CU_LAUNCHED(gather_kernel);
  }
  void commit() { std::swap(cur_, tmp_); }
  void deposit_sorted(const dparticles& p) {
    CU(cudaMemsetAsync(q_->get(), 0, nodes_ * sizeof(double), s_));
    const std::uint64_t tiles = (n_ + dep_tile - 1) / dep_tile;
    deposit_sorted_kernel<<<unsigned(tiles), block, 0, s_>>>(p.x, p.y, n_, g_, q_->get());
    CU_LAUNCHED(deposit_sorted_kernel);
  }
  void deposit_unsorted(const dparticles& p, double* q, std::uint32_t* counts) {
    CU(cudaMemsetAsync(q, 0, nodes_ * sizeof(double), s_));
    if (counts) CU(cudaMemsetAsync(counts, 0, nodes_ * sizeof(std::uint32_t), s_));
    deposit_unsorted_kernel<<<grid_for(n_), block, 0, s_>>>(p.x, p.y, n_, g_, q, counts);
    CU_LAUNCHED(deposit_unsorted_kernel);
  }

  /// Verification of the step just done: cur_ before the sort, tmp_ after the gather, q_ its deposition.
  step_check check() {
    verify_sums* vs = vs_->get();
    CU(cudaMemsetAsync(vs, 0, sizeof(verify_sums), s_));
    checksum_kernel<<<grid_for(n_), block, 0, s_>>>(*cur_, n_, &vs->sum_before);
    CU_LAUNCHED(checksum_kernel);
    checksum_kernel<<<grid_for(n_), block, 0, s_>>>(*tmp_, n_, &vs->sum_after);
    CU_LAUNCHED(checksum_kernel);
    order_kernel<<<grid_for(n_), block, 0, s_>>>(tmp_->x, tmp_->y, n_, g_, &vs->unsorted);
    CU_LAUNCHED(order_kernel);
    deposit_unsorted(*cur_, ref_->get(), counts_->get());
    compare_kernel<<<grid_for(nodes_), block, 0, s_>>>(q_->get(), ref_->get(), counts_->get(), g_, vs);
    CU_LAUNCHED(compare_kernel);
    verify_sums h{};
    CU(cudaMemcpyAsync(&h, vs, sizeof h, cudaMemcpyDeviceToHost, s_));
    CU(cudaStreamSynchronize(s_));
    step_check r;
    r.sum_before = h.sum_before;
    r.sum_after = h.sum_after;
    r.unsorted_pairs = h.unsorted;
    r.bad_nodes = h.bad_nodes;
    std::memcpy(&r.worst, &h.worst_bits, sizeof r.worst);
    return r;
  }

  /// Median of reps CUDA-event-timed runs of f, after one warm-up.
  template <class F>
  double time_median(F&& f) {
    f();
    CU(cudaStreamSynchronize(s_));
    std::vector<double> t;
    for (int r = 0; r < c_.reps; ++r) {
      ev_.record(0, s_);
      f();
      ev_.record(1, s_);
      CU(cudaEventSynchronize(ev_[1]));
      t.push_back(ev_.elapsed(0, 1));
    }
    return median(t);
  }
  float elapsed(int a, int b) { return ev_.elapsed(a, b); }

  const config& c_;
  grid2d g_;
  std::uint64_t n_, nodes_;
  apps::cuda_stream s_;
  apps::cuda_events ev_{5};
  std::vector<std::unique_ptr<dbuf<float>>> arrays_;
  dparticles a_{}, b_{}, *cur_, *tmp_;
  std::unique_ptr<dbuf<std::uint32_t>> keys_, wide_, perm_, counts_;
  std::unique_ptr<dbuf<double>> q_, ref_;
  std::unique_ptr<dbuf<verify_sums>> vs_;
  std::unique_ptr<dbuf<std::byte>> ws_;
  std::size_t ws_bytes_ = 0;

 private:
  float* alloc_floats() {
    arrays_.push_back(std::make_unique<dbuf<float>>(n_));
    return arrays_.back()->get();
  }
};

}  // namespace

bool cuda_built() { return true; }

engine_result run_cuda(const config& c, const particles& init) {
  if (c.n > 0xFFFFFFFFull) throw std::runtime_error("the CUDA step uses 32-bit particle indices: at most 2^32 - 1 particles");
  engine_result r;
  r.engine = "cuda";
  r.device = apps::device_name();
  cuda_pic d(c);
  const int cb = c.grid.cell_bits;

  if (c.compare) {
    auto& m = r.cmp;
    d.upload(init);
    d.move_key(false, true);  // keys of the random list
    m.first_wide = d.time_median([&] { d.argsort(true, -1); });
    m.first_full = d.time_median([&] { d.argsort(false, -1); });
    m.first_needed = d.time_median([&] { d.argsort(false, cb); });
    m.deposit_unsorted = d.time_median([&] { d.deposit_unsorted(*d.cur_, d.q_->get(), nullptr); });
    d.gather();
    d.commit();  // now sorted by cell
    m.deposit_sorted = d.time_median([&] { d.deposit_sorted(*d.cur_); });
    d.move_key(true, true);  // one step: weakly disordered
    m.resort_wide = d.time_median([&] { d.argsort(true, -1); });
    m.resort_full = d.time_median([&] { d.argsort(false, -1); });
    m.resort_needed = d.time_median([&] { d.argsort(false, cb); });
  }

  d.upload(init);
  std::vector<double> t_move, t_sort, t_gather, t_dep, t_step;
  for (int s = 1; s <= c.steps; ++s) {
    CU(cudaEventRecord(d.ev_[0], d.s_));
    d.move_key(true, false);
    CU(cudaEventRecord(d.ev_[1], d.s_));
    d.argsort(false, cb);
    CU(cudaEventRecord(d.ev_[2], d.s_));
    d.gather();
    CU(cudaEventRecord(d.ev_[3], d.s_));
    d.deposit_sorted(*d.tmp_);
    CU(cudaEventRecord(d.ev_[4], d.s_));
    CU(cudaEventSynchronize(d.ev_[4]));
    if (s == 1) {
      r.steps.first_step = d.elapsed(0, 4);
    } else {
      t_move.push_back(d.elapsed(0, 1));
      t_sort.push_back(d.elapsed(1, 2));
      t_gather.push_back(d.elapsed(2, 3));
      t_dep.push_back(d.elapsed(3, 4));
      t_step.push_back(d.elapsed(0, 4));
    }
    if (c.verify) judge(d.check(), s, r);
    d.commit();
  }
  r.steps.move_key = median(t_move);
  r.steps.sort = median(t_sort);
  r.steps.gather = median(t_gather);
  r.steps.deposit = median(t_dep);
  r.steps.step = median(t_step);
  r.charge = d.to_host(*d.q_);
  r.total_charge = std::accumulate(r.charge.begin(), r.charge.end(), 0.0);
  if (c.verify) r.counts = d.to_host(*d.counts_);
  r.final_hash = ordered_hash(d.download(), c.threads);
  r.ran = true;
  return r;
}

}  // namespace pic
