// The LBVH build and renderer on host threads, sorting with the library's
// CPU engine through the host API (radix::sorter keeps its scratch between
// builds). The same steps as the GPU build, with parallel loops for kernels.
#include <radix/radix.hpp>

#include <atomic>
#include <cmath>
#include <limits>
#include <span>

#include "../common/parallel.hpp"
#include "engine.hpp"

namespace lbvh {

using radix_apps::parallel_for;

namespace {

using apps::clk;
using apps::ms;

template <class K>
class host_lbvh {
 public:
  host_lbvh(const config& c, const mesh& m)
      : c_(c), m_(m), n_(std::int64_t(m.count())), threads_(c.threads ? c.threads : radix_apps::hardware_threads()) {
    codes_.resize(n_);
    ids_.resize(n_);
    nodes_.resize(std::max<std::int64_t>(n_ - 1, 0));
    flags_.resize(nodes_.size());
    leaf_parent_.resize(n_);
    tris_.resize(n_);
    radix::options o;
    o.use = radix::engine::cpu;
    o.threads = c.threads;
    o.end_bit = code_bits<K>;  // only the passes the code needs
    sorter_.opts() = o;
  }

  /// One whole build; per-phase times into t.
  void build(build_times& t) {
    const vec3* V = m_.vertices.data();
    const std::uint32_t* I = m_.index.data();
    auto cent = [&](std::int64_t k) { return centroid(V[I[3 * k]], V[I[3 * k + 1]], V[I[3 * k + 2]]); };
    const auto t0 = clk::now();
    // 1. centroid bounds: a min/max per thread, then over threads (exact in any order).
    std::vector<float> part(6 * (threads_ + 1));
    const unsigned used = parallel_for(std::uint64_t(n_), threads_, [&](std::uint64_t b, std::uint64_t e, unsigned th) {
      float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
      for (std::uint64_t k = b; k < e; ++k) {
        const vec3 c = cent(std::int64_t(k));
        lo[0] = std::min(lo[0], c.x), lo[1] = std::min(lo[1], c.y), lo[2] = std::min(lo[2], c.z);
        hi[0] = std::max(hi[0], c.x), hi[1] = std::max(hi[1], c.y), hi[2] = std::max(hi[2], c.z);
      }
      for (int a = 0; a < 3; ++a) part[6 * th + a] = lo[a], part[6 * th + 3 + a] = hi[a];
    });
    vec3 lo = {INFINITY, INFINITY, INFINITY}, hi = {-INFINITY, -INFINITY, -INFINITY};
    for (unsigned th = 0; th < used; ++th) {
      lo = {std::min(lo.x, part[6 * th]), std::min(lo.y, part[6 * th + 1]), std::min(lo.z, part[6 * th + 2])};
      hi = {std::max(hi.x, part[6 * th + 3]), std::max(hi.y, part[6 * th + 4]), std::max(hi.z, part[6 * th + 5])};
    }
    const auto t1 = clk::now();
    // 2. Morton codes of the centroids, and the identity permutation.
    const quantizer q = make_quantizer(lo, hi, axis_bits<K>);
    parallel_for(std::uint64_t(n_), threads_, [&](std::uint64_t b, std::uint64_t e, unsigned) {
      for (std::uint64_t k = b; k < e; ++k) {
        codes_[k] = morton<K>(cent(std::int64_t(k)), q);
        ids_[k] = std::uint32_t(k);
      }
    });
    const auto t2 = clk::now();
    // 3. the sort: (code, triangle index) pairs on the code's bits only.
    sorter_.sort_pairs(std::span<K>(codes_), std::span<std::uint32_t>(ids_));
    const auto t3 = clk::now();
    // 4. the hierarchy: one task per internal node (Karras 2012).
    if (n_ > 1) nodes_[0].parent = -1;
    parallel_for(std::uint64_t(std::max<std::int64_t>(n_ - 1, 0)), threads_, [&](std::uint64_t b, std::uint64_t e, unsigned) {
      for (std::uint64_t i = b; i < e; ++i) {
        node& nd = nodes_[i];
        karras_children(codes_.data(), n_, std::int64_t(i), nd.left, nd.right);
        nd.pad = 0;
        if (nd.left < 0) leaf_parent_[~nd.left] = std::int32_t(i);
        else nodes_[nd.left].parent = std::int32_t(i);
        if (nd.right < 0) leaf_parent_[~nd.right] = std::int32_t(i);
        else nodes_[nd.right].parent = std::int32_t(i);
      }
    });
    const auto t4 = clk::now();
    // 5. leaf triangles in sorted order, then boxes bottom-up: the second
    // child to arrive at a node (atomic counter) merges its two boxes.
    std::fill(flags_.begin(), flags_.end(), 0u);
    if (n_ == 1) leaf_parent_[0] = -1;
    parallel_for(std::uint64_t(n_), threads_, [&](std::uint64_t b, std::uint64_t e, unsigned) {
      for (std::uint64_t i = b; i < e; ++i) {
        const std::uint32_t id = ids_[i];
        const vec3 v0 = V[I[3 * id]], v1 = V[I[3 * id + 1]], v2 = V[I[3 * id + 2]];
        const vec3 e1 = v1 - v0, e2 = v2 - v0;
        tris_[i] = tri{{v0.x, v0.y, v0.z}, id, {e1.x, e1.y, e1.z}, 0, {e2.x, e2.y, e2.z}, 0};
        std::int32_t p = leaf_parent_[i];
        if (p < 0) continue;
        tri_box(v0, v1, v2, nodes_[p].box + (nodes_[p].left == ~std::int32_t(i) ? 0 : 6));
        while (p >= 0) {
          // acq_rel: the first arrival's box write is visible to the second.
          if (std::atomic_ref<std::uint32_t>(flags_[p]).fetch_add(1, std::memory_order_acq_rel) == 0) break;
          const node& nd = nodes_[p];
          const std::int32_t pp = nd.parent;
          if (pp < 0) break;
          float* dst = nodes_[pp].box + (nodes_[pp].left == p ? 0 : 6);
          merge_boxes(nd.box, nd.box + 6, dst);
          p = pp;
        }
      }
    });
    const auto t5 = clk::now();
    t = {ms(t0, t1), ms(t1, t2), ms(t2, t3), ms(t3, t4), ms(t4, t5), ms(t0, t5)};
  }

