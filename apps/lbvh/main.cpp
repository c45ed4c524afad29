// radix_lbvh — linear BVH construction for ray tracing, after García,
// Alvizo, Olivares & Ramos 2014 ("Fast data parallel radix sort implementation in DirectX 11
// Compute Shader to accelerate ray tracing algorithms"), §VI and Table I.
//
// Every frame rebuilds the BVH from scratch: scene bounds, Morton codes of
// the triangle centroids (30 or 63 bits), the radix sort of (code, triangle
// index) pairs, the hierarchy from the sorted codes (Karras 2012: one task
// per internal node) and the boxes bottom-up. Then a frame is ray traced
// (primary ray, one shadow ray, Phong-like shading). The build is validated
// against the mesh (every triangle in one leaf, boxes enclosing children)
// and against brute-force ray casting.
//
// Engines: the CPU engine (host threads, radix::sorter) and CUDA (the whole
// build and render on the GPU, radix::cuda::sort_pairs with a workspace).
#include <radix/radix.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "../common/harness.hpp"
#include "../common/parallel.hpp"
#include "../common/png.hpp"
#include "engine.hpp"
#include "mesh.hpp"

namespace {

using apps::fmt;
using apps::usage_error;

constexpr const char* program = "radix_lbvh";

const std::string help_text = R"(radix_lbvh: linear BVH rebuild + ray tracing (García et al. 2014, §VI, Table I) on the radix engines.

usage: radix_lbvh [options]
  -m, --mesh LIST     meshes, comma-separated (default bunny,dragon,welsh):
                        bunny, dragon, welsh  generated stand-ins of the paper's models
                                              (about 69K, 871K and 2.2M triangles)
                        gen:N                 a generated scene of about N triangles (N >= 100;
                                              accepts 5000, 64K, 2M, 1e6)
                        FILE.ply, FILE.obj    a mesh file (PLY ascii/binary, OBJ; polygons fan-triangulated)
  -e, --engine LIST   cpu, cuda or all, comma-separated (default all: those available)
  -b, --bits B        Morton code bits: 30 (default) or 63
  -r, --reps R        timed builds per mesh and engine; medians are printed (default 10)
  -f, --frames F      GPU frames (rebuild + render) for the frame rate (default 100)
      --cpu-frames F  CPU engine frames for its frame rate (default 3; 0: none)
      --size WxH      image size (default 1024x1024)
      --rays R        validation rays per mesh (default: 4096 on the GPU; on the CPU
                      4096 scaled down to about 3e8 ray-triangle tests, at least 64)
      --threads T     host threads (default: all)
      --no-verify     skip the validation
      --no-render     skip rendering and the frame rate
      --png DIR       write each mesh's frame to DIR/lbvh-MESH-ENGINE.png
      --save FILE     write the first mesh to FILE (.ply binary or .obj) and exit
)" + std::string(apps::help_end) + R"(3 could not run (a mesh file could not be read, ...; message printed), 77 an
engine named with -e is not available here (nothing is run).
)";

std::uint64_t parse_count(const std::string& s) {
  return apps::parse_count(s, "5000, 64K, 2M, 1e6", {"triangle count", false, 1e10});
}

struct mesh_spec {
  std::string name;       ///< label
  std::uint64_t gen = 0;  ///< triangles to generate, or 0
  std::string path;       ///< file, or empty
};

struct cli {
  lbvh::config c;
  apps::common_options common;
  std::vector<mesh_spec> meshes;
  std::string save;
  bool rays_given = false;
};

