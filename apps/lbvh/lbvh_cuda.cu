// The LBVH build and renderer on the GPU. A build is five steps on one
// stream, nothing copied to or from the host: centroid bounds (reduction),
// Morton codes, the library's radix sort of (code, index) pairs on a
// workspace allocated once (radix::cuda::sort_pairs, end_bit = code bits),
// the hierarchy (one thread per internal node) and the boxes bottom-up (one
// thread per leaf, an atomic counter per node). The renderer runs one
// thread per pixel over the same traversal code as the CPU engine.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <radix/cuda.hpp>

#include "../common/device_buffer.cuh"

#include "engine.hpp"

namespace lbvh {
namespace {

/// Device memory, freed with its owner.
template <class T>
using dbuf = apps::device_buffer<T>;

using apps::block;
using apps::grid_for;
#define GRID_STRIDE(i, n) APPS_GRID_STRIDE(std::int64_t, i, n)

// Floats as unsigned integers of the same order, for atomicMin/atomicMax.
__device__ unsigned ordered(float f) {
  const unsigned u = __float_as_uint(f);
  return (u & 0x80000000u) ? ~u : u | 0x80000000u;
}
__device__ float unordered(unsigned u) { return __uint_as_float((u & 0x80000000u) ? u & 0x7FFFFFFFu : ~u); }

__device__ vec3 centroid_of(const vec3* __restrict__ V, const std::uint32_t* __restrict__ I, std::int64_t t) {
  return centroid(V[I[3 * t]], V[I[3 * t + 1]], V[I[3 * t + 2]]);
}

/// acc[0..2]: min of the centroids, acc[3..5]: max (ordered bits); a warp
/// reduces in registers, then one atomic per warp and axis.
__global__ void bounds_kernel(const vec3* __restrict__ V, const std::uint32_t* __restrict__ I, std::int64_t n,
                              unsigned* acc) {
  float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  GRID_STRIDE(t, n) {
    const vec3 c = centroid_of(V, I, t);
    lo[0] = fminf(lo[0], c.x), lo[1] = fminf(lo[1], c.y), lo[2] = fminf(lo[2], c.z);
    hi[0] = fmaxf(hi[0], c.x), hi[1] = fmaxf(hi[1], c.y), hi[2] = fmaxf(hi[2], c.z);
  }
  for (int d = 16; d > 0; d /= 2)
    for (int a = 0; a < 3; ++a) {
      lo[a] = fminf(lo[a], __shfl_xor_sync(0xFFFFFFFFu, lo[a], d));
      hi[a] = fmaxf(hi[a], __shfl_xor_sync(0xFFFFFFFFu, hi[a], d));
    }
  if ((threadIdx.x & 31) == 0)
    for (int a = 0; a < 3; ++a) {
      atomicMin(&acc[a], ordered(lo[a]));
      atomicMax(&acc[3 + a], ordered(hi[a]));
    }
}

template <class K>
__global__ void morton_kernel(const vec3* __restrict__ V, const std::uint32_t* __restrict__ I, std::int64_t n,
                              const unsigned* acc, K* codes, std::uint32_t* ids) {
  const vec3 lo = {unordered(acc[0]), unordered(acc[1]), unordered(acc[2])};
  const vec3 hi = {unordered(acc[3]), unordered(acc[4]), unordered(acc[5])};
  const quantizer q = make_quantizer(lo, hi, axis_bits<K>);
  GRID_STRIDE(t, n) {
    codes[t] = morton<K>(centroid_of(V, I, t), q);
    ids[t] = std::uint32_t(t);
  }
}

/// One thread per internal node: its children from the sorted codes, and the children's parent links.
template <class K>
__global__ void hierarchy_kernel(const K* __restrict__ codes, std::int64_t n, node* nodes, std::int32_t* leaf_parent) {
  GRID_STRIDE(i, n - 1) {
    std::int32_t l, r;
    karras_children(codes, n, i, l, r);
    node& nd = nodes[i];
    nd.left = l;
    nd.right = r;
    nd.pad = 0;
    if (i == 0) nd.parent = -1;
    if (l < 0) leaf_parent[~l] = std::int32_t(i);
    else nodes[l].parent = std::int32_t(i);
    if (r < 0) leaf_parent[~r] = std::int32_t(i);
    else nodes[r].parent = std::int32_t(i);
  }
}

/// One thread per leaf: its triangle in sorted order and its box in the
/// parent's slot; then up the tree, where the second thread to arrive at a
/// node (atomic counter) merges the node's two child boxes into its parent's slot.
__global__ void boxes_kernel(const vec3* __restrict__ V, const std::uint32_t* __restrict__ I,
                             const std::uint32_t* __restrict__ ids, std::int64_t n, tri* tris, node* nodes,
                             std::int32_t* leaf_parent, unsigned* flags) {
  GRID_STRIDE(i, n) {
    const std::uint32_t id = ids[i];
    const vec3 v0 = V[I[3 * std::int64_t(id)]], v1 = V[I[3 * std::int64_t(id) + 1]], v2 = V[I[3 * std::int64_t(id) + 2]];
    const vec3 e1 = v1 - v0, e2 = v2 - v0;
    tris[i] = tri{{v0.x, v0.y, v0.z}, id, {e1.x, e1.y, e1.z}, 0, {e2.x, e2.y, e2.z}, 0};
    if (n == 1) {
      leaf_parent[0] = -1;
      continue;
    }
    std::int32_t p = leaf_parent[i];
    tri_box(v0, v1, v2, nodes[p].box + (nodes[p].left == ~std::int32_t(i) ? 0 : 6));
    for (;;) {
      __threadfence();  // our box write is visible before the counter says so
      if (atomicAdd(&flags[p], 1u) == 0) break;
      __threadfence();
      // The sibling's box was written by another thread: read it from L2, not a stale L1 line.
      const float4* b = reinterpret_cast<const float4*>(nodes[p].box);
      const float4 b0 = __ldcg(b), b1 = __ldcg(b + 1), b2 = __ldcg(b + 2);
      const float both[12] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w, b2.x, b2.y, b2.z, b2.w};
      const std::int32_t pp = nodes[p].parent;
      if (pp < 0) break;
      merge_boxes(both, both + 6, nodes[pp].box + (nodes[pp].left == p ? 0 : 6));
      p = pp;
    }
  }
}

__global__ void render_kernel(const node* __restrict__ nodes, const tri* __restrict__ tris, std::int64_t n, camera cam,
                              shading sh, std::uint8_t* rgb) {
  const int x = int(blockIdx.x * blockDim.x + threadIdx.x), y = int(blockIdx.y * blockDim.y + threadIdx.y);
  if (x >= cam.width || y >= cam.height) return;
  shade(nodes, tris, n, cam, sh, x, y, rgb + (std::size_t(y) * cam.width + x) * 3);
}

__global__ void bvh_hits_kernel(const node* __restrict__ nodes, const tri* __restrict__ tris, std::int64_t n,
                                const ray* __restrict__ rays, std::int64_t m, ray_hit* out) {
  GRID_STRIDE(i, m) {
    const hit h = traverse(nodes, tris, n, rays[i].o, rays[i].d, 0.0f, 3.0e38f, false);
    out[i] = h.prim < 0 ? ray_hit{0, -1} : ray_hit{h.t, std::int64_t(tris[h.prim].id)};
  }
}

/// Brute force: blockIdx.y is the ray, the x blocks share its triangles. The
/// nearest hit wins, the lowest triangle id among equal distances: (t bits,
/// id) packed in 64 bits (t > 0, so its bits order like the value) and atomicMin.
__global__ void brute_kernel(const vec3* __restrict__ V, const std::uint32_t* __restrict__ I, std::int64_t n,
                             const ray* __restrict__ rays, unsigned long long* best) {
  const ray r = rays[blockIdx.y];
  float bt = 3.0e38f, t = 0;
  unsigned long long mine = ~0ull;
  GRID_STRIDE(k, n) {
    const vec3 v0 = V[I[3 * k]];
    if (intersect(r.o, r.d, v0, V[I[3 * k + 1]] - v0, V[I[3 * k + 2]] - v0, 0.0f, bt, t)) {
      bt = t;
      mine = (static_cast<unsigned long long>(__float_as_uint(t)) << 32) | static_cast<unsigned long long>(k);
    }
  }
  for (int d = 16; d > 0; d /= 2) mine = min(mine, __shfl_xor_sync(0xFFFFFFFFu, mine, d));
  if ((threadIdx.x & 31) == 0 && mine != ~0ull) atomicMin(&best[blockIdx.y], mine);
}

template <class K>
class cuda_lbvh {
 public:
  cuda_lbvh(const mesh& m) : n_(std::int64_t(m.count())) {
    V_ = std::make_unique<dbuf<vec3>>(m.vertices.size());
    I_ = std::make_unique<dbuf<std::uint32_t>>(m.index.size());
    CU(cudaMemcpyAsync(V_->get(), m.vertices.data(), m.vertices.size() * sizeof(vec3), cudaMemcpyHostToDevice, s_));
    CU(cudaMemcpyAsync(I_->get(), m.index.data(), m.index.size() * sizeof(std::uint32_t), cudaMemcpyHostToDevice, s_));
    acc_ = std::make_unique<dbuf<unsigned>>(6);
    codes_ = std::make_unique<dbuf<K>>(n_);
    ids_ = std::make_unique<dbuf<std::uint32_t>>(n_);
    const std::uint64_t inner = std::uint64_t(std::max<std::int64_t>(n_ - 1, 0));
    nodes_ = std::make_unique<dbuf<node>>(inner);
    flags_ = std::make_unique<dbuf<unsigned>>(inner);
    leaf_parent_ = std::make_unique<dbuf<std::int32_t>>(n_);
    tris_ = std::make_unique<dbuf<tri>>(n_);
    opts_.end_bit = code_bits<K>;  // only the passes the code needs
    ws_bytes_ = radix::cuda::sort_pairs_workspace_bytes<K, std::uint32_t>(std::uint64_t(n_), opts_);
    ws_ = std::make_unique<dbuf<std::byte>>(ws_bytes_);
    CU(cudaStreamSynchronize(s_));
  }
  ~cuda_lbvh() { cudaStreamSynchronize(s_); }  // the build's work done before its buffers are freed