  void render(const camera& cam, const shading& sh, std::vector<std::uint8_t>& rgb) {
    rgb.resize(std::size_t(3) * cam.width * cam.height);
    std::atomic<int> next_row{0};  // rows handed out one at a time: their costs differ widely
    parallel_for(threads_, threads_, [&](std::uint64_t, std::uint64_t, unsigned) {
      for (int y; (y = next_row.fetch_add(1)) < cam.height;)
        for (int x = 0; x < cam.width; ++x)
          shade(nodes_.data(), tris_.data(), n_, cam, sh, x, y, &rgb[(std::size_t(y) * cam.width + x) * 3]);
    });
  }

  std::vector<ray_hit> bvh_hits(const std::vector<ray>& rays) {
    std::vector<ray_hit> out(rays.size());
    parallel_for(rays.size(), threads_, [&](std::uint64_t b, std::uint64_t e, unsigned) {
      for (std::uint64_t i = b; i < e; ++i) {
        const hit h = traverse(nodes_.data(), tris_.data(), n_, rays[i].o, rays[i].d, 0.0f, 3.0e38f, false);
        out[i] = h.prim < 0 ? ray_hit{0, -1} : ray_hit{h.t, std::int64_t(tris_[h.prim].id)};
      }
    });
    return out;
  }

  /// Every ray against every triangle, in triangle order: the nearest, the lowest id on equal t.
  std::vector<ray_hit> brute_hits(const std::vector<ray>& rays) {
    std::vector<ray_hit> out(rays.size());
    const vec3* V = m_.vertices.data();
    const std::uint32_t* I = m_.index.data();
    parallel_for(rays.size(), threads_, [&](std::uint64_t b, std::uint64_t e, unsigned) {
      for (std::uint64_t i = b; i < e; ++i) {
        float best = 3.0e38f, t = 0;
        std::int64_t id = -1;
        for (std::int64_t k = 0; k < n_; ++k) {
          const vec3 v0 = V[I[3 * k]];
          if (intersect(rays[i].o, rays[i].d, v0, V[I[3 * k + 1]] - v0, V[I[3 * k + 2]] - v0, 0.0f, best, t)) {
            best = t;
            id = k;
          }
        }
        out[i] = id < 0 ? ray_hit{0, -1} : ray_hit{best, id};
      }
    });
    return out;
  }

  built copy() const {
    built b;
    b.codes.assign(codes_.begin(), codes_.end());
    b.ids = ids_;
    b.nodes = nodes_;
    b.leaf_parent = leaf_parent_;
    b.tris = tris_;
    return b;
  }

 private:
  const config& c_;
  const mesh& m_;
  std::int64_t n_;
  unsigned threads_;
  std::vector<K> codes_;
  std::vector<std::uint32_t> ids_, flags_;
  std::vector<node> nodes_;
  std::vector<std::int32_t> leaf_parent_;
  std::vector<tri> tris_;
  radix::sorter sorter_;
};

template <class K>
result run(const config& c, const mesh& m) {
  result r;
  r.engine = "cpu";
  r.device = apps::host_description(c.threads);
  host_lbvh<K> h(c, m);
  build_times t;
  h.build(t);  // the first build also sizes the sorter's scratch
  r.first_build = t.build;
  if (c.verify) {
    check_structure(m, h.copy(), code_bits<K>, r);
    const auto rays = validation_rays(m, std::uint64_t(c.rays), c);
    compare_hits(h.bvh_hits(rays), h.brute_hits(rays), r);
  }
  std::vector<double> b[6];
  for (int k = 0; k < c.reps; ++k) {
    h.build(t);
    for (int p = 0; p < 6; ++p) b[p].push_back((&t.bounds)[p]);
  }
  for (int p = 0; p < 6; ++p) (&r.t.bounds)[p] = median(b[p]);
  if (c.render) {
    const shading sh = mesh_shading(m);
    std::vector<std::uint8_t> img;
    std::vector<double> tr, tf;
    camera cams[8];  // computed up front: mesh_camera scans the mesh
    for (int k = 0; k < 8; ++k) cams[k] = mesh_camera(m, k, c.width, c.height);
    const auto f0 = clk::now();
    for (int f = 0; f < c.cpu_frames; ++f) {
      const auto a = clk::now();
      h.build(t);
      const auto mid = clk::now();
      h.render(cams[f % 8], sh, img);
      const auto e = clk::now();
      tr.push_back(ms(mid, e));
      tf.push_back(ms(a, e));
    }
    const double total = ms(f0, clk::now());
    r.frames = c.cpu_frames;
    r.render = median(tr);
    r.frame = median(tf);
    if (total > 0 && c.cpu_frames > 0) r.fps = 1000.0 * c.cpu_frames / total;
    h.render(cams[0], sh, r.image);
  }
  return r;
}

}  // namespace

result run_host(const config& c, const mesh& m) {
  return c.bits == 63 ? run<std::uint64_t>(c, m) : run<std::uint32_t>(c, m);
}

}  // namespace lbvh
