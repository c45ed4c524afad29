// A minimal test harness for the CUDA tests (no GoogleTest needed on the
// device machine): TEST cases register themselves, CHECK records failures,
// main() runs the selected cases. Exit 77 (ctest's SKIP_RETURN_CODE) when no
// GPU is visible, after printing why.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

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
