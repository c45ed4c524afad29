// What the applications' main() functions share around their own work:
// parsing with the usage exit (2), the choice of engines (77 when one named
// is not available), guarded steps (a failure is "could not run", 3), the
// report printed and kept for --out, the cells of its markdown tables, and
// the final verdict (1 when a check failed).
#pragma once
#include <radix/radix.hpp>

#include <cstdio>
#include <ctime>
#include <fstream>
#include <iostream>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli.hpp"

namespace apps {

/// Runs parse(); on a usage_error prints "program: message" and returns false
/// (the caller exits 2).
template <class F>
bool parsed(const char* program, F&& parse) {
  try {
    parse();
    return true;
  } catch (const usage_error& e) {
    std::fprintf(stderr, "%s: %s\n", program, e.what());
    return false;
  }
}

/// Runs f(); on an exception prints "program: message" and returns false (the
/// caller exits 3: could not run).
template <class F>
bool guarded(const char* program, F&& f) {
  try {
    f();
    return true;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", program, e.what());
    return false;
  }
}

/// The engines to run: those named (`asked`), in order, or else each of
/// `all` that is available here. One named but not available: a message and
/// nullopt, and the caller exits 77, so that a GPU test on a machine without
/// one counts as skipped rather than passed. `no_device` is the reason given
/// when the engine is built but cannot run.
inline std::optional<std::vector<std::string>> select_engines(const char* program, const std::vector<std::string>& asked,
                                                              const std::vector<std::string>& all, bool cuda_built,
                                                              const char* no_device) {
  const bool named = !asked.empty();
  std::vector<std::string> run;
  for (const auto& e : named ? asked : all) {
    const bool ok = e == "cpu"    ? radix::engine_available(radix::engine::cpu)
                    : e == "cuda" ? cuda_built && radix::engine_available(radix::engine::cuda)
                                  : radix::engine_available(radix::engine::opencl);
    if (ok) {
      run.push_back(e);
    } else if (named) {
      std::fprintf(stderr, "%s: engine %s not available here (%s): nothing run\n", program, e.c_str(),
                   e == "cuda" && !cuda_built ? "built without CUDA" : no_device);
      return std::nullopt;
    }
  }
  return run;
}

/// The report: printed as it grows, and kept for --out.
class report {
 public:
  /// Prints t and keeps it; returns the stream (to flush where the run goes on for a while).
  std::ostream& add(const std::string& t) {
    text_ += t;
    return std::cout << t;
  }
  const std::string& text() const { return text_; }
  /// Writes the report to `path` (nothing when empty); false, with a message, when that failed.
  bool write(const char* program, const std::string& path) const {
    if (path.empty()) return true;
    std::ofstream f(path);
    f << text_;
    f.close();
    if (!f) {
      std::fprintf(stderr, "%s: cannot write '%s'\n", program, path.c_str());
      return false;
    }
    return true;
  }

 private:
  std::string text_;
};

/// The exit status for `failed` failed checks (a message when there are any).
inline int verdict(const char* program, int failed) {
  if (failed) {
    std::fprintf(stderr, "%s: %d check(s) FAILED\n", program, failed);
    return 1;
  }
  return 0;
}

/// The report's date line: now, UTC.
inline std::string utc_now() {
  char b[64];
  const std::time_t t = std::time(nullptr);
  std::strftime(b, sizeof b, "%Y-%m-%d %H:%M:%S UTC", std::gmtime(&t));
  return b;
}

// ---- table cells; "—" where a value was not measured ----

/// Milliseconds with 3 to 4 significant digits.
inline std::string fmt(double ms) {
  if (ms < 0) return "—";
  char b[32];
  std::snprintf(b, sizeof b, ms < 1 ? "%.4f" : ms < 100 ? "%.3f" : "%.1f", ms);
  return b;
}
/// a / b as a factor ("1.23×"), with `decimals` digits after the point.
inline std::string ratio(double a, double b, int decimals = 2) {
  if (a <= 0 || b <= 0) return "—";
  char s[32];
  std::snprintf(s, sizeof s, "%.*f×", decimals, a / b);
  return s;
}
/// part / whole as a whole percentage.
inline std::string share(double part, double whole) {
  if (part < 0 || whole <= 0) return "—";
  char s[16];
  std::snprintf(s, sizeof s, "%.0f%%", 100 * part / whole);
  return s;
}

}  // namespace apps
