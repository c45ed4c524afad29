// Pictures: one frame of a scene (boxes projected on x-y or x-z, the boxes
// in a detected pair filled, a line between the centres of each pair), and
// the time per frame against N on log-log axes (the shape of Fig. 6 of Ha,
// Krüger & Silva 2009, "Fast 4-way parallel radix sorting on GPUs").
#include "render.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace bp {

using radix_apps::canvas;
using radix_apps::color;

canvas render_frame(const std::vector<box>& boxes, const pair_list& pairs, const world& w, bool top) {
  // The left end of the box, about 6 times as long as it is high (at most 48
  // units), whatever N: boxes stay a few pixels wide or more.
  const int ax = top ? 2 : 1;  // the vertical axis of the picture
  const float x0 = w.x0, full = float(w.x1) - w.x0;
  float v0 = 0, v1 = top ? w.zmax : 0;
  if (!top) {
    for (const box& b : boxes)
      if (b.lo[0] <= x0 + std::min(full, 48.0f)) v1 = std::max(v1, b.hi[1]);
    v1 = std::min(std::max(v1, 1.0f), 2 * w.ymax);
  }
  const float len = std::min(full, std::clamp(6 * (v1 - v0), 8.0f, 48.0f));
  const std::uint32_t W = 1600;
  const float s = W / len;
  const std::uint32_t H = std::uint32_t(std::clamp((v1 - v0) * s, 64.0f, 1000.0f));
  const float sv = H / (v1 - v0);
  canvas c(W, H, color{16, 20, 32});
  auto X = [&](float x) { return int(std::floor((x - x0) * s)); };
  auto Y = [&](float v) { return int(H) - 1 - int(std::floor((v - v0) * sv)); };
  auto visible = [&](const box& b) { return b.lo[0] <= x0 + len && b.hi[0] >= x0; };
  std::vector<std::uint8_t> paired(boxes.size(), 0);
  for (const auto& p : pairs) paired[p.first] = paired[p.second] = 1;
  for (std::size_t i = 0; i < boxes.size(); ++i)
    if (!paired[i] && visible(boxes[i]))
      c.rect(X(boxes[i].lo[0]), Y(boxes[i].hi[ax]), X(boxes[i].hi[0]), Y(boxes[i].lo[ax]), color{110, 130, 170});
  for (std::size_t i = 0; i < boxes.size(); ++i)
    if (paired[i] && visible(boxes[i])) {
      c.fill(X(boxes[i].lo[0]), Y(boxes[i].hi[ax]), X(boxes[i].hi[0]), Y(boxes[i].lo[ax]), color{255, 120, 40}, 0.35f);
      c.rect(X(boxes[i].lo[0]), Y(boxes[i].hi[ax]), X(boxes[i].hi[0]), Y(boxes[i].lo[ax]), color{255, 90, 40});
    }
  for (const auto& p : pairs) {
    const box &a = boxes[p.first], &b = boxes[p.second];
    if (!visible(a) || !visible(b)) continue;
    c.line(X(0.5f * (a.lo[0] + a.hi[0])), Y(0.5f * (a.lo[ax] + a.hi[ax])), X(0.5f * (b.lo[0] + b.hi[0])),
           Y(0.5f * (b.lo[ax] + b.hi[ax])), color{255, 240, 120});
  }
  return c;
}

namespace {
std::string count_label(double n) {
  const char* u[] = {"", "K", "M", "G"};
  int k = 0;
  while (n >= 1024 && k < 3) n /= 1024, ++k;
  char b[32];
  std::snprintf(b, sizeof b, n == std::floor(n) ? "%.0f%s" : "%.1f%s", n, u[k]);
  return b;
}
std::string ms_label(double v) {
  char b[32];
  std::snprintf(b, sizeof b, v >= 1 ? "%.0f" : v >= 0.1 ? "%.1f" : v >= 0.01 ? "%.2f" : "%.3f", v);
  return b;
}
}  // namespace