  /// One build, enqueued; with `timed`, events 0..5 bracket the phases.
  void build(bool timed) {
    auto mark = [&](int k) {
      if (timed) ev_.record(k, s_);
    };
    const vec3* V = V_->get();
    const std::uint32_t* I = I_->get();
    mark(0);
    CU(cudaMemsetAsync(acc_->get(), 0xFF, 3 * sizeof(unsigned), s_));
    CU(cudaMemsetAsync(acc_->get() + 3, 0, 3 * sizeof(unsigned), s_));
    bounds_kernel<<<std::min(grid_for(n_), 2048u), block, 0, s_>>>(V, I, n_, acc_->get());
    CU_LAUNCHED(bounds_kernel);
    mark(1);
    morton_kernel<K><<<grid_for(n_), block, 0, s_>>>(V, I, n_, acc_->get(), codes_->get(), ids_->get());
    CU_LAUNCHED(morton_kernel);
    mark(2);
    radix::cuda::sort_pairs(codes_->get(), ids_->get(), std::uint64_t(n_), ws_->get(), ws_bytes_, s_, opts_);
    mark(3);
    if (n_ > 1) {
      hierarchy_kernel<K><<<grid_for(n_ - 1), block, 0, s_>>>(codes_->get(), n_, nodes_->get(), leaf_parent_->get());
      CU_LAUNCHED(hierarchy_kernel);
    }
    mark(4);
    if (n_ > 1) CU(cudaMemsetAsync(flags_->get(), 0, flags_->size() * sizeof(unsigned), s_));
    boxes_kernel<<<grid_for(n_), block, 0, s_>>>(V, I, ids_->get(), n_, tris_->get(), nodes_->get(),
                                                 leaf_parent_->get(), flags_->get());
    CU_LAUNCHED(boxes_kernel);
    mark(5);
  }

