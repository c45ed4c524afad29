// The broad phase on host threads with the CPU engine's sort (host API,
// radix::sorter keeping its scratch between frames): the same stages, in
// the same order, as the GPU frame, so that both produce the same list.
#include <radix/radix.hpp>

#include <algorithm>
#include <span>
#include <string>

#include "../common/parallel.hpp"
#include "broadphase.hpp"

namespace bp {

using radix_apps::parallel_for;

namespace {

using apps::clk;
using apps::ms;

class host_bp {
 public:
  host_bp(const config& c, std::uint64_t n)
      : c_(c), n_(n), m_(2 * n), threads_(c.threads ? c.threads : radix_apps::hardware_threads()), s_(make_scene(c, n)) {
    s_.w.height = s_.heights.empty() ? nullptr : s_.heights.data();
    radix::options o;
    o.use = radix::engine::cpu;
    o.threads = c.threads;
    sorter_.opts() = o;
    boxes_.resize(n_);
    keys_.resize(m_);
    vals_.resize(m_);
    recs_.resize(m_);
    parts_.resize(threads_);
    xcand_.resize(threads_);
    generation_order();
  }

  /// The endpoint list in generation order: object 0's min and max, object 1's, ...
  void generation_order() {
    parallel_for(n_, threads_, [&](std::uint64_t b, std::uint64_t e, unsigned) {
      for (std::uint64_t i = b; i < e; ++i) {
        vals_[2 * i] = endpoint(std::uint32_t(i), false);
        vals_[2 * i + 1] = endpoint(std::uint32_t(i), true);
      }
    });
  }
  void simulate() {
    const state_ptrs p = s_.ptrs();
    const world w = s_.w;
    parallel_for(n_, threads_, [&](std::uint64_t b, std::uint64_t e, unsigned) {
      for (std::uint64_t i = b; i < e; ++i) step(w, p, i);
    });
  }
  /// The boxes, then each endpoint's key in the list's current order.
  void aabb_keys() {
    const state_ptrs p = s_.ptrs();
    parallel_for(n_, threads_, [&](std::uint64_t b, std::uint64_t e, unsigned) {
      for (std::uint64_t i = b; i < e; ++i) boxes_[i] = aabb(p, i);
    });
    parallel_for(m_, threads_, [&](std::uint64_t b, std::uint64_t e, unsigned) {
      for (std::uint64_t q = b; q < e; ++q) {
        const std::uint32_t v = vals_[q];
        keys_[q] = v & 1u ? boxes_[v >> 1].hi[0] : boxes_[v >> 1].lo[0];
      }
    });
  }
  /// Sorts the endpoints by x (float keys in the library's order) with their values.
  void sort() { sorter_.sort_pairs(std::span<float>(keys_), std::span<std::uint32_t>(vals_)); }

  /// Sweep records, the walk from each min endpoint (y/z filter inside), and
  /// the compaction of the per-chunk lists in position order.
  void sweep() {
    parallel_for(m_, threads_, [&](std::uint64_t b, std::uint64_t e, unsigned) {
      for (std::uint64_t q = b; q < e; ++q) recs_[q] = make_rec(keys_[q], vals_[q], boxes_.data());
    });
    const unsigned used = parallel_for(m_, threads_, [&](std::uint64_t b, std::uint64_t e, unsigned t) {
      pair_list& out = parts_[t];
      out.clear();
      std::uint64_t xc = 0;
      const sweep_rec* r = recs_.data();
      for (std::uint64_t p = b; p < e; ++p) {
        if (r[p].id == max_endpoint) continue;
        const sweep_rec a = r[p];
        // Every endpoint after p with key <= a's x max: its min endpoints are the x-overlaps.
        for (std::uint64_t q = p + 1; q < m_ && r[q].key <= a.xmax; ++q) {
          xc += r[q].id != max_endpoint;
          if (overlap_yz(a, r[q])) [[unlikely]] out.emplace_back(std::min(a.id, r[q].id), std::max(a.id, r[q].id));
        }
      }
      xcand_[t] = xc;
    });
    std::size_t total = 0;
    x_candidates_ = 0;
    for (unsigned t = 0; t < used; ++t) total += parts_[t].size(), x_candidates_ += xcand_[t];
    pairs_.resize(total);
    std::vector<std::size_t> at(used + 1, 0);
    for (unsigned t = 0; t < used; ++t) at[t + 1] = at[t] + parts_[t].size();
    parallel_for(used, threads_, [&](std::uint64_t b, std::uint64_t e, unsigned) {
      for (std::uint64_t t = b; t < e; ++t) std::copy(parts_[t].begin(), parts_[t].end(), pairs_.begin() + at[t]);
    });
  }

