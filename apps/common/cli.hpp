// The applications' command-line helpers: a usage error (exit status 2),
// element counts written the way the whole project writes them, and integer
// option values checked against a range.
#pragma once
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace apps {

/// A bad command line; the message is one line.
struct usage_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// A count: 65536, 64K / 8M / 1G (2^10, 2^20, 2^30), 2^23, 1e6. `examples`
/// ends the error message ("(examples: ...)").
inline std::uint64_t parse_count(const std::string& s, const std::string& examples) {
  try {
    std::size_t pos = 0;
    if (auto caret = s.find('^'); caret != std::string::npos) {
      const unsigned long long b = std::stoull(s.substr(0, caret)), e = std::stoull(s.substr(caret + 1), &pos);
      if (b != 2 || e > 40 || caret + 1 + pos != s.size()) throw usage_error("");
      return 1ull << e;
    }
    if (s.find_first_of("eE") != std::string::npos) {
      const double d = std::stod(s, &pos);
      if (pos != s.size() || d < 0 || d > 1e13 || d != std::floor(d)) throw usage_error("");
      return std::uint64_t(d);
    }
    std::uint64_t v = std::stoull(s, &pos);
    if (pos + 1 == s.size()) {
      const char u = s[pos];
      v <<= u == 'K' || u == 'k' ? 10 : u == 'M' || u == 'm' ? 20 : u == 'G' || u == 'g' ? 30 : throw usage_error("");
    } else if (pos != s.size()) {
      throw usage_error("");
    }
    return v;
  } catch (const std::exception&) {
    throw usage_error("bad count '" + s + "' (examples: " + examples + ")");
  }
}

/// The value `v` of option `option` as an integer in [lo, hi].
inline long parse_int_option(const std::string& option, const std::string& v, long lo, long hi) {
  try {
    std::size_t pos = 0;
    const long x = std::stol(v, &pos);
    if (pos == v.size() && x >= lo && x <= hi) return x;
  } catch (const std::exception&) {
  }
  throw usage_error("option " + option + " needs an integer in " + std::to_string(lo) + ".." + std::to_string(hi) +
                    ", got '" + v + "'");
}

}  // namespace apps
