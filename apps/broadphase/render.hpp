// The broad phase's pictures (see render.cpp).
#pragma once
#include <vector>

#include "../common/canvas.hpp"
#include "broadphase.hpp"

namespace bp {

/// The left end of the scene in one frame: side view (x right, y up) or
/// top view (x right, z up); boxes in a pair filled orange, pairs joined.
radix_apps::canvas render_frame(const std::vector<box>& boxes, const pair_list& pairs, const world& w, bool top);

/// Milliseconds per frame (solid) and per sort (dashed) against the object
/// count, log-log, one colour per engine.
radix_apps::canvas render_plot(const std::vector<engine_result>& rs);

}  // namespace bp
