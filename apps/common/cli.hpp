// The applications' command-line helpers: a usage error (exit status 2),
// element counts written the way the whole project writes them, integer
// option values checked against a range, and the option loop with the options
// every app has (-h, -e, --threads, --png, --out).
#pragma once
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace apps {

/// A bad command line; the message is one line.
struct usage_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// What parse_count accepts beyond plain digits, K and M.
struct count_syntax {
  std::string what = "count";  ///< the error message's noun
  bool large = true;           ///< also G (2^30) and 2^e
  double max_decimal = 1e13;   ///< the largest value written with an exponent (1e6)
};

/// A count: 65536, 64K / 8M / 1G (2^10, 2^20, 2^30), 2^23, 1e6. `examples`
/// ends the error message ("(examples: ...)").
inline std::uint64_t parse_count(const std::string& s, const std::string& examples, const count_syntax& syntax = {}) {
  try {
    std::size_t pos = 0;
    if (auto caret = s.find('^'); syntax.large && caret != std::string::npos) {
      const unsigned long long b = std::stoull(s.substr(0, caret)), e = std::stoull(s.substr(caret + 1), &pos);
      if (b != 2 || e > 40 || caret + 1 + pos != s.size()) throw usage_error("");
      return 1ull << e;
    }
    if (s.find_first_of("eE") != std::string::npos) {
      const double d = std::stod(s, &pos);
      if (pos != s.size() || d < 0 || d > syntax.max_decimal || d != std::floor(d)) throw usage_error("");
      return std::uint64_t(d);
    }
    std::uint64_t v = std::stoull(s, &pos);
    if (pos + 1 == s.size()) {
      const char u = s[pos];
      v <<= u == 'K' || u == 'k'                   ? 10
            : u == 'M' || u == 'm'                 ? 20
            : syntax.large && (u == 'G' || u == 'g') ? 30
                                                   : throw usage_error("");
    } else if (pos != s.size()) {
      throw usage_error("");
    }
    return v;
  } catch (const std::exception&) {
    throw usage_error("bad " + syntax.what + " '" + s + "' (examples: " + examples + ")");
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

/// The option being read and the words after it.
class option_reader {
 public:
  option_reader(int argc, char** argv) : argc_(argc), argv_(argv) {}
  /// Steps to the next option; false after the last.
  bool next() {
    if (++i_ >= argc_) return false;
    option_ = argv_[i_];
    return true;
  }
  const std::string& option() const { return option_; }
  /// The option's value: the next word.
  std::string value() {
    if (i_ + 1 >= argc_) throw usage_error("option " + option_ + " needs a value");
    return argv_[++i_];
  }
  /// The option's value as an integer in [lo, hi].
  long int_value(long lo, long hi) { return parse_int_option(option_, value(), lo, hi); }

 private:
  int argc_, i_ = 0;
  char** argv_;
  std::string option_;
};

/// The end of every app's --help: the options parse_options knows that no
/// other one lists, and the exit statuses they have in common (the app's own
/// text goes on with status 3).
inline constexpr const char* help_end = R"(      --out FILE      also write the tables as markdown to FILE
  -h, --help          this text

Exit status: 0 all checks passed, 1 a check failed, 2 bad command line,
)";

/// What every app's command line has.
struct common_options {
  std::string command;               ///< the whole command line, words joined by spaces (for the report)
  std::vector<std::string> engines;  ///< named with -e, in order; empty: all available
  std::string png, out;
  unsigned threads = 0;              ///< --threads (0: all)
};

/// Reads the command line. -h/--help prints `help` and exits 0; -e/--engine
/// takes a comma-separated list of `engines` or "all"; --threads, --png and
/// --out fill `c`. Every other option goes to own(option, reader), which
/// reads it and returns true, or returns false for an option it does not know.
template <class Own>
void parse_options(int argc, char** argv, const std::string& help, std::initializer_list<const char*> engines,
                   common_options& c, Own&& own) {
  for (int i = 0; i < argc; ++i) {
    if (i) c.command += ' ';
    c.command += argv[i];
  }
  std::string known;
  for (const char* e : engines) known += std::string(e) + ", ";
  known += "all";
  for (option_reader r(argc, argv); r.next();) {
    const std::string& o = r.option();
    if (o == "-h" || o == "--help") {
      std::fputs(help.c_str(), stdout);
      std::exit(0);
    } else if (o == "-e" || o == "--engine") {
      std::stringstream ss(r.value());
      for (std::string e; std::getline(ss, e, ',');) {
        bool ok = e == "all";
        for (const char* k : engines) ok = ok || e == k;
        if (!ok) throw usage_error("unknown engine '" + e + "' (" + known + ")");
        if (e != "all") c.engines.push_back(e);
        else c.engines.clear();
      }
    } else if (o == "--threads") {
      c.threads = unsigned(r.int_value(1, 4096));
    } else if (o == "--png") {
      c.png = r.value();
    } else if (o == "--out") {
      c.out = r.value();
    } else if (!own(o, r)) {
      throw usage_error("unknown option '" + o + "' (see --help)");
    }
  }
}

}  // namespace apps
