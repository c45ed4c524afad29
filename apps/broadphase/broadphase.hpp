// The broad-phase application's pieces: configuration, scenes, what an
// engine run reports, the reference methods and the engines (host: CPU
// engine through radix::sorter; CUDA: the whole frame on the GPU).
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "../common/timing.hpp"
#include "model.hpp"

namespace bp {

/// boxes: varied boxes dropped into a long box; landscape: particles on a
/// height field; lattice: equal cubes packed face to face on the floor, so
/// that neighbours touch exactly (ties between min and max endpoints).
enum class scene_kind { boxes, landscape, lattice };
enum class verify_mode { automatic, brute, grid, both, off };

struct config {
  std::vector<std::uint64_t> sizes;  ///< object counts, one run each
  scene_kind scene = scene_kind::boxes;
  int frames = 10;           ///< frames per size; frame 1 sorts the list in generation order
  int warmup = 0;            ///< simulated (unmeasured, unverified) steps before frame 1
  int reps = 10;             ///< timed repetitions of each coherence measurement (0: none)
  float density = 32;        ///< objects per unit of x length (sets the box's length)
  std::uint64_t seed = 1;
  unsigned threads = 0;      ///< host threads (0 = all)
  verify_mode verify = verify_mode::automatic;
  bool verify_all = false;   ///< verify every frame (default: the first and the last)
  std::uint64_t brute_max = 16384;  ///< automatic verification: brute force up to this many objects
};

/// A scene's initial state and its fixed parameters.
struct scene {
  world w;                    ///< w.height points into `heights` (re-pointed by engines that copy it)
  std::vector<float> heights; ///< landscape table, (hx_n + 1) x (hz_n + 1); empty for boxes
  std::vector<float> px, py, pz, vx, vy, vz, hx, hy, hz;
  std::uint64_t size() const { return px.size(); }
  state_ptrs ptrs() {
    return {px.data(), py.data(), pz.data(), vx.data(), vy.data(), vz.data(), hx.data(), hy.data(), hz.data()};
  }
};

scene make_scene(const config& c, std::uint64_t n);
const char* scene_name(scene_kind k);
/// One line describing the scene's geometry.
std::string describe(const scene& s);

using pair_list = std::vector<std::pair<std::uint32_t, std::uint32_t>>;

/// Reference pair sets (canonical i < j, sorted), independent of the library.
pair_list brute_force_pairs(const std::vector<box>& boxes, unsigned threads);
pair_list grid_pairs(const std::vector<box>& boxes, unsigned threads);

/// Times in milliseconds; negative: not measured.
struct frame_times {
  double aabb_keys = -1, sort = -1, sweep = -1, total = -1;  ///< the broad phase of one frame
  double simulate = -1;                                       ///< the motion step before it (not in total)
};
struct coherence {  ///< sort of the 2N endpoints (pairs: float key, u32 value), median of reps
  double generation = -1;  ///< list in generation order (what frame 1 sorts)
  double previous = -1;    ///< previous frame's order with this frame's keys (what later frames sort)
  double sorted = -1;      ///< the sorted list again (nothing moved: the early exit)
  double origin = -1;      ///< previous order, keys shifted to the origin (varying exponent: no trivial top digit)
};

struct size_result {
  std::uint64_t n = 0;
  frame_times first;       ///< frame 1
  frame_times later;       ///< medians over frames 2..F
  coherence coh;
  double x_candidates = 0; ///< mean over frames of pairs overlapping in x
  double pairs = 0;        ///< mean over frames of the pairs found
  std::uint64_t last_pairs = 0;
  std::uint64_t list_hash = 0;  ///< order-dependent hash of every frame's pair list
  int frames_verified = 0;
  std::string verified_by;  ///< "brute force", "uniform grid", ""
  std::uint32_t pair_buffer_grown = 0;  ///< GPU: times the pair buffer was too small and the frame re-ran its write
  world w;                              ///< the scene's walls (for the picture; w.height not valid)
  std::vector<box> last_boxes;          ///< for the picture (first size only)
  pair_list last_pair_list;
};

struct engine_result {
  std::string engine, device;
  std::vector<size_result> sizes;
  std::vector<std::string> failures;
};

/// Checks a frame's pairs against the reference chosen by c.verify; returns
/// "" on success or the failure, and sets `method`.
std::string verify_frame(const config& c, const std::vector<box>& boxes, const pair_list& got, std::string& method);
/// Whether frame f (1-based) of F is verified.
bool verified_frame(const config& c, int f);

/// Order-dependent hash of a pair list, to chain over frames.
std::uint64_t hash_pairs(std::uint64_t h, const std::uint32_t* pairs, std::uint64_t count);
using apps::median;

engine_result run_host(const config& c);
engine_result run_cuda(const config& c);
bool cuda_built();

}  // namespace bp
