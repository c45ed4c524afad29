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

#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "../common/parallel.hpp"
#include "../common/cli.hpp"
#include "../common/png.hpp"
#include "engine.hpp"
#include "mesh.hpp"

namespace {

using apps::usage_error;

const char* help_text = R"(radix_lbvh: linear BVH rebuild + ray tracing (García et al. 2014, §VI, Table I) on the radix engines.

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
      --out FILE      also write the tables as markdown to FILE
  -h, --help          this text

Exit status: 0 all checks passed, 1 a check failed, 2 bad command line,
3 could not run (a mesh file could not be read, ...; message printed), 77 an
engine named with -e is not available here (nothing is run).
)";

std::uint64_t parse_count(const std::string& s) {
  try {
    std::size_t pos = 0;
    if (s.find_first_of("eE") != std::string::npos) {
      const double d = std::stod(s, &pos);
      if (pos != s.size() || d < 0 || d > 1e10 || d != std::floor(d)) throw usage_error("");
      return std::uint64_t(d);
    }
    std::uint64_t v = std::stoull(s, &pos);
    if (pos + 1 == s.size()) {
      const char u = s[pos];
      v <<= u == 'K' || u == 'k' ? 10 : u == 'M' || u == 'm' ? 20 : throw usage_error("");
    } else if (pos != s.size()) {
      throw usage_error("");
    }
    return v;
  } catch (const std::exception&) {
    throw usage_error("bad triangle count '" + s + "' (examples: 5000, 64K, 2M, 1e6)");
  }
}

struct mesh_spec {
  std::string name;       ///< label
  std::uint64_t gen = 0;  ///< triangles to generate, or 0
  std::string path;       ///< file, or empty
};

struct cli {
  lbvh::config c;
  std::vector<mesh_spec> meshes;
  std::vector<std::string> engines;  // empty: all available
  std::string png, out, save;
  std::string command;
  bool rays_given = false;
};

cli parse(int argc, char** argv) {
  cli a;
  for (int i = 0; i < argc; ++i) {
    if (i) a.command += ' ';
    a.command += argv[i];
  }
  std::string meshes = "bunny,dragon,welsh";
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
    } else if (o == "-m" || o == "--mesh") {
      meshes = value();
    } else if (o == "-e" || o == "--engine") {
      std::stringstream ss(value());
      for (std::string e; std::getline(ss, e, ',');) {
        if (e != "cpu" && e != "cuda" && e != "all") throw usage_error("unknown engine '" + e + "' (cpu, cuda, all)");
        if (e != "all") a.engines.push_back(e);
        else a.engines.clear();
      }
    } else if (o == "-b" || o == "--bits") {
      a.c.bits = int_value(30, 63);
      if (a.c.bits != 30 && a.c.bits != 63) throw usage_error("--bits must be 30 or 63");
    } else if (o == "-r" || o == "--reps") {
      a.c.reps = int_value(1, 100000);
    } else if (o == "-f" || o == "--frames") {
      a.c.frames = int_value(1, 10000);
    } else if (o == "--cpu-frames") {
      a.c.cpu_frames = int_value(0, 10000);
    } else if (o == "--size") {
      const std::string v = value();
      int w = 0, h = 0;
      char x = 0, extra = 0;
      if (std::sscanf(v.c_str(), "%d%c%d%c", &w, &x, &h, &extra) != 3 || (x != 'x' && x != 'X') || w < 1 || h < 1 ||
          w > 16384 || h > 16384)
        throw usage_error("bad --size '" + v + "' (WxH, 1..16384 each, e.g. 1024x1024)");
      a.c.width = w;
      a.c.height = h;
    } else if (o == "--rays") {
      a.c.rays = int_value(1, 100000000);
      a.rays_given = true;
    } else if (o == "--threads") {
      a.c.threads = unsigned(int_value(1, 4096));
    } else if (o == "--no-verify") {
      a.c.verify = false;
    } else if (o == "--no-render") {
      a.c.render = false;
    } else if (o == "--png") {
      a.png = value();
    } else if (o == "--out") {
      a.out = value();
    } else if (o == "--save") {
      a.save = value();
    } else {
      throw usage_error("unknown option '" + o + "' (see --help)");
    }
  }
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

std::string fmt(double ms) {
  if (ms < 0) return "—";
  char b[32];
  std::snprintf(b, sizeof b, ms < 1 ? "%.4f" : ms < 100 ? "%.3f" : "%.1f", ms);
  return b;
}
std::string pct(double part, double whole) {
  if (part < 0 || whole <= 0) return "—";
  char b[16];
  std::snprintf(b, sizeof b, "%.0f%%", 100 * part / whole);
  return b;
}
std::string ratio(double a, double b) {
  if (a <= 0 || b <= 0) return "—";
  char s[32];
  std::snprintf(s, sizeof s, "%.1f×", a / b);
  return s;
}
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