  /// Median of reps timed sorts of the list `prepare` sets up (untimed).
  template <class F>
  double time_sort(F&& prepare) {
    std::vector<double> t;
    for (int r = 0; r <= c_.reps; ++r) {
      prepare();
      const auto a = clk::now();
      sort();
      const auto b = clk::now();
      if (r) t.push_back(ms(a, b));  // the first is a warm-up
    }
    return median(t);
  }

  const config& c_;
  std::uint64_t n_, m_;
  unsigned threads_;
  scene s_;
  radix::sorter sorter_;
  std::vector<box> boxes_;
  std::vector<float> keys_;
  std::vector<std::uint32_t> vals_;
  std::vector<sweep_rec> recs_;
  std::vector<pair_list> parts_;
  std::vector<std::uint64_t> xcand_;
  pair_list pairs_;
  std::uint64_t x_candidates_ = 0;
};

}  // namespace

engine_result run_host(const config& c) {
  engine_result r;
  r.engine = "cpu";
  r.device = apps::host_description(c.threads);
  for (std::uint64_t n : c.sizes) {
    host_bp h(c, n);
    size_result z;
    z.n = n;
    z.w = h.s_.w;
    std::vector<double> t_sim, t_ak, t_sort, t_sweep, t_total;
    double xc = 0, np = 0;
    for (int f = 1; f <= c.frames; ++f) {
      const auto t0 = clk::now();
      if (f > 1) h.simulate();
      const auto t1 = clk::now();
      h.aabb_keys();
      const auto t2 = clk::now();
      h.sort();
      const auto t3 = clk::now();
      h.sweep();
      const auto t4 = clk::now();
      frame_times ft{ms(t1, t2), ms(t2, t3), ms(t3, t4), ms(t1, t4), f > 1 ? ms(t0, t1) : -1};
      if (f == 1) {
        z.first = ft;
      } else {
        t_sim.push_back(ft.simulate);
        t_ak.push_back(ft.aabb_keys);
        t_sort.push_back(ft.sort);
        t_sweep.push_back(ft.sweep);
        t_total.push_back(ft.total);
      }
      xc += double(h.x_candidates_);
      np += double(h.pairs_.size());
      z.list_hash = hash_pairs(z.list_hash, reinterpret_cast<const std::uint32_t*>(h.pairs_.data()), h.pairs_.size());
      if (verified_frame(c, f)) {
        std::string method;
        const std::string m = verify_frame(c, h.boxes_, h.pairs_, method);
        z.verified_by = method;
        ++z.frames_verified;
        if (!m.empty()) r.failures.push_back("cpu, " + std::to_string(n) + " objects, frame " + std::to_string(f) + ": " + m);
      }
    }
    z.later = {median(t_ak), median(t_sort), median(t_sweep), median(t_total), median(t_sim)};
    z.x_candidates = xc / c.frames;
    z.pairs = np / c.frames;
    z.last_pairs = h.pairs_.size();
    if (n == c.sizes.front()) {
      z.last_boxes = h.boxes_;
      z.last_pair_list = h.pairs_;
    }
    if (c.reps > 0) {
      // The four lists of the coherence table, from one more step of the scene.
      h.simulate();
      h.aabb_keys();
      const std::vector<float> k0 = h.keys_;
      const std::vector<std::uint32_t> v0 = h.vals_;
      auto restore = [&] {
        h.keys_ = k0;
        h.vals_ = v0;
      };
      z.coh.previous = h.time_sort(restore);
      z.coh.sorted = h.time_sort([] {});  // sorted by the previous call, and stays so
      z.coh.origin = h.time_sort([&] {
        restore();
        for (float& k : h.keys_) k -= h.s_.w.x0;
      });
      z.coh.generation = h.time_sort([&] {
        h.generation_order();
        h.aabb_keys();
      });
    }
    r.sizes.push_back(std::move(z));
  }
  return r;
}

}  // namespace bp
