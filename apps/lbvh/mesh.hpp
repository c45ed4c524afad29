// Triangle meshes for the LBVH app: PLY (ASCII, binary little- and
// big-endian) and OBJ readers, writers for both, and the procedural test
// meshes standing in for the Stanford models of Table I.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "lbvh.hpp"

namespace lbvh {

struct mesh {
  std::string name;                 ///< short label for tables and file names
  std::string source;               ///< where it came from, in words
  std::vector<vec3> vertices;
  std::vector<std::uint32_t> index;  ///< 3 per triangle
  std::uint32_t ground_id = 0;       ///< triangles >= this form the ground plane (= count() when none)
  std::uint64_t count() const { return index.size() / 3; }
  /// Order-dependent hash of the vertices and triangles (equal only for identical meshes).
  std::uint64_t hash() const;
  /// Bounding box of the vertices the triangles use.
  void bounds(vec3& lo, vec3& hi) const;
};

/// A malformed or unreadable mesh file; what() is one line naming the file and the fault.
struct mesh_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Reads a .ply or .obj file (by extension, case-insensitive). Polygons are
/// fan-triangulated; every face index is checked against the vertex count.
mesh load_mesh(const std::string& path);
mesh load_ply(const std::string& path);
mesh load_obj(const std::string& path);
/// Writes binary little-endian PLY (.ply) or OBJ (.obj), exactly round-trippable.
void save_mesh(const mesh& m, const std::string& path);

/// Procedural scene of about `triangles` triangles: three displaced,
/// subdivided cube-spheres ("blobs") standing on a two-triangle ground plane.
mesh generate(std::uint64_t triangles, const std::string& name);

}  // namespace lbvh
