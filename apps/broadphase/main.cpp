// radix_broadphase — broad-phase collision detection by sweep and prune,
// after Ha, Krüger & Silva 2009 ("Fast 4-way parallel radix sorting on
// GPUs"), §6.1 and Fig. 6.
//
// Every object's axis-aligned box gives two endpoint records along x (its
// min and max coordinate, the object index and a min/max bit). The records
// are sorted by their float coordinate with the library (float keys in the
// library's order, the records as 32-bit values), walked from every min
// endpoint to find the boxes overlapping in x, filtered on y and z, and the
// surviving pairs compacted into one list. Successive frames re-sort the
// previous frame's order, which is nearly sorted. Engines: the CPU engine
// (host API, radix::sorter) and CUDA (the whole frame on the GPU, the
// library's device API on a caller workspace). Pairs are verified against a
// brute-force test or a uniform grid.
#include <radix/radix.hpp>

#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "../common/harness.hpp"
#include "../common/parallel.hpp"
#include "../common/png.hpp"
#include "broadphase.hpp"
#include "render.hpp"

namespace {

using apps::fmt;
using apps::ratio;
using apps::share;
using apps::usage_error;

constexpr const char* program = "radix_broadphase";

const std::string help_text = R"(radix_broadphase: sweep-and-prune broad phase (Ha, Krüger & Silva 2009, §6.1, Fig. 6) on the radix engines.

usage: radix_broadphase [options]
  -n, --objects LIST  object counts: comma-separated (16K,1M,2^20,1e6) and/or
                      A..B ranges stepping by 4x (default 16K..4M)
  -s, --scene NAME    boxes (varied boxes dropped into a long box) or landscape
                      (small particles on a height field), or lattice (equal cubes
                      packed face to face: exact ties, a test case) (default boxes)
  -f, --frames F      frames per size; frame 1 sorts the list in generation order,
                      later frames re-sort the previous frame's order (default 10)
  -e, --engine LIST   cpu, cuda or all, comma-separated (default all: those available)
  -r, --reps R        timed repetitions of each sort of the coherence table, 0 = no table (default 10)
      --warmup S      unmeasured simulation steps before frame 1 (default 0)
      --density D     objects per unit of x length, 1..4096 (default 32)
      --seed S        scene seed (default 1)
      --threads T     host threads for the CPU engine and the host stages (default: all)
      --verify MODE   auto (brute force up to 16384 objects, else uniform grid),
                      brute, grid, both or off (default auto)
      --verify-all    verify every frame (default: the first and the last)
      --png FILE      picture of the last frame of the first size (first engine run)
      --view V        side (x-y) or top (x-z) for --png (default side)
      --plot FILE     time per frame and per sort against N, log-log, as a PNG
)" + std::string(apps::help_end) + R"(3 could not run (error message printed), 77 an engine named with -e is not
available here (nothing is run).
)";

std::uint64_t parse_count(const std::string& s) { return apps::parse_count(s, "65536, 64K, 4M, 2^20, 1e6, 16K..4M"); }

std::vector<std::uint64_t> parse_sizes(const std::string& list) {
  std::vector<std::uint64_t> out;
  std::stringstream ss(list);
  for (std::string item; std::getline(ss, item, ',');) {
    if (auto dots = item.find(".."); dots != std::string::npos) {
      const std::uint64_t a = parse_count(item.substr(0, dots)), b = parse_count(item.substr(dots + 2));
      if (a < 1 || b < a) throw usage_error("bad range '" + item + "'");
      for (std::uint64_t n = a; n <= b; n *= 4) out.push_back(n);
    } else {
      out.push_back(parse_count(item));
    }
  }
  if (out.empty()) throw usage_error("no object counts in '" + list + "'");
  for (auto n : out)
    if (n < 2 || n > (1ull << 30)) throw usage_error("object counts must be 2..2^30, got " + std::to_string(n));
  return out;
}

struct cli {
  bp::config c;
  apps::common_options common;
  std::string plot;
  bool top = false;
};

