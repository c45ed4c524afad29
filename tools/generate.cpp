// radix CLI — distribution names (see generate.hpp) and key type names.
#include "generate.hpp"

#include "args.hpp"

namespace radix_cli {

key_type parse_key_type(const std::string& s) {
  for (const auto& k : key_type_names) {
    if (s == k.name) return k.type;
    std::string_view aliases = k.aliases;
    while (!aliases.empty()) {
      const auto sp = aliases.find(' ');
      if (aliases.substr(0, sp) == s) return k.type;
      if (sp == std::string_view::npos) break;
      aliases.remove_prefix(sp + 1);
    }
  }
  throw usage_error("expected one of: u8, u16, u32, u64, u128, i8, i16, i32, i64, i128, f16, bf16, f32, f64");
}

const char* key_type_str(key_type t) {
  for (const auto& k : key_type_names)
    if (k.type == t) return k.name;
  return "?";
}

dist_spec parse_distribution(const std::string& s) {
  const auto colon = s.find(':');
  const std::string name = s.substr(0, colon);
  const bool has_param = colon != std::string::npos;
  const auto no_param = [&](distribution d) {
    if (has_param) throw usage_error("'" + name + "' takes no ':' parameter");
    return dist_spec{d, 0};
  };
  if (name == "uniform") return no_param(distribution::uniform);
  if (name == "sorted") return no_param(distribution::sorted);
  if (name == "reversed") return no_param(distribution::reversed);
  if (name == "nearly-sorted") return no_param(distribution::nearly_sorted);
  if (name == "all-equal") return no_param(distribution::all_equal);
  if (name == "zipf") return no_param(distribution::zipf);
  if (name == "few-unique") {
    if (!has_param) return {distribution::few_unique, 16};
    return {distribution::few_unique, int(parse_int(s.substr(colon + 1), 1, 1 << 24))};
  }
  if (name == "bits") {
    if (!has_param) throw usage_error("bits needs the number of random bits, e.g. bits:10");
    return {distribution::low_bits, int(parse_int(s.substr(colon + 1), 0, 128))};
  }
  throw usage_error(
      "expected one of: uniform, sorted, reversed, nearly-sorted, all-equal, few-unique[:M], zipf, bits:K");
}

std::string dist_str(const dist_spec& d) {
  switch (d.kind) {
    case distribution::uniform: return "uniform";
    case distribution::sorted: return "sorted";
    case distribution::reversed: return "reversed";
    case distribution::nearly_sorted: return "nearly-sorted";
    case distribution::all_equal: return "all-equal";
    case distribution::few_unique: return "few-unique:" + std::to_string(d.param);
    case distribution::zipf: return "zipf";
    case distribution::low_bits: return "bits:" + std::to_string(d.param);
  }
  return "?";
}

void check_dist(const dist_spec& d, int key_bits) {
  if (d.kind == distribution::low_bits && d.param > key_bits)
    throw usage_error("bits:" + std::to_string(d.param) + " exceeds the key width of " + std::to_string(key_bits) +
                      " bits");
}

const char* const dist_help =
    "  uniform        every bit random (floats: every finite value pattern equally\n"
    "                 likely, so all magnitudes and both signs; no inf, no NaN)\n"
    "  sorted         uniform keys sorted ascending (by value, whatever --descending says)\n"
    "  reversed       uniform keys sorted descending\n"
    "  nearly-sorted  sorted, then 1% of the positions swapped with random others\n"
    "  all-equal      one random value N times\n"
    "  few-unique[:M] M random values (default 16), each key picked at random among them\n"
    "  zipf           Zipf-like skew (s = 1): the r-th most common value appears about\n"
    "                 1/r as often as the most common; values themselves are random\n"
    "  bits:K         only the low K bits of the key's bit pattern random, the rest 0\n"
    "                 (signed: small non-negative numbers; floats: the raw pattern, so\n"
    "                 small K gives tiny positive numbers and inf/NaN can appear once\n"
    "                 K covers the whole exponent)\n";

}  // namespace radix_cli
