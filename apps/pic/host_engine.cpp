// The PIC step on host threads, sorting with the library's host API: the CPU
// engine, or the OpenCL engine (host data copied to the device and back by
// the library). Also the pieces every engine shares: initial particles,
// verification arithmetic, hashes.
#include <radix/radix.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <string>

#include "../common/parallel.hpp"
#include "pic.hpp"

namespace pic {

using radix_apps::parallel_for;

particles make_particles(const config& c) {
  particles p;
  p.resize(c.n);
  parallel_for(c.n, c.threads, [&](std::uint64_t b, std::uint64_t e, unsigned) {
    for (std::uint64_t j = b; j < e; ++j) initial_particle(j, c.shape, p.x[j], p.y[j], p.u[j], p.v[j]);
  });
  return p;
}

void judge(const step_check& c, int step, engine_result& r) {
  auto fail = [&](const std::string& what) {
    if (r.failures.size() < 20) r.failures.push_back("step " + std::to_string(step) + ": " + what);
  };
  if (c.sum_before != c.sum_after) fail("particle checksum changed by the sort + gather");
  if (c.unsorted_pairs) fail(std::to_string(c.unsorted_pairs) + " particles out of cell order after the gather");
  if (c.bad_nodes) fail(std::to_string(c.bad_nodes) + " grid nodes differ from the unsorted deposition beyond tolerance");
  r.worst = std::max(r.worst, c.worst);
  ++r.steps_verified;
}

std::uint64_t ordered_hash(const particles& p, unsigned threads) {
  std::vector<std::uint64_t> part(radix_apps::hardware_threads() + 64, 0);
  const unsigned used = parallel_for(p.size(), threads, [&](std::uint64_t b, std::uint64_t e, unsigned t) {
    std::uint64_t h = 0;
    for (std::uint64_t i = b; i < e; ++i) h += mix64(record_hash(p.x[i], p.y[i], p.u[i], p.v[i]) + i * 0x9E3779B97F4A7C15ull);
    part[t] = h;
  });
  return std::accumulate(part.begin(), part.begin() + used, std::uint64_t(0));
}

namespace {

using apps::clk;
using apps::ms;

class host_pic {
 public:
  host_pic(const config& c, bool opencl)
      : c_(c), g_(c.grid), threads_(c.threads ? c.threads : radix_apps::hardware_threads()),
        cells_(std::uint64_t(g_.nx) * g_.ny) {
    radix::options o;
    o.use = opencl ? radix::engine::opencl : radix::engine::cpu;
    o.threads = c.threads;
    sorter_.opts() = o;
    tmp_.resize(c.n);
    keys_.resize(c.n);
    perm_.resize(c.n);
    q_.resize(cells_);
    edge_.assign(threads_, std::vector<double>(4ull * g_.ny));
    rows_.resize(threads_);
  }

  void load(const particles& init) { cur_ = init; }

  /// Optionally moves every particle, then writes its cell key (and the wide key when asked).
  void move_key(bool move, bool wide = false) {
    if (wide) wide_.resize(c_.n);
    if (move && !wide) return move_key_loop<true, false>();
    if (move) return move_key_loop<true, true>();
    if (wide) return move_key_loop<false, true>();
    move_key_loop<false, false>();
  }
  // Separate loops per variant and raw pointers: the step's loop then has no
  // branches but the wrap-around, and the compiler may vectorise it.
  template <bool Move, bool Wide>
  void move_key_loop() {
    parallel_for(c_.n, threads_, [&](std::uint64_t b, std::uint64_t e, unsigned) {
      float* __restrict x = cur_.x.data();
      float* __restrict y = cur_.y.data();
      const float* __restrict u = cur_.u.data();
      const float* __restrict v = cur_.v.data();
      std::uint32_t* __restrict k = keys_.data();
      std::uint32_t* __restrict w = wide_.data();
      const grid2d g = g_;
      for (std::uint64_t i = b; i < e; ++i) {
        float xi = x[i], yi = y[i];
        if constexpr (Move) {
          xi = advance(xi, u[i], g.fnx);
          yi = advance(yi, v[i], g.fny);
          x[i] = xi;
          y[i] = yi;
        }
        k[i] = cell_key(xi, yi, g);
        if constexpr (Wide) w[i] = wide_key(xi, yi, g);
      }
    });
  }

