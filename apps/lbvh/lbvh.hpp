// The LBVH pieces both engines share, compiled for the host and (in
// lbvh_cuda.cu) for the device: vectors and boxes, Morton codes, the
// Karras 2012 split of a sorted code range, ray-triangle and ray-box tests,
// stack-based traversal, the camera and the shading. One source, so that the
// CPU and GPU builds produce bit-identical codes, trees and boxes.
#pragma once
#include <cmath>
#include <cstdint>
#if !defined(__CUDA_ARCH__)
#include <algorithm>
#include <bit>
#endif

#include "../common/exact_float.hpp"

#define LBVH_HD APPS_HD

namespace lbvh {

struct vec3 {
  float x, y, z;
};
LBVH_HD vec3 operator+(vec3 a, vec3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
LBVH_HD vec3 operator-(vec3 a, vec3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
LBVH_HD vec3 operator*(vec3 a, float s) { return {a.x * s, a.y * s, a.z * s}; }
LBVH_HD vec3 operator-(vec3 a) { return {-a.x, -a.y, -a.z}; }
LBVH_HD float dot(vec3 a, vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
LBVH_HD vec3 cross(vec3 a, vec3 b) { return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}; }
LBVH_HD vec3 normalize(vec3 a) {
  const float l = sqrtf(dot(a, a));
  return l > 0 ? a * (1.0f / l) : a;
}

// Exactly rounded, never contracted into an FMA (exact_float.hpp): the Morton
// codes must come out bit-identical on the host and the device (the
// cross-check compares them).
using apps::add_rn;
using apps::div_rn;
using apps::mul_rn;

/// Triangle centroid, (a + b + c) / 3, in a fixed rounding order.
LBVH_HD vec3 centroid(vec3 a, vec3 b, vec3 c) {
  const float third = 1.0f / 3.0f;
  return {mul_rn(add_rn(add_rn(a.x, b.x), c.x), third), mul_rn(add_rn(add_rn(a.y, b.y), c.y), third),
          mul_rn(add_rn(add_rn(a.z, b.z), c.z), third)};
}

// ---- Morton codes: 10 bits per axis in a 30-bit code, or 21 in a 63-bit code ----

LBVH_HD std::uint32_t spread10(std::uint32_t v) {  // bit k -> bit 3k
  v &= 0x3FFu;
  v = (v | (v << 16)) & 0x030000FFu;
  v = (v | (v << 8)) & 0x0300F00Fu;
  v = (v | (v << 4)) & 0x030C30C3u;
  v = (v | (v << 2)) & 0x09249249u;
  return v;
}
LBVH_HD std::uint64_t spread21(std::uint64_t v) {
  v &= 0x1FFFFFull;
  v = (v | (v << 32)) & 0x1F00000000FFFFull;
  v = (v | (v << 16)) & 0x1F0000FF0000FFull;
  v = (v | (v << 8)) & 0x100F00F00F00F00Full;
  v = (v | (v << 4)) & 0x10C30C30C30C30C3ull;
  v = (v | (v << 2)) & 0x1249249249249249ull;
  return v;
}

/// Bits per axis of a code type: 10 for uint32_t (30-bit codes), 21 for uint64_t (63-bit).
template <class K>
constexpr int axis_bits = sizeof(K) == 4 ? 10 : 21;
template <class K>
constexpr int code_bits = 3 * axis_bits<K>;

/// Quantization of the centroid box: lo and scale = 2^bits / extent per axis (0 for a flat axis).
struct quantizer {
  vec3 lo, scale;
};
LBVH_HD quantizer make_quantizer(vec3 lo, vec3 hi, int bits) {
  const float cells = float(1u << bits);
  auto s = [&](float l, float h) { return h > l ? div_rn(cells, add_rn(h, -l)) : 0.0f; };
  return {lo, {s(lo.x, hi.x), s(lo.y, hi.y), s(lo.z, hi.z)}};
}
LBVH_HD std::uint32_t quantize(float c, float lo, float scale, int bits) {
  const float q = mul_rn(add_rn(c, -lo), scale);
  const float top = float((1u << bits) - 1);
  return std::uint32_t(fminf(fmaxf(q, 0.0f), top));
}
template <class K>
LBVH_HD K morton(vec3 c, const quantizer& q) {
  constexpr int b = axis_bits<K>;
  const std::uint32_t x = quantize(c.x, q.lo.x, q.scale.x, b), y = quantize(c.y, q.lo.y, q.scale.y, b),
                      z = quantize(c.z, q.lo.z, q.scale.z, b);
  if constexpr (sizeof(K) == 4)
    return (spread10(x) << 2) | (spread10(y) << 1) | spread10(z);
  else
    return (spread21(x) << 2) | (spread21(y) << 1) | spread21(z);
}

// ---- the hierarchy (Karras 2012, "Maximizing parallelism in the construction of BVHs") ----

/// Internal node: the boxes of its two children (lo xyz, hi xyz each), the
/// children (>= 0: internal node, < 0: leaf ~c) and the parent (-1: root).
/// 64 bytes, so that traversal fetches a node in four 16-byte loads.
struct alignas(16) node {
  float box[12];  ///< left child lo.xyz hi.xyz, right child lo.xyz hi.xyz
  std::int32_t left, right, parent, pad;
};
/// A leaf's triangle in sorted order: v0 (w: original triangle index as
/// bits), edges v1 - v0 and v2 - v0.
struct alignas(16) tri {
  float v0[3];
  std::uint32_t id;
  float e1[3], pad1;
  float e2[3], pad2;
};

LBVH_HD int clz32(std::uint32_t v) {
#ifdef __CUDA_ARCH__
  return __clz(int(v));
#else
  return std::countl_zero(v);
#endif
}
LBVH_HD int clz64(std::uint64_t v) {
#ifdef __CUDA_ARCH__
  return __clzll((long long)v);
#else
  return std::countl_zero(v);
#endif
}

/// Length of the common prefix of keys i and j, the key being (code, index):
/// equal codes are told apart by their indices (Karras §4), -1 outside [0, n).
template <class K>
LBVH_HD int delta(const K* codes, std::int64_t n, std::int64_t i, std::int64_t j) {
  if (j < 0 || j >= n) return -1;
  const K a = codes[i], b = codes[j];
  if (a != b) return sizeof(K) == 4 ? clz32(std::uint32_t(a ^ b)) : clz64(std::uint64_t(a ^ b));
  return int(8 * sizeof(K)) + clz32(std::uint32_t(i ^ j));
}

/// Children of internal node i of n leaves with sorted codes (Karras 2012, Fig. 4).
template <class K>
LBVH_HD void karras_children(const K* codes, std::int64_t n, std::int64_t i, std::int32_t& left, std::int32_t& right) {
  const int d = delta(codes, n, i, i + 1) - delta(codes, n, i, i - 1) >= 0 ? 1 : -1;
  const int dmin = delta(codes, n, i, i - d);
  std::int64_t lmax = 2;
  while (delta(codes, n, i, i + lmax * d) > dmin) lmax *= 2;
  std::int64_t l = 0;
  for (std::int64_t t = lmax / 2; t >= 1; t /= 2)
    if (delta(codes, n, i, i + (l + t) * d) > dmin) l += t;
  const std::int64_t j = i + l * d;
  const int dnode = delta(codes, n, i, j);
  std::int64_t s = 0;
  for (std::int64_t div = 2;; div *= 2) {  // t = ceil(l/2), ceil(l/4), ..., 1
    const std::int64_t t = (l + div - 1) / div;
    if (delta(codes, n, i, i + (s + t) * d) > dnode) s += t;
    if (t <= 1) break;
  }
  const std::int64_t gamma = i + s * d + (d < 0 ? d : 0);
  const std::int64_t lo = i < j ? i : j, hi = i < j ? j : i;
  left = lo == gamma ? ~std::int32_t(gamma) : std::int32_t(gamma);
  right = hi == gamma + 1 ? ~std::int32_t(gamma + 1) : std::int32_t(gamma + 1);
}

/// Box (lo xyz, hi xyz) of a triangle. "+ 0.0f" turns -0.0 into +0.0, so that
/// the engines agree bit for bit whichever zero fminf/fmaxf return on a tie.
LBVH_HD void tri_box(vec3 a, vec3 b, vec3 c, float* out) {
  out[0] = fminf(fminf(a.x, b.x), c.x) + 0.0f;
  out[1] = fminf(fminf(a.y, b.y), c.y) + 0.0f;
  out[2] = fminf(fminf(a.z, b.z), c.z) + 0.0f;
  out[3] = fmaxf(fmaxf(a.x, b.x), c.x) + 0.0f;
  out[4] = fmaxf(fmaxf(a.y, b.y), c.y) + 0.0f;
  out[5] = fmaxf(fmaxf(a.z, b.z), c.z) + 0.0f;
}
/// out = the union of boxes a and b (exact: min and max only).
LBVH_HD void merge_boxes(const float* a, const float* b, float* out) {
  for (int k = 0; k < 3; ++k) {
    out[k] = fminf(a[k], b[k]);
    out[3 + k] = fmaxf(a[3 + k], b[3 + k]);
  }
}

/// Deepest tree a key of code_bits + 32 index bits allows: each level
/// lengthens the common prefix by at least one bit. The traversal stack holds this many.
constexpr int max_depth = 96;

// ---- rays ----

// Vector arithmetic without FMA contraction, for the intersection test: the
// BVH traversal and the brute-force check (and the two engines) then compute
// bit-identical distances and the same hit or miss on shared edges.
LBVH_HD vec3 sub_x(vec3 a, vec3 b) { return {add_rn(a.x, -b.x), add_rn(a.y, -b.y), add_rn(a.z, -b.z)}; }
LBVH_HD float dot_x(vec3 a, vec3 b) { return add_rn(add_rn(mul_rn(a.x, b.x), mul_rn(a.y, b.y)), mul_rn(a.z, b.z)); }
LBVH_HD vec3 cross_x(vec3 a, vec3 b) {
  return {add_rn(mul_rn(a.y, b.z), -mul_rn(a.z, b.y)), add_rn(mul_rn(a.z, b.x), -mul_rn(a.x, b.z)),
          add_rn(mul_rn(a.x, b.y), -mul_rn(a.y, b.x))};
}

/// Möller–Trumbore; edges inclusive (a ray through a shared edge hits both
/// triangles: a tie, never a crack). Hit when tmin < t < tmax.
LBVH_HD bool intersect(vec3 o, vec3 d, vec3 v0, vec3 e1, vec3 e2, float tmin, float tmax, float& t) {
  const vec3 p = cross_x(d, e2);
  const float det = dot_x(e1, p);
  if (det == 0.0f) return false;
  const float inv = div_rn(1.0f, det);
  const vec3 s = sub_x(o, v0);
  const float u = mul_rn(dot_x(s, p), inv);
  if (u < 0.0f || u > 1.0f) return false;
  const vec3 q = cross_x(s, e1);
  const float v = mul_rn(dot_x(d, q), inv);
  if (v < 0.0f || add_rn(u, v) > 1.0f) return false;
  const float tt = mul_rn(dot_x(e2, q), inv);
  if (!(tt > tmin && tt < tmax)) return false;
  t = tt;
  return true;
}
LBVH_HD bool intersect(vec3 o, vec3 d, const tri& tr, float tmin, float tmax, float& t) {
  return intersect(o, d, {tr.v0[0], tr.v0[1], tr.v0[2]}, {tr.e1[0], tr.e1[1], tr.e1[2]}, {tr.e2[0], tr.e2[1], tr.e2[2]},
                   tmin, tmax, t);
}

/// Slab test against box b (lo xyz, hi xyz). The exit distance is widened by
/// 2·gamma(3) (PBRT's robust test), so rounding never culls a triangle inside.
LBVH_HD bool slab(const float* b, vec3 o, vec3 inv, float tmax, float& tenter) {
  const float x0 = (b[0] - o.x) * inv.x, x1 = (b[3] - o.x) * inv.x;
  const float y0 = (b[1] - o.y) * inv.y, y1 = (b[4] - o.y) * inv.y;
  const float z0 = (b[2] - o.z) * inv.z, z1 = (b[5] - o.z) * inv.z;
  const float tn = fmaxf(fmaxf(fminf(x0, x1), fminf(y0, y1)), fmaxf(fminf(z0, z1), 0.0f));
  const float tf = fminf(fminf(fmaxf(x0, x1), fmaxf(y0, y1)), fminf(fmaxf(z0, z1), tmax)) * 1.0000004f;
  tenter = tn;
  return tn <= tf;
}

struct hit {
  float t;
  std::int32_t prim;  ///< sorted position of the triangle hit (-1: none)
};

/// Closest hit (any = false) or any hit (shadow rays) in (tmin, tmax), stack-based.
LBVH_HD hit traverse(const node* nodes, const tri* tris, std::int64_t n, vec3 o, vec3 d, float tmin, float tmax,
                     bool any) {
  hit h{tmax, -1};
  if (n <= 0) return h;
  float t = 0;
  if (n == 1) {
    if (intersect(o, d, tris[0], tmin, tmax, t)) h = {t, 0};
    return h;
  }
  const vec3 inv = {1.0f / d.x, 1.0f / d.y, 1.0f / d.z};
  std::int32_t stack[max_depth];
  int sp = 0;
  std::int32_t cur = 0;
  for (;;) {
    const node nd = nodes[cur];
    float tl = 0, tr = 0;
    bool hl, hr;
    if (nd.left < 0) {
      hl = false;
      if (intersect(o, d, tris[~nd.left], tmin, h.t, t)) {
        h = {t, ~nd.left};
        if (any) return h;
      }
    } else {
      hl = slab(nd.box, o, inv, h.t, tl);
    }
    if (nd.right < 0) {
      hr = false;
      if (intersect(o, d, tris[~nd.right], tmin, h.t, t)) {
        h = {t, ~nd.right};
        if (any) return h;
      }
    } else {
      hr = slab(nd.box + 6, o, inv, h.t, tr);
    }
    if (hl && hr) {
      const bool left_first = tl <= tr;
      stack[sp++] = left_first ? nd.right : nd.left;
      cur = left_first ? nd.left : nd.right;
    } else if (hl) {
      cur = nd.left;
    } else if (hr) {
      cur = nd.right;
    } else {
      if (sp == 0) break;
      cur = stack[--sp];
    }
  }
  return h;
}

// ---- camera and shading ----

struct camera {
  vec3 eye, forward, right, up;  ///< right and up scaled by tan(fov/2) (and the aspect ratio)
  int width, height;
};
/// Camera `k` of an orbit around the scene (centre c, radius r): `cameras` positions evenly spread.
inline camera orbit_camera(vec3 c, float r, int k, int cameras, int width, int height) {
  const float az = 6.2831853f * float(k) / float(cameras) + 0.6f, el = 0.38f, dist = 2.6f * r;
  camera cam;
  cam.eye = c + vec3{std::cos(el) * std::sin(az), std::sin(el), std::cos(el) * std::cos(az)} * dist;
  cam.forward = normalize(c - cam.eye);
  const vec3 right = normalize(cross(cam.forward, {0, 1, 0}));
  const vec3 up = cross(right, cam.forward);
  const float th = std::tan(0.5f * 0.7f);  // 40 degrees vertical field of view
  cam.right = right * (th * float(width) / float(height));
  cam.up = up * th;
  cam.width = width;
  cam.height = height;
  return cam;
}
LBVH_HD vec3 primary_dir(const camera& cam, int x, int y) {
  const float sx = 2.0f * (float(x) + 0.5f) / float(cam.width) - 1.0f;
  const float sy = 1.0f - 2.0f * (float(y) + 0.5f) / float(cam.height);
  return normalize(cam.forward + cam.right * sx + cam.up * sy);
}

struct shading {
  vec3 light;               ///< unit vector towards the (directional) light
  float eps;                ///< shadow-ray offset along the normal (scene size x 1e-4)
  std::uint32_t ground_id;  ///< original triangle ids >= this are the ground (checkered)
  float checker;            ///< checker square size
};

/// One pixel: a primary ray, one shadow ray, Phong-like shading (ambient,
/// diffuse, specular), gamma 2. Returns RGB in [0, 255].
LBVH_HD void shade(const node* nodes, const tri* tris, std::int64_t n, const camera& cam, const shading& sh, int x,
                   int y, std::uint8_t* rgb) {
  const vec3 d = primary_dir(cam, x, y);
  const hit h = traverse(nodes, tris, n, cam.eye, d, 0.0f, 3.0e38f, false);
  vec3 col;
  if (h.prim < 0) {
    const float a = 0.5f + 0.5f * d.y;
    col = vec3{0.93f, 0.95f, 0.98f} * (1.0f - a) + vec3{0.45f, 0.6f, 0.85f} * a;
  } else {
    const tri& tr = tris[h.prim];
    const vec3 e1 = {tr.e1[0], tr.e1[1], tr.e1[2]}, e2 = {tr.e2[0], tr.e2[1], tr.e2[2]};
    vec3 nrm = normalize(cross(e1, e2));
    if (dot(nrm, d) > 0) nrm = -nrm;
    const vec3 p = cam.eye + d * h.t;
    vec3 base = {0.80f, 0.52f, 0.36f};
    if (tr.id >= sh.ground_id) {
      const int cx = int(floorf(p.x / sh.checker)), cz = int(floorf(p.z / sh.checker));
      base = ((cx + cz) & 1) ? vec3{0.82f, 0.82f, 0.80f} : vec3{0.55f, 0.56f, 0.58f};
    }
    float diff = dot(nrm, sh.light);
    float spec = 0;
    if (diff > 0) {
      const hit s = traverse(nodes, tris, n, p + nrm * sh.eps, sh.light, 0.0f, 3.0e38f, true);
      if (s.prim >= 0) {
        diff = 0;
      } else {
        const vec3 r = nrm * (2.0f * dot(nrm, sh.light)) - sh.light;  // mirrored light direction
        spec = powf(fmaxf(dot(r, -d), 0.0f), 40.0f);
      }
    } else {
      diff = 0;
    }
    col = base * (0.16f + 0.84f * diff) + vec3{1, 1, 1} * (0.35f * spec);
  }
  auto to8 = [](float v) { return std::uint8_t(fminf(sqrtf(fmaxf(v, 0.0f)), 1.0f) * 255.0f + 0.5f); };
  rgb[0] = to8(col.x);
  rgb[1] = to8(col.y);
  rgb[2] = to8(col.z);
}

}  // namespace lbvh
