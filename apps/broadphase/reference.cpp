// Reference pair sets, written without the library and without a sort on
// x: every pair of boxes (O(N^2), small scenes) and a uniform grid (large
// scenes). Both give canonical pairs (i < j), sorted, each pair once.
#include <algorithm>
#include <cmath>
#include <string>

#include "../common/parallel.hpp"
#include "broadphase.hpp"

namespace bp {

using radix_apps::parallel_for;

namespace {
/// Concatenates per-chunk lists in chunk order.
pair_list join(std::vector<pair_list>& parts, unsigned used) {
  std::size_t total = 0;
  for (unsigned t = 0; t < used; ++t) total += parts[t].size();
  pair_list out;
  out.reserve(total);
  for (unsigned t = 0; t < used; ++t) out.insert(out.end(), parts[t].begin(), parts[t].end());
  return out;
}
}  // namespace

pair_list brute_force_pairs(const std::vector<box>& boxes, unsigned threads) {
  const std::uint64_t n = boxes.size();
  if (threads == 0) threads = radix_apps::hardware_threads();
  // Many more chunks than threads would balance the triangle better; chunks
  // of i are cut so that each holds about the same number of (i, j) tests.
  const unsigned chunks = unsigned(std::min<std::uint64_t>(std::max<std::uint64_t>(n, 1), 4ull * threads));
  std::vector<std::uint64_t> cut(chunks + 1, n);
  cut[0] = 0;
  for (unsigned c = 1; c < chunks; ++c) {
    // Tests left of i: n*i - i*i/2; equal shares of n*n/2.
    const double f = double(c) / chunks;
    cut[c] = std::uint64_t(double(n) * (1 - std::sqrt(1 - f)));
  }
  std::vector<pair_list> parts(chunks);
  parallel_for(chunks, threads, [&](std::uint64_t b, std::uint64_t e, unsigned) {
    for (std::uint64_t c = b; c < e; ++c)
      for (std::uint64_t i = cut[c]; i < cut[c + 1]; ++i)
        for (std::uint64_t j = i + 1; j < n; ++j)
          if (overlap3(boxes[i], boxes[j])) parts[c].emplace_back(std::uint32_t(i), std::uint32_t(j));
  });
  return join(parts, chunks);
}

pair_list grid_pairs(const std::vector<box>& boxes, unsigned threads) {
  const std::uint64_t n = boxes.size();
  if (n < 2) return {};
  if (threads == 0) threads = radix_apps::hardware_threads();
  // Cells as large as the largest box side: a box covers at most 2 cells per axis.
  float lo[3] = {boxes[0].lo[0], boxes[0].lo[1], boxes[0].lo[2]};
  double side = 0;
  for (const box& b : boxes)
    for (int a = 0; a < 3; ++a) {
      lo[a] = std::min(lo[a], b.lo[a]);
      side = std::max(side, double(b.hi[a]) - double(b.lo[a]));
    }
  if (!(side > 0)) side = 1;
  const double inv = 1 / side;
  auto cell_of = [&](float v, int a) { return std::int64_t(std::floor((double(v) - lo[a]) * inv)); };

  struct entry {
    std::int64_t c[3];
    std::uint32_t id;
  };
  // Counting sort of the entries by a hash of their cell (one thread: O(entries)).
  std::uint64_t total = 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    std::uint64_t k = 1;
    for (int a = 0; a < 3; ++a) k *= std::uint64_t(cell_of(boxes[i].hi[a], a) - cell_of(boxes[i].lo[a], a) + 1);
    total += k;
  }
  std::uint64_t buckets = 1;
  while (buckets < total) buckets <<= 1;
  auto bucket_of = [&](const std::int64_t* c) {
    std::uint64_t h = std::uint64_t(c[0]) * 0x9E3779B97F4A7C15ull ^ std::uint64_t(c[1]) * 0xC2B2AE3D27D4EB4Full ^
                      std::uint64_t(c[2]) * 0x165667B19E3779F9ull;
    h ^= h >> 29;
    return h & (buckets - 1);
  };
  std::vector<std::uint64_t> start(buckets + 1, 0);
  std::vector<entry> ents(total);
  auto for_cells = [&](std::uint64_t i, auto&& f) {
    const box& b = boxes[i];
    std::int64_t c0[3], c1[3];
    for (int a = 0; a < 3; ++a) c0[a] = cell_of(b.lo[a], a), c1[a] = cell_of(b.hi[a], a);
    for (std::int64_t x = c0[0]; x <= c1[0]; ++x)
      for (std::int64_t y = c0[1]; y <= c1[1]; ++y)
        for (std::int64_t z = c0[2]; z <= c1[2]; ++z) {
          const std::int64_t c[3] = {x, y, z};
          f(c);
        }
  };
  for (std::uint64_t i = 0; i < n; ++i) for_cells(i, [&](const std::int64_t* c) { ++start[bucket_of(c) + 1]; });
  for (std::uint64_t k = 0; k < buckets; ++k) start[k + 1] += start[k];
  {
    std::vector<std::uint64_t> fill(start.begin(), start.end() - 1);
    for (std::uint64_t i = 0; i < n; ++i)
      for_cells(i, [&](const std::int64_t* c) { ents[fill[bucket_of(c)]++] = entry{{c[0], c[1], c[2]}, std::uint32_t(i)}; });
  }
  // Per bucket: every two entries of the same cell whose boxes overlap, reported
  // only in the cell holding the low corner of the boxes' intersection (once).
  std::vector<pair_list> parts(threads);
  const unsigned used = parallel_for(buckets, threads, [&](std::uint64_t b, std::uint64_t e, unsigned t) {
    for (std::uint64_t k = b; k < e; ++k)
      for (std::uint64_t p = start[k]; p < start[k + 1]; ++p)
        for (std::uint64_t q = p + 1; q < start[k + 1]; ++q) {
          const entry &u = ents[p], &v = ents[q];
          if (u.c[0] != v.c[0] || u.c[1] != v.c[1] || u.c[2] != v.c[2]) continue;
          const box &A = boxes[u.id], &B = boxes[v.id];
          if (!overlap3(A, B)) continue;
          bool home = true;
          for (int a = 0; a < 3; ++a) home = home && u.c[a] == cell_of(std::max(A.lo[a], B.lo[a]), a);
          if (home) parts[t].emplace_back(std::min(u.id, v.id), std::max(u.id, v.id));
        }
  });
  pair_list out = join(parts, used);
  std::sort(out.begin(), out.end());
  return out;
}

