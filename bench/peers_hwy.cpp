// radix_cpu_bench — Highway vqsort (hwy::Sorter of libhwy_contrib, Highway
// 1.0.3 in Debian). The sort itself is compiled into the prebuilt library
// with dynamic dispatch, so the flags of this TU do not matter; AVX2 is forced
// at run time with hwy::DisableTargets(HWY_AVX3 | HWY_AVX3_DL), because on the
// Zen 4 development machines the AVX-512 compress-store vqsort relies on is
// microcoded and the AVX3 path runs 6-9x slower than AVX2.
#include <hwy/contrib/sort/vqsort.h>
#include <hwy/highway.h>
#include <hwy/targets.h>

#include "peers_common.hpp"

namespace radix_bench {
namespace {

const hwy::Sorter& sorter() {
  static const hwy::Sorter s;
  return s;
}

enum class mode { unset, avx2, dflt };
mode current = mode::unset;

void set_mode(mode m) {
  if (m == current) return;
  hwy::DisableTargets(m == mode::avx2 ? (HWY_AVX3 | HWY_AVX3_DL) : 0);
  current = m;
}

template <mode M, class T>
void vq_sort(T* a, std::size_t n) {
  set_mode(M);
  sorter()(a, n, hwy::SortAscending());
}
template <mode M>
void vq_sort_kv(kv32* a, std::size_t n) {
  set_mode(M);
  static_assert(sizeof(hwy::K32V32) == sizeof(kv32));
  sorter()(reinterpret_cast<hwy::K32V32*>(a), n, hwy::SortAscending());
}
template <mode M>
void vq_sort_kv_as_u64(kv32* a, std::size_t n) {
  set_mode(M);
  sorter()(reinterpret_cast<std::uint64_t*>(a), n, hwy::SortAscending());
}
template <mode M>
void vq_argsort(const std::uint32_t* keys, std::uint32_t* idx, std::size_t n) {
  set_mode(M);
  argsort_packed(keys, idx, n, [](std::uint64_t* b, std::size_t m) { sorter()(b, m, hwy::SortAscending()); });
}

}  // namespace

std::string hwy_version() {
  return "Highway " + std::to_string(HWY_MAJOR) + "." + std::to_string(HWY_MINOR) + "." + std::to_string(HWY_PATCH);
}

std::string hwy_restrict_avx2(bool on) {
  set_mode(on ? mode::avx2 : mode::dflt);
  return hwy_dispatched_target();
}

void add_hwy_peers(std::vector<peer>& out, bool also_default) {
  peer v;
  const std::string target = hwy_restrict_avx2(true);
  v.id = "vqsort";
  v.name = "vqsort (" + target + ")";
  v.detail = "hwy::Sorter, AVX3/AVX3_DL disabled at run time, 1 thread";
  v.u32 = vq_sort<mode::avx2, std::uint32_t>;
  v.u64 = vq_sort<mode::avx2, std::uint64_t>;
  v.f32 = vq_sort<mode::avx2, float>;
  v.pairs = vq_sort_kv<mode::avx2>;  // hwy::K32V32, ordered by key
  v.argsort = vq_argsort<mode::avx2>;
  v.argsort_stable = true;
  v.argsort_method = "pack key<<32|i, sort u64, unpack";
  out.push_back(v);

  // The same pairs sorted as one u64 (key<<32 | value): orders equal keys by
  // value, a valid pair sort, and a second route through vqsort.
  peer w;
  w.id = "vqsort_u64";
  w.name = "vqsort u64-packed (" + target + ")";
  w.detail = "hwy::Sorter on u64 key<<32|value, AVX2, 1 thread (pairs only)";
  w.pairs = vq_sort_kv_as_u64<mode::avx2>;
  out.push_back(w);

  if (also_default) {
    peer d;
    d.id = "vqsort_default";
  d.name = "vqsort (default dispatch)";
    d.detail = "hwy::Sorter, Highway's own target choice (AVX3 on AVX-512 CPUs), 1 thread";
    d.u32 = vq_sort<mode::dflt, std::uint32_t>;
    d.u64 = vq_sort<mode::dflt, std::uint64_t>;
    d.f32 = vq_sort<mode::dflt, float>;
    d.pairs = vq_sort_kv<mode::dflt>;
    d.argsort = vq_argsort<mode::dflt>;
    d.argsort_stable = true;
    d.argsort_method = "pack key<<32|i, sort u64, unpack";
    out.push_back(d);
  }
}

}  // namespace radix_bench
