// Validation shared by the engines: the structure of a build (on the host,
// from a copy of the engine's arrays), the validation rays, and the
// comparison of BVH hits with brute-force hits.
#include <algorithm>
#include <bit>
#include <cmath>
#include <string>

#include "engine.hpp"

namespace lbvh {

namespace {
std::uint64_t splitmix(std::uint64_t& s) {
  std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
float uniform(std::uint64_t& s) { return float(splitmix(s) >> 40) * (1.0f / 16777216.0f); }
std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
  h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
  h *= 0xBF58476D1CE4E5B9ull;
  return h ^ (h >> 31);
}
void scene_sphere(const mesh& m, vec3& c, float& r) {
  vec3 lo, hi;
  m.bounds(lo, hi);
  c = (lo + hi) * 0.5f;
  r = 0.5f * std::sqrt(dot(hi - lo, hi - lo));
  if (!(r > 0)) r = 1;
}
}  // namespace

camera mesh_camera(const mesh& m, int k, int width, int height) {
  vec3 c;
  float r;
  scene_sphere(m, c, r);
  // A generated scene is framed on its blobs, not on its wide ground plane.
  if (m.ground_id < m.count()) {
    c = {0.1f, 0.8f, 0.3f};
    r = 2.15f;
  }
  return orbit_camera(c, r, k, 8, width, height);
}

shading mesh_shading(const mesh& m) {
  vec3 c;
  float r;
  scene_sphere(m, c, r);
  shading s;
  s.light = normalize({-0.45f, 1.0f, 0.55f});
  s.eps = 1e-4f * r;
  s.ground_id = m.ground_id;
  s.checker = 0.5f;
  return s;
}

std::vector<ray> validation_rays(const mesh& m, std::uint64_t count, const config& c) {
  std::vector<ray> rays;
  rays.reserve(count);
  vec3 lo, hi, ctr;
  float r;
  m.bounds(lo, hi);
  scene_sphere(m, ctr, r);
  const camera cam = mesh_camera(m, 0, c.width, c.height);
  std::uint64_t s = 0x1BADB002ull ^ m.count();
  auto in_box = [&] {
    return vec3{lo.x + (hi.x - lo.x) * uniform(s), lo.y + (hi.y - lo.y) * uniform(s), lo.z + (hi.z - lo.z) * uniform(s)};
  };
  auto outside = [&] {
    const float z = 2 * uniform(s) - 1, a = 6.2831853f * uniform(s), q = std::sqrt(std::max(0.0f, 1 - z * z));
    return ctr + vec3{q * std::cos(a), z, q * std::sin(a)} * (2.0f * r);
  };
  for (std::uint64_t i = 0; i < count; ++i) {
    ray y;
    switch (i % 8) {
      case 0: case 1: case 2: case 3:  // camera rays through random pixels
        y.o = cam.eye;
        y.d = primary_dir(cam, int(splitmix(s) % std::uint64_t(c.width)), int(splitmix(s) % std::uint64_t(c.height)));
        break;
      case 4: case 5:  // from outside towards a random point of the box
        y.o = outside();
        y.d = normalize(in_box() - y.o);
        break;
      case 6: {  // from outside exactly towards a vertex: several triangles tie there
        y.o = outside();
        const vec3 v = m.vertices[m.index[splitmix(s) % m.index.size()]];
        y.d = normalize(v - y.o);
        break;
      }
      default: {  // from inside the box, any direction
        y.o = in_box();
        const float z = 2 * uniform(s) - 1, a = 6.2831853f * uniform(s), q = std::sqrt(std::max(0.0f, 1 - z * z));
        y.d = {q * std::cos(a), z, q * std::sin(a)};
      }
    }
    rays.push_back(y);
  }
  return rays;
}

void check_structure(const mesh& m, const built& b, int bits, result& r) {
  auto fail = [&](const std::string& what) {
    if (r.failures.size() < 20) r.failures.push_back(what);
  };
  const std::int64_t n = std::int64_t(m.count());
  if (std::int64_t(b.codes.size()) != n || std::int64_t(b.ids.size()) != n || std::int64_t(b.tris.size()) != n ||
      std::int64_t(b.leaf_parent.size()) != n || std::int64_t(b.nodes.size()) != std::max<std::int64_t>(n - 1, 0)) {
    fail("build arrays have the wrong sizes");
    return;
  }
  // Codes: recomputed here from the same centroid bounds, then sorted order.
  vec3 lo = {INFINITY, INFINITY, INFINITY}, hi = {-INFINITY, -INFINITY, -INFINITY};
  auto cent = [&](std::int64_t t) {
    return centroid(m.vertices[m.index[3 * t]], m.vertices[m.index[3 * t + 1]], m.vertices[m.index[3 * t + 2]]);
  };
  for (std::int64_t t = 0; t < n; ++t) {
    const vec3 c = cent(t);
    lo = {std::min(lo.x, c.x), std::min(lo.y, c.y), std::min(lo.z, c.z)};
    hi = {std::max(hi.x, c.x), std::max(hi.y, c.y), std::max(hi.z, c.z)};
  }
  const quantizer q = make_quantizer(lo, hi, bits / 3);
  std::vector<std::uint8_t> seen(n, 0);
  std::uint64_t bad_code = 0, unsorted = 0, bad_id = 0, twice = 0, bad_tri = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const std::uint32_t id = b.ids[i];
    if (id >= std::uint64_t(n)) {
      ++bad_id;
      continue;
    }
    if (seen[id]++) ++twice;
    const std::uint64_t code = bits == 30 ? std::uint64_t(morton<std::uint32_t>(cent(id), q)) : morton<std::uint64_t>(cent(id), q);
    if (code != b.codes[i]) ++bad_code;
    if (i && b.codes[i] < b.codes[i - 1]) ++unsorted;
    const tri& tr = b.tris[i];
    const vec3 v0 = m.vertices[m.index[3 * id]], v1 = m.vertices[m.index[3 * id + 1]], v2 = m.vertices[m.index[3 * id + 2]];
    const vec3 e1 = v1 - v0, e2 = v2 - v0;
    if (tr.id != id || tr.v0[0] != v0.x || tr.v0[1] != v0.y || tr.v0[2] != v0.z || tr.e1[0] != e1.x ||
        tr.e1[1] != e1.y || tr.e1[2] != e1.z || tr.e2[0] != e2.x || tr.e2[1] != e2.y || tr.e2[2] != e2.z)
      ++bad_tri;
  }
  if (bad_id) fail(std::to_string(bad_id) + " leaves hold an out-of-range triangle index");
  if (twice) fail(std::to_string(twice) + " triangles are in more than one leaf (so others in none)");
  if (bad_code) fail(std::to_string(bad_code) + " sorted Morton codes differ from the codes of their triangles");
  if (unsorted) fail(std::to_string(unsorted) + " codes out of order after the sort");
  if (bad_tri) fail(std::to_string(bad_tri) + " leaf triangles differ from the mesh's");

