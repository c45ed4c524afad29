// radix CLI — a progress line on stderr for long work: phase, bytes done,
// rate and time left, redrawn in place a few times a second once the work
// has taken more than a second. Silent unless enabled (a terminal and no
// --quiet, or --progress).
#pragma once
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

#include "args.hpp"

namespace radix_cli {

class progress {
 public:
  using clock = std::chrono::steady_clock;
  explicit progress(bool enabled) : on_(enabled) {}
  ~progress() { clear(); }

  /// Starts a phase of `total` bytes of work.
  void phase(std::string name, std::uint64_t total) {
    clear();
    name_ = std::move(name);
    detail_.clear();
    total_ = total;
    done_ = 0;
    start_ = last_ = clock::now();
  }
  /// Names what happens now without resetting the count ("sorting run 3 of 9").
  void detail(std::string d) {
    detail_ = std::move(d);
    draw(false);
  }
  void advance(std::uint64_t bytes) {
    done_ += bytes;
    draw(false);
  }
  /// Sets the bytes done so far (for work counted elsewhere).
  void set(std::uint64_t done) {
    done_ = done;
    draw(false);
  }
  /// Erases the line (before other output, and at the end).
  void clear() {
    if (on_ && shown_) std::fputs("\r\033[K", stderr);
    shown_ = false;
  }

 private:
  void draw(bool force) {
    if (!on_) return;
    const auto now = clock::now();
    const double since_start = std::chrono::duration<double>(now - start_).count();
    if (!force && (since_start < 1.0 || std::chrono::duration<double>(now - last_).count() < 0.25)) return;
    last_ = now;
    const double rate = since_start > 0 ? double(done_) / since_start : 0;
    std::string eta = "?";
    if (rate > 0 && total_ >= done_) {
      const long s = long(double(total_ - done_) / rate);
      char b[32];
      std::snprintf(b, sizeof b, "%ld:%02ld", s / 60, s % 60);
      eta = b;
    }
    const double pct = total_ ? 100.0 * double(done_) / double(total_) : 0;
    std::fprintf(stderr, "\r\033[K%s: %s / %s (%.0f%%), %s/s, %s left%s%s", name_.c_str(), format_bytes(double(done_)).c_str(),
                 format_bytes(double(total_)).c_str(), pct, format_bytes(rate).c_str(), eta.c_str(),
                 detail_.empty() ? "" : " - ", detail_.c_str());
    std::fflush(stderr);
    shown_ = true;
  }

  bool on_ = false, shown_ = false;
  std::string name_, detail_;
  std::uint64_t total_ = 0, done_ = 0;
  clock::time_point start_{}, last_{};
};

}  // namespace radix_cli
