// radix_cpu_bench — Intel's x86-simd-sort (the sort inside NumPy 2.x), its
// header-only static methods at the AVX2 peer flags, parallel through OpenMP
// where CMake found it (XSS_USE_OPENMP; OMP_NUM_THREADS, at most 16): a peer
// the CPU speed issue names. Enabled by RADIX_BENCH_XSS_DIR (CMakeLists.txt).
#include "x86simdsort-static-incl.h"

#include "peers_common.hpp"

namespace radix_bench {
namespace {

template <class T>
void xss_sort(T* a, std::size_t n) { x86simdsortStatic::qsort(a, n, false, false); }
void xss_pairs(std::uint32_t* keys, std::uint32_t* values, std::size_t n) {
  x86simdsortStatic::keyvalue_qsort(keys, values, n, false, false);
}
void xss_argsort(const std::uint32_t* keys, std::uint32_t* idx, std::size_t n) {
  argsort_packed(keys, idx, n, [](std::uint64_t* b, std::size_t m) { xss_sort(b, m); });
}

}  // namespace

void add_xss_peers(std::vector<peer>& out) {
  peer p;
  p.id = "xss";
  p.name = RADIX_BENCH_XSS_OPENMP ? "x86-simd-sort (OpenMP)" : "x86-simd-sort";
  p.detail = std::string("x86-simd-sort static methods, AVX2 build, ") +
             (RADIX_BENCH_XSS_OPENMP ? "OpenMP (OMP_NUM_THREADS or all threads, at most 16)" : "1 thread");
  p.u32 = xss_sort<std::uint32_t>;
  p.u64 = xss_sort<std::uint64_t>;
  p.f32 = xss_sort<float>;  // (hasnan = false: the rows' floats are finite)
  p.pairs_soa = xss_pairs;  // keyvalue_qsort: two arrays, as radix sorts them
  p.argsort = xss_argsort;
  p.argsort_stable = true;
  p.argsort_method = "pack key<<32|i, sort u64, unpack";
  p.parallel = RADIX_BENCH_XSS_OPENMP != 0;
  out.push_back(p);
}

}  // namespace radix_bench
