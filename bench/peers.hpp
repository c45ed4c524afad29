// radix_cpu_bench — the peer sorters, behind plain function pointers.
//
// Each peer family lives in its own translation unit (peers_std.cpp,
// peers_tbb.cpp, peers_boost.cpp, peers_hwy.cpp). The std/TBB/Boost ones are
// compiled with the AVX2 flags of RADIX_BENCH_PEER_FLAGS (see
// CMakeLists.txt); the radix library and cpu_bench.cpp never are. This
// header uses only plain types so that no template is instantiated both with
// and without those flags.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace radix_bench {

/// A u32 key with a u32 value, laid out as one little-endian u64
/// (key << 32 | value): the layout of Highway's hwy::K32V32. Peers sort an
/// array of these by key (their natural array-of-structs layout).
struct kv32 {
  std::uint32_t value;
  std::uint32_t key;
};
static_assert(sizeof(kv32) == 8);

using sort_u32_fn = void (*)(std::uint32_t*, std::size_t);
using sort_u64_fn = void (*)(std::uint64_t*, std::size_t);
using sort_f32_fn = void (*)(float*, std::size_t);
using sort_kv_fn = void (*)(kv32*, std::size_t);
/// Pairs in two arrays (keys, values), as radix sorts them.
using sort_kv_soa_fn = void (*)(std::uint32_t* keys, std::uint32_t* values, std::size_t);
/// Writes to idx the permutation that sorts keys (keys are not modified).
using argsort_fn = void (*)(const std::uint32_t* keys, std::uint32_t* idx, std::size_t n);

struct peer {
  std::string id;      ///< short stable id for --peers and the bars, e.g. "std_sort"
  std::string name;    ///< column / row label, e.g. "std::sort"
  std::string detail;  ///< how it was built and run, e.g. "AVX2 build, 2 threads"
  sort_u32_fn u32 = nullptr;
  sort_u64_fn u64 = nullptr;
  sort_f32_fn f32 = nullptr;
  sort_kv_fn pairs = nullptr;
  sort_kv_soa_fn pairs_soa = nullptr;  ///< instead of pairs, where the peer takes two arrays
  bool pairs_stable = false;
  argsort_fn argsort = nullptr;
  bool argsort_stable = false;
  std::string argsort_method;  ///< e.g. "index array + comparator", "pack key<<32|i, sort u64, unpack"
  bool parallel = false;
};

void add_std_peers(std::vector<peer>& out);
#ifdef RADIX_BENCH_HAVE_TBB
void add_tbb_peers(std::vector<peer>& out);
std::string tbb_version();
#endif
#ifdef RADIX_BENCH_HAVE_BOOST
void add_boost_peers(std::vector<peer>& out);
std::string boost_version();
#endif
#ifdef RADIX_BENCH_HAVE_XSS
void add_xss_peers(std::vector<peer>& out);
#endif
#ifdef RADIX_BENCH_HAVE_IPS2RA
void add_ips2ra_peers(std::vector<peer>& out);
#endif
#ifdef RADIX_BENCH_HAVE_HWY
/// vqsort with AVX-512 (AVX3, AVX3_DL) targets disabled at run time, so that
/// Highway's dynamic dispatch picks AVX2. With also_default, a second peer
/// runs the default dispatch (which switches the targets back on per call).
void add_hwy_peers(std::vector<peer>& out, bool also_default);
std::string hwy_version();
/// Restricts Highway's dispatch to AVX2 and below (true) or restores the
/// default (false); returns the name of the target dynamic dispatch now picks.
std::string hwy_restrict_avx2(bool on);
/// Name of the target Highway's dynamic dispatch currently picks (a probe
/// function compiled for every target, dispatched like vqsort is).
std::string hwy_dispatched_target();
#endif

}  // namespace radix_bench