cli parse(int argc, char** argv) {
  cli a;
  a.c.sizes = parse_sizes("16K..4M");
  apps::parse_options(argc, argv, help_text, {"cpu", "cuda"}, a.common, [&](const std::string& o, auto& r) {
    if (o == "-n" || o == "--objects") {
      a.c.sizes = parse_sizes(r.value());
    } else if (o == "-s" || o == "--scene") {
      const std::string v = r.value();
      if (v == "boxes") a.c.scene = bp::scene_kind::boxes;
      else if (v == "landscape") a.c.scene = bp::scene_kind::landscape;
      else if (v == "lattice") a.c.scene = bp::scene_kind::lattice;
      else throw usage_error("--scene must be boxes, landscape or lattice, got '" + v + "'");
    } else if (o == "-f" || o == "--frames") {
      a.c.frames = int(r.int_value(1, 100000));
    } else if (o == "-r" || o == "--reps") {
      a.c.reps = int(r.int_value(0, 10000));
    } else if (o == "--warmup") {
      a.c.warmup = int(r.int_value(0, 100000));
    } else if (o == "--density") {
      a.c.density = float(r.int_value(1, 4096));
    } else if (o == "--seed") {
      a.c.seed = std::uint64_t(r.int_value(0, 1L << 62));
    } else if (o == "--verify") {
      const std::string v = r.value();
      if (v == "auto") a.c.verify = bp::verify_mode::automatic;
      else if (v == "brute") a.c.verify = bp::verify_mode::brute;
      else if (v == "grid") a.c.verify = bp::verify_mode::grid;
      else if (v == "both") a.c.verify = bp::verify_mode::both;
      else if (v == "off") a.c.verify = bp::verify_mode::off;
      else throw usage_error("--verify must be auto, brute, grid, both or off, got '" + v + "'");
    } else if (o == "--verify-all") {
      a.c.verify_all = true;
    } else if (o == "--view") {
      const std::string v = r.value();
      if (v != "side" && v != "top") throw usage_error("--view must be side or top, got '" + v + "'");
      a.top = v == "top";
    } else if (o == "--plot") {
      a.plot = r.value();
    } else {
      return false;
    }
    return true;
  });
  a.c.threads = a.common.threads;
  return a;
}

std::string num(double v) {
  char s[32];
  std::snprintf(s, sizeof s, "%.0f", v);
  return s;
}

std::string engine_tables(const bp::config& c, const bp::engine_result& r) {
  std::ostringstream o;
  o << "## Engine " << r.engine << ": " << r.device << "\n\n"
    << "Per frame, ms: frame 1 (sorts the list in generation order) and the median of frames 2.." << c.frames
    << " (re-sort the previous frame's order). *frame* = boxes + keys, sort, sweep + compaction; the motion step "
       "(*simulate*) is not part of it.\n\n"
    << "| objects | x-overlaps / frame | pairs / frame | boxes + keys | sort | sweep + compaction | **frame** | sort "
       "share | Mobjects/s | frame 1 | frame 1 sort | simulate |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& z : r.sizes) {
    const bp::frame_times& f = z.later.total > 0 ? z.later : z.first;
    char mops[32] = "—";
    if (f.total > 0) std::snprintf(mops, sizeof mops, "%.0f", double(z.n) / (f.total * 1e3));
    o << "| " << z.n << " | " << num(z.x_candidates) << " | " << num(z.pairs) << " | " << fmt(f.aabb_keys) << " | "
      << fmt(f.sort) << " | " << fmt(f.sweep) << " | **" << fmt(f.total) << "** | " << share(f.sort, f.total) << " | "
      << mops << " | " << fmt(z.first.total) << " | " << fmt(z.first.sort) << " | " << fmt(z.later.simulate) << " |\n";
  }
  o << "\n";
  if (c.reps > 0) {
    o << "Frame-to-frame coherence: sort of the 2N endpoints (float keys, u32 values), ms, median of " << c.reps
      << " after a warm-up. *previous order*: the last frame's sorted list with the next frame's keys (nearly sorted). "
         "*sorted*: that list sorted again (nothing moved: the early exit after one read). *x at the origin*: the "
         "nearly sorted keys minus the box's start, so their float exponents vary and no top digit is trivial.\n\n"
      << "| objects | generation order | previous order | sorted | previous order, x at the origin | generation / "
         "previous | previous / sorted | origin / previous |\n|---|---|---|---|---|---|---|---|\n";
    for (const auto& z : r.sizes) {
      const auto& h = z.coh;
      o << "| " << z.n << " | " << fmt(h.generation) << " | " << fmt(h.previous) << " | " << fmt(h.sorted) << " | "
        << fmt(h.origin) << " | " << ratio(h.generation, h.previous) << " | " << ratio(h.previous, h.sorted) << " | "
        << ratio(h.origin, h.previous) << " |\n";
    }
    o << "\n";
  }
  for (const auto& z : r.sizes) {
    if (z.frames_verified)
      o << "Verification, " << z.n << " objects: " << z.frames_verified << " of " << c.frames
        << " frames against " << z.verified_by << ".\n";
    if (z.pair_buffer_grown)
      o << "Note, " << z.n << " objects: the pair buffer was grown " << z.pair_buffer_grown
        << " time(s) (that frame's write ran again after its timing).\n";
  }
  if (r.failures.empty()) {
    o << "All verified frames: pair sets identical to the reference.\n\n";
  } else {
    for (const auto& f : r.failures) o << "- FAILED: " << f << "\n";
    o << "\n";
  }
  return o.str();
}

