// A minimal test harness for the CUDA tests (no GoogleTest needed on the
// device machine): TEST cases register themselves, CHECK records failures,
// main() runs the selected cases. Exit 77 (ctest's SKIP_RETURN_CODE) when no
// GPU is visible, after printing why.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "radix/cuda.hpp"

namespace ct {

struct test_case {
  const char* name;
  bool small;  ///< part of the --small set (sanitizer runs)
  std::function<void()> fn;
};
inline std::vector<test_case>& registry() {
  static std::vector<test_case> r;
  return r;
}
inline int& failures() {
  static int f = 0;
  return f;
}
struct registrar {
  registrar(const char* n, bool small, std::function<void()> f) { registry().push_back({n, small, std::move(f)}); }
};

}  // namespace ct

#define RT_CAT2(a, b) a##b
#define RT_CAT(a, b) RT_CAT2(a, b)
#define TEST_CASE(name, small)                                                       \
  static void RT_CAT(test_, name)();                                                 \
  static ct::registrar RT_CAT(reg_, name)(#name, small, RT_CAT(test_, name));        \
  static void RT_CAT(test_, name)()

#define CHECK(cond)                                                                  \
  do {                                                                               \
    if (!(cond)) {                                                                   \
      ++ct::failures();                                                              \
      std::fprintf(stderr, "  CHECK failed: %s (%s:%d)\n", #cond, __FILE__, __LINE__); \
    }                                                                                \
  } while (0)

#define CHECK_MSG(cond, ...)                                                         \
  do {                                                                               \
    if (!(cond)) {                                                                   \
      ++ct::failures();                                                              \
      std::fprintf(stderr, "  CHECK failed: %s (%s:%d): ", #cond, __FILE__, __LINE__); \
      std::fprintf(stderr, __VA_ARGS__);                                             \
      std::fprintf(stderr, "\n");                                                    \
    }                                                                                \
  } while (0)

/// Checks a CUDA call in test code: prints it and exits with 2 on failure.
#define CU(call)                                                                                 \
  do {                                                                                           \
    cudaError_t e_ = (call);                                                                     \
    if (e_ != cudaSuccess) {                                                                     \
      std::fprintf(stderr, "CUDA error %s at %s:%d: %s\n", cudaGetErrorName(e_), __FILE__, __LINE__, #call); \
      std::exit(2);                                                                              \
    }                                                                                            \
  } while (0)

/// A device array of n T's, filled from and read back to host vectors.
template <class T>
struct dvec {
  T* p = nullptr;
  std::size_t n = 0;
  explicit dvec(std::size_t count) : n(count) {
    if (n) CU(cudaMalloc(&p, n * sizeof(T)));
  }
  explicit dvec(const std::vector<T>& h) : dvec(h.size()) { up(h); }
  ~dvec() {
    if (p) cudaFree(p);
  }
  void up(const std::vector<T>& h) {
    if (n) CU(cudaMemcpy(p, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  }
  std::vector<T> down() const {
    std::vector<T> h(n);
    if (n) CU(cudaMemcpy(h.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost));
    return h;
  }
};

/// The tests' random numbers (splitmix64): seeds printed by the cases.
inline std::uint64_t splitmix(std::uint64_t& s) {
  std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// An argsort of n device keys into device indices that also writes the
/// keys in sorted order (sort_request::sorted_keys), run with the device
/// API on the default stream (`variant`: an algorithm forced, else automatic).
template <class K>
void argsort_with_sorted_keys(const K* keys, void* indices, int index_bytes, K* sorted, std::uint64_t n,
                              const radix::options& o, const radix::segments& segs = {},
                              const radix::cuda::variant* variant = nullptr) {
  radix::sort_request r;
  r.op = radix::operation::argsort;
  r.key = radix::key_desc_of<K>();
  r.n = n;
  r.keys = const_cast<K*>(keys);
  r.indices = indices;
  r.index_bytes = std::uint8_t(index_bytes);
  r.sorted_keys = sorted;
  r.opts = o;
  r.segs = segs;
  const std::size_t need = variant ? radix::cuda::workspace_bytes(r, *variant) : radix::cuda::workspace_bytes(r);
  dvec<unsigned char> ws(need);
  if (variant) radix::cuda::sort(r, *variant, ws.p, need, 0);
  else radix::cuda::sort(r, ws.p, need, 0);
  CU(cudaDeviceSynchronize());
}
