// radix_cpu_bench — std::sort and std::stable_sort (libstdc++), compiled with
// the AVX2 peer flags.
#include <algorithm>
#include <numeric>

#include "peers_common.hpp"

namespace radix_bench {
namespace {

template <class T>
void std_sort(T* a, std::size_t n) { std::sort(a, a + n); }
template <class T>
void std_stable_sort(T* a, std::size_t n) { std::stable_sort(a, a + n); }

void std_sort_kv(kv32* a, std::size_t n) { std::sort(a, a + n, kv_key_less{}); }
void std_stable_sort_kv(kv32* a, std::size_t n) { std::stable_sort(a, a + n, kv_key_less{}); }

void std_sort_argsort(const std::uint32_t* keys, std::uint32_t* idx, std::size_t n) {
  argsort_packed(keys, idx, n, [](std::uint64_t* b, std::size_t m) { std::sort(b, b + m); });
}
// The textbook argsort: an index array sorted stably by a comparator that
// looks the keys up.
void std_stable_sort_argsort(const std::uint32_t* keys, std::uint32_t* idx, std::size_t n) {
  std::iota(idx, idx + n, std::uint32_t(0));
  std::stable_sort(idx, idx + n, [keys](std::uint32_t a, std::uint32_t b) { return keys[a] < keys[b]; });
}

}  // namespace

void add_std_peers(std::vector<peer>& out) {
  peer s;
  s.id = "std_sort";
  s.name = "std::sort";
  s.detail = "libstdc++ introsort, 1 thread";
  s.u32 = std_sort<std::uint32_t>;
  s.u64 = std_sort<std::uint64_t>;
  s.f32 = std_sort<float>;
  s.pairs = std_sort_kv;
  s.argsort = std_sort_argsort;
  s.argsort_stable = true;
  s.argsort_method = "pack key<<32|i, sort u64, unpack";
  out.push_back(s);

  peer t;
  t.id = "std_stable_sort";
  t.name = "std::stable_sort";
  t.detail = "libstdc++ merge sort, 1 thread";
  t.u32 = std_stable_sort<std::uint32_t>;
  t.u64 = std_stable_sort<std::uint64_t>;
  t.f32 = std_stable_sort<float>;
  t.pairs = std_stable_sort_kv;
  t.pairs_stable = true;
  t.argsort = std_stable_sort_argsort;
  t.argsort_stable = true;
  t.argsort_method = "iota index array, stable_sort with keys[a] < keys[b]";
  out.push_back(t);
}

}  // namespace radix_bench
