// radix_cpu_bench — Boost.Sort block_indirect_sort (parallel) and spreadsort
// (1 thread, hybrid radix), compiled with the AVX2 peer flags.
#include <boost/sort/sort.hpp>
#include <boost/sort/spreadsort/spreadsort.hpp>
#include <boost/version.hpp>
#include <thread>

#include "peers_common.hpp"

namespace radix_bench {
namespace {

unsigned threads() {
  unsigned t = std::thread::hardware_concurrency();
  return t ? t : 1;
}

template <class T>
void bis_sort(T* a, std::size_t n) { boost::sort::block_indirect_sort(a, a + n, threads()); }
void bis_sort_kv(kv32* a, std::size_t n) { boost::sort::block_indirect_sort(a, a + n, kv_key_less{}, threads()); }
void bis_argsort(const std::uint32_t* keys, std::uint32_t* idx, std::size_t n) {
  argsort_packed(keys, idx, n, [](std::uint64_t* b, std::size_t m) {
    boost::sort::block_indirect_sort(b, b + m, threads());
  });
}

template <class T>
void spread_sort(T* a, std::size_t n) { boost::sort::spreadsort::spreadsort(a, a + n); }

struct kv_shift {
  std::uint32_t operator()(const kv32& x, unsigned offset) const { return x.key >> offset; }
};
void spread_sort_kv(kv32* a, std::size_t n) {
  boost::sort::spreadsort::integer_sort(a, a + n, kv_shift{}, kv_key_less{});
}
void spread_argsort(const std::uint32_t* keys, std::uint32_t* idx, std::size_t n) {
  argsort_packed(keys, idx, n, [](std::uint64_t* b, std::size_t m) { boost::sort::spreadsort::spreadsort(b, b + m); });
}

}  // namespace

std::string boost_version() {
  return std::string("Boost ") + BOOST_LIB_VERSION + " (BOOST_VERSION " + std::to_string(BOOST_VERSION) + ")";
}

void add_boost_peers(std::vector<peer>& out) {
  peer b;
  b.id = "boost_bis";
  b.name = "boost block_indirect_sort";
  b.detail = "Boost.Sort parallel, all threads";
  b.u32 = bis_sort<std::uint32_t>;
  b.u64 = bis_sort<std::uint64_t>;
  b.f32 = bis_sort<float>;
  b.pairs = bis_sort_kv;
  b.argsort = bis_argsort;
  b.argsort_stable = true;
  b.argsort_method = "pack key<<32|i, sort u64, unpack";
  b.parallel = true;
  out.push_back(b);

  peer s;
  s.id = "boost_spreadsort";
  s.name = "boost spreadsort";
  s.detail = "Boost.Sort hybrid radix, 1 thread";
  s.u32 = spread_sort<std::uint32_t>;
  s.u64 = spread_sort<std::uint64_t>;
  s.f32 = spread_sort<float>;  // dispatches to float_sort
  s.pairs = spread_sort_kv;    // integer_sort on the key
  s.argsort = spread_argsort;
  s.argsort_stable = true;
  s.argsort_method = "pack key<<32|i, sort u64, unpack";
  out.push_back(s);
}

}  // namespace radix_bench