  /// Stable argsort of the cell keys (or the wide keys) on bits [0, end_bit).
  void argsort(bool wide, int end_bit) {
    sorter_.opts().end_bit = end_bit;
    sorter_.argsort(std::span<const std::uint32_t>(wide ? wide_ : keys_), std::span(perm_));
  }

  /// tmp = cur permuted (structure of arrays), one array after the other: on
  /// the development machine this ran 1.5-2x faster than gathering all four
  /// arrays in one loop (fewer memory streams at once).
  void gather() {
    parallel_for(c_.n, threads_, [&](std::uint64_t b, std::uint64_t e, unsigned) {
      const std::uint32_t* __restrict p = perm_.data();
      for (auto [src, dst] : {std::pair{&cur_.x, &tmp_.x}, {&cur_.y, &tmp_.y}, {&cur_.u, &tmp_.u}, {&cur_.v, &tmp_.v}}) {
        const float* __restrict s = src->data();
        float* __restrict d = dst->data();
        for (std::uint64_t i = b; i < e; ++i) d[i] = s[p[i]];
      }
    });
  }
  void commit() { std::swap(cur_, tmp_); }

  /// Deposition of a list sorted by cell: one run sum per cell run and four
  /// node writes per run. Each thread takes a contiguous range of particles,
  /// hence of cell rows [ia, ib]; it touches node rows [ia, ib + 1], of which
  /// [ia + 2, ib - 1] no other thread touches: those it writes directly, the
  /// (at most four) rows at its ends go to a private buffer added afterwards.
  void deposit_sorted(const particles& p, std::vector<double>& q) {
    const int ny = g_.ny;
    parallel_for(cells_, threads_, [&](std::uint64_t b, std::uint64_t e, unsigned) {
      std::fill(q.begin() + b, q.begin() + e, 0.0);
    });
    const unsigned used = parallel_for(p.size(), threads_, [&](std::uint64_t b, std::uint64_t e, unsigned t) {
      auto& edge = edge_[t];
      std::fill(edge.begin(), edge.end(), 0.0);
      rows_[t] = {-1, -1};
      if (b == e) return;
      const int ia = cell_coord(p.x[b], g_.fnx, g_.nx), ib = cell_coord(p.x[e - 1], g_.fnx, g_.nx);
      rows_[t] = {ia, ib};
      auto add = [&](int row, int col, double w) {  // row in [ia, ib + 1], not yet wrapped
        if (row >= ia + 2 && row <= ib - 1)
          q[std::size_t(row) * ny + col] += w;
        else
          edge[std::size_t(row <= ia + 1 ? row - ia : 2 + row - ib) * ny + col] += w;
      };
      int ci = -1, cj = -1;
      double s00 = 0, s10 = 0, s01 = 0, s11 = 0;
      auto flush = [&] {
        if (ci < 0) return;
        const int cj1 = cj + 1 == ny ? 0 : cj + 1;
        add(ci, cj, s00);
        add(ci + 1, cj, s10);
        add(ci, cj1, s01);
        add(ci + 1, cj1, s11);
      };
      for (std::uint64_t i = b; i < e; ++i) {
        const cic w = weights(p.x[i], p.y[i], g_);
        if (w.i != ci || w.j != cj) {
          flush();
          ci = w.i;
          cj = w.j;
          s00 = s10 = s01 = s11 = 0;
        }
        s00 += w.w00;
        s10 += w.w10;
        s01 += w.w01;
        s11 += w.w11;
      }
      flush();
    });
    for (unsigned t = 0; t < used; ++t) {
      const auto [ia, ib] = rows_[t];
      if (ia < 0) continue;
      for (int slot = 0; slot < 4; ++slot) {
        int row = slot < 2 ? ia + slot : ib + slot - 2;
        if (row >= g_.nx) row -= g_.nx;
        const double* src = edge_[t].data() + std::size_t(slot) * ny;
        double* dst = q.data() + std::size_t(row) * ny;
        for (int j = 0; j < ny; ++j) dst[j] += src[j];
      }
    }
  }

