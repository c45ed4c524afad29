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
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "../common/parallel.hpp"
#include "../common/cli.hpp"
#include "../common/png.hpp"
#include "heatmap.hpp"
#include "pic.hpp"

namespace {

using apps::usage_error;

const char* help_text = R"(radix_pic: Particle-In-Cell sorting (Helluy 2011, §4.2, Table 7) on the radix engines.

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
      --out FILE      also write the tables as markdown to FILE
  -h, --help          this text

Exit status: 0 all checks passed, 1 a check failed, 2 bad command line,
3 could not run (error message printed), 77 an engine named with -e is not
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
  std::vector<std::string> engines;  // empty: all available
  std::string png, out;
  std::string command;
};

cli parse(int argc, char** argv) {
  cli a;
  for (int i = 0; i < argc; ++i) {
    if (i) a.command += ' ';
    a.command += argv[i];
  }
  for (int i = 1; i < argc; ++i) {
    const std::string o = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw usage_error("option " + o + " needs a value");
      return argv[++i];
    };
    auto int_value = [&](int lo, int hi) { return int(apps::parse_int_option(o, value(), lo, hi)); };
    if (o == "-h" || o == "--help") {
      std::fputs(help_text, stdout);
      std::exit(0);
    } else if (o == "-n" || o == "--particles") {
      a.c.n = parse_count(value());
      if (a.c.n < 1 || a.c.n > (1ull << 31)) throw usage_error("particles must be 1..2^31");
    } else if (o == "-g" || o == "--grid") {
      a.c.grid = parse_grid(value());
    } else if (o == "-s" || o == "--steps") {
      a.c.steps = int_value(1, 100000);
    } else if (o == "-r" || o == "--reps") {
      a.c.reps = int_value(1, 10000);
    } else if (o == "--threads") {
      a.c.threads = unsigned(int_value(1, 4096));
    } else if (o == "--init") {
      const std::string v = value();
      if (v == "uniform") a.c.shape = pic::init_shape::uniform;
      else if (v == "gauss") a.c.shape = pic::init_shape::gauss;
      else throw usage_error("--init must be uniform or gauss, got '" + v + "'");
    } else if (o == "-e" || o == "--engine") {
      std::stringstream ss(value());
      for (std::string e; std::getline(ss, e, ',');) {
        if (e != "cpu" && e != "cuda" && e != "opencl" && e != "all")
          throw usage_error("unknown engine '" + e + "' (cpu, cuda, opencl, all)");
        if (e != "all") a.engines.push_back(e);
        else a.engines.clear();
      }
    } else if (o == "--no-compare") {
      a.c.compare = false;
    } else if (o == "--no-verify") {
      a.c.verify = false;
    } else if (o == "--png") {
      a.png = value();
    } else if (o == "--out") {
      a.out = value();
    } else {
      throw usage_error("unknown option '" + o + "' (see --help)");
    }
  }
  return a;
}

std::string fmt(double ms) {
  if (ms < 0) return "—";
  char b[32];
  std::snprintf(b, sizeof b, ms < 1 ? "%.4f" : ms < 100 ? "%.3f" : "%.1f", ms);
  return b;
}
std::string ratio(double a, double b) {
  if (a <= 0 || b <= 0) return "—";
  char s[32];
  std::snprintf(s, sizeof s, "%.2f×", a / b);
  return s;
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
  auto share = [&](double t) {
    if (t < 0 || s.step <= 0) return std::string("—");
    char b[16];
    std::snprintf(b, sizeof b, "%.0f%%", 100 * t / s.step);
    return std::string(b);
  };
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

std::string utc_now() {
  char b[64];
  const std::time_t t = std::time(nullptr);
  std::strftime(b, sizeof b, "%Y-%m-%d %H:%M:%S UTC", std::gmtime(&t));
  return b;
}

}  // namespace

int main(int argc, char** argv) {
  cli a;
  try {
    a = parse(argc, argv);
  } catch (const usage_error& e) {
    std::fprintf(stderr, "radix_pic: %s\n", e.what());
    return 2;
  }
  const pic::config& c = a.c;

  // Which engines: those asked for, or every available one.
  std::vector<std::string> want = a.engines;
  const bool explicit_engines = !want.empty();
  if (!explicit_engines) want = {"cpu", "cuda", "opencl"};
  std::vector<std::string> run;
  for (const auto& e : want) {
    bool ok = e == "cpu" ? radix::engine_available(radix::engine::cpu)
              : e == "cuda" ? pic::cuda_built() && radix::engine_available(radix::engine::cuda)
                            : radix::engine_available(radix::engine::opencl);
    if (ok) {
      run.push_back(e);
    } else if (explicit_engines) {
      // Asked for by name: run nothing (a GPU test without a GPU is "skipped", not "passed").
      std::fprintf(stderr, "radix_pic: engine %s not available here (%s): nothing run\n", e.c_str(),
                   e == "cuda" && !pic::cuda_built() ? "built without CUDA" : "not compiled in, or no device");
      return 77;
    }
  }

  std::ostringstream head;
  head << "# PIC sorting (Helluy 2011, §4.2, Table 7): " << c.n << " particles, " << c.grid.nx << "×" << c.grid.ny
       << " grid\n\n"
       << "- date: " << utc_now() << "\n- command: `" << a.command << "`\n"
       << "- particles " << c.n << " (x, y, u, v: van der Corput bases 2, 3, 5, 7"
       << (c.shape == pic::init_shape::gauss ? ", (x, y) mapped to a Gaussian blob" : "") << "), grid "
       << c.grid.nx << "×" << c.grid.ny << " = " << std::uint64_t(c.grid.nx) * c.grid.ny << " cells, "
       << c.grid.cell_bits << " key bits; " << c.steps << " steps; comparisons median of " << c.reps
       << " after one warm-up\n- host threads: " << (c.threads ? c.threads : radix_apps::hardware_threads())
       << "\n\n";
  std::cout << head.str() << std::flush;
  std::string doc = head.str();

  std::vector<pic::engine_result> results;
  try {
    const pic::particles init = pic::make_particles(c);
    for (const auto& e : run) {
      std::fprintf(stderr, "radix_pic: running the %s engine...\n", e.c_str());
      pic::engine_result r = e == "cuda" ? pic::run_cuda(c, init) : pic::run_host(c, init, e == "opencl");
      const std::string t = engine_tables(c, r);
      std::cout << t << std::flush;
      doc += t;
      results.push_back(std::move(r));
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "radix_pic: %s\n", e.what());
    return 3;
  }

  std::string tail;
  if (c.compare) tail += summary_table(c, results);
  cross_check(c, results, tail);
  std::cout << tail;
  doc += tail;

  if (!a.png.empty()) {
    try {
      const auto h = pic::render(results.front().charge, c.grid);
      radix_apps::png::write_rgb8(a.png, h.width, h.height, h.rgb);
      std::printf("Heat map of the last step's charge density (%s engine, colour scale 0 to %.3g× the mean density): %s (%u×%u)\n",
                  results.front().engine.c_str(), h.hi, a.png.c_str(), h.width, h.height);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "radix_pic: %s\n", e.what());
      return 3;
    }
  }
  if (!a.out.empty()) {
    std::ofstream f(a.out);
    f << doc;
    f.close();
    if (!f) {
      std::fprintf(stderr, "radix_pic: cannot write '%s'\n", a.out.c_str());
      return 3;
    }
  }

  int failed = 0;
  for (const auto& r : results) failed += int(r.failures.size());
  if (failed) {
    std::fprintf(stderr, "radix_pic: %d check(s) FAILED\n", failed);
    return 1;
  }
  return 0;
}
