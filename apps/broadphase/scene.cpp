// The scenes (Ha, Krüger & Silva 2009, "Fast 4-way parallel radix sorting
// on GPUs", Fig. 1): boxes of varied sizes dropped into a long
// open box, and small particles raining onto a landscape. Both are long
// along x, the sweep axis, with a fixed number of objects per unit of x
// length (config::density), so that the overlaps along x per object, and
// with them the sweep's work, stay bounded as N grows.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <string>

#include "../common/parallel.hpp"
#include "broadphase.hpp"

namespace bp {
namespace {

std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
/// Uniform in [0, 1), a pure function of (seed, object, draw): the scene
/// does not depend on the number of threads.
double uni(std::uint64_t seed, std::uint64_t i, int k) {
  return double(mix64(seed * 0x9E3779B97F4A7C15ull + i * 0xD1B54A32D192ED03ull + std::uint64_t(k) * 0x8CB92BA72F3D8DD7ull) >> 11) *
         0x1.0p-53;
}

}  // namespace

const char* scene_name(scene_kind k) {
  return k == scene_kind::boxes ? "boxes" : k == scene_kind::landscape ? "landscape" : "lattice";
}

scene make_scene(const config& c, std::uint64_t n) {
  scene s;
  world& w = s.w;
  // The lattice: 32 cubes of side 0.5 across z, 2 layers, columns along x.
  const double len =
      c.scene == scene_kind::lattice ? std::max(8.0, 0.5 * double((n + 63) / 64)) : std::max(8.0, double(n) / c.density);
  // The box starts at a power of two W > its length, so that every x lies in
  // [W, 2W) and has the same float exponent: the top 9 bits of the ordered
  // key are then equal in every endpoint and the sort skips its top digit.
  const double W = double(std::bit_ceil(std::uint64_t(std::ceil(len)) + 1));
  w.x0 = float(W);
  w.x1 = float(W + len);
  w.zmax = 16;
  w.ymax = 8;
  if (c.scene == scene_kind::landscape) {
    w.cell = 1;
    w.inv_cell = 1;
    w.hx_n = int(std::ceil(len));
    w.hz_n = int(w.zmax);
    w.slope_push = 0.05f;
    w.restitution = 0.3f;
    w.friction = 0.95f;
    const int row = w.hz_n + 1;
    s.heights.resize(std::size_t(w.hx_n + 1) * row);
    // Rolling hills and ridges: a smooth height field (double, once, on the host).
    for (int i = 0; i <= w.hx_n; ++i)
      for (int k = 0; k < row; ++k) {
        const double x = i, z = k;
        const double h = 1.2 * std::sin(0.35 * x) * std::cos(0.4 * z) + 0.5 * std::sin(1.1 * x + 0.7) * std::sin(0.9 * z + 1.3) +
                         0.25 * std::cos(2.3 * x + 1.9 * z) + 2.0;
        s.heights[std::size_t(i) * row + k] = float(h);
      }
    w.height = s.heights.data();
  }
  for (auto* v : {&s.px, &s.py, &s.pz, &s.vx, &s.vy, &s.vz, &s.hx, &s.hy, &s.hz}) v->resize(n);
  radix_apps::parallel_for(n, c.threads, [&](std::uint64_t b, std::uint64_t e, unsigned) {
    for (std::uint64_t i = b; i < e; ++i) {
      float hx, hy, hz;
      if (c.scene == scene_kind::lattice) {
        // Exact in binary: the faces of neighbours coincide bit for bit, and nothing moves along x or z.
        s.hx[i] = s.hy[i] = s.hz[i] = 0.25f;
        s.px[i] = float(W + 0.25 + 0.5 * double(i / 64));
        s.py[i] = float(0.25 + 0.5 * double(i / 32 % 2));
        s.pz[i] = float(0.25 + 0.5 * double(i % 32));
        s.vx[i] = s.vy[i] = s.vz[i] = 0;
        continue;
      }
      if (c.scene == scene_kind::boxes) {
        // Half sizes log-uniform in [0.08, 0.32], boxes (not cubes); one in 64 is three times larger.
        const double base = 0.08 * std::exp2(2 * uni(c.seed, i, 0)) * (uni(c.seed, i, 1) < 1.0 / 64 ? 3 : 1);
        hx = float(base * (0.7 + 0.6 * uni(c.seed, i, 2)));
        hy = float(base * (0.7 + 0.6 * uni(c.seed, i, 3)));
        hz = float(base * (0.7 + 0.6 * uni(c.seed, i, 4)));
      } else {
        hx = hy = hz = float(0.05 + 0.03 * uni(c.seed, i, 0));  // particles: small cubes
      }
      s.hx[i] = hx;
      s.hy[i] = hy;
      s.hz[i] = hz;
      s.px[i] = float(W + hx + (len - 2 * hx) * uni(c.seed, i, 5));
      s.pz[i] = float(hz + (w.zmax - 2 * hz) * uni(c.seed, i, 6));
      if (c.scene == scene_kind::boxes) {
        // Dropped from up to 8 units, more of them low: some land in the first frames.
        const double u = uni(c.seed, i, 7);
        s.py[i] = float(hy + w.ymax * u * u);
      } else {
        // Just above the ground, up to 1.5 units.
        float h, gx, gz;
        ground(w, s.px[i], s.pz[i], h, gx, gz);
        s.py[i] = float(h + hy + 1.5 * uni(c.seed, i, 7));
      }
      s.vx[i] = float(3 * uni(c.seed, i, 8) - 1.5);
      s.vz[i] = float(3 * uni(c.seed, i, 9) - 1.5);
      s.vy[i] = float(-uni(c.seed, i, 10));
    }
  });
  // Warm-up steps (unmeasured): let the scene settle before the frames.
  for (int k = 0; k < c.warmup; ++k) {
    const state_ptrs p = s.ptrs();
    radix_apps::parallel_for(n, c.threads, [&](std::uint64_t b, std::uint64_t e, unsigned) {
      for (std::uint64_t i = b; i < e; ++i) step(w, p, i);
    });
  }
  return s;
}

std::string describe(const scene& s) {
  char b[256];
  std::snprintf(b, sizeof b, "x in [%g, %g] (length %g), y from 0 (drop zone up to %g), z in [0, %g]%s", s.w.x0, s.w.x1,
                double(s.w.x1) - s.w.x0, s.w.ymax, s.w.zmax, s.w.height ? ", landscape of 1×1 cells" : ", flat floor");
  return b;
}

}  // namespace bp
