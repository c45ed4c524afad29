// The PIC model shared by the host engines and the CUDA kernels: the move,
// the cell index, the cloud-in-cell (bilinear) charge weights, the record
// hash and the initial particles. Compiled by g++ and by nvcc alike.
#pragma once
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "../common/exact_float.hpp"

#define PIC_HD APPS_HD

namespace pic {

// Float arithmetic with one rounding per operation (exact_float.hpp): the
// engines must compute bit-identical positions and weights.
using apps::add_rn;
using apps::div_rn;
using apps::float_bits;
using apps::mul_rn;
using apps::sub_rn;

/// The periodic unit square cut into nx x ny cells of h = 1/nx by 1/ny; grid
/// nodes sit at the cell corners, node (i, j) at (i/nx, j/ny).
struct grid2d {
  int nx = 32, ny = 32;
  float fnx = 32.0f, fny = 32.0f;
  int cell_bits = 10;  ///< bits the cell index needs: ceil(log2(nx * ny))
};

/// Helluy 2011 ("A portable implementation of the radix sort algorithm in
/// OpenCL"), §4.2: x' = x + u/32 mod 1 on a 32 x 32 grid; here u/nx (v/ny), so
/// that a particle stays in its cell or moves to a neighbour on any grid.
/// x + d < 2, so subtracting 1 is exact. Both values are computed and one is
/// selected, so that the host compiler can vectorise the loop.
PIC_HD float advance(float x, float u, float fn) {
  const float r = add_rn(x, div_rn(u, fn)), wrapped = sub_rn(r, 1.0f);
  return r >= 1.0f ? wrapped : r;
}

/// Cell row/column of a coordinate in [0, 1): floor(x * n), clamped because
/// x * n can round up to n for x just below 1.
PIC_HD int cell_coord(float x, float fn, int n) {
  const int i = int(mul_rn(x, fn));
  return i < n ? i : n - 1;
}

/// Helluy 2011, §4.2: cell k = ny * i + j for the square [i h, (i+1) h[ x [j h, (j+1) h[.
PIC_HD std::uint32_t cell_key(float x, float y, const grid2d& g) {
  return std::uint32_t(cell_coord(x, g.fnx, g.nx)) * std::uint32_t(g.ny) + std::uint32_t(cell_coord(y, g.fny, g.ny));
}

/// A 32-bit key whose every digit varies: the cell index in the high bits,
/// the particle's x offset inside the cell below it. Sorting it orders by
/// cell too (a refinement), but no digit is the same for all keys, so no
/// engine can skip one: the analogue of the paper's p = 6 column.
PIC_HD std::uint32_t wide_key(float x, float y, const grid2d& g) {
  const int i = cell_coord(x, g.fnx, g.nx);
  const int sub_bits = 32 - g.cell_bits;
  const float fx = sub_rn(mul_rn(x, g.fnx), float(i));  // in [0, 1]
  std::uint32_t sub = std::uint32_t(mul_rn(fx, float(1u << sub_bits)));
  if (sub >= (1u << sub_bits)) sub = (1u << sub_bits) - 1;
  return (cell_key(x, y, g) << sub_bits) | sub;
}

/// Cloud-in-cell: a particle of unit charge in cell (i, j) gives its four
/// corner nodes the bilinear weights of its offset (fx, fy) in the cell.
struct cic {
  int i, j;
  float w00, w10, w01, w11;  ///< to nodes (i, j), (i+1, j), (i, j+1), (i+1, j+1)
};
PIC_HD cic weights(float x, float y, const grid2d& g) {
  cic c;
  c.i = cell_coord(x, g.fnx, g.nx);
  c.j = cell_coord(y, g.fny, g.ny);
  const float fx = sub_rn(mul_rn(x, g.fnx), float(c.i)), fy = sub_rn(mul_rn(y, g.fny), float(c.j));
  const float gx = sub_rn(1.0f, fx), gy = sub_rn(1.0f, fy);
  c.w00 = mul_rn(gx, gy);
  c.w10 = mul_rn(fx, gy);
  c.w01 = mul_rn(gx, fy);
  c.w11 = mul_rn(fx, fy);
  return c;
}
/// Node index of (i, j), periodic in both directions (i, j >= 0).
PIC_HD std::uint32_t node(int i, int j, const grid2d& g) {
  if (i >= g.nx) i -= g.nx;
  if (j >= g.ny) j -= g.ny;
  return std::uint32_t(i) * std::uint32_t(g.ny) + std::uint32_t(j);
}

/// Particles contributing to node (i, j): those of the four cells around it
/// (counts: particles per cell, k = ny i + j). On a 2-wide grid one cell
/// feeds a node twice and is counted twice: still an upper bound.
PIC_HD std::uint64_t node_contributions(const std::uint32_t* counts, int i, int j, const grid2d& g) {
  const int im = i == 0 ? g.nx - 1 : i - 1, jm = j == 0 ? g.ny - 1 : j - 1;
  auto at = [&](int a, int b) { return std::uint64_t(counts[std::size_t(a) * g.ny + b]); };
  return at(i, j) + at(im, j) + at(i, jm) + at(im, jm);
}

/// Tolerance of the charge check at a node. Both depositions add the same m
/// non-negative doubles (float weights widened exactly) in different orders;
/// each differs from the exact sum by at most (m - 1) 2^-53 times it (first
/// order; Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed.,
/// eq. 4.4). Factor 4: two sums, plus slack for the higher-order terms.
PIC_HD double charge_tolerance(double ref, std::uint64_t m) { return 4.0 * double(m) * 0x1p-53 * (ref < 0 ? -ref : ref); }

/// splitmix64's finaliser: a bijection that spreads every input bit.
PIC_HD std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
/// Hash of one particle record (x, y, u, v). Summed mod 2^64 over all
/// particles it gives an order-independent checksum of the particle set.
PIC_HD std::uint64_t record_hash(float x, float y, float u, float v) {
  const std::uint64_t a = (std::uint64_t(float_bits(x)) << 32) | float_bits(y);
  const std::uint64_t b = (std::uint64_t(float_bits(u)) << 32) | float_bits(v);
  return mix64(mix64(a) + b);
}

// ---- initial particles (host only) ----------------------------------------------

/// van der Corput radical inverse of i in base b, in [0, 1).
inline double radical_inverse(std::uint64_t i, unsigned base) {
  const double inv = 1.0 / base;
  double f = inv, r = 0.0;
  for (; i; i /= base, f *= inv) r += double(i % base) * f;
  return r;
}
/// To float, strictly below 1 (a double just below 1 rounds up to 1.0f).
inline float unit_float(double d) {
  const float f = float(d);
  return f < 1.0f ? f : 0x1.fffffep-1f;
}

enum class init_shape { uniform, gauss };

/// Particle j: four independent van der Corput sequences (bases 2, 3, 5, 7)
/// give x, y, u, v in [0, 1), as in Helluy 2011, §4.2. `gauss` maps (x, y)
/// through Box-Muller to a periodic Gaussian blob (sigma 0.08) around the
/// centre, so that the picture shows the free streaming.
inline void initial_particle(std::uint64_t j, init_shape shape, float& x, float& y, float& u, float& v) {
  const double a = radical_inverse(j + 1, 2), b = radical_inverse(j + 1, 3);
  u = unit_float(radical_inverse(j + 1, 5));
  v = unit_float(radical_inverse(j + 1, 7));
  if (shape == init_shape::uniform) {
    x = unit_float(a);
    y = unit_float(b);
    return;
  }
  const double r = 0.08 * std::sqrt(-2.0 * std::log1p(-a)), t = 2.0 * 3.14159265358979323846 * b;
  double px = 0.5 + r * std::cos(t), py = 0.5 + r * std::sin(t);
  px -= std::floor(px);
  py -= std::floor(py);
  x = unit_float(px);
  y = unit_float(py);
}

}  // namespace pic
