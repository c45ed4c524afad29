// radix_cpu_bench — oneTBB tbb::parallel_sort, compiled with the AVX2 peer flags.
#include <oneapi/tbb/parallel_sort.h>
#include <oneapi/tbb/version.h>

#include "peers_common.hpp"

namespace radix_bench {
namespace {

template <class T>
void tbb_sort(T* a, std::size_t n) { tbb::parallel_sort(a, a + n); }
void tbb_sort_kv(kv32* a, std::size_t n) { tbb::parallel_sort(a, a + n, kv_key_less{}); }
void tbb_argsort(const std::uint32_t* keys, std::uint32_t* idx, std::size_t n) {
  argsort_packed(keys, idx, n, [](std::uint64_t* b, std::size_t m) { tbb::parallel_sort(b, b + m); });
}

}  // namespace

std::string tbb_version() {
  return std::string("oneTBB ") + TBB_VERSION_STRING + " (TBB_INTERFACE_VERSION " +
         std::to_string(TBB_INTERFACE_VERSION) + ", runtime " + std::to_string(TBB_runtime_interface_version()) + ")";
}

void add_tbb_peers(std::vector<peer>& out) {
  peer p;
  p.id = "tbb";
  p.name = "tbb::parallel_sort";
  p.detail = "oneTBB parallel quicksort, all threads";
  p.u32 = tbb_sort<std::uint32_t>;
  p.u64 = tbb_sort<std::uint64_t>;
  p.f32 = tbb_sort<float>;
  p.pairs = tbb_sort_kv;
  p.argsort = tbb_argsort;
  p.argsort_stable = true;
  p.argsort_method = "pack key<<32|i, sort u64, unpack";
  p.parallel = true;
  out.push_back(p);
}

}  // namespace radix_bench