  /// The straightforward deposition, particle by particle in list order;
  /// threads add into private grids (memory permitting) summed at the end.
  void deposit_unsorted(const particles& p, std::vector<double>& q) {
    const unsigned t_max = unsigned(std::clamp<std::uint64_t>((1ull << 30) / (cells_ * 8), 1, threads_));
    if (priv_.size() < t_max) priv_.resize(t_max);
    const unsigned used = parallel_for(p.size(), t_max, [&](std::uint64_t b, std::uint64_t e, unsigned t) {
      auto& g = t == 0 ? q : priv_[t];
      g.assign(cells_, 0.0);
      for (std::uint64_t i = b; i < e; ++i) {
        const cic w = weights(p.x[i], p.y[i], g_);
        g[node(w.i, w.j, g_)] += w.w00;
        g[node(w.i + 1, w.j, g_)] += w.w10;
        g[node(w.i, w.j + 1, g_)] += w.w01;
        g[node(w.i + 1, w.j + 1, g_)] += w.w11;
      }
    });
    if (used > 1)
      parallel_for(cells_, threads_, [&](std::uint64_t b, std::uint64_t e, unsigned) {
        for (unsigned t = 1; t < used; ++t)
          for (std::uint64_t k = b; k < e; ++k) q[k] += priv_[t][k];
      });
  }

  /// Verification of the step just done (cur_: before the sort, tmp_: after
  /// the gather, q_: the sorted deposition of tmp_).
  step_check check() {
    step_check c;
    c.sum_before = checksum(cur_);
    c.sum_after = checksum(tmp_);
    std::vector<std::uint64_t> bad(threads_ + 1, 0);
    parallel_for(c_.n, threads_, [&](std::uint64_t b, std::uint64_t e, unsigned t) {
      std::uint64_t k = 0;
      for (std::uint64_t i = std::max<std::uint64_t>(b, 1); i < e; ++i)
        k += cell_key(tmp_.x[i], tmp_.y[i], g_) < cell_key(tmp_.x[i - 1], tmp_.y[i - 1], g_);
      bad[t] = k;
    });
    c.unsorted_pairs = std::accumulate(bad.begin(), bad.end(), std::uint64_t(0));

    // The reference: one thread, list order before the sort, plus particles per cell.
    ref_.assign(cells_, 0.0);
    counts_.assign(cells_, 0);
    for (std::uint64_t i = 0; i < c_.n; ++i) {
      const cic w = weights(cur_.x[i], cur_.y[i], g_);
      ref_[node(w.i, w.j, g_)] += w.w00;
      ref_[node(w.i + 1, w.j, g_)] += w.w10;
      ref_[node(w.i, w.j + 1, g_)] += w.w01;
      ref_[node(w.i + 1, w.j + 1, g_)] += w.w11;
      ++counts_[std::size_t(w.i) * g_.ny + w.j];
    }
    for (int i = 0; i < g_.nx; ++i)
      for (int j = 0; j < g_.ny; ++j) {
        const std::size_t k = std::size_t(i) * g_.ny + j;
        const double diff = std::fabs(q_[k] - ref_[k]);
        const double tol = charge_tolerance(ref_[k], node_contributions(counts_.data(), i, j, g_));
        if (!(diff <= tol)) ++c.bad_nodes;  // a NaN fails too
        c.worst = std::max(c.worst, tol > 0 ? diff / tol : (diff > 0 ? INFINITY : 0.0));
      }
    return c;
  }