cli parse(int argc, char** argv) {
  cli a;
  std::string meshes = "bunny,dragon,welsh";
  apps::parse_options(argc, argv, help_text, {"cpu", "cuda"}, a.common, [&](const std::string& o, auto& r) {
    if (o == "-m" || o == "--mesh") {
      meshes = r.value();
    } else if (o == "-b" || o == "--bits") {
      a.c.bits = int(r.int_value(30, 63));
      if (a.c.bits != 30 && a.c.bits != 63) throw usage_error("--bits must be 30 or 63");
    } else if (o == "-r" || o == "--reps") {
      a.c.reps = int(r.int_value(1, 100000));
    } else if (o == "-f" || o == "--frames") {
      a.c.frames = int(r.int_value(1, 10000));
    } else if (o == "--cpu-frames") {
      a.c.cpu_frames = int(r.int_value(0, 10000));
    } else if (o == "--size") {
      const std::string v = r.value();
      int w = 0, h = 0;
      char x = 0, extra = 0;
      if (std::sscanf(v.c_str(), "%d%c%d%c", &w, &x, &h, &extra) != 3 || (x != 'x' && x != 'X') || w < 1 || h < 1 ||
          w > 16384 || h > 16384)
        throw usage_error("bad --size '" + v + "' (WxH, 1..16384 each, e.g. 1024x1024)");
      a.c.width = w;
      a.c.height = h;
    } else if (o == "--rays") {
      a.c.rays = int(r.int_value(1, 100000000));
      a.rays_given = true;
    } else if (o == "--no-verify") {
      a.c.verify = false;
    } else if (o == "--no-render") {
      a.c.render = false;
    } else if (o == "--save") {
      a.save = r.value();
    } else {
      return false;
    }
    return true;
  });
  a.c.threads = a.common.threads;
  std::stringstream ss(meshes);
  for (std::string s; std::getline(ss, s, ',');) {
    mesh_spec m;
    if (s == "bunny") m = {"bunny", 69451, ""};          // Stanford Bunny, 69,451 triangles
    else if (s == "dragon") m = {"dragon", 871414, ""};  // Stanford Dragon, 871,414
    else if (s == "welsh") m = {"welsh", 2200000, ""};   // Welsh Dragon, "2.2M" in Table I
    else if (s.rfind("gen:", 0) == 0) {
      m.gen = parse_count(s.substr(4));
      if (m.gen < 100 || m.gen > 200000000) throw usage_error("gen:N needs 100 <= N <= 2e8, got '" + s + "'");
      m.name = "gen" + std::to_string(m.gen);
    } else if (s.size() > 4 && (s.ends_with(".ply") || s.ends_with(".obj") || s.ends_with(".PLY") || s.ends_with(".OBJ"))) {
      m.path = s;
    } else {
      throw usage_error("unknown mesh '" + s + "' (bunny, dragon, welsh, gen:N, FILE.ply, FILE.obj)");
    }
    a.meshes.push_back(m);
  }
  if (a.meshes.empty()) throw usage_error("no mesh given");
  return a;
}

std::string pct(double part, double whole) { return apps::share(part, whole); }
std::string ratio(double a, double b) { return apps::ratio(a, b, 1); }
std::string fps(double f) {
  if (f <= 0) return "—";
  char s[32];
  std::snprintf(s, sizeof s, "%.1f", f);
  return s;
}
std::string hex(std::uint64_t h) {
  char s[24];
  std::snprintf(s, sizeof s, "%016llx", (unsigned long long)h);
  return s;
}

struct mesh_run {
  std::string name;
  std::uint64_t triangles = 0;
  std::vector<lbvh::result> results;
};