canvas render_plot(const std::vector<engine_result>& rs) {
  const int W = 1000, H = 700, L = 90, R = 30, T = 60, B = 70;
  canvas c(W, H, color{255, 255, 255});
  double nlo = 1e300, nhi = 0, tlo = 1e300, thi = 0;
  auto frame_of = [](const size_result& z) { return z.later.total > 0 ? z.later : z.first; };
  for (const auto& r : rs)
    for (const auto& z : r.sizes) {
      const frame_times f = frame_of(z);
      nlo = std::min(nlo, double(z.n));
      nhi = std::max(nhi, double(z.n));
      for (double t : {f.total, f.sort})
        if (t > 0) tlo = std::min(tlo, t), thi = std::max(thi, t);
    }
  if (nhi <= 0 || thi <= 0) return c;
  if (nhi <= nlo) nhi = nlo * 2;
  const double ly0 = std::floor(std::log10(tlo)), ly1 = std::max(ly0 + 1, std::ceil(std::log10(thi)));
  const double lx0 = std::log2(nlo) - 0.3, lx1 = std::log2(nhi) + 0.3;
  auto PX = [&](double n) { return L + int((std::log2(n) - lx0) / (lx1 - lx0) * (W - L - R)); };
  auto PY = [&](double t) { return H - B - int((std::log10(t) - ly0) / (ly1 - ly0) * (H - T - B)); };
  const color axis{40, 40, 40}, grid{225, 225, 225};
  for (double e = ly0; e <= ly1; ++e) {
    const int y = PY(std::pow(10, e));
    c.line(L, y, W - R, y, grid);
    c.line(L - 6, y, L, y, axis);
    const std::string s = ms_label(std::pow(10, e));
    c.text(L - 10 - canvas::text_width(s, 2), y - 7, s, axis, 2);
    for (int k = 2; k < 10 && e < ly1; ++k) c.line(L - 3, PY(k * std::pow(10, e)), L, PY(k * std::pow(10, e)), axis);
  }
  for (double n = std::exp2(std::ceil(std::log2(nlo))); n <= nhi * 1.001; n *= 2) {
    const int x = PX(n);
    c.line(x, T, x, H - B, grid);
    c.line(x, H - B, x, H - B + 6, axis);
    const std::string s = count_label(n);
    c.text(x - canvas::text_width(s, 2) / 2, H - B + 12, s, axis, 2);
  }
  c.line(L, T, L, H - B, axis);
  c.line(L, H - B, W - R, H - B, axis);
  c.text(L, 20, "BROAD PHASE: MS PER FRAME VS OBJECTS", axis, 2);
  c.text(W / 2 - canvas::text_width("OBJECTS", 2) / 2, H - 28, "OBJECTS", axis, 2);
  const color palette[] = {{20, 140, 60}, {30, 80, 200}, {200, 60, 30}, {140, 60, 160}};
  int legend_y = T + 10;
  for (std::size_t e = 0; e < rs.size(); ++e) {
    const color col = rs[e].engine == "cuda" ? palette[0] : rs[e].engine == "cpu" ? palette[1] : palette[2 + e % 2];
    for (int which = 0; which < 2; ++which) {
      int px = -1, py = -1;
      for (const auto& z : rs[e].sizes) {
        const frame_times f = frame_of(z);
        const double t = which == 0 ? f.total : f.sort;
        if (t <= 0) continue;
        const int x = PX(double(z.n)), y = PY(t);
        if (px >= 0) c.line(px, py, x, y, col, which == 0 ? 3 : 2, which == 0 ? 0 : 6);
        c.dot(x, y, which == 0 ? 4 : 3, col);
        px = x, py = y;
      }
      const std::string s = rs[e].engine + (which == 0 ? " FRAME" : " SORT");
      c.line(L + 20, legend_y + 7, L + 60, legend_y + 7, col, which == 0 ? 3 : 2, which == 0 ? 0 : 6);
      c.text(L + 70, legend_y, s, col, 2);
      legend_y += 22;
    }
  }
  return c;
}

}  // namespace bp
