// The LBVH app's engines and what they report: the CPU engine (host threads,
// the library's host API) and CUDA (everything on the GPU, the device API),
// plus the validation both share.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "../common/timing.hpp"
#include "lbvh.hpp"
#include "mesh.hpp"

namespace lbvh {

struct config {
  int bits = 30;             ///< Morton code bits: 30 (uint32 codes) or 63 (uint64 codes)
  int reps = 10;             ///< timed builds; the median of each phase is reported
  int frames = 100;          ///< GPU frames (rebuild + render) for the frame rate
  int cpu_frames = 3;        ///< CPU engine frames for its frame rate
  int width = 1024, height = 1024;
  int rays = 0;              ///< validation rays (0: automatic, see main.cpp)
  unsigned threads = 0;      ///< host threads (0 = all)
  bool verify = true;
  bool render = true;        ///< render a frame and measure the frame rate
};

/// Milliseconds; negative = not measured.
struct build_times {
  double bounds = -1, morton = -1, sort = -1, hierarchy = -1, boxes = -1, build = -1;
};

struct result {
  std::string engine;  ///< "cpu" or "cuda"
  std::string device;  ///< the processor in words
  build_times t;       ///< medians over config::reps builds (after one untimed build)
  double first_build = -1;  ///< the first build, allocation of the sort's scratch included (CPU) or not (GPU)
  double render = -1;       ///< median render of one frame, ms
  double frame = -1;        ///< median rebuild + render of one frame, ms
  double fps = -1;          ///< frames per second over the frame loop
  int frames = 0;
  std::uint64_t rays_checked = 0, ties = 0;
  int depth = 0;                      ///< deepest leaf
  std::uint64_t structure_hash = 0;   ///< codes, ids, nodes, parents, triangles: equal only for identical builds
  std::vector<std::string> failures;  ///< empty when every check passed
  std::vector<std::uint8_t> image;    ///< camera 0's frame, RGB8 (when rendered)
};

/// A build copied to the host for validation.
struct built {
  std::vector<std::uint64_t> codes;  ///< sorted codes (widened)
  std::vector<std::uint32_t> ids;    ///< triangle at each sorted position
  std::vector<node> nodes;           ///< n - 1 internal nodes, root 0
  std::vector<std::int32_t> leaf_parent;
  std::vector<tri> tris;             ///< triangles in sorted order
};

struct ray {
  vec3 o, d;
};
/// Closest hit as an original triangle id (-1: miss) and distance.
struct ray_hit {
  float t;
  std::int64_t id;
};

/// Deterministic validation rays: camera rays of camera 0, rays from outside
/// towards random points of the box and towards mesh vertices (ties on
/// shared edges), rays from inside the box.
std::vector<ray> validation_rays(const mesh& m, std::uint64_t count, const config& c);
/// Checks a build: sorted codes equal to the codes recomputed here, ids a
/// permutation (every triangle in exactly one leaf), a binary tree reaching
/// every leaf once, parent links, every box enclosing its children (leaves:
/// the triangle's vertices), triangles copied exactly. Sets depth and the hash.
void check_structure(const mesh& m, const built& b, int bits, result& r);
/// Compares BVH hits with brute-force hits (see README: the tolerance for ties).
void compare_hits(const std::vector<ray_hit>& bvh, const std::vector<ray_hit>& brute, result& r);
/// Camera k of the orbit around mesh m.
camera mesh_camera(const mesh& m, int k, int width, int height);
shading mesh_shading(const mesh& m);
using apps::median;

result run_host(const config& c, const mesh& m);
/// The whole build and render on the GPU (lbvh_cuda.cu); only in CUDA builds.
result run_cuda(const config& c, const mesh& m);
bool cuda_built();

}  // namespace lbvh