std::string engine_table(const lbvh::config& c, const mesh_run& mr, const lbvh::result& r) {
  std::ostringstream o;
  const auto& t = r.t;
  o << "### " << mr.name << " on " << r.engine << " (" << r.device << ")\n\n"
    << "| build phase (ms, median of " << c.reps << ") | time | share |\n|---|---|---|\n"
    << "| scene bounds (centroid min/max) | " << fmt(t.bounds) << " | " << pct(t.bounds, t.build) << " |\n"
    << "| Morton codes (" << c.bits << " bits) | " << fmt(t.morton) << " | " << pct(t.morton, t.build) << " |\n"
    << "| **sort** (code, index) pairs, end_bit " << c.bits << " | " << fmt(t.sort) << " | " << pct(t.sort, t.build) << " |\n"
    << "| hierarchy (Karras, one task per internal node) | " << fmt(t.hierarchy) << " | " << pct(t.hierarchy, t.build)
    << " |\n"
    << "| leaf triangles + boxes bottom-up | " << fmt(t.boxes) << " | " << pct(t.boxes, t.build) << " |\n"
    << "| **whole build** | **" << fmt(t.build) << "** | |\n"
    << "| first build (the warm-up, not in the median) | " << fmt(r.first_build) << " | |\n";
  if (r.frames > 0) {
    o << "| render " << c.width << "×" << c.height << " (primary + shadow rays), median | " << fmt(r.render) << " | |\n"
      << "| rebuild + render, median of " << r.frames << " frames | " << fmt(r.frame) << " | |\n"
      << "| **frames per second** (" << r.frames << " frames, rebuild + render) | **" << fps(r.fps) << "** | |\n";
  }
  o << "\n";
  if (c.verify) {
    o << "Validation: " << (r.failures.empty() ? "passed" : "FAILED") << " — structure (every triangle in one leaf, "
      << "codes, links, boxes enclose children), tree depth " << r.depth << "; " << r.rays_checked
      << " rays equal to brute force (" << r.ties << " ties on shared edges/vertices); build hash "
      << hex(r.structure_hash) << ".\n\n";
    for (const auto& f : r.failures) o << "- FAILED: " << f << "\n";
    if (!r.failures.empty()) o << "\n";
  }
  return o.str();
}

// Table I's shape: per mesh, the build on each engine, the speed-up, the sort's share, the frame rate.
std::string summary(const lbvh::config& c, const std::vector<mesh_run>& runs) {
  std::ostringstream o;
  o << "## Summary (Table I shape): BVH construction per mesh, ms (median of " << c.reps << ")\n\n"
    << "| mesh | triangles | engine | build | sort | sort share | speed-up over cpu | rebuild + render "
    << c.width << "×" << c.height << " fps |\n|---|---|---|---|---|---|---|---|\n";
  for (const auto& mr : runs) {
    const lbvh::result* cpu = nullptr;
    for (const auto& r : mr.results)
      if (r.engine == "cpu") cpu = &r;
    for (const auto& r : mr.results)
      o << "| " << mr.name << " | " << mr.triangles << " | " << r.engine << " | " << fmt(r.t.build) << " | "
        << fmt(r.t.sort) << " | " << pct(r.t.sort, r.t.build) << " | "
        << (cpu && &r != cpu ? ratio(cpu->t.build, r.t.build) : std::string("—")) << " | " << fps(r.fps) << " |\n";
  }
  o << "\n";
  return o.str();
}

}  // namespace

