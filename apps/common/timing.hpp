// The applications' measurement helpers, shared by the host engines and the
// CUDA files (nvcc compiles this header too): the median the tables print,
// a host stopwatch in milliseconds, and the host processor in words.
#pragma once
#include <algorithm>
#include <chrono>
#include <fstream>
#include <string>
#include <vector>

#include "parallel.hpp"

namespace apps {

/// The median of a list of times; -1 ("not measured") for an empty list.
inline double median(std::vector<double> v) {
  if (v.empty()) return -1;
  std::sort(v.begin(), v.end());
  const std::size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : 0.5 * (v[h - 1] + v[h]);
}

using clk = std::chrono::steady_clock;

/// Milliseconds from a to b.
inline double ms(clk::time_point a, clk::time_point b) { return std::chrono::duration<double, std::milli>(b - a).count(); }

/// The median of `reps` host-timed runs of f, after one untimed warm-up run
/// (page faults, scratch growth, caches).
template <class F>
double time_median(int reps, F&& f) {
  f();
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    const auto a = clk::now();
    f();
    t.push_back(ms(a, clk::now()));
  }
  return median(t);
}

/// The processor's model name from /proc/cpuinfo ("unknown CPU" elsewhere).
inline std::string cpu_name() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("model name", 0) == 0) {
      auto p = line.find(':');
      if (p != std::string::npos) return line.substr(p + 2);
    }
  return "unknown CPU";
}

/// The CPU engine's device line: the processor and the threads used (0: all).
inline std::string host_description(unsigned threads) {
  return cpu_name() + ", " + std::to_string(threads ? threads : radix_apps::hardware_threads()) + " threads";
}

}  // namespace apps
