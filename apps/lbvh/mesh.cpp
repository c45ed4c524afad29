// Mesh files and procedural meshes (see mesh.hpp).
#include "mesh.hpp"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

namespace lbvh {

namespace {

std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
  h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
  h *= 0xBF58476D1CE4E5B9ull;
  return h ^ (h >> 31);
}

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw mesh_error(path + ": cannot open (" + std::strerror(errno) + ")");
  std::ostringstream s;
  s << f.rdbuf();
  if (f.bad()) throw mesh_error(path + ": read error");
  return s.str();
}

std::string lower(std::string s) {
  for (auto& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string base_name(const std::string& path) {
  std::string b = path.substr(path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1);
  if (auto dot = b.find_last_of('.'); dot != std::string::npos && dot > 0) b.resize(dot);
  return b.empty() ? "mesh" : b;
}

void check_finite(const mesh& m, const std::string& path) {
  for (std::size_t i = 0; i < m.vertices.size(); ++i) {
    const vec3 v = m.vertices[i];
    if (!std::isfinite(v.x) || !std::isfinite(v.y) || !std::isfinite(v.z))
      throw mesh_error(path + ": vertex " + std::to_string(i) + " has a non-finite coordinate");
  }
  if (m.index.empty()) throw mesh_error(path + ": no triangles");
  if (m.count() > 0x7FFFFFFFull) throw mesh_error(path + ": more than 2^31 - 1 triangles");
}

// ---- PLY ----

enum class ptype { i8, u8, i16, u16, i32, u32, f32, f64 };
int type_size(ptype t) {
  switch (t) {
    case ptype::i8: case ptype::u8: return 1;
    case ptype::i16: case ptype::u16: return 2;
    case ptype::i32: case ptype::u32: case ptype::f32: return 4;
    case ptype::f64: return 8;
  }
  return 0;
}
bool parse_type(const std::string& s, ptype& t) {
  static const std::pair<const char*, ptype> names[] = {
      {"char", ptype::i8},    {"int8", ptype::i8},     {"uchar", ptype::u8},   {"uint8", ptype::u8},
      {"short", ptype::i16},  {"int16", ptype::i16},   {"ushort", ptype::u16}, {"uint16", ptype::u16},
      {"int", ptype::i32},    {"int32", ptype::i32},   {"uint", ptype::u32},   {"uint32", ptype::u32},
      {"float", ptype::f32},  {"float32", ptype::f32}, {"double", ptype::f64}, {"float64", ptype::f64}};
  for (auto& [n, v] : names)
    if (s == n) {
      t = v;
      return true;
    }
  return false;
}

struct property {
  std::string name;
  bool list = false;
  ptype count{}, item{};
};
struct element {
  std::string name;
  std::uint64_t count = 0;
  std::vector<property> props;
};

enum class ply_format { ascii, le, be };

/// Reads the values of a PLY body, ASCII or binary, with errors naming the element.
class ply_reader {
 public:
  ply_reader(const std::string& path, const std::string& data, std::size_t pos, ply_format f)
      : path_(path), d_(data), p_(pos), f_(f) {}
  std::string where;  ///< "vertex 12", for the messages

  double scalar(ptype t) {
    if (f_ == ply_format::ascii) return token();
    const int n = type_size(t);
    if (p_ + n > d_.size()) fail("unexpected end of file");
    unsigned char b[8];
    std::memcpy(b, d_.data() + p_, n);
    p_ += n;
    if ((f_ == ply_format::be) == (std::endian::native == std::endian::little)) std::reverse(b, b + n);
    switch (t) {
      case ptype::i8: { std::int8_t v; std::memcpy(&v, b, 1); return v; }
      case ptype::u8: return b[0];
      case ptype::i16: { std::int16_t v; std::memcpy(&v, b, 2); return v; }
      case ptype::u16: { std::uint16_t v; std::memcpy(&v, b, 2); return v; }
      case ptype::i32: { std::int32_t v; std::memcpy(&v, b, 4); return v; }
      case ptype::u32: { std::uint32_t v; std::memcpy(&v, b, 4); return v; }
      case ptype::f32: { float v; std::memcpy(&v, b, 4); return v; }
      case ptype::f64: { double v; std::memcpy(&v, b, 8); return v; }
    }
    return 0;
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw mesh_error(path_ + ": PLY " + where + ": " + what);
  }
  bool at_end_ascii() {
    while (p_ < d_.size() && std::isspace(static_cast<unsigned char>(d_[p_]))) ++p_;
    return p_ >= d_.size();
  }

 private:
  double token() {
    while (p_ < d_.size() && std::isspace(static_cast<unsigned char>(d_[p_]))) ++p_;
    if (p_ >= d_.size()) fail("unexpected end of file");
    std::size_t e = p_;
    while (e < d_.size() && !std::isspace(static_cast<unsigned char>(d_[e]))) ++e;
    double v = 0;
    const char* b = d_.data() + p_;
    auto r = std::from_chars(b, d_.data() + e, v);
    if (r.ec != std::errc() || r.ptr != d_.data() + e) fail("bad number '" + std::string(b, d_.data() + e) + "'");
    p_ = e;
    return v;
  }
  const std::string& path_;
  const std::string& d_;
  std::size_t p_;
  ply_format f_;
};

}  // namespace

std::uint64_t mesh::hash() const {
  std::uint64_t h = mix(0, vertices.size());
  for (const vec3& v : vertices)
    h = mix(h, (std::uint64_t(std::bit_cast<std::uint32_t>(v.x)) << 32 | std::bit_cast<std::uint32_t>(v.y)) ^
                   (std::uint64_t(std::bit_cast<std::uint32_t>(v.z)) * 0x100000001B3ull));
  h = mix(h, index.size());
  for (std::size_t i = 0; i < index.size(); i += 3)
    h = mix(h, (std::uint64_t(index[i]) << 32 | index[i + 1]) ^ (std::uint64_t(index[i + 2]) * 0x100000001B3ull));
  return h;
}

void mesh::bounds(vec3& lo, vec3& hi) const {
  lo = {INFINITY, INFINITY, INFINITY};
  hi = {-INFINITY, -INFINITY, -INFINITY};
  for (std::uint32_t k : index) {
    const vec3 v = vertices[k];
    lo = {std::min(lo.x, v.x), std::min(lo.y, v.y), std::min(lo.z, v.z)};
    hi = {std::max(hi.x, v.x), std::max(hi.y, v.y), std::max(hi.z, v.z)};
  }
}

mesh load_ply(const std::string& path) {
  const std::string d = read_file(path);
  auto hfail = [&](int line, const std::string& what) -> mesh_error {
    return mesh_error(path + ": PLY header line " + std::to_string(line) + ": " + what);
  };
  // The header: ASCII lines up to "end_header".
  std::size_t pos = 0;
  int line_no = 0;
  auto next_line = [&](std::string& line) {
    if (pos >= d.size()) return false;
    std::size_t e = d.find('\n', pos);
    if (e == std::string::npos) e = d.size();
    line = d.substr(pos, e - pos);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    pos = e + 1;
    ++line_no;
    return true;
  };
  std::string line;
  if (!next_line(line) || line != "ply") throw mesh_error(path + ": not a PLY file (no 'ply' on the first line)");
  ply_format fmt = ply_format::ascii;
  bool have_format = false, ended = false;
  std::vector<element> elems;
  while (next_line(line)) {
    std::istringstream ls(line);
    std::string kw;
    ls >> kw;
    if (kw.empty() || kw == "comment" || kw == "obj_info") continue;
    if (kw == "end_header") {
      ended = true;
      break;
    }
    if (kw == "format") {
      std::string f, v;
      ls >> f >> v;
      if (f == "ascii") fmt = ply_format::ascii;
      else if (f == "binary_little_endian") fmt = ply_format::le;
      else if (f == "binary_big_endian") fmt = ply_format::be;
      else throw hfail(line_no, "unknown format '" + f + "'");
      have_format = true;
    } else if (kw == "element") {
      element e;
      long long c = -1;
      ls >> e.name >> c;
      if (e.name.empty() || c < 0 || ls.fail()) throw hfail(line_no, "bad element line '" + line + "'");
      e.count = std::uint64_t(c);
      elems.push_back(e);
    } else if (kw == "property") {
      if (elems.empty()) throw hfail(line_no, "property before any element");
      property p;
      std::string t;
      ls >> t;
      if (t == "list") {
        std::string ct, it;
        ls >> ct >> it >> p.name;
        p.list = true;
        if (!parse_type(ct, p.count) || !parse_type(it, p.item) || p.name.empty())
          throw hfail(line_no, "bad list property '" + line + "'");
        if (p.count == ptype::f32 || p.count == ptype::f64) throw hfail(line_no, "list count of floating type");
      } else {
        ls >> p.name;
        if (!parse_type(t, p.item) || p.name.empty()) throw hfail(line_no, "bad property '" + line + "'");
      }
      elems.back().props.push_back(p);
    } else {
      throw hfail(line_no, "unknown keyword '" + kw + "'");
    }
  }
  if (!ended) throw mesh_error(path + ": PLY header has no end_header");
  if (!have_format) throw mesh_error(path + ": PLY header has no format line");

  mesh m;
  m.name = base_name(path);
  m.source = "PLY file " + path;
  bool have_vertex = false, have_face = false;
  ply_reader r(path, d, pos, fmt);
  for (const element& e : elems) {
    int px = -1, py = -1, pz = -1, pf = -1;
    for (int k = 0; k < int(e.props.size()); ++k) {
      const auto& p = e.props[k];
      if (e.name == "vertex" && !p.list) {
        if (p.name == "x") px = k;
        if (p.name == "y") py = k;
        if (p.name == "z") pz = k;
      }
      if (e.name == "face" && p.list && (p.name == "vertex_indices" || p.name == "vertex_index")) pf = k;
    }
    if (e.name == "vertex") {
      if (px < 0 || py < 0 || pz < 0) throw mesh_error(path + ": PLY vertex element lacks x, y or z");
      if (e.count > 0xFFFFFFFFull) throw mesh_error(path + ": PLY has more than 2^32 - 1 vertices");
      m.vertices.resize(e.count);
      have_vertex = true;
    }
    if (e.name == "face") {
      if (pf < 0) throw mesh_error(path + ": PLY face element lacks a vertex_indices list");
      if (!have_vertex) throw mesh_error(path + ": PLY face element comes before the vertex element");
      have_face = true;
    }
    const std::uint64_t nv = m.vertices.size();
    std::vector<std::uint32_t> poly;
    for (std::uint64_t i = 0; i < e.count; ++i) {
      r.where = e.name + " " + std::to_string(i);
      float xyz[3] = {0, 0, 0};
      for (int k = 0; k < int(e.props.size()); ++k) {
        const auto& p = e.props[k];
        if (!p.list) {
          const double v = r.scalar(p.item);
          if (k == px) xyz[0] = float(v);
          if (k == py) xyz[1] = float(v);
          if (k == pz) xyz[2] = float(v);
          continue;
        }
        const double cnt = r.scalar(p.count);
        if (cnt < 0 || cnt != std::floor(cnt)) r.fail("bad list length");
        const std::uint64_t c = std::uint64_t(cnt);
        if (k != pf) {
          for (std::uint64_t j = 0; j < c; ++j) r.scalar(p.item);
          continue;
        }
        if (c < 3) r.fail("a face needs at least 3 vertices, has " + std::to_string(c));
        poly.clear();
        for (std::uint64_t j = 0; j < c; ++j) {
          const double v = r.scalar(p.item);
          if (!(v >= 0 && v < double(nv)) || v != std::floor(v)) {
            char b[64];
            std::snprintf(b, sizeof b, "%.17g", v);
            r.fail(std::string("vertex index ") + b + " out of range (" + std::to_string(nv) + " vertices)");
          }
          poly.push_back(std::uint32_t(v));
        }
        for (std::size_t j = 1; j + 1 < poly.size(); ++j) {  // fan
          m.index.push_back(poly[0]);
          m.index.push_back(poly[j]);
          m.index.push_back(poly[j + 1]);
        }
      }
      if (e.name == "vertex") m.vertices[i] = {xyz[0], xyz[1], xyz[2]};
    }
  }
  if (!have_vertex) throw mesh_error(path + ": PLY has no vertex element");
  if (!have_face) throw mesh_error(path + ": PLY has no face element");
  if (fmt == ply_format::ascii && !r.at_end_ascii()) {
    r.where = "body";
    r.fail("data after the last element");
  }
  check_finite(m, path);
  m.ground_id = std::uint32_t(m.count());
  return m;
}

mesh load_obj(const std::string& path) {
  const std::string d = read_file(path);
  mesh m;
  m.name = base_name(path);
  m.source = "OBJ file " + path;
  std::vector<std::uint32_t> tri_line;  // line of each triangle, for range errors found at the end
  std::vector<std::int64_t> poly;
  std::size_t pos = 0;
  std::uint64_t line_no = 0;
  auto fail = [&](const std::string& what) { return mesh_error(path + ": OBJ line " + std::to_string(line_no) + ": " + what); };
  while (pos < d.size()) {
    std::size_t e = d.find('\n', pos);
    if (e == std::string::npos) e = d.size();
    const char* b = d.data() + pos;
    const char* end = d.data() + e;
    pos = e + 1;
    ++line_no;
    if (auto hash = std::find(b, end, '#'); hash != end) end = hash;
    auto skip = [&] { while (b < end && std::isspace(static_cast<unsigned char>(*b))) ++b; };
    auto word = [&] {
      skip();
      const char* s = b;
      while (b < end && !std::isspace(static_cast<unsigned char>(*b))) ++b;
      return std::string_view(s, b - s);
    };
    const std::string_view kw = word();
    if (kw == "v") {
      float xyz[3];
      for (float& c : xyz) {
        const std::string_view t = word();
        auto r = std::from_chars(t.data(), t.data() + t.size(), c);
        if (t.empty() || r.ec != std::errc() || r.ptr != t.data() + t.size())
          throw fail("bad vertex coordinate '" + std::string(t) + "'");
      }
      m.vertices.push_back({xyz[0], xyz[1], xyz[2]});
    } else if (kw == "f") {
      poly.clear();
      for (std::string_view t = word(); !t.empty(); t = word()) {
        const std::string_view idx = t.substr(0, t.find('/'));  // v, v/vt, v//vn, v/vt/vn
        long long v = 0;
        auto r = std::from_chars(idx.data(), idx.data() + idx.size(), v);
        if (idx.empty() || r.ec != std::errc() || r.ptr != idx.data() + idx.size() || v == 0)
          throw fail("bad face vertex '" + std::string(t) + "'");
        if (v < 0) {  // relative to the vertices read so far
          v += std::int64_t(m.vertices.size());
          if (v < 0) throw fail("relative face vertex '" + std::string(t) + "' before the first vertex");
        } else {
          v -= 1;
        }
        poly.push_back(v);
      }
      if (poly.size() < 3) throw fail("a face needs at least 3 vertices, has " + std::to_string(poly.size()));
      for (std::size_t j = 1; j + 1 < poly.size(); ++j) {
        for (std::int64_t v : {poly[0], poly[j], poly[j + 1]}) {
          if (v > 0xFFFFFFFEll) throw fail("face vertex index too large");
          m.index.push_back(std::uint32_t(v));
        }
        tri_line.push_back(std::uint32_t(std::min<std::uint64_t>(line_no, 0xFFFFFFFFu)));
      }
    }
    // Everything else (vt, vn, g, o, s, usemtl, mtllib, l, ...) carries nothing we draw.
  }
  for (std::size_t i = 0; i < m.index.size(); ++i)
    if (m.index[i] >= m.vertices.size()) {
      line_no = tri_line[i / 3];
      throw fail("face refers to vertex " + std::to_string(std::uint64_t(m.index[i]) + 1) + " but the file has " +
                 std::to_string(m.vertices.size()) + " vertices");
    }
  check_finite(m, path);
  m.ground_id = std::uint32_t(m.count());
  return m;
}

mesh load_mesh(const std::string& path) {
  const std::string p = lower(path);
  if (p.size() > 4 && p.compare(p.size() - 4, 4, ".ply") == 0) return load_ply(path);
  if (p.size() > 4 && p.compare(p.size() - 4, 4, ".obj") == 0) return load_obj(path);
  throw mesh_error(path + ": unknown mesh format (expected a .ply or .obj file)");
}

void save_mesh(const mesh& m, const std::string& path) {
  const std::string p = lower(path);
  std::ofstream f(path, std::ios::binary);
  if (!f) throw mesh_error(path + ": cannot create (" + std::strerror(errno) + ")");
  if (p.size() > 4 && p.compare(p.size() - 4, 4, ".obj") == 0) {
    char b[128];
    f << "# " << m.source << "\n";
    for (const vec3& v : m.vertices) {
      std::snprintf(b, sizeof b, "v %.9g %.9g %.9g\n", v.x, v.y, v.z);  // 9 digits: floats round-trip
      f << b;
    }
    for (std::size_t i = 0; i < m.index.size(); i += 3) {
      std::snprintf(b, sizeof b, "f %u %u %u\n", m.index[i] + 1, m.index[i + 1] + 1, m.index[i + 2] + 1);
      f << b;
    }
  } else if (p.size() > 4 && p.compare(p.size() - 4, 4, ".ply") == 0) {
    static_assert(std::endian::native == std::endian::little, "the PLY writer writes host byte order");
    f << "ply\nformat binary_little_endian 1.0\ncomment " << m.source << "\nelement vertex " << m.vertices.size()
      << "\nproperty float x\nproperty float y\nproperty float z\nelement face " << m.count()
      << "\nproperty list uchar int vertex_indices\nend_header\n";
    f.write(reinterpret_cast<const char*>(m.vertices.data()), std::streamsize(m.vertices.size() * sizeof(vec3)));
    std::vector<char> buf;
    buf.reserve(m.count() * 13);
    for (std::size_t i = 0; i < m.index.size(); i += 3) {
      buf.push_back(3);
      const char* q = reinterpret_cast<const char*>(&m.index[i]);
      buf.insert(buf.end(), q, q + 12);
    }
    f.write(buf.data(), std::streamsize(buf.size()));
  } else {
    throw mesh_error(path + ": unknown mesh format (expected a .ply or .obj file)");
  }
  f.close();
  if (!f) throw mesh_error(path + ": write error");
}

namespace {

// Smooth bumps plus finer ripples on the unit sphere; `s` shifts the phases per blob.
float displacement(vec3 p, float s) {
  return 0.10f * std::sin(3.1f * p.x + 1.3f + s) * std::sin(2.7f * p.y + 0.4f) * std::sin(3.3f * p.z + 2.1f * s) +
         0.05f * std::sin(7.3f * p.y + 2.0f * s) * std::sin(6.1f * p.z + 0.7f) +
         0.025f * std::sin(17.0f * p.x + 3.0f * s) * std::sin(15.0f * p.y + 1.0f) * std::sin(16.0f * p.z) +
         0.010f * std::sin(41.0f * p.x + 29.0f * p.z + s);
}

// A cube-sphere of 12·g² triangles: each cube face a g×g grid (tan-warped so
// that cells are nearly equal on the sphere), pushed out to the displaced radius.
void add_blob(mesh& m, vec3 centre, float radius, int g, float seed) {
  static const int axes[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  for (int f = 0; f < 6; ++f) {
    const float sign = f % 2 ? -1.0f : 1.0f;
    const int a0 = axes[f][0], a1 = axes[f][1], a2 = axes[f][2];
    const std::uint32_t base = std::uint32_t(m.vertices.size());
    for (int j = 0; j <= g; ++j)
      for (int i = 0; i <= g; ++i) {
        float c[3];
        c[a0] = sign;
        c[a1] = std::tan((2.0f * float(i) / float(g) - 1.0f) * 0.78539816f);
        c[a2] = std::tan((2.0f * float(j) / float(g) - 1.0f) * 0.78539816f);
        const vec3 dir = normalize({c[0], c[1], c[2]});
        m.vertices.push_back(centre + dir * (radius * (1.0f + displacement(dir, seed))));
      }
    const std::uint32_t w = std::uint32_t(g + 1);
    for (int j = 0; j < g; ++j)
      for (int i = 0; i < g; ++i) {
        const std::uint32_t v00 = base + std::uint32_t(j) * w + std::uint32_t(i), v10 = v00 + 1, v01 = v00 + w,
                            v11 = v01 + 1;
        for (std::uint32_t v : {v00, v10, v11, v00, v11, v01}) m.index.push_back(v);
      }
  }
}

}  // namespace

mesh generate(std::uint64_t triangles, const std::string& name) {
  struct blob {
    vec3 centre;
    float radius, seed;
  };
  const blob blobs[3] = {{{0.0f, 1.02f, 0.0f}, 1.0f, 0.0f},
                         {{1.72f, 0.64f, 0.62f}, 0.62f, 1.7f},
                         {{-1.46f, 0.50f, 0.95f}, 0.48f, 3.1f}};
  float area = 0;
  for (const auto& b : blobs) area += b.radius * b.radius;
  mesh m;
  m.name = name;
  const double body = triangles > 2 ? double(triangles - 2) : 0.0;
  std::uint64_t got = 2;
  int gs[3];
  for (int k = 0; k < 3; ++k) {
    gs[k] = std::max(1, int(std::lround(std::sqrt(body * blobs[k].radius * blobs[k].radius / area / 12.0))));
    got += 12ull * std::uint64_t(gs[k]) * std::uint64_t(gs[k]);
  }
  m.vertices.reserve(6 * (gs[0] + 1) * (gs[0] + 1) * 3 + 4);
  m.index.reserve(got * 3);
  for (int k = 0; k < 3; ++k) add_blob(m, blobs[k].centre, blobs[k].radius, gs[k], blobs[k].seed);
  // The ground: a square at y = 0 (the blobs dip slightly into it).
  m.ground_id = std::uint32_t(m.count());
  const std::uint32_t b = std::uint32_t(m.vertices.size());
  const float s = 4.5f;
  for (vec3 v : {vec3{-s, 0, -s}, vec3{s, 0, -s}, vec3{s, 0, s}, vec3{-s, 0, s}}) m.vertices.push_back(v);
  for (std::uint32_t v : {b, b + 1, b + 2, b, b + 2, b + 3}) m.index.push_back(v);
  m.source = "generated: 3 displaced cube-spheres (" + std::to_string(gs[0]) + "², " + std::to_string(gs[1]) + "², " +
             std::to_string(gs[2]) + "² cells per cube face) + 2 ground triangles";
  return m;
}

}  // namespace lbvh
