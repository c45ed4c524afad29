#include "heatmap.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace pic {
namespace {

// Dark blue -> purple -> orange -> pale yellow: monotone in lightness, so the
// picture reads correctly in grey too.
constexpr std::array<std::array<double, 3>, 5> stops = {{
    {10, 12, 60}, {90, 30, 130}, {190, 55, 90}, {245, 140, 40}, {252, 240, 170}}};

std::array<std::uint8_t, 3> colour(double t) {
  t = std::clamp(t, 0.0, 1.0) * (stops.size() - 1);
  const std::size_t k = std::min<std::size_t>(std::size_t(t), stops.size() - 2);
  const double f = t - double(k);
  std::array<std::uint8_t, 3> c{};
  for (int ch = 0; ch < 3; ++ch) c[ch] = std::uint8_t(std::lround(stops[k][ch] * (1 - f) + stops[k + 1][ch] * f));
  return c;
}

}  // namespace

heatmap render(const std::vector<double>& charge, const grid2d& g) {
  const int n_max = std::max(g.nx, g.ny);
  const int down = (n_max + 1023) / 1024;  // average down x down node blocks
  const int up = down > 1 ? 1 : std::max(1, 512 / n_max);
  const int cw = (g.nx + down - 1) / down, ch = (g.ny + down - 1) / down;  // cells of the coarse image

  double mean = 0;
  for (double q : charge) mean += q;
  mean /= double(charge.size());
  std::vector<double> d(std::size_t(cw) * ch, 0.0);
  std::vector<int> cnt(d.size(), 0);
  for (int i = 0; i < g.nx; ++i)
    for (int j = 0; j < g.ny; ++j) {
      const std::size_t k = std::size_t(i / down) * ch + j / down;
      d[k] += mean > 0 ? charge[std::size_t(i) * g.ny + j] / mean : 0.0;
      ++cnt[k];
    }
  for (std::size_t k = 0; k < d.size(); ++k) d[k] /= cnt[k];

  heatmap h;
  h.lo = 0;  // zero density at the dark end: empty regions look empty
  // Top of the scale: the 99.5th percentile, so that a few noisy nodes do not
  // darken the whole picture (denser nodes saturate).
  std::vector<double> sorted = d;
  const std::size_t p = std::min(sorted.size() - 1, std::size_t(0.995 * double(sorted.size())));
  std::nth_element(sorted.begin(), sorted.begin() + p, sorted.end());
  h.hi = std::max(1e-300, sorted[p]);
  h.width = std::uint32_t(cw * up);
  h.height = std::uint32_t(ch * up);
  h.rgb.resize(3ull * h.width * h.height);
  for (std::uint32_t py = 0; py < h.height; ++py)
    for (std::uint32_t px = 0; px < h.width; ++px) {
      const int i = int(px) / up, j = ch - 1 - int(py) / up;  // image rows run downwards, y upwards
      const auto c = colour((d[std::size_t(i) * ch + j] - h.lo) / (h.hi - h.lo));
      std::copy(c.begin(), c.end(), h.rgb.begin() + 3 * (std::size_t(py) * h.width + px));
    }
  return h;
}

}  // namespace pic