bool verified_frame(const config& c, int f) {
  if (c.verify == verify_mode::off) return false;
  return c.verify_all || f == 1 || f == c.frames;
}

std::string verify_frame(const config& c, const std::vector<box>& boxes, const pair_list& got_in, std::string& method) {
  pair_list got = got_in;
  for (auto& p : got)
    if (p.first >= p.second) return "pair (" + std::to_string(p.first) + ", " + std::to_string(p.second) + ") is not canonical (i < j)";
  std::sort(got.begin(), got.end());
  auto compare = [&](const pair_list& ref, const char* what) -> std::string {
    if (got == ref) return "";
    std::size_t k = 0;
    while (k < got.size() && k < ref.size() && got[k] == ref[k]) ++k;
    std::string m = std::to_string(got.size()) + " pairs, " + what + " has " + std::to_string(ref.size()) +
                    "; first difference at sorted position " + std::to_string(k);
    if (k < got.size()) m += ": got (" + std::to_string(got[k].first) + ", " + std::to_string(got[k].second) + ")";
    if (k < ref.size()) m += ", reference (" + std::to_string(ref[k].first) + ", " + std::to_string(ref[k].second) + ")";
    return m;
  };
  const bool brute = c.verify == verify_mode::brute || c.verify == verify_mode::both ||
                     (c.verify == verify_mode::automatic && boxes.size() <= c.brute_max);
  const bool grid = c.verify == verify_mode::grid || c.verify == verify_mode::both || !brute;
  method = brute && grid ? "brute force and uniform grid" : brute ? "brute force" : "uniform grid";
  if (brute)
    if (auto m = compare(brute_force_pairs(boxes, c.threads), "brute force"); !m.empty()) return m;
  if (grid)
    if (auto m = compare(grid_pairs(boxes, c.threads), "uniform grid"); !m.empty()) return m;
  return "";
}

std::uint64_t hash_pairs(std::uint64_t h, const std::uint32_t* pairs, std::uint64_t count) {
  std::uint64_t s = 0;
  for (std::uint64_t k = 0; k < count; ++k) {
    std::uint64_t z = (std::uint64_t(pairs[2 * k]) << 32 | pairs[2 * k + 1]) + (k + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    s += z ^ (z >> 31);
  }
  return h * 0x100000001B3ull + s + count;
}

}  // namespace bp