  void render(const camera& cam, const shading& sh, std::uint8_t* rgb) {
    const dim3 b(16, 8), g(unsigned((cam.width + 15) / 16), unsigned((cam.height + 7) / 8));
    render_kernel<<<g, b, 0, s_>>>(nodes_->get(), tris_->get(), n_, cam, sh, rgb);
    CU_LAUNCHED(render_kernel);
  }

  template <class T>
  std::vector<T> to_host(const dbuf<T>& b) { return apps::to_host(b, s_); }

  built copy() {
    built b;
    const auto codes = to_host(*codes_);
    b.codes.assign(codes.begin(), codes.end());
    b.ids = to_host(*ids_);
    b.nodes = to_host(*nodes_);
    b.leaf_parent = to_host(*leaf_parent_);
    b.tris = to_host(*tris_);
    return b;
  }

  void hits(const std::vector<ray>& rays, std::vector<ray_hit>& bvh, std::vector<ray_hit>& brute) {
    const std::int64_t m = std::int64_t(rays.size());
    dbuf<ray> d_rays(rays.size());
    dbuf<ray_hit> d_hits(rays.size());
    dbuf<unsigned long long> d_best(rays.size());
    CU(cudaMemcpyAsync(d_rays.get(), rays.data(), rays.size() * sizeof(ray), cudaMemcpyHostToDevice, s_));
    bvh_hits_kernel<<<grid_for(m), block, 0, s_>>>(nodes_->get(), tris_->get(), n_, d_rays.get(), m, d_hits.get());
    CU_LAUNCHED(bvh_hits_kernel);
    CU(cudaMemsetAsync(d_best.get(), 0xFF, rays.size() * sizeof(unsigned long long), s_));
    // Rays in slices of 65535 (the grid's y limit); each ray's triangles over enough blocks to fill the GPU.
    const unsigned xb = unsigned(std::clamp<std::int64_t>((n_ + block * 64 - 1) / (block * 64), 1, 64));
    for (std::int64_t r0 = 0; r0 < m; r0 += 65535) {
      const unsigned rows = unsigned(std::min<std::int64_t>(65535, m - r0));
      brute_kernel<<<dim3(xb, rows), block, 0, s_>>>(V_->get(), I_->get(), n_, d_rays.get() + r0, d_best.get() + r0);
      CU_LAUNCHED(brute_kernel);
    }
    bvh = to_host(d_hits);
    const auto best = to_host(d_best);
    brute.resize(best.size());
    for (std::size_t i = 0; i < best.size(); ++i) {
      if (best[i] == ~0ull) {
        brute[i] = {0, -1};
      } else {
        const std::uint32_t tb = std::uint32_t(best[i] >> 32);
        float t;
        std::memcpy(&t, &tb, sizeof t);
        brute[i] = {t, std::int64_t(best[i] & 0xFFFFFFFFull)};
      }
    }
  }

