// libFuzzer harness over the `radix` tool's command-line parsers
// (tools/args.hpp, tools/layout.hpp, tools/generate.hpp). Whatever the text,
// a parser returns a value that meets its contract or throws
// radix_cli::usage_error (exit status 2); any other exception, a crash or a
// hang is a finding. Simple numbers must round-trip through parse_count and
// parse_int, and a resolved file layout must describe a key that lies inside
// its element (checked by normalising a key from an exact-size heap element).
//
// Input: [0] which parser (mod 8), then its text; modes that need numbers
// take them from the first bytes of the text (missing bytes read as 0). The
// command-line mode (6, 7) reads [1] bit 0 (with the order options) and then
// arguments separated by NUL or newline.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <limits>
#include <string>
#include <vector>

#include "args.hpp"
#include "generate.hpp"
#include "layout.hpp"

namespace {

using namespace radix_cli;

[[noreturn]] void fail(const std::string& what, const std::string& input) {
  std::string shown;  // NULs separate arguments: show every byte
  for (unsigned char c : input) {
    char b[8];
    std::snprintf(b, sizeof b, c >= 0x20 && c < 0x7F && c != '\\' ? "%c" : "\\x%02x", c);
    shown += b;
  }
  std::fprintf(stderr, "fuzz_cli_args: %s (input \"%s\")\n", what.c_str(), shown.c_str());
  std::fflush(stderr);
  std::abort();
}

std::uint64_t take_u64(std::string& s, std::size_t bytes) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < bytes; ++i) v |= std::uint64_t(i < s.size() ? std::uint8_t(s[i]) : 0) << (8 * i);
  s.erase(0, std::min(bytes, s.size()));
  return v;
}

/// Runs f; a usage_error is a fine answer (returns false), anything else fails.
template <class F>
bool parses(F&& f, const char* what, const std::string& input) {
  try {
    f();
    return true;
  } catch (const usage_error& e) {
    if (std::string(e.what()).empty()) fail(std::string(what) + ": usage_error without a message", input);
    return false;
  } catch (const std::exception& e) {
    fail(std::string(what) + " threw a non-usage exception: " + e.what(), input);
  } catch (...) {
    fail(std::string(what) + " threw a non-std exception", input);
  }
}

/// parse_count on numbers it must accept, from 8 bytes of the input.
void count_round_trip(std::string s) {
  const std::uint64_t x = take_u64(s, 8);
  const int form = s.empty() ? 0 : std::uint8_t(s[0]) % 4;
  std::string text;
  std::uint64_t want = 0;
  bool fits = true;
  switch (form) {
    case 0:  // plain decimal
      text = std::to_string(x);
      want = x;
      break;
    case 1: {  // binary unit suffix
      static const char units[] = {'K', 'M', 'G', 'T'};
      const int u = int(x & 3);
      const std::uint64_t v = x >> 2;
      const int shift = 10 * (u + 1);
      text = std::to_string(v) + units[u];
      fits = v <= (std::numeric_limits<std::uint64_t>::max() >> shift);
      want = v << shift;
      break;
    }
    case 2: {  // B^E
      const std::uint64_t b = x & 0xFFFF, e = (x >> 16) & 0x7F;
      text = std::to_string(b) + "^" + std::to_string(e);
      want = 1;
      for (std::uint64_t i = 0; i < e && fits; ++i) {
        if (b != 0 && want > std::numeric_limits<std::uint64_t>::max() / b) fits = false;
        want *= b;
      }
      break;
    }
    default: {  // MeE
      const std::uint64_t m = x & 0xFFFFFF, e = (x >> 24) % 24;
      text = std::to_string(m) + "e" + std::to_string(e);
      if (m == 0 && e > 19) return;  // 0 times a power that overflows: either answer will do
      unsigned __int128 w = m;
      for (std::uint64_t i = 0; i < e; ++i) w *= 10;  // < 2^24 * 10^23 < 2^128
      fits = e <= 19 && w <= std::numeric_limits<std::uint64_t>::max();
      want = std::uint64_t(w);
      break;
    }
  }
  std::uint64_t got = 0;
  const bool ok = parses([&] { got = parse_count(text); }, "parse_count", text);
  if (fits && !ok) fail("parse_count rejected a number that fits", text);
  if (!fits && ok) fail("parse_count accepted a number that overflows: " + std::to_string(got), text);
  if (ok && got != want) fail("parse_count gave " + std::to_string(got) + ", expected " + std::to_string(want), text);
}

void int_round_trip(std::string s) {
  long long a = (long long)take_u64(s, 8), b = (long long)take_u64(s, 8);
  if (a > b) std::swap(a, b);
  long long v = 0;
  if (parses([&] { v = parse_int(s, a, b); }, "parse_int", s) && (v < a || v > b))
    fail("parse_int returned " + std::to_string(v) + " outside [" + std::to_string(a) + ", " + std::to_string(b) + "]", s);
  // Every value in range, written in decimal, reads back exactly.
  const long long x = (long long)take_u64(s, 8);
  if (x >= a && x <= b) {
    const std::string t = std::to_string(x);
    long long y = 0;
    if (!parses([&] { y = parse_int(t, a, b); }, "parse_int", t) || y != x) fail("parse_int does not round-trip", t);
  }
}

