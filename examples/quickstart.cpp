// The README's API example, built in CI so that it always compiles.
#include <radix/radix.hpp>

#include <cstdint>
#include <cstdio>
#include <tuple>
#include <vector>

struct particle {
  std::int32_t cell;
  float depth;
  float x, y;
};

int main() {
  // Keys: ascending, stable, on the best engine available (CPU without a GPU).
  std::vector<float> keys = {3.5f, -1.0f, 2.0f, -0.0f, 0.0f};
  radix::sort(std::span(keys));

  // Pairs: values of any trivially copyable type move with their keys.
  std::vector<std::uint32_t> ids = {30, 10, 20};
  std::vector<double> weights = {0.3, 0.1, 0.2};
  radix::sort_pairs(std::span(ids), std::span(weights));

  // Argsort, descending, on only the low 10 bits of the keys.
  std::vector<std::uint32_t> cells = {1023, 5, 77, 5};
  std::vector<std::uint32_t> perm(cells.size());
  radix::options opt;
  opt.direction = radix::order::descending;
  opt.end_bit = 10;
  radix::argsort(std::span<const std::uint32_t>(cells), std::span(perm), opt);

  // Records by a key-extracting function, or by a tuple of members.
  std::vector<particle> ps = {{2, 0.5f, 0, 0}, {1, 0.25f, 0, 0}, {1, 0.125f, 0, 0}};
  radix::sort_records(std::span(ps), [](const particle& p) { return p.cell; });
  radix::sort(std::span(ps), [](const particle& p) { return std::tuple(p.cell, p.depth); });

  // A sorter keeps its scratch memory for repeated sorts.
  radix::sorter s;
  for (int step = 0; step < 3; ++step) s.sort(std::span(cells));

  std::printf("%g %g %g | %u %u %u | %u %u %u %u | cell %d depth %g\n", keys[0], keys[1], keys[4], ids[0], ids[1],
              ids[2], perm[0], perm[1], perm[2], perm[3], ps[0].cell, ps[0].depth);
  return keys[0] == -1.0f && ids[0] == 10 && weights[0] == 0.1 && perm[0] == 0 && ps[0].depth == 0.125f ? 0 : 1;
}