  std::int64_t n_;
  apps::cuda_stream s_;
  apps::cuda_events ev_{6};  ///< brackets of the build's phases
  std::unique_ptr<dbuf<vec3>> V_;
  std::unique_ptr<dbuf<std::uint32_t>> I_, ids_;
  std::unique_ptr<dbuf<unsigned>> acc_, flags_;
  std::unique_ptr<dbuf<K>> codes_;
  std::unique_ptr<dbuf<node>> nodes_;
  std::unique_ptr<dbuf<std::int32_t>> leaf_parent_;
  std::unique_ptr<dbuf<tri>> tris_;
  std::unique_ptr<dbuf<std::byte>> ws_;
  std::size_t ws_bytes_ = 0;
  radix::options opts_;
};

template <class K>
result run(const config& c, const mesh& m) {
  result r;
  r.engine = "cuda";
  r.device = apps::device_name();
  cuda_lbvh<K> d(m);
  // Warm-up: the first launch of each kernel loads its module.
  d.build(true);
  CU(cudaStreamSynchronize(d.s_));
  r.first_build = d.ev_.elapsed(0, 5);
  if (c.verify) {
    check_structure(m, d.copy(), code_bits<K>, r);
    const auto rays = validation_rays(m, std::uint64_t(c.rays), c);
    std::vector<ray_hit> bvh, brute;
    d.hits(rays, bvh, brute);
    compare_hits(bvh, brute, r);
  }
  std::vector<double> b[6];
  for (int k = 0; k < c.reps; ++k) {
    d.build(true);
    CU(cudaEventSynchronize(d.ev_[5]));
    for (int p = 0; p < 5; ++p) b[p].push_back(d.ev_.elapsed(p, p + 1));
    b[5].push_back(d.ev_.elapsed(0, 5));
  }
  for (int p = 0; p < 6; ++p) (&r.t.bounds)[p] = median(b[p]);

  if (c.render) {
    const shading sh = mesh_shading(m);
    dbuf<std::uint8_t> img(std::uint64_t(3) * c.width * c.height);
    // Frames back to back, as an interactive loop would run them: the host
    // only enqueues; events around each frame's build and render.
    const int F = c.frames;
    apps::cuda_events ev(3 * std::size_t(F));
    camera cams[8];  // computed up front: mesh_camera scans the mesh
    for (int k = 0; k < 8; ++k) cams[k] = mesh_camera(m, k, c.width, c.height);
    for (int f = 0; f < F; ++f) {
      const camera& cam = cams[f % 8];
      ev.record(3 * f, d.s_);
      d.build(false);
      ev.record(3 * f + 1, d.s_);
      d.render(cam, sh, img.get());
      ev.record(3 * f + 2, d.s_);
    }
    CU(cudaStreamSynchronize(d.s_));
    std::vector<double> tr, tf;
    for (int f = 0; f < F; ++f) {
      tr.push_back(ev.elapsed(3 * f + 1, 3 * f + 2));
      tf.push_back(ev.elapsed(3 * f, 3 * f + 2));
    }
    const double total = ev.elapsed(0, 3 * std::size_t(F) - 1);
    r.frames = F;
    r.render = median(tr);
    r.frame = median(tf);
    if (total > 0) r.fps = 1000.0 * F / total;
    d.build(false);
    d.render(cams[0], sh, img.get());
    r.image = d.to_host(img);
  }
  CU(cudaStreamSynchronize(d.s_));
  return r;
}

}  // namespace

bool cuda_built() { return true; }

result run_cuda(const config& c, const mesh& m) {
  if (m.count() > 0x7FFFFFFFull) throw std::runtime_error("the GPU build uses 31-bit node indices: at most 2^31 - 1 triangles");
  return c.bits == 63 ? run<std::uint64_t>(c, m) : run<std::uint32_t>(c, m);
}

}  // namespace lbvh
