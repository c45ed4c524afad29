// The PIC application's pieces: configuration, the initial particles, what
// an engine run reports, and the engines (host: CPU or OpenCL sort; CUDA).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "../common/timing.hpp"
#include "model.hpp"

namespace pic {

struct config {
  std::uint64_t n = 1ull << 23;  ///< particles (8M as in Table 7)
  grid2d grid{};
  int steps = 10;
  int reps = 20;           ///< timed repetitions of each comparison (the median is reported)
  bool compare = true;     ///< run the Table 7 comparisons before the steps
  bool verify = true;      ///< verify every step
  unsigned threads = 0;    ///< host threads (0 = all)
  init_shape shape = init_shape::uniform;
};

/// Structure of arrays: the particles as the step keeps them.
struct particles {
  std::vector<float> x, y, u, v;
  void resize(std::uint64_t n) {
    x.resize(n);
    y.resize(n);
    u.resize(n);
    v.resize(n);
  }
  std::uint64_t size() const { return x.size(); }
};

/// The initial list (van der Corput, in generation order: the "random list").
particles make_particles(const config& c);

/// Times in milliseconds; a negative value means "not measured".
struct comparison {
  // argsort of the cell keys: first sort of the random list, re-sort after one step
  double first_wide = -1, first_full = -1, first_needed = -1;
  double resort_wide = -1, resort_full = -1, resort_needed = -1;
  double deposit_sorted = -1, deposit_unsorted = -1;
};
struct step_times {  // medians over steps 2..S (step 1 sorts the random list)
  double move_key = -1, sort = -1, gather = -1, deposit = -1, step = -1;
  double first_step = -1;  ///< step 1, whole
};

/// Verification state of a step: the two order-independent checksums and the
/// charge comparison against the unsorted reference deposition.
struct step_check {
  std::uint64_t sum_before = 0, sum_after = 0;  ///< record-hash sums before the sort, after the gather
  std::uint64_t unsorted_pairs = 0;             ///< i with cell(i) < cell(i-1) after the gather
  std::uint64_t bad_nodes = 0;                  ///< nodes outside the tolerance
  double worst = 0;                             ///< max over nodes of |q - ref| / tolerance
};

struct engine_result {
  std::string engine;  ///< "cpu", "cuda", "opencl"
  std::string device;  ///< the processor in words
  bool ran = false;
  comparison cmp;
  step_times steps;
  int steps_verified = 0;
  std::vector<std::string> failures;  ///< empty when every check passed
  double worst = 0;                   ///< max over steps of step_check::worst
  double total_charge = 0;            ///< sum of the last step's grid
  std::uint64_t final_hash = 0;       ///< order-dependent hash of the final particle arrays
  std::vector<double> charge;         ///< last step's charge per node (nx * ny)
  std::vector<std::uint32_t> counts;  ///< last step's particles per cell (when verified)
};

/// Checks one step's verification state; appends a message per failure.
void judge(const step_check& c, int step, engine_result& r);
/// Order-dependent hash of the arrays (equal only for identical lists).
std::uint64_t ordered_hash(const particles& p, unsigned threads);
/// The median of a list of times (-1 for none).
using apps::median;

/// The CPU engine (radix::engine::cpu) or OpenCL through the host API: the
/// step runs on host threads, the sort on the chosen engine.
engine_result run_host(const config& c, const particles& init, bool opencl);

/// The whole step on the GPU (pic_cuda.cu); only in CUDA builds.
engine_result run_cuda(const config& c, const particles& init);
/// Whether run_cuda exists in this build and a GPU is visible.
bool cuda_built();

}  // namespace pic