  // The tree: from the root, every internal node and every leaf exactly once.
  std::vector<std::uint8_t> inner_seen(std::max<std::int64_t>(n - 1, 0), 0), leaf_seen(n, 0);
  std::uint64_t bad_link = 0, revisit = 0, bad_box = 0;
  int depth = 0;
  auto contains = [](const float* outer, const float* inner) {
    return outer[0] <= inner[0] && outer[1] <= inner[1] && outer[2] <= inner[2] && outer[3] >= inner[3] &&
           outer[4] >= inner[4] && outer[5] >= inner[5];
  };
  if (n == 1) {
    leaf_seen[0] = 1;
  } else if (n > 1) {
    if (b.nodes[0].parent != -1) ++bad_link;
    std::vector<std::pair<std::int32_t, int>> stack{{0, 1}};
    while (!stack.empty()) {
      const auto [k, dk] = stack.back();
      stack.pop_back();
      if (inner_seen[k]++) {
        ++revisit;
        continue;
      }
      const node& nd = b.nodes[k];
      for (int side = 0; side < 2; ++side) {
        const std::int32_t c = side ? nd.right : nd.left;
        const float* slot = nd.box + 6 * side;
        if (c < 0) {
          const std::int64_t leaf = ~std::int64_t(c);
          if (leaf >= n) {
            ++bad_link;
            continue;
          }
          if (leaf_seen[leaf]++) ++revisit;
          if (b.leaf_parent[leaf] != k) ++bad_link;
          depth = std::max(depth, dk + 1);
          const tri& tr = b.tris[leaf];
          // The box must hold the mesh's own vertices (tris were checked against them above).
          const std::uint32_t id = std::min<std::uint32_t>(tr.id, std::uint32_t(n - 1));
          for (int a = 0; a < 3; ++a) {
            const vec3 p = m.vertices[m.index[3 * std::size_t(id) + a]];
            const float pt[6] = {p.x, p.y, p.z, p.x, p.y, p.z};
            if (!contains(slot, pt)) ++bad_box;
          }
        } else {
          if (c >= n - 1) {
            ++bad_link;
            continue;
          }
          if (b.nodes[c].parent != k) ++bad_link;
          const node& ch = b.nodes[c];
          if (!contains(slot, ch.box) || !contains(slot, ch.box + 6)) ++bad_box;
          stack.push_back({c, dk + 1});
        }
      }
    }
  }
  std::uint64_t unreached = 0;
  for (auto s : inner_seen) unreached += !s;
  for (auto s : leaf_seen) unreached += !s;
  if (bad_link) fail(std::to_string(bad_link) + " bad child or parent links");
  if (revisit) fail(std::to_string(revisit) + " nodes reached twice (not a tree)");
  if (unreached) fail(std::to_string(unreached) + " nodes or leaves not reachable from the root");
  if (bad_box) fail(std::to_string(bad_box) + " boxes do not enclose their children");
  if (depth > max_depth) fail("tree depth " + std::to_string(depth) + " exceeds the traversal stack");
  r.depth = depth;

