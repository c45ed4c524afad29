// radix_cpu_bench — IPS²Ra (Axtmann, Witt, Ferizovic & Sanders, "Engineering
// In-place (Shared-memory) Sorting Algorithms", 2022), header-only, its
// parallel in-place radix sort on all hardware threads (OpenMP's where the
// benchmark links OpenMP, else std::threads), at the AVX2 peer flags: a peer the CPU speed issue names. Enabled by
// RADIX_BENCH_IPS2RA_DIR (CMakeLists.txt).
#include <bit>
#include <thread>

#include "ips2ra.hpp"

#include "peers_common.hpp"

namespace radix_bench {
namespace {

/// A float's bits mapped to unsigned order (negatives reversed); the rows' floats are finite.
struct f32_ordered {
  std::uint32_t operator()(float f) const {
    const std::uint32_t u = std::bit_cast<std::uint32_t>(f);
    return u ^ ((u >> 31) ? 0xFFFFFFFFu : 0x80000000u);
  }
};
struct kv_key {
  std::uint32_t operator()(const kv32& x) const { return x.key; }
};

template <class T>
void ips2ra_sort(T* a, std::size_t n) { ips2ra::parallel::sort(a, a + n); }
void ips2ra_f32(float* a, std::size_t n) { ips2ra::parallel::sort(a, a + n, f32_ordered{}); }
void ips2ra_pairs(kv32* a, std::size_t n) { ips2ra::parallel::sort(a, a + n, kv_key{}); }
void ips2ra_argsort(const std::uint32_t* keys, std::uint32_t* idx, std::size_t n) {
  argsort_packed(keys, idx, n, [](std::uint64_t* b, std::size_t m) { ips2ra_sort(b, m); });
}

}  // namespace

void add_ips2ra_peers(std::vector<peer>& out) {
  peer p;
  p.id = "ips2ra";
  p.name = "ips2ra::parallel::sort";
#ifdef _OPENMP
  const char* threads = "OpenMP";
#else
  const char* threads = "std::threads";
#endif
  p.detail = std::string("IPS2Ra parallel in-place radix sort, ") + threads + ", all " +
             std::to_string(std::max(1u, std::thread::hardware_concurrency())) + " threads";
  p.u32 = ips2ra_sort<std::uint32_t>;
  p.u64 = ips2ra_sort<std::uint64_t>;
  p.f32 = ips2ra_f32;
  p.pairs = ips2ra_pairs;  // in place: unstable
  p.argsort = ips2ra_argsort;
  p.argsort_stable = true;
  p.argsort_method = "pack key<<32|i, sort u64, unpack";
  p.parallel = true;
  out.push_back(p);
}

}  // namespace radix_bench
