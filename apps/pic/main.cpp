// radix_pic — Particle-In-Cell sorting, after Helluy 2011 ("A portable
// implementation of the radix sort algorithm in OpenCL"), §4.2 and Table 7.
//
// A 2-D PIC step on the periodic unit square: particles (x, y, u, v) from
// four van der Corput sequences move by x += u/nx, y += v/ny (mod 1), get
// their cell index, are sorted by cell (argsort of the cell keys, then a
// gather of each particle array), and deposit their charge on the grid
// nodes (cloud-in-cell) in sorted order. Every step is verified. Before the
// steps, the Table 7 comparisons: the sort with only the bits the grid needs
// against the full-width sort, the first sort of the random list against the
// re-sort after one step, and the deposition with and without sorting.
//
// Engines: the CPU engine (host API), CUDA (the whole step on the GPU, the
// library's device API), OpenCL through the host API when available.
#include <radix/radix.hpp>

#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "../common/harness.hpp"
#include "../common/parallel.hpp"
#include "../common/png.hpp"
#include "heatmap.hpp"
#include "pic.hpp"

namespace {

using apps::fmt;
using apps::ratio;
using apps::usage_error;

constexpr const char* program = "radix_pic";

const std::string help_text = R"(radix_pic: Particle-In-Cell sorting (Helluy 2011, §4.2, Table 7) on the radix engines.

usage: radix_pic [options]
  -n, --particles N   particles (default 8M = 2^23; accepts 65536, 64K, 8M, 2^23, 1e6)
  -g, --grid NX[xNY]  cells per direction, 2..4096 each (default 32, i.e. 32x32)
  -s, --steps S       time steps, each verified (default 10)
  -e, --engine LIST   cpu, cuda, opencl or all, comma-separated (default all: those available)
  -r, --reps R        timed repetitions of each comparison; the median is printed (default 20)
      --init SHAPE    uniform (the paper's) or gauss (a blob that streams apart) (default uniform)
      --threads T     host threads for the CPU engine and the host step (default: all)
      --no-compare    skip the Table 7 comparisons, run the steps only
      --no-verify     skip the per-step verification
      --png FILE      write the charge density of the last step as a PNG heat map
)" + std::string(apps::help_end) + R"(3 could not run (error message printed), 77 an engine named with -e is not
available here (nothing is run).
)";

std::uint64_t parse_count(const std::string& s) { return apps::parse_count(s, "65536, 64K, 8M, 2^23, 1e6"); }

pic::grid2d parse_grid(const std::string& s) {
  int nx = 0, ny = 0;
  try {
    std::size_t pos = 0;
    nx = std::stoi(s, &pos);
    ny = nx;
    if (pos < s.size()) {
      if (s[pos] != 'x' && s[pos] != 'X') throw usage_error("");
      std::size_t pos2 = 0;
      ny = std::stoi(s.substr(pos + 1), &pos2);
      if (pos + 1 + pos2 != s.size()) throw usage_error("");
    }
  } catch (const std::exception&) {
    throw usage_error("bad grid '" + s + "' (examples: 32, 100x60)");
  }
  if (nx < 2 || ny < 2 || nx > 4096 || ny > 4096) throw usage_error("grid sides must be 2..4096, got '" + s + "'");
  pic::grid2d g;
  g.nx = nx;
  g.ny = ny;
  g.fnx = float(nx);
  g.fny = float(ny);
  const std::uint64_t cells = std::uint64_t(nx) * ny;
  g.cell_bits = 0;
  while ((1ull << g.cell_bits) < cells) ++g.cell_bits;
  return g;
}

struct cli {
  pic::config c;
  apps::common_options common;
};

cli parse(int argc, char** argv) {
  cli a;
  apps::parse_options(argc, argv, help_text, {"cpu", "cuda", "opencl"}, a.common, [&](const std::string& o, auto& r) {
    if (o == "-n" || o == "--particles") {
      a.c.n = parse_count(r.value());
      if (a.c.n < 1 || a.c.n > (1ull << 31)) throw usage_error("particles must be 1..2^31");
    } else if (o == "-g" || o == "--grid") {
      a.c.grid = parse_grid(r.value());
    } else if (o == "-s" || o == "--steps") {
      a.c.steps = int(r.int_value(1, 100000));
    } else if (o == "-r" || o == "--reps") {
      a.c.reps = int(r.int_value(1, 10000));
    } else if (o == "--init") {
      const std::string v = r.value();
      if (v == "uniform") a.c.shape = pic::init_shape::uniform;
      else if (v == "gauss") a.c.shape = pic::init_shape::gauss;
      else throw usage_error("--init must be uniform or gauss, got '" + v + "'");
    } else if (o == "--no-compare") {
      a.c.compare = false;
    } else if (o == "--no-verify") {
      a.c.verify = false;
    } else {
      return false;
    }
    return true;
  });
  a.c.threads = a.common.threads;
  return a;
}

std::string engine_tables(const pic::config& c, const pic::engine_result& r) {
  std::ostringstream o;
  const int cb = c.grid.cell_bits;
  o << "## Engine " << r.engine << ": " << r.device << "\n\n";
  if (c.compare) {
    const auto& m = r.cmp;
    o << "Argsort of the " << c.n << " cell keys (u32 keys, u32 indices), ms, median of " << c.reps << ":\n\n"
      << "| list | 32 varying bits (cell + offset in cell) | full width, key = cell (end_bit 32) | needed bits (end_bit "
      << cb << ") | full / needed | 32 varying / needed |\n|---|---|---|---|---|---|\n"
      << "| first sort, random list | " << fmt(m.first_wide) << " | " << fmt(m.first_full) << " | "
      << fmt(m.first_needed) << " | " << ratio(m.first_full, m.first_needed) << " | "
      << ratio(m.first_wide, m.first_needed) << " |\n"
      << "| re-sort after one step | " << fmt(m.resort_wide) << " | " << fmt(m.resort_full) << " | "
      << fmt(m.resort_needed) << " | " << ratio(m.resort_full, m.resort_needed) << " | "
      << ratio(m.resort_wide, m.resort_needed) << " |\n\n"
      << "| deposition (ms, median of " << c.reps << ") | time |\n|---|---|\n"
      << "| list sorted by cell (one run sum per cell run) | " << fmt(m.deposit_sorted) << " |\n"
      << "| random list, particle by particle | " << fmt(m.deposit_unsorted) << " |\n"
      << "| random / sorted | " << ratio(m.deposit_unsorted, m.deposit_sorted) << " |\n\n";
  }
  const auto& s = r.steps;
  o << "| step phase (ms, median of steps 2.." << c.steps << ") | time | share |\n|---|---|---|\n";
  auto share = [&](double t) { return apps::share(t, s.step); };
  o << "| move + cell index | " << fmt(s.move_key) << " | " << share(s.move_key) << " |\n"
    << "| sort (argsort, end_bit " << cb << ") | " << fmt(s.sort) << " | " << share(s.sort) << " |\n"
    << "| gather x, y, u, v | " << fmt(s.gather) << " | " << share(s.gather) << " |\n"
    << "| deposit (sorted) | " << fmt(s.deposit) << " | " << share(s.deposit) << " |\n"
    << "| **whole step** | **" << fmt(s.step) << "** | ";
  if (s.step > 0) {
    char b[48];
    std::snprintf(b, sizeof b, "%.0f Mparticles/s", double(c.n) / (s.step * 1e3));
    o << b;
  }
  o << " |\n| step 1 (sorts the random list) | " << fmt(s.first_step) << " | |\n\n";
  if (c.verify) {
    char b[256];
    std::snprintf(b, sizeof b,
                  "Verification: %d of %d steps checked, %s; worst charge difference %.3g of its tolerance; total "
                  "charge %.9g for %llu particles.\n\n",
                  r.steps_verified, c.steps, r.failures.empty() ? "all passed" : "FAILURES", r.worst, r.total_charge,
                  (unsigned long long)c.n);
    o << b;
    for (const auto& f : r.failures) o << "- FAILED: " << f << "\n";
    if (!r.failures.empty()) o << "\n";
  }
  return o.str();
}

// Table 7's shape: one row per engine.
std::string summary_table(const pic::config& c, const std::vector<pic::engine_result>& rs) {
  std::ostringstream o;
  const int cb = c.grid.cell_bits;
  o << "## Summary (Table 7 shape): re-sort after one step, " << c.n << " particles, ms\n\n"
    << "| engine | 32 varying bits | full width | needed bits (" << cb
    << ") | speed-up needed vs full | speed-up needed vs 32 varying | whole step |\n|---|---|---|---|---|---|---|\n";
  for (const auto& r : rs)
    o << "| " << r.engine << " | " << fmt(r.cmp.resort_wide) << " | " << fmt(r.cmp.resort_full) << " | "
      << fmt(r.cmp.resort_needed) << " | " << ratio(r.cmp.resort_full, r.cmp.resort_needed) << " | "
      << ratio(r.cmp.resort_wide, r.cmp.resort_needed) << " | " << fmt(r.steps.step) << " |\n";
  o << "\n";
  for (std::size_t a = 0; a < rs.size(); ++a)
    for (std::size_t b = 0; b < rs.size(); ++b)
      if (a != b && rs[b].engine == "cpu" && rs[a].steps.step > 0 && rs[b].steps.step > 0)
        o << "Whole-step speed-up of the " << rs[a].engine << " engine over the cpu engine (cpu step time / "
          << rs[a].engine << " step time): " << ratio(rs[b].steps.step, rs[a].steps.step) << "\n\n";
  return o.str();
}

// Engines run from the same particles and use the same float arithmetic and
// stable sorts, so their final lists must be identical and their charge
// grids equal to rounding.
void cross_check(const pic::config& c, std::vector<pic::engine_result>& rs, std::string& text) {
  if (rs.size() < 2) return;
  const auto& a = rs.front();
  for (std::size_t k = 1; k < rs.size(); ++k) {
    auto& b = rs[k];
    std::string msg;
    if (a.final_hash != b.final_hash) msg = "final particle list differs from the " + a.engine + " engine's";
    const auto& counts = !a.counts.empty() ? a.counts : b.counts;
    if (msg.empty() && !counts.empty()) {
      std::uint64_t bad = 0;
      for (int i = 0; i < c.grid.nx; ++i)
        for (int j = 0; j < c.grid.ny; ++j) {
          const std::size_t n = std::size_t(i) * c.grid.ny + j;
          if (!(std::fabs(a.charge[n] - b.charge[n]) <=
                pic::charge_tolerance(a.charge[n], pic::node_contributions(counts.data(), i, j, c.grid))))
            ++bad;
        }
      if (bad) msg = std::to_string(bad) + " grid nodes differ from the " + a.engine + " engine's charge";
    }
    text += "Cross-check " + b.engine + " vs " + a.engine + ": " +
            (msg.empty() ? std::string("identical final particle lists") +
                               (counts.empty() ? "" : ", charge equal within tolerance") + ".\n"
                         : "FAILED: " + msg + ".\n");
    if (!msg.empty()) b.failures.push_back("cross-check: " + msg);
  }
  text += "\n";
}

}  // namespace

