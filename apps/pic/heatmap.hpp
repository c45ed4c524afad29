// Charge density of a periodic grid as an RGB heat map for png::write_rgb8.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "model.hpp"

namespace pic {

struct heatmap {
  std::uint32_t width = 0, height = 0;
  std::vector<std::uint8_t> rgb;
  double lo = 0, hi = 0;  ///< density (charge / mean charge) at the two ends of the colour scale
};

/// Density = node charge / mean node charge, x to the right, y upwards; small
/// grids are enlarged (each node a square of pixels, at least 512 pixels
/// across), grids over 1024 nodes across are averaged down to at most 1024.
/// The colour scale runs from 0 to the 99.5th percentile of the density.
heatmap render(const std::vector<double>& charge, const grid2d& g);

}  // namespace pic