std::string utc_now() {
  char b[64];
  const std::time_t t = std::time(nullptr);
  std::strftime(b, sizeof b, "%Y-%m-%d %H:%M:%S UTC", std::gmtime(&t));
  return b;
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
  try {
    a = parse(argc, argv);
  } catch (const usage_error& e) {
    std::fprintf(stderr, "radix_lbvh: %s\n", e.what());
    return 2;
  }
  lbvh::config& c = a.c;

  auto load = [](const mesh_spec& s) {
    if (!s.path.empty()) return lbvh::load_mesh(s.path);
    return lbvh::generate(s.gen, s.name);
  };
  if (!a.save.empty()) {
    try {
      const lbvh::mesh m = load(a.meshes.front());
      lbvh::save_mesh(m, a.save);
      std::printf("wrote %s: %llu triangles, %zu vertices, mesh hash %s\n", a.save.c_str(), (unsigned long long)m.count(),
                  m.vertices.size(), hex(m.hash()).c_str());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "radix_lbvh: %s\n", e.what());
      return 3;
    }
    return 0;
  }

  std::vector<std::string> want = a.engines;
  const bool explicit_engines = !want.empty();
  if (!explicit_engines) want = {"cpu", "cuda"};
  std::vector<std::string> run;
  for (const auto& e : want) {
    const bool ok = e == "cpu" ? radix::engine_available(radix::engine::cpu)
                               : lbvh::cuda_built() && radix::engine_available(radix::engine::cuda);
    if (ok) {
      run.push_back(e);
    } else if (explicit_engines) {
      std::fprintf(stderr, "radix_lbvh: engine %s not available here (%s): nothing run\n", e.c_str(),
                   e == "cuda" && !lbvh::cuda_built() ? "built without CUDA" : "no device");
      return 77;
    }
  }

  std::ostringstream head;
  head << "# LBVH rebuild + ray tracing (García et al. 2014, §VI, Table I)\n\n"
       << "- date: " << utc_now() << "\n- command: `" << a.command << "`\n"
       << "- Morton codes: " << c.bits << " bits (" << c.bits / 3 << " per axis) of triangle centroids; sort of (code, "
       << "uint32 triangle index) pairs on bits [0, " << c.bits << ")\n- image " << c.width << "×" << c.height
       << ", one primary and one shadow ray per pixel; build times: median of " << c.reps
       << " after one warm-up build\n- host threads: " << (c.threads ? c.threads : radix_apps::hardware_threads())
       << "\n\n";
  std::cout << head.str() << std::flush;
  std::string doc = head.str();

  std::vector<mesh_run> runs;
  std::string mesh_table = "| mesh | source | triangles | vertices | mesh hash |\n|---|---|---|---|---|\n";
  try {
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
      for (const auto& e : run) {
        lbvh::config ce = c;
        if (!a.rays_given)  // brute force costs rays x triangles: keep the CPU's share bounded
          ce.rays = e == "cuda" ? 4096 : int(std::clamp<std::uint64_t>(300000000ull / std::max<std::uint64_t>(m.count(), 1), 64, 4096));
        std::fprintf(stderr, "radix_lbvh: %s on the %s engine...\n", m.name.c_str(), e.c_str());
        lbvh::result r = e == "cuda" ? lbvh::run_cuda(ce, m) : lbvh::run_host(ce, m);
        const std::string t = engine_table(c, mr, r);
        std::cout << t << std::flush;
        doc += t;
        if (!a.png.empty() && !r.image.empty()) {
          std::filesystem::create_directories(a.png);
          const std::string file = a.png + "/lbvh-" + m.name + "-" + r.engine + ".png";
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
          const std::string line = "Cross-check " + rk.engine + " vs " + r0.engine + " on " + m.name + ": " +
                                   (same ? "identical builds (codes, order, tree, boxes).\n\n" : "FAILED: the builds differ.\n\n");
          std::cout << line;
          doc += line;
          if (!same) rk.failures.push_back("cross-check: build differs from the " + r0.engine + " engine's");
        }
      }
      runs.push_back(std::move(mr));
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "radix_lbvh: %s\n", e.what());
    return 3;
  }
  const std::string tail = "## Meshes\n\n" + mesh_table + "\n" + summary(c, runs);
  std::cout << tail;
  doc += tail;

  if (!a.out.empty()) {
    std::ofstream f(a.out);
    f << doc;
    f.close();
    if (!f) {
      std::fprintf(stderr, "radix_lbvh: cannot write '%s'\n", a.out.c_str());
      return 3;
    }
  }
  int failed = 0;
  for (const auto& mr : runs)
    for (const auto& r : mr.results) failed += int(r.failures.size());
  if (failed) {
    std::fprintf(stderr, "radix_lbvh: %d check(s) FAILED\n", failed);
    return 1;
  }
  return 0;
}
