// Uses the installed radix package through find_package(radix): sorts keys,
// pairs and an argsort, and checks them against std::stable_sort.
#include <radix/radix.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <numeric>
#include <random>
#include <vector>

int main() {
  std::mt19937_64 rng(42);
  std::vector<std::int64_t> keys(100000);
  for (auto& k : keys) k = std::int64_t(rng() % 1000) - 500;  // many duplicates: stability shows

  // argsort, then check against std::stable_sort of the positions.
  std::vector<std::uint32_t> perm(keys.size()), expect(keys.size());
  radix::argsort(std::span<const std::int64_t>(keys), std::span(perm));
  std::iota(expect.begin(), expect.end(), 0u);
  std::stable_sort(expect.begin(), expect.end(), [&](auto a, auto b) { return keys[a] < keys[b]; });
  if (perm != expect) {
    std::puts("consumer: argsort differs from std::stable_sort");
    return 1;
  }

  // pairs: the values are the original positions, so they must equal perm.
  std::vector<std::uint32_t> values(keys.size());
  std::iota(values.begin(), values.end(), 0u);
  radix::sort_pairs(std::span(keys), std::span(values));
  if (values != expect || !std::is_sorted(keys.begin(), keys.end())) {
    std::puts("consumer: sort_pairs is wrong");
    return 1;
  }

  std::cout << "consumer: radix::argsort and radix::sort_pairs of " << keys.size()
            << " keys OK (default engine: " << radix::default_engine() << ")\n";
  return 0;
}