  std::uint64_t h = mix(0, std::uint64_t(n));
  for (std::int64_t i = 0; i < n; ++i) h = mix(h, b.codes[i] ^ (std::uint64_t(b.ids[i]) << 1));
  for (const node& nd : b.nodes) {
    for (float f : nd.box) h = mix(h, std::bit_cast<std::uint32_t>(f));
    h = mix(h, (std::uint64_t(std::uint32_t(nd.left)) << 32) | std::uint32_t(nd.right));
    h = mix(h, std::uint32_t(nd.parent));
  }
  for (std::int32_t p : b.leaf_parent) h = mix(h, std::uint32_t(p));
  r.structure_hash = h;
}

void compare_hits(const std::vector<ray_hit>& bvh, const std::vector<ray_hit>& brute, result& r) {
  // Both sides use the same uncontracted intersection arithmetic, so the same
  // triangle gives the same distance; 1e-5 relative is slack, not need.
  // Different triangles: a tie, accepted when the distances agree to 1e-5
  // relative (rays through shared edges and vertices, hit at one point).
  const double tol = 1e-5;
  std::uint64_t bad = 0;
  std::string first;
  for (std::size_t i = 0; i < bvh.size() && i < brute.size(); ++i) {
    const ray_hit a = bvh[i], b = brute[i];
    bool ok;
    if (a.id < 0 || b.id < 0) {
      ok = a.id < 0 && b.id < 0;
    } else {
      ok = std::fabs(double(a.t) - double(b.t)) <= tol * std::max(double(a.t), double(b.t));
      if (ok && a.id != b.id) ++r.ties;
    }
    if (!ok && !bad++) {
      char s[200];
      std::snprintf(s, sizeof s, "ray %zu: BVH hit triangle %lld at t=%.9g, brute force triangle %lld at t=%.9g", i,
                    (long long)a.id, a.t, (long long)b.id, b.t);
      first = s;
    }
  }
  r.rays_checked += std::min(bvh.size(), brute.size());
  if (bvh.size() != brute.size()) r.failures.push_back("hit lists of different lengths");
  if (bad)
    r.failures.push_back(std::to_string(bad) + " of " + std::to_string(bvh.size()) +
                         " rays hit differently through the BVH and by brute force; first: " + first);
}

}  // namespace lbvh