// Fig. 6's shape: per size, the GPU frame and sort against the CPU engine's.
std::string summary_table(const std::vector<bp::engine_result>& rs) {
  const bp::engine_result *gpu = nullptr, *cpu = nullptr;
  for (const auto& r : rs) (r.engine == "cuda" ? gpu : cpu) = &r;
  if (!gpu || !cpu) return "";
  std::ostringstream o;
  o << "## Summary (Fig. 6 shape): ms per frame (median of frames 2..F)\n\n"
    << "| objects | cuda frame | cuda sort | cuda sort share | cpu frame | cpu sort | cpu sort share | cpu frame / cuda "
       "frame |\n|---|---|---|---|---|---|---|---|\n";
  for (const auto& g : gpu->sizes)
    for (const auto& h : cpu->sizes)
      if (g.n == h.n) {
        const auto &a = g.later.total > 0 ? g.later : g.first, &b = h.later.total > 0 ? h.later : h.first;
        o << "| " << g.n << " | " << fmt(a.total) << " | " << fmt(a.sort) << " | " << share(a.sort, a.total) << " | "
          << fmt(b.total) << " | " << fmt(b.sort) << " | " << share(b.sort, b.total) << " | " << ratio(b.total, a.total)
          << " |\n";
      }
  return o.str() + "\n";
}

// Both engines start from the same scene and compute with the same float
// arithmetic and stable sorts: every frame's pair list must be identical, in
// order (a chained order-dependent hash).
void cross_check(std::vector<bp::engine_result>& rs, std::string& text) {
  if (rs.size() < 2) return;
  const auto& a = rs.front();
  for (std::size_t k = 1; k < rs.size(); ++k) {
    auto& b = rs[k];
    int bad = 0;
    for (std::size_t s = 0; s < a.sizes.size() && s < b.sizes.size(); ++s)
      if (a.sizes[s].list_hash != b.sizes[s].list_hash) {
        ++bad;
        b.failures.push_back("cross-check, " + std::to_string(b.sizes[s].n) + " objects: pair lists differ from the " +
                             a.engine + " engine's");
      }
    text += "Cross-check " + b.engine + " vs " + a.engine + ": " +
            (bad ? "FAILED on " + std::to_string(bad) + " size(s).\n"
                 : std::string("identical pair lists, in the same order, on every frame of every size.\n"));
  }
  text += "\n";
}

}  // namespace

int main(int argc, char** argv) {
  cli a;
  if (!apps::parsed(program, [&] { a = parse(argc, argv); })) return 2;
  const bp::config& c = a.c;

  const auto run = apps::select_engines(program, a.common.engines, {"cuda", "cpu"}, bp::cuda_built(),
                                        "not compiled in, or no device");
  if (!run) return 77;

  std::ostringstream head;
  head << "# Broad phase by sweep and prune (Ha, Krüger & Silva 2009, §6.1, Fig. 6): scene " << bp::scene_name(c.scene) << "\n\n"
       << "- date: " << apps::utc_now() << "\n- command: `" << a.common.command << "`\n- objects:";
  for (auto n : c.sizes) head << " " << n;
  head << "; " << c.density << " per unit of x length; " << c.frames << " frames each"
       << (c.warmup ? " after " + std::to_string(c.warmup) + " unmeasured steps" : std::string()) << "; seed " << c.seed
       << "\n- scene at the first size: " << bp::describe(bp::make_scene([&] {
            bp::config k = c;
            k.warmup = 0;
            return k;
          }(), c.sizes.front()))
       << "\n- pairs: boxes overlapping on all three axes (closed intervals: touching counts), i < j\n"
       << "- host threads: " << (c.threads ? c.threads : radix_apps::hardware_threads()) << "\n\n";
  apps::report doc;
  doc.add(head.str()) << std::flush;

  std::vector<bp::engine_result> results;
  if (!apps::guarded(program, [&] {
        for (const auto& e : *run) {
          std::fprintf(stderr, "radix_broadphase: running the %s engine...\n", e.c_str());
          bp::engine_result r = e == "cuda" ? bp::run_cuda(c) : bp::run_host(c);
          doc.add(engine_tables(c, r)) << std::flush;
          results.push_back(std::move(r));
        }
      }))
    return 3;

  std::string tail = summary_table(results);
  cross_check(results, tail);
  doc.add(tail);

  if (!apps::guarded(program, [&] {
        if (!a.common.png.empty() && !results.empty()) {
          const auto& z = results.front().sizes.front();
          const auto pic = bp::render_frame(z.last_boxes, z.last_pair_list, z.w, a.top);
          radix_apps::png::write_rgb8(a.common.png, pic.width, pic.height, pic.rgb);
          std::printf("Picture of frame %d, %llu objects (%s engine, %s view of the box's left end; boxes in a pair "
                      "orange, pairs joined in yellow): %s (%u×%u)\n",
                      c.frames, (unsigned long long)z.n, results.front().engine.c_str(), a.top ? "top" : "side",
                      a.common.png.c_str(), pic.width, pic.height);
        }
        if (!a.plot.empty() && !results.empty()) {
          const auto pic = bp::render_plot(results);
          radix_apps::png::write_rgb8(a.plot, pic.width, pic.height, pic.rgb);
          std::printf("Plot of ms per frame (solid) and per sort (dashed) against N: %s\n", a.plot.c_str());
        }
      }))
    return 3;
  if (!doc.write(program, a.common.out)) return 3;

  int failed = 0;
  for (const auto& r : results) failed += int(r.failures.size());
  return apps::verdict(program, failed);
}