void bit_range(std::string s) {
  const int max = int(take_u64(s, 1) % 130);
  std::pair<int, int> r;
  if (parses([&] { r = parse_bit_range(s, max); }, "parse_bit_range", s) &&
      !(0 <= r.first && r.first <= r.second && r.second <= max))
    fail("parse_bit_range returned " + std::to_string(r.first) + ":" + std::to_string(r.second) + " for max " +
             std::to_string(max), s);
}

void key_spec_text(const std::string& s) {
  key_spec k;
  if (!parses([&] { k = parse_key_spec(s); }, "parse_key_spec", s)) return;
  if (k.is_bytes ? (k.bytes < 1 || k.bytes > 255) : (k.bytes != 1 && k.bytes != 2 && k.bytes != 4 && k.bytes != 8 && k.bytes != 16))
    fail("parse_key_spec gave a key of " + std::to_string(k.bytes) + " bytes", s);
  key_spec again;
  if (!parses([&] { again = parse_key_spec(k.str()); }, "parse_key_spec", k.str()) || again.is_bytes != k.is_bytes ||
      again.bytes != k.bytes || again.big_endian != k.big_endian || (!k.is_bytes && again.type != k.type))
    fail("parse_key_spec(str()) differs from the first parse", s);
}

void distribution_text(std::string s) {
  const int bits = 8 << (take_u64(s, 1) % 5);
  dist_spec d;
  if (!parses([&] { d = parse_distribution(s); }, "parse_distribution", s)) return;
  dist_spec again;
  if (!parses([&] { again = parse_distribution(dist_str(d)); }, "parse_distribution", dist_str(d)) ||
      again.kind != d.kind || again.param != d.param)
    fail("parse_distribution(dist_str()) differs from the first parse", s);
  parses([&] { check_dist(d, bits); }, "check_dist", s);
}

/// A command line of layout options (split at NUL and newline), as
/// `radix sort` / `radix check` take them, resolved as they resolve it.
void layout_command_line(const std::string& s) {
  if (s.empty()) return;
  const bool with_order = std::uint8_t(s[0]) & 1;
  std::vector<std::string> argv;
  if (s.size() > 1) argv.emplace_back();
  for (std::size_t i = 1; i < s.size(); ++i) {
    if (s[i] == '\0' || s[i] == '\n') argv.emplace_back();
    else argv.back() += s[i];
  }
  layout_options lo;
  std::vector<option_spec> specs;
  lo.add_to(specs, with_order);
  std::uint64_t count = 0;
  bool flag = false;
  specs.push_back({"count", 'n', true, [&](const std::string& v) { count = parse_count(v); }});
  specs.push_back({"flag", 'f', false, [&](const std::string&) { flag = true; }});
  std::vector<std::string> positionals;
  (void)wants_help(argv);
  if (!parses([&] { parse_options(argv, specs, &positionals); }, "parse_options", s)) return;
  element_layout l;
  if (!parses([&] { l = lo.layout(); }, "layout_options::layout", s)) return;
  const std::string where = l.str();
  if (l.elem_bytes == 0 || l.key.bytes == 0) fail("empty element or key: " + where, s);
  // The key must lie inside the element; the sum must not wrap around.
  if (l.key_offset > l.elem_bytes || l.key.bytes > l.elem_bytes - l.key_offset)
    fail("the key does not lie inside the element: " + where + ", key_offset " + std::to_string(l.key_offset), s);
  if (!l.records && (l.key_offset != 0 || l.elem_bytes != l.key.bytes)) fail("plain keys with a layout: " + where, s);
  order_spec o;
  if (!parses([&] { o = lo.order(l); }, "layout_options::order", s)) return;
  if (!(0 <= o.begin_bit && o.begin_bit <= o.end(l.key) && o.end(l.key) <= l.key.bits()))
    fail("bit range " + std::to_string(o.begin_bit) + ":" + std::to_string(o.end_bit) + " for " + where, s);
  if (l.elem_bytes > (std::size_t(1) << 16)) return;  // big records: the checks above suffice
  // Two elements in one exact-size heap block: ASan sees any read outside.
  std::vector<std::byte> elems(2 * l.elem_bytes);
  for (std::size_t i = 0; i < elems.size(); ++i) elems[i] = std::byte(mix64(i) >> 56);
  normaliser nz(l, o);
  std::vector<std::uint8_t> out(nz.size());
  nz(elems.data(), out.data());
  (void)first_unsorted_in(elems.data(), l.elem_bytes, 0, 2, nz);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const int mode = data[0] % 8;
  const std::string s(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (mode) {
    case 0: {
      std::uint64_t v = 0;
      if (parses([&] { v = parse_count(s); }, "parse_count", s)) {
        // What it accepted reads back the same when written in decimal.
        std::uint64_t w = 0;
        const std::string t = std::to_string(v);
        if (!parses([&] { w = parse_count(t); }, "parse_count", t) || w != v) fail("parse_count does not round-trip", s);
      }
      break;
    }
    case 1: count_round_trip(s); break;
    case 2: int_round_trip(s); break;
    case 3: bit_range(s); break;
    case 4: key_spec_text(s); break;
    case 5: distribution_text(s); break;
    default: layout_command_line(s); break;
  }
  return 0;
}
