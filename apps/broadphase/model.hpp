// The broad phase's arithmetic, shared by the host code and the CUDA kernels
// so that both engines compute bit-identical positions, boxes and pairs.
//
// Every float operation is rounded on its own: __fadd_rn/__fmul_rn on the
// device (nvcc would otherwise fuse a*b+c into an FMA), plain operators on
// the host, compiled with -ffp-contract=off. No transcendental functions
// (sinf differs between the GPU and libm): the landscape is a height table
// made once on the host and interpolated bilinearly.
#pragma once
#include <cstdint>

#include "../common/exact_float.hpp"

#define BP_HD APPS_HD

namespace bp {

using apps::add_rn;
using apps::mul_rn;
using apps::sub_rn;

/// An axis-aligned bounding box (closed: touching boxes overlap).
struct box {
  float lo[3], hi[3];
};

BP_HD bool overlap1(float alo, float ahi, float blo, float bhi) { return alo <= bhi && blo <= ahi; }
BP_HD bool overlap3(const box& a, const box& b) {
  return overlap1(a.lo[0], a.hi[0], b.lo[0], b.hi[0]) && overlap1(a.lo[1], a.hi[1], b.lo[1], b.hi[1]) &&
         overlap1(a.lo[2], a.hi[2], b.lo[2], b.hi[2]);
}

/// One endpoint after the sort, with what the sweep needs of its object, so
/// that the walk reads consecutive memory: its x key, and for a min endpoint
/// the object's x max, y and z extents and index. A max endpoint has
/// `id` = ~0u and an empty y range (lo = +inf, hi = -inf), so that the y/z
/// filter rejects it without a test of its own.
struct alignas(16) sweep_rec {
  float key, xmax, ylo, yhi, zlo, zhi;
  std::uint32_t id, pad;
};
constexpr std::uint32_t max_endpoint = 0xFFFFFFFFu;

/// Endpoint value: object index in the high bits, 1 = max endpoint in bit 0.
BP_HD std::uint32_t endpoint(std::uint32_t object, bool is_max) { return object << 1 | std::uint32_t(is_max); }

/// The y/z filter of an x-candidate pair. Evaluated without branches (`&`,
/// not `&&`): the walk's only unpredictable test is then the rare hit.
BP_HD bool overlap_yz(const sweep_rec& a, const sweep_rec& b) {
  return (a.ylo <= b.yhi) & (b.ylo <= a.yhi) & (a.zlo <= b.zhi) & (b.zlo <= a.zhi);
}

/// The scene's fixed parameters (both scenes: an open box x in [x0, x1],
/// z in [0, zmax], a floor at y = 0 or a landscape height table).
struct world {
  float x0 = 0, x1 = 0, zmax = 0, ymax = 0;  ///< walls; ymax: the top of the drop zone
  float dt = 1.0f / 60, g = 9.81f;
  float restitution = 0.5f, friction = 0.9f;
  // Landscape: heights on an (hx_n + 1) x (hz_n + 1) grid of cells of side `cell`, x from x0.
  const float* height = nullptr;  ///< nullptr: flat floor at y = 0
  int hx_n = 0, hz_n = 0;
  float cell = 1, inv_cell = 1, slope_push = 0;
};

/// Objects as structure of arrays: position, velocity, half extents.
struct state_ptrs {
  float *px, *py, *pz, *vx, *vy, *vz;
  const float *hx, *hy, *hz;
};

/// Ground height and its slope at (x, z) (bilinear in the cell; 0 without a landscape).
BP_HD void ground(const world& w, float x, float z, float& h, float& gx, float& gz) {
  h = 0;
  gx = 0;
  gz = 0;
  if (!w.height) return;
  const float fx = mul_rn(sub_rn(x, w.x0), w.inv_cell), fz = mul_rn(z, w.inv_cell);
  int i = int(fx), k = int(fz);
  i = i < 0 ? 0 : i >= w.hx_n ? w.hx_n - 1 : i;
  k = k < 0 ? 0 : k >= w.hz_n ? w.hz_n - 1 : k;
  float tx = sub_rn(fx, float(i)), tz = sub_rn(fz, float(k));
  tx = tx < 0 ? 0 : tx > 1 ? 1 : tx;
  tz = tz < 0 ? 0 : tz > 1 ? 1 : tz;
  const int row = w.hz_n + 1;
  const float h00 = w.height[i * row + k], h01 = w.height[i * row + k + 1];
  const float h10 = w.height[(i + 1) * row + k], h11 = w.height[(i + 1) * row + k + 1];
  const float a = add_rn(h00, mul_rn(tx, sub_rn(h10, h00))), b = add_rn(h01, mul_rn(tx, sub_rn(h11, h01)));
  h = add_rn(a, mul_rn(tz, sub_rn(b, a)));
  gx = mul_rn(mul_rn(sub_rn(add_rn(h10, h11), add_rn(h00, h01)), 0.5f), w.inv_cell);
  gz = mul_rn(mul_rn(sub_rn(add_rn(h01, h11), add_rn(h00, h10)), 0.5f), w.inv_cell);
}

/// One time step of object i: gravity, motion, bounce on the floor or the
/// landscape (sliding down its slope), reflection at the walls.
BP_HD void step(const world& w, const state_ptrs& s, std::uint64_t i) {
  float x = s.px[i], y = s.py[i], z = s.pz[i];
  float vx = s.vx[i], vy = s.vy[i], vz = s.vz[i];
  const float hx = s.hx[i], hy = s.hy[i], hz = s.hz[i];
  vy = sub_rn(vy, mul_rn(w.g, w.dt));
  x = add_rn(x, mul_rn(vx, w.dt));
  y = add_rn(y, mul_rn(vy, w.dt));
  z = add_rn(z, mul_rn(vz, w.dt));
  float h, gx, gz;
  ground(w, x, z, h, gx, gz);
  if (sub_rn(y, hy) < h) {
    y = add_rn(h, hy);
    if (vy < 0) vy = mul_rn(-vy, w.restitution);
    vx = mul_rn(sub_rn(vx, mul_rn(gx, w.slope_push)), w.friction);
    vz = mul_rn(sub_rn(vz, mul_rn(gz, w.slope_push)), w.friction);
  }
  if (sub_rn(x, hx) < w.x0) {
    x = add_rn(w.x0, hx);
    vx = vx < 0 ? -vx : vx;
  }
  if (add_rn(x, hx) > w.x1) {
    x = sub_rn(w.x1, hx);
    vx = vx > 0 ? -vx : vx;
  }
  if (sub_rn(z, hz) < 0.0f) {
    z = hz;
    vz = vz < 0 ? -vz : vz;
  }
  if (add_rn(z, hz) > w.zmax) {
    z = sub_rn(w.zmax, hz);
    vz = vz > 0 ? -vz : vz;
  }
  s.px[i] = x;
  s.py[i] = y;
  s.pz[i] = z;
  s.vx[i] = vx;
  s.vy[i] = vy;
  s.vz[i] = vz;
}

/// The bounding box of object i.
BP_HD box aabb(const state_ptrs& s, std::uint64_t i) {
  box b;
  b.lo[0] = sub_rn(s.px[i], s.hx[i]);
  b.hi[0] = add_rn(s.px[i], s.hx[i]);
  b.lo[1] = sub_rn(s.py[i], s.hy[i]);
  b.hi[1] = add_rn(s.py[i], s.hy[i]);
  b.lo[2] = sub_rn(s.pz[i], s.hz[i]);
  b.hi[2] = add_rn(s.pz[i], s.hz[i]);
  return b;
}

/// The sweep record of sorted endpoint (key, value).
BP_HD sweep_rec make_rec(float key, std::uint32_t value, const box* boxes) {
  sweep_rec r;
  r.key = key;
  r.pad = 0;
  if (value & 1u) {
    r.xmax = 0;
    r.ylo = r.zlo = __builtin_huge_valf();
    r.yhi = r.zhi = -__builtin_huge_valf();
    r.id = max_endpoint;
  } else {
    const box b = boxes[value >> 1];
    r.xmax = b.hi[0];
    r.ylo = b.lo[1];
    r.yhi = b.hi[1];
    r.zlo = b.lo[2];
    r.zhi = b.hi[2];
    r.id = value >> 1;
  }
  return r;
}

}  // namespace bp
