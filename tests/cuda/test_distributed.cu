// The distributed sort over NCCL (radix/nccl.hpp) against the CPU engine:
// one process, one thread per GPU (gpu_group). Each case lays the ranks'
// inputs end to end, sorts that stably on the CPU, and checks that rank q
// holds exactly its share of that order, element by element (values carry
// the global input position, so stability across ranks is checked too).
// A 1-rank group must match the single-GPU sort. Cases with 2 ranks need
// 2 GPUs and are skipped, with the reason printed, on one.
//   radix_nccl_tests            every case
//   radix_nccl_tests --small    the small ones (compute-sanitizer runs)
#include <cuda_runtime.h>

#include <barrier>
#include <cmath>
#include <cstring>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "distributed/testing.hpp"
#include "harness.hpp"
#include "cuda/testing.hpp"
#include "radix/nccl.hpp"
#include "radix/radix.hpp"

// In rank threads a failed CUDA call throws (harness.hpp's CU exits, which
// would leave the other ranks inside NCCL): gpu_group::each then aborts the
// group and rethrows.
#undef CU
#define CU(call)                                                                                           \
  do {                                                                                                     \
    const cudaError_t e_ = (call);                                                                         \
    if (e_ != cudaSuccess)                                                                                 \
      throw std::runtime_error(std::string("CUDA error ") + cudaGetErrorName(e_) + " at " + __FILE__ + ":" + \
                               std::to_string(__LINE__) + ": " #call);                                    \
  } while (0)

namespace {

using radix::nccl::gpu_group;
using radix::nccl::placement;
using radix::nccl::share_capacity;

enum class dist { uniform, all_equal, few_unique, zipf, sorted, reversed, specials };
const char* name(dist d) {
  const char* n[] = {"uniform", "all_equal", "few_unique", "zipf", "sorted", "reversed", "specials"};
  return n[int(d)];
}

template <class K>
K make_key(dist d, std::uint64_t i, std::uint64_t& s) {
  // Keys of 4 bytes or fewer take the low bytes of a 32-bit pattern; `bits`
  // is the key's own width, so that skew and the top bits land inside it.
  using U = std::conditional_t<sizeof(K) <= 4, std::uint32_t, std::uint64_t>;
  constexpr int bits = int(sizeof(K)) * 8;
  U u = 0;
  switch (d) {
    case dist::uniform: u = U(splitmix(s)); break;
    case dist::all_equal: u = U(0x4242424242424242ull); break;
    case dist::few_unique: u = U((splitmix(s) % 5) * 0x0123456789ABCDEFull); break;
    case dist::zipf: {
      const double x = double(splitmix(s) >> 11) * 0x1.0p-53;
      u = U(std::pow(2.0, (bits > 24 ? 24 : bits - 1) * x * x * x));
      break;
    }
    case dist::sorted: u = U(i); break;
    case dist::reversed: u = U(~i); break;
    case dist::specials: {
      // NaNs with payloads, both zeros, infinities and a few numbers (as bits for floats).
      if constexpr (std::is_floating_point_v<K>) {
        const K v[] = {K(NAN), -K(NAN), K(0.0), -K(0.0), K(INFINITY), -K(INFINITY), K(1.5), K(-2.25)};
        K k = v[splitmix(s) % 8];
        std::memcpy(&u, &k, sizeof k);
        if (std::isnan(k)) u |= U(splitmix(s) & 0xFF);
      } else {
        u = U(splitmix(s) % 3) << (bits - 2);
      }
      break;
    }
  }
  K k;
  std::memcpy(&k, &u, sizeof k);
  return k;
}

bool same_bits(const void* a, const void* b, std::size_t n) { return std::memcmp(a, b, n) == 0; }

/// Which exchange a case expects (RADIX_NCCL_ORDER and the request decide).
enum class expect_order { any, partition_first, sort_first };

/// One distributed sort of keys K (and values V = global position, unless V is void).
template <class K, class V>
void run_case(const gpu_group& g, dist d, const std::vector<std::uint64_t>& counts, const radix::options& o,
              const std::string& label, expect_order want_order = expect_order::any) {
  constexpr bool pairs = !std::is_void_v<V>;
  using VV = std::conditional_t<pairs, V, char>;
  const int p = g.size();
  std::uint64_t seed = std::uint64_t(std::hash<std::string>{}(label)) ^ 0x5EED0D15ull;
  std::printf("  case %s ranks %d n", label.c_str(), p);
  for (auto c : counts) std::printf(" %llu", (unsigned long long)c);
  std::printf(" seed 0x%llx\n", (unsigned long long)seed);
  std::uint64_t total = 0;
  for (auto c : counts) total += c;
  std::vector<K> all_keys;
  std::vector<VV> all_values;
  for (std::uint64_t i = 0; i < total; ++i) {
    all_keys.push_back(make_key<K>(d, i, seed));
    all_values.push_back(VV(i));
  }
  // The oracle: one stable sort of everything, on the CPU engine.
  std::vector<K> want_keys = all_keys;
  std::vector<VV> want_values = all_values;
  radix::options co = o;
  co.use = radix::engine::cpu;
  if constexpr (pairs) radix::sort_pairs(std::span<K>(want_keys), std::span<VV>(want_values), co);
  else radix::sort(std::span<K>(want_keys), co);

  const std::uint64_t share = share_capacity(total, p);
  std::vector<placement> placed(p);
  std::vector<std::vector<K>> got_keys(p);
  std::vector<std::vector<VV>> got_values(p);
  std::uint64_t first = 0;
  std::vector<std::uint64_t> firsts(p);
  for (int r = 0; r < p; ++r) firsts[r] = (first += r ? counts[r - 1] : 0);
  // cudaMalloc and cudaFree synchronize every GPU that NCCL mapped as a peer:
  // one rank allocating while another waits in an NCCL kernel for it would
  // deadlock. So the ranks allocate, meet, sort, meet, and free.
  std::barrier meet(p);
  auto rank_body = [&](int r) {
    const std::uint64_t cap = std::max(counts[r], share);
    K *k0 = nullptr, *k1 = nullptr;
    VV *v0 = nullptr, *v1 = nullptr;
    CU(cudaMalloc(&k0, cap * sizeof(K) + 16));
    CU(cudaMalloc(&k1, cap * sizeof(K) + 16));
    CU(cudaMemset(k0, 0xAB, cap * sizeof(K)));  // poison: every output element must be written
    CU(cudaMemset(k1, 0xCD, cap * sizeof(K)));
    CU(cudaMemcpy(k0, all_keys.data() + firsts[r], counts[r] * sizeof(K), cudaMemcpyHostToDevice));
    if (pairs) {
      CU(cudaMalloc(&v0, cap * sizeof(VV) + 16));
      CU(cudaMalloc(&v1, cap * sizeof(VV) + 16));
      CU(cudaMemset(v0, 0xAB, cap * sizeof(VV)));
      CU(cudaMemset(v1, 0xCD, cap * sizeof(VV)));
      CU(cudaMemcpy(v0, all_values.data() + firsts[r], counts[r] * sizeof(VV), cudaMemcpyHostToDevice));
    }
    cudaStream_t s;
    CU(cudaStreamCreate(&s));
    meet.arrive_and_wait();
    radix::cuda::double_buffer<K> kb(k0, k1);
    if constexpr (pairs) {
      radix::cuda::double_buffer<VV> vb(v0, v1);
      placed[r] = radix::nccl::sort_pairs(kb, vb, counts[r], cap, g.comm(r), s, o);
      if (vb.selector != kb.selector) throw std::runtime_error("key and value selectors differ");
    } else {
      placed[r] = radix::nccl::sort_keys(kb, counts[r], cap, g.comm(r), s, o);
    }
    CU(cudaStreamSynchronize(s));
    meet.arrive_and_wait();
    CU(cudaStreamDestroy(s));
    const std::uint64_t n = placed[r].n;
    got_keys[r].resize(n);
    CU(cudaMemcpy(got_keys[r].data(), kb.current(), n * sizeof(K), cudaMemcpyDeviceToHost));
    if (pairs) {
      got_values[r].resize(n);
      CU(cudaMemcpy(got_values[r].data(), (kb.selector ? v1 : v0), n * sizeof(VV), cudaMemcpyDeviceToHost));
    }
    for (void* b : {(void*)k0, (void*)k1, (void*)v0, (void*)v1})
      if (b) CU(cudaFree(b));
  };
  g.each([&](int r) {
    try {
      rank_body(r);
    } catch (...) {
      meet.arrive_and_drop();  // the other ranks must not wait at the barrier for this one
      throw;
    }
  });
  std::uint64_t at = 0;
  for (int r = 0; r < p; ++r) {
    if (want_order != expect_order::any)
      CHECK_MSG(placed[r].partition_first == (want_order == expect_order::partition_first),
                "rank %d took the %s exchange", r, placed[r].partition_first ? "partition-first" : "sort-first");
    const std::uint64_t expect_n = (total * (r + 1)) / p - (total * r) / p;
    CHECK_MSG(placed[r].total == total, "rank %d total %llu", r, (unsigned long long)placed[r].total);
    CHECK_MSG(placed[r].offset == at, "rank %d offset %llu, expected %llu", r, (unsigned long long)placed[r].offset,
              (unsigned long long)at);
    CHECK_MSG(placed[r].n == expect_n, "rank %d holds %llu, expected %llu", r, (unsigned long long)placed[r].n,
              (unsigned long long)expect_n);
    for (std::uint64_t i = 0; i < got_keys[r].size() && at + i < total; ++i) {
      const bool ok = same_bits(&got_keys[r][i], &want_keys[at + i], sizeof(K)) &&
                      (!pairs || same_bits(&got_values[r][i], &want_values[at + i], sizeof(VV)));
      if (!ok) {
        CHECK_MSG(ok, "rank %d element %llu (global %llu) differs from the CPU engine's", r, (unsigned long long)i,
                  (unsigned long long)(at + i));
        break;
      }
    }
    at += placed[r].n;
  }
}

/// The cases every group size runs.
template <class K, class V>
void shapes(const gpu_group& g, const std::string& type, std::uint64_t per_rank,
            expect_order want_order = expect_order::any) {
  const int p = g.size();
  for (dist d : {dist::uniform, dist::all_equal, dist::few_unique, dist::zipf, dist::sorted, dist::reversed,
                 dist::specials}) {
    std::vector<std::uint64_t> even(p, per_rank), uneven(p, 0);
    for (int r = 0; r < p; ++r) uneven[r] = r % 2 ? per_rank * 2 + 2049 : (r == 0 ? 0 : 7);
    run_case<K, V>(g, d, even, {}, type + "/" + name(d) + "/even", want_order);
    run_case<K, V>(g, d, uneven, {}, type + "/" + name(d) + "/uneven", want_order);
  }
}

/// Sets an environment variable for one scope (the ranks read it in each sort).
struct scoped_env {
  const char* name;
  scoped_env(const char* n, const char* v) : name(n) { setenv(n, v, 1); }
  ~scoped_env() { unsetenv(name); }
};

int gpus() {
  int c = 0;
  if (cudaGetDeviceCount(&c) != cudaSuccess) return 0;
  return c;
}

/// Whether `n` GPUs are visible; prints why the case is skipped when not.
bool have_gpus(int n) {
  if (gpus() >= n) return true;
  std::printf("  SKIPPED: needs %d GPUs, %d visible\n", n, gpus());
  return false;
}

// NCCL itself, before the sort: one all-reduce over the group.
TEST_CASE(dist_nccl_smoke, true) {
  for (int p = 1; p <= std::min(gpus(), 2); ++p) {
    gpu_group g(p);
    std::vector<unsigned long long> got(p, 0);
    std::barrier meet(p);
    g.each([&](int r) {
      unsigned long long* d;
      CU(cudaMalloc(&d, 8));
      meet.arrive_and_wait();
      const unsigned long long one = r + 1;
      CU(cudaMemcpy(d, &one, 8, cudaMemcpyHostToDevice));
      if (ncclAllReduce(d, d, 1, ncclUint64, ncclSum, g.comm(r), 0) != ncclSuccess) throw std::runtime_error("allreduce");
      CU(cudaStreamSynchronize(0));
      meet.arrive_and_wait();
      CU(cudaMemcpy(&got[r], d, 8, cudaMemcpyDeviceToHost));
      CU(cudaFree(d));
    });
    for (int r = 0; r < p; ++r) CHECK_MSG(got[r] == (unsigned long long)(p * (p + 1) / 2), "rank %d sum %llu", r, got[r]);
    std::printf("  all-reduce over %d rank(s): ok\n", p);
  }
}

// The single-GPU sort on every GPU in turn, before any rank waits on another:
// kernel attributes belong to a device (the first 2-rank runs hung on that).
TEST_CASE(dist_single_gpu_sort_on_every_device, true) {
  for (int dev = 0; dev < gpus(); ++dev) {
    CU(cudaSetDevice(dev));
    for (std::uint64_t n : {3000ull, 1ull << 20}) {
      std::uint64_t seed = 0xD15C0ull + dev + n;
      std::vector<std::uint32_t> keys(n), want;
      for (auto& k : keys) k = std::uint32_t(splitmix(seed));
      want = keys;
      radix::sort(std::span<std::uint32_t>(want), radix::options{.use = radix::engine::cpu});
      std::uint32_t *k0, *k1;
      CU(cudaMalloc(&k0, n * 4));
      CU(cudaMalloc(&k1, n * 4));
      CU(cudaMemcpy(k0, keys.data(), n * 4, cudaMemcpyHostToDevice));
      radix::cuda::double_buffer<std::uint32_t> kb(k0, k1);
      const std::size_t wsb = radix::cuda::sort_keys_workspace_bytes(kb, n);
      void* ws = nullptr;
      if (wsb) CU(cudaMalloc(&ws, wsb));
      radix::cuda::sort_keys(kb, n, ws, wsb, 0);
      CU(cudaDeviceSynchronize());
      CU(cudaMemcpy(keys.data(), kb.current(), n * 4, cudaMemcpyDeviceToHost));
      CHECK_MSG(keys == want, "device %d, n %llu", dev, (unsigned long long)n);
      for (void* b : {(void*)k0, (void*)k1, ws})
        if (b) CU(cudaFree(b));
    }
    std::printf("  device %d: ok\n", dev);
  }
  CU(cudaSetDevice(0));
}

TEST_CASE(dist_one_rank_is_the_single_gpu_sort, true) {
  gpu_group g(1);
  shapes<std::uint32_t, void>(g, "u32", 5000);
  shapes<std::uint64_t, std::uint64_t>(g, "u64/u64", 5000);
  shapes<float, std::uint32_t>(g, "f32/u32", 5000);
  run_case<std::uint32_t, void>(g, dist::uniform, {0}, {}, "u32/empty");
}

TEST_CASE(dist_two_ranks_small, true) {
  if (!have_gpus(2)) return;
  gpu_group g(2);
  shapes<std::uint32_t, void>(g, "u32", 3000);
  shapes<std::uint32_t, std::uint32_t>(g, "u32/u32", 3000);
  shapes<std::uint64_t, void>(g, "u64", 3000);
  shapes<std::uint64_t, std::uint64_t>(g, "u64/u64", 3000);
  shapes<float, void>(g, "f32", 3000);
  shapes<double, std::uint32_t>(g, "f64/u32", 3000);
  shapes<std::uint16_t, std::uint32_t>(g, "u16/u32", 3000);
  // Fewer elements than ranks, and none at all.
  run_case<std::uint32_t, std::uint32_t>(g, dist::uniform, {1, 0}, {}, "u32/one");
  run_case<std::uint32_t, std::uint32_t>(g, dist::uniform, {0, 1}, {}, "u32/one_on_last");
  run_case<std::uint32_t, std::uint32_t>(g, dist::uniform, {1, 1}, {}, "u32/one_each");
  run_case<std::uint32_t, std::uint32_t>(g, dist::uniform, {0, 0}, {}, "u32/none");
}

TEST_CASE(dist_two_ranks_options, true) {
  if (!have_gpus(2)) return;
  gpu_group g(2);
  radix::options desc;
  desc.direction = radix::order::descending;
  run_case<std::uint32_t, std::uint32_t>(g, dist::few_unique, {4000, 6000}, desc, "u32/u32/descending");
  run_case<float, std::uint32_t>(g, dist::specials, {4000, 6000}, desc, "f32/u32/specials/descending");
  radix::options total;
  total.floats = radix::float_order::total;
  run_case<float, std::uint32_t>(g, dist::specials, {5000, 5000}, total, "f32/u32/specials/total");
  radix::options range;
  range.begin_bit = 4;
  range.end_bit = 20;
  run_case<std::uint32_t, std::uint32_t>(g, dist::uniform, {7000, 3000}, range, "u32/u32/bits4-20");
  radix::options top;
  top.begin_bit = 60;
  run_case<std::uint64_t, std::uint64_t>(g, dist::uniform, {7000, 3000}, top, "u64/u64/bits60-64");
  run_case<std::int32_t, std::uint64_t>(g, dist::uniform, {5000, 5000}, {}, "i32/u64");
  radix::options narrow_digits;
  narrow_digits.digit_bits = 5;  // 7 passes, the last of 2 bits
  run_case<std::uint32_t, void>(g, dist::uniform, {6000, 4000}, narrow_digits, "u32/5-bit digits");
}

// Partition first on small inputs: groups of a few hundred elements, so that
// every shape runs many steps; skewed keys outgrow a slot and finish by the
// sort-first exchange (both are checked against the CPU engine).
TEST_CASE(dist_two_ranks_partition_first, true) {
  if (!have_gpus(2)) return;
  gpu_group g(2);
  scoped_env order("RADIX_NCCL_ORDER", "partition_first");
  // (slot, group target): blocks of 4 buckets (26 bits, 4 passes: sorted in
  // place through the slot), single buckets (24 bits, 3 passes: received in
  // the slot, sorted into place), and whole shares (one step: every group
  // waits for the cuts, and the slot the boundary buckets borrow stays idle).
  // The groups travel by the copy engines (a gpu_group's ranks), and by
  // NCCL's send and receive (any communicator; forced here). Over the copy
  // engines the boundary buckets are sorted, and the cuts found, beside the
  // first steps (through a receive slot, while those steps run), unless
  // RADIX_NCCL_NO_OVERLAP puts them first.
  struct config {
    const char *group, *target;
    bool nccl_transport, cuts_first;
  };
  const config sizes[] = {{"300", "300", false, false},
                          {"300", "1", false, false},
                          {"300", "1", false, true},
                          {"300", "1", true, false},
                          {"100000", "100000", false, false},
                          {"100000", "100000", true, false}};
  for (const auto& [group, target, nccl_transport, cuts_first] : sizes) {
    scoped_env budget("RADIX_NCCL_GROUP", group);
    scoped_env aim("RADIX_NCCL_GROUP_TARGET", target);
    scoped_env transport("RADIX_NCCL_NO_COPY_ENGINES", nccl_transport ? "1" : "");
    if (!nccl_transport) unsetenv("RADIX_NCCL_NO_COPY_ENGINES");
    scoped_env overlap("RADIX_NCCL_NO_OVERLAP", cuts_first ? "1" : "0");
    std::printf("  slots of %s elements, groups of at most %s, %s%s\n", group, target,
                nccl_transport ? "NCCL send/receive" : "copy engines", cuts_first ? ", cuts first" : "");
    const std::uint64_t overlapped = radix::nccl_detail::overlapped_cut_searches().load();
    shapes<std::uint32_t, void>(g, "u32", 5000);
    shapes<std::uint32_t, std::uint32_t>(g, "u32/u32", 5000);
    shapes<std::uint64_t, std::uint64_t>(g, "u64/u64", 5000);
    shapes<float, std::uint64_t>(g, "f32/u64", 5000);
    shapes<double, void>(g, "f64", 5000);
    // Uniform keys: about 40 a bucket, so every bucket fits a group.
    run_case<std::uint32_t, std::uint32_t>(g, dist::uniform, {5000, 5003}, {}, "pf/u32/u32/uniform",
                                           expect_order::partition_first);
    // Keys below 2^14 of 32 bits: one bucket, larger than a group of 300.
    if (std::string(group) == "300" && std::string(target) == "300")
      run_case<std::uint32_t, void>(g, dist::sorted, {5000, 5000}, {}, "pf/u32/sorted/one bucket",
                                    expect_order::sort_first);
    // Every rank's boundary buckets fit a slot for uniform keys at least
    // (five cases, both ranks): the overlapped route ran exactly where it may.
    const std::uint64_t ran = radix::nccl_detail::overlapped_cut_searches().load() - overlapped;
    if (nccl_transport || cuts_first) {
      CHECK_MSG(ran == 0, "%llu sorts found their cuts beside the steps", (unsigned long long)ran);
    } else {
      CHECK_MSG(ran >= 10, "only %llu sorts found their cuts beside the steps", (unsigned long long)ran);
    }
  }
  radix::options desc;
  desc.direction = radix::order::descending;
  run_case<float, std::uint32_t>(g, dist::specials, {4000, 6000}, desc, "pf/f32/u32/specials/descending");
  run_case<std::uint32_t, void>(g, dist::uniform, {4000, 6000}, desc, "pf/u32/descending",
                                expect_order::partition_first);
  radix::options total;
  total.floats = radix::float_order::total;
  run_case<float, void>(g, dist::specials, {5000, 5000}, total, "pf/f32/specials/total");
  radix::options range;
  range.begin_bit = 4;
  range.end_bit = 20;
  run_case<std::uint32_t, std::uint32_t>(g, dist::uniform, {7000, 3000}, range, "pf/u32/u32/bits4-20",
                                         expect_order::partition_first);
  radix::options narrow_digits;
  narrow_digits.digit_bits = 5;
  run_case<std::uint64_t, void>(g, dist::uniform, {6000, 4000}, narrow_digits, "pf/u64/5-bit digits",
                                expect_order::partition_first);
  // What partition first does not take: sort first, whatever the variable says.
  radix::options top;
  top.begin_bit = 60;  // one digit of 4 bits
  run_case<std::uint64_t, std::uint64_t>(g, dist::uniform, {7000, 3000}, top, "pf/u64/u64/bits60-64",
                                         expect_order::sort_first);
  run_case<std::uint16_t, std::uint32_t>(g, dist::uniform, {7000, 3000}, {}, "pf/u16/u32", expect_order::sort_first);
  run_case<std::uint32_t, std::uint16_t>(g, dist::uniform, {7000, 3000}, {}, "pf/u32/u16", expect_order::sort_first);
  // Fewer elements than ranks, and none at all.
  run_case<std::uint32_t, std::uint32_t>(g, dist::uniform, {1, 0}, {}, "pf/u32/one");
  run_case<std::uint32_t, std::uint32_t>(g, dist::uniform, {0, 0}, {}, "pf/u32/none");
}

TEST_CASE(dist_two_ranks_large, false) {
  if (!have_gpus(2)) return;
  gpu_group g(2);
  // Several merge tiles and Onesweep's multi-tile passes on every rank.
  run_case<std::uint32_t, std::uint32_t>(g, dist::uniform, {3000001, 2999999}, {}, "u32/u32/3M");
  run_case<std::uint64_t, std::uint64_t>(g, dist::zipf, {1 << 22, (1 << 22) + 5}, {}, "u64/u64/zipf/4M");
  run_case<float, void>(g, dist::specials, {1 << 21, 1 << 20}, {}, "f32/specials/3M");
  // Already in global order: every key stays on its rank.
  run_case<std::uint32_t, void>(g, dist::sorted, {1 << 21, 1 << 21}, {}, "u32/sorted/4M");
  // Partition first at scale: buckets of 2^16-2^17 keys, many steps on four
  // sort streams; skewed keys fall back to sort first's exchange.
  scoped_env order("RADIX_NCCL_ORDER", "partition_first");
  run_case<std::uint32_t, void>(g, dist::uniform, {1 << 24, (1 << 24) + 3}, {}, "u32/uniform/32M",
                                expect_order::partition_first);
  run_case<std::uint64_t, std::uint64_t>(g, dist::uniform, {(1 << 23) + 1, 1 << 23}, {}, "u64/u64/uniform/16M",
                                         expect_order::partition_first);
  run_case<float, std::uint32_t>(g, dist::specials, {1 << 23, 1 << 24}, {}, "f32/u32/specials/24M");
  run_case<std::uint32_t, std::uint32_t>(g, dist::zipf, {1 << 24, 1 << 24}, {}, "u32/u32/zipf/32M",
                                         expect_order::sort_first);  // (one bucket: keys below 2^24)
}

// Keys alone: each group's sort reads the rank's own run where it lies (an
// inset of its input) on the engine's long tiles, which only groups of more
// than 2^19 4-byte keys (2^21 8-byte ones) reach: slots of 1.2M keys,
// groups of 8 buckets (2^20 keys, 27 bits: four passes, in place through the
// slot), with bits from 5 (22 bits: three passes, from the slot into place),
// 8-byte keys descending, and over NCCL's send and receive (in place).
TEST_CASE(dist_two_ranks_own_run_in_place, false) {
  if (!have_gpus(2)) return;
  gpu_group g(2);
  scoped_env order("RADIX_NCCL_ORDER", "partition_first");
  const std::uint64_t before = radix::cuda_detail::inset_sorts().load();
  {
    scoped_env budget("RADIX_NCCL_GROUP", "1200000");
    scoped_env aim("RADIX_NCCL_GROUP_TARGET", "1150000");  // (8 random buckets hold about 2^20 keys, more or less)
    run_case<std::uint32_t, void>(g, dist::uniform, {(1 << 24) + 5, (1 << 24) - 3}, {}, "u32/uniform/32M, 4 passes",
                                  expect_order::partition_first);
    radix::options from5;
    from5.begin_bit = 5;
    run_case<std::uint32_t, void>(g, dist::uniform, {(1 << 24) - 7, 1 << 24}, from5, "u32/uniform/32M, bits 5-32",
                                  expect_order::partition_first);
    scoped_env transport("RADIX_NCCL_NO_COPY_ENGINES", "1");
    run_case<std::uint32_t, void>(g, dist::uniform, {1 << 24, (1 << 24) + 9}, {}, "u32/uniform/32M, NCCL",
                                  expect_order::partition_first);
  }
  // (each rank sorts about 16 groups a case, most of them long enough to read their own run in place)
  CHECK_MSG(radix::cuda_detail::inset_sorts().load() - before >= 60, "only %llu group sorts read their own run in place",
            (unsigned long long)(radix::cuda_detail::inset_sorts().load() - before));
  // 8-byte keys reach the long tiles above 2^21 keys: groups of 32 buckets
  scoped_env budget("RADIX_NCCL_GROUP", "4300000");
  scoped_env aim("RADIX_NCCL_GROUP_TARGET", "4300000");
  radix::options desc;
  desc.direction = radix::order::descending;
  run_case<std::uint64_t, void>(g, dist::uniform, {(1 << 24) + 1, 1 << 24}, desc, "u64/uniform/32M, descending",
                                expect_order::partition_first);
}

TEST_CASE(dist_all_gpus, false) {
  if (!have_gpus(3)) return;
  gpu_group g;
  shapes<std::uint32_t, std::uint32_t>(g, "u32/u32", 20000);
  shapes<std::uint64_t, void>(g, "u64", 20000);
  // Partition first over every GPU: several boundary buckets, groups from
  // several senders a step.
  scoped_env order("RADIX_NCCL_ORDER", "partition_first");
  shapes<std::uint32_t, std::uint32_t>(g, "pf/u32/u32", 20000);
  run_case<std::uint32_t, void>(g, dist::uniform, std::vector<std::uint64_t>(g.size(), 30001), {}, "pf/u32/uniform",
                                expect_order::partition_first);
}

/// sort_host from host memory into host memory, whole and in chunks that
/// the GPUs sort in turn before a host merge (RADIX_NCCL_HOST_CHUNK).
template <class K, class V>
void host_case(const gpu_group& g, std::uint64_t n, const char* chunk, const radix::options& o, const char* what) {
  constexpr bool pairs = !std::is_void_v<V>;
  using VV = std::conditional_t<pairs, V, char>;
  std::uint64_t seed = 0x4057ull + n;
  std::printf("  sort_host %s ranks %d n %llu chunk %s\n", what, g.size(), (unsigned long long)n, chunk ? chunk : "-");
  std::vector<K> keys(n);
  std::vector<VV> values(n);
  for (std::uint64_t i = 0; i < n; ++i) {
    keys[i] = make_key<K>(i % 3 ? dist::uniform : dist::specials, i, seed);
    values[i] = VV(i);
  }
  auto want_k = keys;
  auto want_v = values;
  radix::options co = o;
  co.use = radix::engine::cpu;
  if constexpr (pairs) radix::sort_pairs(std::span<K>(want_k), std::span<VV>(want_v), co);
  else radix::sort(std::span<K>(want_k), co);
  radix::sort_request r;
  r.op = pairs ? radix::operation::pairs : radix::operation::keys;
  r.key = radix::key_desc_of<K>();
  r.n = n;
  r.keys = keys.data();
  r.values = pairs ? values.data() : nullptr;
  r.value_bytes = pairs ? sizeof(VV) : 0;
  r.opts = o;
  if (chunk) setenv("RADIX_NCCL_HOST_CHUNK", chunk, 1);
  try {
    radix::nccl::sort_host(g, r);
  } catch (...) {
    unsetenv("RADIX_NCCL_HOST_CHUNK");
    throw;
  }
  unsetenv("RADIX_NCCL_HOST_CHUNK");
  CHECK_MSG(same_bits(keys.data(), want_k.data(), n * sizeof(K)), "sort_host %s: keys differ", what);
  if (pairs) CHECK_MSG(same_bits(values.data(), want_v.data(), n * sizeof(VV)), "sort_host %s: values differ", what);
}

TEST_CASE(dist_sort_host, true) {
  for (int p = 1; p <= std::min(gpus(), 2); ++p) {
    gpu_group g(p);
    radix::options desc;
    desc.direction = radix::order::descending;
    host_case<std::uint32_t, std::uint64_t>(g, 1000003, nullptr, {}, "u32/u64");
    host_case<std::uint32_t, std::uint64_t>(g, 1000003, "300001", {}, "u32/u64 in 4 chunks");
    host_case<float, void>(g, 777777, "100000", desc, "f32 descending in 8 chunks");
    host_case<std::uint64_t, std::uint32_t>(g, 5, "2", {}, "u64/u32, 5 keys in chunks of 2");
    host_case<std::uint32_t, void>(g, 0, nullptr, {}, "empty");
  }
  if (gpus() < 2) std::printf("  (2 ranks SKIPPED: one GPU visible)\n");
}

TEST_CASE(dist_mismatched_requests_throw_on_every_rank, true) {
  const int p = gpus() >= 2 ? 2 : 1;
  gpu_group g(p);
  // Capacity below the share: every rank throws invalid_argument.
  int threw = 0;
  std::mutex m;
  std::barrier meet(p);
  try {
    g.each([&](int r) {
      std::uint32_t *k0, *k1;
      CU(cudaMalloc(&k0, 4096 * 4));
      CU(cudaMalloc(&k1, 4096 * 4));
      meet.arrive_and_wait();
      radix::cuda::double_buffer<std::uint32_t> kb(k0, k1);
      const std::uint64_t n = r == 0 ? 4000 : 10;
      try {
        radix::nccl::sort_keys(kb, n, n, g.comm(r), 0);
      } catch (const radix::invalid_argument& e) {
        std::lock_guard<std::mutex> l(m);
        ++threw;
        if (r == 0) std::printf("  (expected) %s\n", e.what());
      }
      CU(cudaFree(k0));
      CU(cudaFree(k1));
    });
  } catch (const std::exception& e) {
    CHECK_MSG(false, "unexpected %s", e.what());
  }
  if (p == 2) CHECK_MSG(threw == 2, "%d ranks threw", threw);
  // Different key types on the ranks.
  if (p == 2) {
    threw = 0;
    g.each([&](int r) {
      void *k0, *k1;
      CU(cudaMalloc(&k0, 4096 * 8));
      CU(cudaMalloc(&k1, 4096 * 8));
      meet.arrive_and_wait();
      try {
        if (r == 0) {
          radix::cuda::double_buffer<std::uint32_t> kb((std::uint32_t*)k0, (std::uint32_t*)k1);
          radix::nccl::sort_keys(kb, 100, 4096, g.comm(r), 0);
        } else {
          radix::cuda::double_buffer<std::uint64_t> kb((std::uint64_t*)k0, (std::uint64_t*)k1);
          radix::nccl::sort_keys(kb, 100, 4096, g.comm(r), 0);
        }
      } catch (const radix::invalid_argument&) {
        std::lock_guard<std::mutex> l(m);
        ++threw;
      }
      CU(cudaFree(k0));
      CU(cudaFree(k1));
    });
    CHECK_MSG(threw == 2, "%d ranks threw on mismatched key types", threw);
  }
  // Argsort is not distributed: a clear error (on one rank: no peer waits).
  gpu_group one(1);
  one.each([&](int) {
    std::uint32_t* k;
    std::uint32_t* idx;
    CU(cudaMalloc(&k, 400));
    CU(cudaMalloc(&idx, 400));
    auto req = radix::cuda::detail::argsort_request(k, idx, 100, radix::options{});
    bool ok = false;
    try {
      radix::nccl::sort(req, radix::cuda::alternates{k, nullptr}, 100, one.comm(0), 0);
    } catch (const radix::invalid_argument&) {
      ok = true;
    }
    CHECK_MSG(ok, "argsort was not rejected");
    CU(cudaFree(k));
    CU(cudaFree(idx));
  });
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // a hang shows its last case
  // One process, several GPUs: lazy kernel loading would stall every GPU
  // while a rank waits in NCCL (include/radix/nccl.hpp). Before CUDA starts.
  setenv("CUDA_MODULE_LOADING", "EAGER", 0);
  const int count = gpus();
  if (count == 0) {
    std::printf("SKIPPED: no CUDA device visible; the distributed sort tests did not run\n");
    return 77;
  }
  const std::string mode = argc > 1 ? argv[1] : "";
  std::printf("%d GPU(s) visible\n", count);
  int ran = 0;
  for (auto& t : ct::registry()) {
    if (mode == "--small" && !t.small) continue;
    if (!mode.empty() && mode != "--small" && mode != t.name) continue;
    const int before = ct::failures();
    std::printf("[ RUN  ] %s\n", t.name);
    std::fflush(stdout);
    try {
      t.fn();
    } catch (const std::exception& e) {
      ++ct::failures();
      std::printf("  exception: %s\n", e.what());
    }
    std::printf("[ %s ] %s\n", ct::failures() == before ? " OK " : "FAIL", t.name);
    ++ran;
  }
  std::printf("%d cases, %d failures\n", ran, ct::failures());
  return ct::failures() ? 1 : 0;
}