int main(int argc, char** argv) {
  cli a;
  if (!apps::parsed(program, [&] { a = parse(argc, argv); })) return 2;
  const pic::config& c = a.c;

  // Which engines: those asked for, or every available one.
  const auto run = apps::select_engines(program, a.common.engines, {"cpu", "cuda", "opencl"}, pic::cuda_built(),
                                        "not compiled in, or no device");
  if (!run) return 77;

  std::ostringstream head;
  head << "# PIC sorting (Helluy 2011, §4.2, Table 7): " << c.n << " particles, " << c.grid.nx << "×" << c.grid.ny
       << " grid\n\n"
       << "- date: " << apps::utc_now() << "\n- command: `" << a.common.command << "`\n"
       << "- particles " << c.n << " (x, y, u, v: van der Corput bases 2, 3, 5, 7"
       << (c.shape == pic::init_shape::gauss ? ", (x, y) mapped to a Gaussian blob" : "") << "), grid "
       << c.grid.nx << "×" << c.grid.ny << " = " << std::uint64_t(c.grid.nx) * c.grid.ny << " cells, "
       << c.grid.cell_bits << " key bits; " << c.steps << " steps; comparisons median of " << c.reps
       << " after one warm-up\n- host threads: " << (c.threads ? c.threads : radix_apps::hardware_threads())
       << "\n\n";
  apps::report doc;
  doc.add(head.str()) << std::flush;

  std::vector<pic::engine_result> results;
  if (!apps::guarded(program, [&] {
        const pic::particles init = pic::make_particles(c);
        for (const auto& e : *run) {
          std::fprintf(stderr, "radix_pic: running the %s engine...\n", e.c_str());
          pic::engine_result r = e == "cuda" ? pic::run_cuda(c, init) : pic::run_host(c, init, e == "opencl");
          doc.add(engine_tables(c, r)) << std::flush;
          results.push_back(std::move(r));
        }
      }))
    return 3;

  std::string tail;
  if (c.compare) tail += summary_table(c, results);
  cross_check(c, results, tail);
  doc.add(tail);

  if (!a.common.png.empty() && !apps::guarded(program, [&] {
        const auto h = pic::render(results.front().charge, c.grid);
        radix_apps::png::write_rgb8(a.common.png, h.width, h.height, h.rgb);
        std::printf("Heat map of the last step's charge density (%s engine, colour scale 0 to %.3g× the mean density): %s (%u×%u)\n",
                    results.front().engine.c_str(), h.hi, a.common.png.c_str(), h.width, h.height);
      }))
    return 3;
  if (!doc.write(program, a.common.out)) return 3;

  int failed = 0;
  for (const auto& r : results) failed += int(r.failures.size());
  return apps::verdict(program, failed);
}
