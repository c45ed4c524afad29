// radix CLI — hand-written argument parsing shared by every subcommand.
//
// A subcommand lists the options it accepts (option_spec); parse_options()
// walks argv, accepts `--name value`, `--name=value`, `-x value` and `-xVALUE`,
// and reports anything wrong as a usage_error (one line; exit status 2).
#pragma once
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace radix_cli {

/// Exit statuses shared by every subcommand (documented in `radix --help`).
inline constexpr int exit_ok = 0;
inline constexpr int exit_check_failed = 1;  ///< the result was wrong
inline constexpr int exit_usage = 2;         ///< bad option or bad value
inline constexpr int exit_runtime = 3;       ///< could not run: engine unavailable, out of memory, ...

/// A bad command line. The message is one line, without the program name.
class usage_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// One option a subcommand accepts.
struct option_spec {
  std::string long_name;  ///< without the dashes: "count"
  char short_name = 0;    ///< 'n' for -n; 0 for none
  bool takes_value = false;
  /// Called with the value (empty for flags). Throws usage_error with the
  /// reason the value is bad; the parser adds the option's name.
  std::function<void(const std::string&)> apply;
};

/// True when argv holds -h or --help before any `--` (help wins over errors).
bool wants_help(const std::vector<std::string>& argv);

/// Applies the options in argv. Arguments that are not options go to
/// `positionals`; when it is null they are an error.
void parse_options(const std::vector<std::string>& argv, const std::vector<option_spec>& specs,
                   std::vector<std::string>* positionals = nullptr);

// ---- value parsers: throw usage_error with the reason ------------------------

/// A non-negative integer: 1000000, 16M, 1.5G, 8GiB (K/M/G/T/P = 2^10 ...
/// 2^50, an optional B or iB after them), 2^24, 1e6. Overflow, a fraction
/// that does not come to a whole number and unknown units are errors.
std::uint64_t parse_count(const std::string& s);
/// parse(value) for an option whose value was kept as text until the whole
/// command line was read: the error names the option, as parse_options does.
template <class F>
auto option_value(const char* option, const std::string& value, F parse) {
  try {
    return parse(value);
  } catch (const usage_error& e) {
    throw usage_error("invalid value '" + value + "' for " + option + ": " + e.what());
  }
}
/// A (possibly negative) decimal integer in [lo, hi].
long long parse_int(const std::string& s, long long lo, long long hi);
/// One of `choices` (exact match); the error lists them.
std::string parse_choice(const std::string& s, std::initializer_list<std::string_view> choices);
/// "A:B" with A and B integers in [0, max] and A <= B.
std::pair<int, int> parse_bit_range(const std::string& s, int max);

/// "64.0 MiB" and the like.
std::string format_bytes(double bytes);

}  // namespace radix_cli