int main(int argc, char** argv) {
  cli a;
  if (!apps::parsed(program, [&] { a = parse(argc, argv); })) return 2;
  lbvh::config& c = a.c;

  auto load = [](const mesh_spec& s) {
    if (!s.path.empty()) return lbvh::load_mesh(s.path);
    return lbvh::generate(s.gen, s.name);
  };
  if (!a.save.empty()) {
    const bool saved = apps::guarded(program, [&] {
      const lbvh::mesh m = load(a.meshes.front());
      lbvh::save_mesh(m, a.save);
      std::printf("wrote %s: %llu triangles, %zu vertices, mesh hash %s\n", a.save.c_str(), (unsigned long long)m.count(),
                  m.vertices.size(), hex(m.hash()).c_str());
    });
    return saved ? 0 : 3;
  }

  const auto run = apps::select_engines(program, a.common.engines, {"cpu", "cuda"}, lbvh::cuda_built(), "no device");
  if (!run) return 77;

  std::ostringstream head;
  head << "# LBVH rebuild + ray tracing (García et al. 2014, §VI, Table I)\n\n"
       << "- date: " << apps::utc_now() << "\n- command: `" << a.common.command << "`\n"
       << "- Morton codes: " << c.bits << " bits (" << c.bits / 3 << " per axis) of triangle centroids; sort of (code, "
       << "uint32 triangle index) pairs on bits [0, " << c.bits << ")\n- image " << c.width << "×" << c.height
       << ", one primary and one shadow ray per pixel; build times: median of " << c.reps
       << " after one warm-up build\n- host threads: " << (c.threads ? c.threads : radix_apps::hardware_threads())
       << "\n\n";
  apps::report doc;
  doc.add(head.str()) << std::flush;

  std::vector<mesh_run> runs;
  std::string mesh_table = "| mesh | source | triangles | vertices | mesh hash |\n|---|---|---|---|---|\n";
  const std::string& png = a.common.png;
  if (!apps::guarded(program, [&] {
        for (const auto& s : a.meshes) {
          std::fprintf(stderr, "radix_lbvh: loading %s...\n", s.path.empty() ? s.name.c_str() : s.path.c_str());
          const lbvh::mesh m = load(s);
          mesh_run mr;
          mr.name = m.name;
          mr.triangles = m.count();
          const std::string row = "| " + m.name + " | " + m.source + " | " + std::to_string(m.count()) + " | " +
                                  std::to_string(m.vertices.size()) + " | " + hex(m.hash()) + " |\n";
          mesh_table += row;
          std::cout << "## Mesh " << m.name << "\n\n| mesh | source | triangles | vertices | mesh hash |\n|---|---|---|---|---|\n"
                    << row << "\n";
          for (const auto& e : *run) {
            lbvh::config ce = c;
            if (!a.rays_given)  // brute force costs rays x triangles: keep the CPU's share bounded
              ce.rays = e == "cuda" ? 4096 : int(std::clamp<std::uint64_t>(300000000ull / std::max<std::uint64_t>(m.count(), 1), 64, 4096));
            std::fprintf(stderr, "radix_lbvh: %s on the %s engine...\n", m.name.c_str(), e.c_str());
            lbvh::result r = e == "cuda" ? lbvh::run_cuda(ce, m) : lbvh::run_host(ce, m);
            doc.add(engine_table(c, mr, r)) << std::flush;
            if (!png.empty() && !r.image.empty()) {
              std::filesystem::create_directories(png);
              const std::string file = png + "/lbvh-" + m.name + "-" + r.engine + ".png";
              radix_apps::png::write_rgb8(file, std::uint32_t(c.width), std::uint32_t(c.height), r.image);
              std::cout << "Picture: " << file << "\n\n";
            }
            r.image.clear();
            r.image.shrink_to_fit();
            mr.results.push_back(std::move(r));
          }
          // Both engines build from the same codes with stable sorts and exact
          // min/max boxes: their builds must be identical.
          if (c.verify && mr.results.size() > 1) {
            const auto& r0 = mr.results.front();
            for (std::size_t k = 1; k < mr.results.size(); ++k) {
              auto& rk = mr.results[k];
              const bool same = rk.structure_hash == r0.structure_hash;
              doc.add("Cross-check " + rk.engine + " vs " + r0.engine + " on " + m.name + ": " +
                      (same ? "identical builds (codes, order, tree, boxes).\n\n" : "FAILED: the builds differ.\n\n"));
              if (!same) rk.failures.push_back("cross-check: build differs from the " + r0.engine + " engine's");
            }
          }
          runs.push_back(std::move(mr));
        }
      }))
    return 3;
  doc.add("## Meshes\n\n" + mesh_table + "\n" + summary(c, runs));
  if (!doc.write(program, a.common.out)) return 3;

  int failed = 0;
  for (const auto& mr : runs)
    for (const auto& r : mr.results) failed += int(r.failures.size());
  return apps::verdict(program, failed);
}
