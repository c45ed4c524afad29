// The CUDA tuning cache as text (Ha, Krüger & Silva 2009, "Fast 4-way
// parallel radix sorting on GPUs", §5: "a calibration procedure consisting of
// a few sorts to select the best approach").
//
// Pure C++, no CUDA: the parsing, nearest-size lookup, path resolution and
// atomic writing of the file that `radix calibrate` writes and
// algorithm::automatic reads, so that CPU-only tests exercise all of it.
// One line per (device, driver, workload, n):
//   device | driver | workload | n | variant | median ms
// '#' starts a comment line; blank and malformed lines are ignored.
#pragma once
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "radix/error.hpp"

namespace radix::cuda_detail {

/// What a tuning entry applies to: key width and the width riding along
/// (0 keys only; the value width for pairs; the index width for argsort,
/// which sorts (key, index) pairs and so shares the pairs' entries).
struct workload {
  int key_bytes = 4;
  int value_bytes = 0;
  friend bool operator==(const workload&, const workload&) = default;
};

/// "u32 keys", "u64/u32 pairs".
inline std::string workload_name(const workload& w) {
  std::string s = "u" + std::to_string(w.key_bytes * 8);
  if (w.value_bytes == 0) return s + " keys";
  return s + "/u" + std::to_string(w.value_bytes * 8) + " pairs";
}

namespace tuning_text {

inline std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

/// A whole-field unsigned decimal; nullopt for anything else.
inline std::optional<std::uint64_t> parse_u64(std::string_view s) {
  std::uint64_t v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

/// "u<bits>" with bits a positive multiple of 8 -> bytes.
inline std::optional<int> parse_width(std::string_view s) {
  if (s.size() < 2 || s[0] != 'u') return std::nullopt;
  const auto bits = parse_u64(s.substr(1));
  if (!bits || *bits == 0 || *bits % 8 || *bits > 8 * 255) return std::nullopt;
  return int(*bits / 8);
}

}  // namespace tuning_text

/// Inverse of workload_name; nullopt when the text is not one.
inline std::optional<workload> parse_workload(std::string_view s) {
  using namespace tuning_text;
  s = trim(s);
  const auto sp = s.find(' ');
  if (sp == std::string_view::npos) return std::nullopt;
  const std::string_view widths = s.substr(0, sp), kind = trim(s.substr(sp + 1));
  const auto slash = widths.find('/');
  workload w;
  if (kind == "keys" && slash == std::string_view::npos) {
    const auto k = parse_width(widths);
    if (!k) return std::nullopt;
    w.key_bytes = *k;
    return w;
  }
  if (kind == "pairs" && slash != std::string_view::npos) {
    const auto k = parse_width(widths.substr(0, slash)), v = parse_width(widths.substr(slash + 1));
    if (!k || !v) return std::nullopt;
    w.key_bytes = *k;
    w.value_bytes = *v;
    return w;
  }
  return std::nullopt;
}

/// One line of the cache.
struct tuning_entry {
  std::string device, driver;
  workload w;
  std::uint64_t n = 0;
  std::string variant;  ///< radix::cuda::to_string text (parsed by the engine, not here)
  double ms = 0;
};

/// Device names go between '|' separators: keep them out of the name.
inline std::string sanitize_field(std::string s) {
  for (char& c : s)
    if (c == '|' || c == '\n' || c == '\r' || c == '#') c = '/';
  return std::string(tuning_text::trim(s));
}

/// The entry of one line; nullopt for comments, blank or malformed lines.
inline std::optional<tuning_entry> parse_tuning_line(std::string_view line) {
  using namespace tuning_text;
  line = trim(line);
  if (line.empty() || line.front() == '#') return std::nullopt;
  std::string_view f[6];
  for (int i = 0; i < 6; ++i) {
    const auto bar = line.find('|');
    if ((i < 5) != (bar != std::string_view::npos)) return std::nullopt;  // exactly 5 separators
    f[i] = trim(line.substr(0, bar));
    line = i < 5 ? line.substr(bar + 1) : std::string_view();
  }
  tuning_entry e;
  e.device = f[0];
  e.driver = f[1];
  const auto w = parse_workload(f[2]);
  const auto n = parse_u64(f[3]);
  if (e.device.empty() || e.driver.empty() || !w || !n || *n == 0 || f[4].empty()) return std::nullopt;
  e.w = *w;
  e.n = *n;
  e.variant = f[4];
  // strtod needs a terminated string; the time is informative, but a line
  // whose time is not a number is malformed all the same.
  const std::string ms(f[5]);
  char* end = nullptr;
  e.ms = std::strtod(ms.c_str(), &end);
  if (ms.empty() || end != ms.c_str() + ms.size() || !std::isfinite(e.ms) || e.ms < 0) return std::nullopt;
  return e;
}

/// The entries of `text` for this device and driver (the others are ignored).
inline std::vector<tuning_entry> parse_tuning_lines(std::string_view text, std::string_view device,
                                                    std::string_view driver) {
  std::vector<tuning_entry> out;
  while (!text.empty()) {
    const auto nl = text.find('\n');
    const auto line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    auto e = parse_tuning_line(line);
    if (e && e->device == device && e->driver == driver) out.push_back(std::move(*e));
  }
  return out;
}

/// The entry of workload `w` whose n is nearest to `n` in log2 (a tie goes to
/// the larger n: big sorts are where the choice matters most; among lines of
/// the same n the last wins, so a line appended by hand overrides). Null when
/// the workload has no entry.
inline const tuning_entry* nearest_entry(const std::vector<tuning_entry>& entries, const workload& w,
                                         std::uint64_t n) {
  const double target = std::log2(double(n < 1 ? 1 : n));
  const tuning_entry* best = nullptr;
  double best_d = 0;
  for (const auto& e : entries) {
    if (!(e.w == w)) continue;
    const double d = std::fabs(std::log2(double(e.n)) - target);
    if (!best || d < best_d || (d == best_d && e.n >= best->n)) {
      best = &e;
      best_d = d;
    }
  }
  return best;
}

inline std::string format_tuning_line(const tuning_entry& e) {
  char ms[32];
  std::snprintf(ms, sizeof ms, "%.4f", e.ms);
  return sanitize_field(e.device) + " | " + sanitize_field(e.driver) + " | " + workload_name(e.w) + " | " +
         std::to_string(e.n) + " | " + sanitize_field(e.variant) + " | " + ms;
}

/// The whole file: a header naming `when`, the kept lines (other devices'),
/// then `entries`.
inline std::string format_tuning_file(const std::string& when, const std::vector<std::string>& kept,
                                      const std::vector<tuning_entry>& entries) {
  std::string s = "# radix CUDA tuning cache, written by `radix calibrate` on " + when +
                  ". One line per workload and size;\n"
                  "# algorithm::automatic uses the line of the nearest n (in log2) for its device and driver.\n"
                  "# device | driver | workload | n | variant | median ms\n";
  for (const auto& l : kept) s += l + "\n";
  for (const auto& e : entries) s += format_tuning_line(e) + "\n";
  return s;
}

/// The path rule of radix::tuning_cache_path(), on given environment values
/// (null or empty: unset).
inline std::string tuning_cache_path_from(const char* radix_tuning_cache, const char* xdg_cache_home,
                                          const char* home) {
  auto set = [](const char* v) { return v != nullptr && *v != '\0'; };
  if (set(radix_tuning_cache)) return radix_tuning_cache;
  if (set(xdg_cache_home)) return std::string(xdg_cache_home) + "/radix/cuda-tuning.txt";
  if (set(home)) return std::string(home) + "/.cache/radix/cuda-tuning.txt";
  return "radix-cuda-tuning.txt";
}

/// Replaces the lines of (device, driver) in the cache at `path` by
/// `entries`, keeping every other device's and driver's lines. Atomic: a
/// reader sees the old file or the new one, never a part (temporary file in
/// the same folder, then rename). Creates the folder. Throws radix::error.
inline void write_tuning_cache(const std::string& path, const std::string& device, const std::string& driver,
                               const std::vector<tuning_entry>& entries) {
  namespace fs = std::filesystem;
  auto fail = [&](const std::string& why) {
    throw error("radix: cannot write the tuning cache " + path + ": " + why);
  };
  // Compare with the names as they will be written, so a rewrite replaces them.
  const std::string dev = sanitize_field(device), drv = sanitize_field(driver);
  std::vector<std::string> kept;
  {
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) {
      const auto e = parse_tuning_line(line);
      if (e && !(e->device == dev && e->driver == drv)) kept.push_back(format_tuning_line(*e));
    }
  }
  std::vector<tuning_entry> mine = entries;
  for (auto& e : mine) {
    e.device = dev;
    e.driver = drv;
  }
  char when[32] = "?";
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  if (gmtime_r(&now, &utc)) std::strftime(when, sizeof when, "%Y-%m-%dT%H:%MZ", &utc);
  const std::string text = format_tuning_file(when, kept, mine);

  const fs::path p(path);
  std::error_code ec;
  if (p.has_parent_path()) {
    fs::create_directories(p.parent_path(), ec);
    if (ec) fail("cannot create " + p.parent_path().string() + " (" + ec.message() + ")");
  }
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) {
      const int err = errno;
      out.close();
      fs::remove(tmp, ec);
      fail(err ? std::error_code(err, std::generic_category()).message() : "write failed");
    }
  }
  fs::rename(tmp, p, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove(tmp, ignored);
    fail(ec.message());
  }
}

}  // namespace radix::cuda_detail