  std::uint64_t checksum(const particles& p) {
    std::vector<std::uint64_t> part(threads_ + 1, 0);
    parallel_for(p.size(), threads_, [&](std::uint64_t b, std::uint64_t e, unsigned t) {
      std::uint64_t h = 0;
      for (std::uint64_t i = b; i < e; ++i) h += record_hash(p.x[i], p.y[i], p.u[i], p.v[i]);
      part[t] = h;
    });
    return std::accumulate(part.begin(), part.end(), std::uint64_t(0));
  }

  template <class F>
  double time_median(F&& f) { return apps::time_median(c_.reps, f); }

  const config& c_;
  grid2d g_;
  unsigned threads_;
  std::uint64_t cells_;
  radix::sorter sorter_;
  particles cur_, tmp_;
  std::vector<std::uint32_t> keys_, wide_, perm_, counts_;
  std::vector<double> q_, ref_;
  std::vector<std::vector<double>> edge_, priv_;
  std::vector<std::pair<int, int>> rows_;
};

}  // namespace

engine_result run_host(const config& c, const particles& init, bool opencl) {
  engine_result r;
  r.engine = opencl ? "opencl" : "cpu";
  r.device = opencl ? "OpenCL engine through the host API (device chosen by the library; transfers included)"
                    : apps::host_description(c.threads);
  host_pic h(c, opencl);
  const int cb = c.grid.cell_bits;

  if (c.compare) {
    auto& m = r.cmp;
    h.load(init);
    h.move_key(false, true);  // keys of the random list
    m.first_wide = h.time_median([&] { h.argsort(true, -1); });
    m.first_full = h.time_median([&] { h.argsort(false, -1); });
    m.first_needed = h.time_median([&] { h.argsort(false, cb); });
    m.deposit_unsorted = h.time_median([&] { h.deposit_unsorted(h.cur_, h.q_); });
    h.gather();
    h.commit();  // now sorted by cell
    m.deposit_sorted = h.time_median([&] { h.deposit_sorted(h.cur_, h.q_); });
    h.move_key(true, true);  // one step: weakly disordered
    m.resort_wide = h.time_median([&] { h.argsort(true, -1); });
    m.resort_full = h.time_median([&] { h.argsort(false, -1); });
    m.resort_needed = h.time_median([&] { h.argsort(false, cb); });
  }

  h.load(init);
  std::vector<double> t_move, t_sort, t_gather, t_dep, t_step;
  for (int s = 1; s <= c.steps; ++s) {
    const auto t0 = clk::now();
    h.move_key(true);
    const auto t1 = clk::now();
    h.argsort(false, cb);
    const auto t2 = clk::now();
    h.gather();
    const auto t3 = clk::now();
    h.deposit_sorted(h.tmp_, h.q_);
    const auto t4 = clk::now();
    if (s == 1) {
      r.steps.first_step = ms(t0, t4);
    } else {
      t_move.push_back(ms(t0, t1));
      t_sort.push_back(ms(t1, t2));
      t_gather.push_back(ms(t2, t3));
      t_dep.push_back(ms(t3, t4));
      t_step.push_back(ms(t0, t4));
    }
    if (c.verify) judge(h.check(), s, r);
    h.commit();
  }
  r.steps.move_key = median(t_move);
  r.steps.sort = median(t_sort);
  r.steps.gather = median(t_gather);
  r.steps.deposit = median(t_dep);
  r.steps.step = median(t_step);
  r.charge = h.q_;
  r.total_charge = std::accumulate(r.charge.begin(), r.charge.end(), 0.0);
  if (c.verify) r.counts = h.counts_;
  r.final_hash = ordered_hash(h.cur_, c.threads);
  r.ran = true;
  return r;
}

}  // namespace pic
