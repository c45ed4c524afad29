// radix CLI — argument parsing (see args.hpp).
#include "args.hpp"

#include <cctype>
#include <cstdio>
#include <limits>

namespace radix_cli {
namespace {

const option_spec* find_long(const std::vector<option_spec>& specs, std::string_view name) {
  for (const auto& s : specs)
    if (s.long_name == name) return &s;
  return nullptr;
}

const option_spec* find_short(const std::vector<option_spec>& specs, char c) {
  for (const auto& s : specs)
    if (s.short_name != 0 && s.short_name == c) return &s;
  return nullptr;
}

std::string display_name(const option_spec& s) { return "--" + s.long_name; }

void apply_option(const option_spec& s, const std::string& value) {
  try {
    s.apply(value);
  } catch (const usage_error& e) {
    if (s.takes_value)
      throw usage_error("invalid value '" + value + "' for " + display_name(s) + ": " + e.what());
    throw usage_error(display_name(s) + ": " + e.what());
  }
}

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

std::uint64_t digits_to_u64(std::string_view s) {
  if (!all_digits(s)) throw usage_error("not a number");
  std::uint64_t v = 0;
  for (char c : s) {
    const std::uint64_t d = std::uint64_t(c - '0');
    if (v > (std::numeric_limits<std::uint64_t>::max() - d) / 10) throw usage_error("too large");
    v = v * 10 + d;
  }
  return v;
}

std::uint64_t checked_mul(std::uint64_t a, std::uint64_t b) {
  if (a != 0 && b > std::numeric_limits<std::uint64_t>::max() / a) throw usage_error("too large");
  return a * b;
}

std::uint64_t checked_pow(std::uint64_t base, std::uint64_t exp) {
  std::uint64_t r = 1;
  for (std::uint64_t i = 0; i < exp; ++i) {
    r = checked_mul(r, base);
    if (base <= 1) break;
  }
  return r;
}

}  // namespace

bool wants_help(const std::vector<std::string>& argv) {
  for (const auto& a : argv) {
    if (a == "--") return false;
    if (a == "-h" || a == "--help") return true;
  }
  return false;
}

void parse_options(const std::vector<std::string>& argv, const std::vector<option_spec>& specs,
                   std::vector<std::string>* positionals) {
  bool only_positionals = false;
  for (std::size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    const bool looks_like_option = a.size() >= 2 && a[0] == '-' && !std::isdigit(static_cast<unsigned char>(a[1]));
    if (only_positionals || !looks_like_option) {
      if (!positionals) throw usage_error("unexpected argument '" + a + "'");
      positionals->push_back(a);
      continue;
    }
    if (a == "--") {
      only_positionals = true;
      continue;
    }
    const option_spec* spec = nullptr;
    std::string value;
    bool has_inline_value = false;
    if (a[1] == '-') {  // --name or --name=value
      const auto eq = a.find('=');
      const std::string name = a.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
      spec = find_long(specs, name);
      if (!spec) throw usage_error("unknown option '--" + name + "'");
      if (eq != std::string::npos) {
        value = a.substr(eq + 1);
        has_inline_value = true;
      }
    } else {  // -x or -xVALUE
      spec = find_short(specs, a[1]);
      if (!spec) throw usage_error("unknown option '" + a.substr(0, 2) + "'");
      if (a.size() > 2) {
        if (!spec->takes_value) throw usage_error("unknown option '" + a + "'");
        value = a.substr(2);
        has_inline_value = true;
      }
    }
    if (spec->takes_value) {
      if (!has_inline_value) {
        if (i + 1 >= argv.size()) throw usage_error(display_name(*spec) + " needs a value");
        value = argv[++i];
      }
    } else if (has_inline_value) {
      throw usage_error(display_name(*spec) + " takes no value");
    }
    apply_option(*spec, value);
  }
}

std::uint64_t parse_count(const std::string& s) {
  if (s.empty()) throw usage_error("empty");
  if (s[0] == '-') throw usage_error("must not be negative");
  if (const auto caret = s.find('^'); caret != std::string::npos) {
    return checked_pow(digits_to_u64(s.substr(0, caret)), digits_to_u64(s.substr(caret + 1)));
  }
  if (const auto e = s.find_first_of("eE"); e != std::string::npos && e > 0 && e + 1 < s.size()) {
    return checked_mul(digits_to_u64(s.substr(0, e)), checked_pow(10, digits_to_u64(s.substr(e + 1))));
  }
  // NUMBER[.FRACTION][K|M|G|T|P][B|iB]: units are powers of 1024.
  std::string_view v = s;
  if (v.size() > 2 && v.substr(v.size() - 2) == "iB") v.remove_suffix(2);
  else if (v.size() > 1 && v.back() == 'B' && std::isalpha(static_cast<unsigned char>(v[v.size() - 2]))) v.remove_suffix(1);
  int shift = 0;
  if (!v.empty() && std::isalpha(static_cast<unsigned char>(v.back()))) {
    switch (v.back()) {
      case 'k': case 'K': shift = 10; break;
      case 'm': case 'M': shift = 20; break;
      case 'g': case 'G': shift = 30; break;
      case 't': case 'T': shift = 40; break;
      case 'p': case 'P': shift = 50; break;
      default: throw usage_error(std::string("unknown unit '") + v.back() + "' (K, M, G, T or P: powers of 1024)");
    }
    v.remove_suffix(1);
  }
  const auto dot = v.find('.');
  const std::uint64_t whole = digits_to_u64(v.substr(0, dot));
  std::uint64_t r = checked_mul(whole, std::uint64_t(1) << shift);
  if (dot == std::string_view::npos) return r;
  // A fraction of a unit ("1.5G") must come to a whole number.
  const std::string_view frac = v.substr(dot + 1);
  if (frac.size() > 15) throw usage_error("too many digits after the point");
  const std::uint64_t num = digits_to_u64(frac), den = checked_pow(10, frac.size());
  const unsigned __int128 scaled = (unsigned __int128)num << shift;
  if (scaled % den != 0) throw usage_error("not a whole number");
  const std::uint64_t add = std::uint64_t(scaled / den);
  if (r > std::numeric_limits<std::uint64_t>::max() - add) throw usage_error("too large");
  return r + add;
}

long long parse_int(const std::string& s, long long lo, long long hi) {
  std::string_view v = s;
  bool neg = false;
  if (!v.empty() && (v[0] == '-' || v[0] == '+')) {
    neg = v[0] == '-';
    v.remove_prefix(1);
  }
  if (!all_digits(v)) throw usage_error("not an integer");
  // Accumulated as unsigned, so that the most negative value parses too.
  const unsigned long long limit = neg ? 0ull - static_cast<unsigned long long>(std::numeric_limits<long long>::min())
                                       : static_cast<unsigned long long>(std::numeric_limits<long long>::max());
  unsigned long long u = 0;
  for (char c : v) {
    const unsigned d = unsigned(c - '0');
    if (u > (limit - d) / 10) throw usage_error("out of range");
    u = u * 10 + d;
  }
  const long long r = neg ? static_cast<long long>(0ull - u) : static_cast<long long>(u);
  if (r < lo || r > hi)
    throw usage_error("must be between " + std::to_string(lo) + " and " + std::to_string(hi));
  return r;
}

std::string parse_choice(const std::string& s, std::initializer_list<std::string_view> choices) {
  std::string list;
  for (auto c : choices) {
    if (s == c) return s;
    if (!list.empty()) list += ", ";
    list += c;
  }
  throw usage_error("expected one of: " + list);
}

std::pair<int, int> parse_bit_range(const std::string& s, int max) {
  const auto colon = s.find(':');
  if (colon == std::string::npos) throw usage_error("expected BEGIN:END, e.g. 0:10");
  const auto num = [&](const std::string& part, const char* what) {
    try {
      return int(parse_int(part, 0, max));
    } catch (const usage_error& e) {
      throw usage_error(std::string(what) + " " + e.what());
    }
  };
  const int b = num(s.substr(0, colon), "BEGIN");
  const int e = num(s.substr(colon + 1), "END");
  if (b > e) throw usage_error("BEGIN must not exceed END");
  return {b, e};
}

std::string format_bytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (bytes >= 1024.0 && u < 4) {
    bytes /= 1024.0;
    ++u;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", bytes, units[u]);
  return buf;
}

}  // namespace radix_cli
