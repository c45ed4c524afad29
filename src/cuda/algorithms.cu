// Choosing a CUDA algorithm: the variant text, the candidates the
// calibration times, and the automatic choice (options.algo, then
// RADIX_CUDA_ALGORITHM, then the tuning cache, then Onesweep).
#include <cstdlib>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "common/policy.hpp"
#include "device_sort.hpp"
#include "radix/core/environment.hpp"
#include "radix/cuda.hpp"
#include "tuning_cache.hpp"

namespace radix::cuda_detail {

std::ostream& operator<<(std::ostream& os, const multipass_tile_shape& t) {
  return os << t.threads << "x" << t.items << " (" << t.tile() << " keys)";
}

namespace {

/// The algorithm's name as radix prints it (operator<< of options.hpp).
std::string algo_name(algorithm a) {
  std::ostringstream os;
  os << a;
  return os.str();
}

/// Digit widths an algorithm has (closed sets; 0 = its default).
bool digit_bits_ok(algorithm a, int bits) {
  switch (a) {
    case algorithm::onesweep: return bits >= 0 && bits <= 16;  // honoured up to 8
    case algorithm::reduce_then_scan: return bits == 0 || bits == 1 || bits == 2 || bits == 4 || bits == 8;
    case algorithm::four_way: return bits >= 0 && bits <= 3;   // 1-2: the 4-way sort, 3: the 8-way
    case algorithm::split: return bits >= 0 && bits <= 4;
    default: return false;
  }
}

const char* digit_bits_text(algorithm a) {
  switch (a) {
    case algorithm::reduce_then_scan: return "1, 2, 4 or 8";
    case algorithm::four_way: return "1 or 2 (4-way) or 3 (8-way)";
    case algorithm::split: return "1 to 4";
    default: return "1 to 16";
  }
}

int default_bits(algorithm a) {
  switch (a) {
    case algorithm::reduce_then_scan: return 8;
    case algorithm::four_way: return 2;
    case algorithm::split: return 4;
    default: return 0;
  }
}

/// The variant with its defaults filled in, or an invalid_argument naming what is wrong.
radix::cuda::variant checked(radix::cuda::variant v, const char* where) {
  if (v.algo == algorithm::automatic) throw invalid_argument(std::string("radix: ") + where + ": no algorithm named");
  if (!digit_bits_ok(v.algo, v.digit_bits))
    throw invalid_argument(std::string("radix: ") + where + ": " + algo_name(v.algo) + " has digits of " +
                           digit_bits_text(v.algo) + " bits, not " + std::to_string(v.digit_bits));
  if (v.tile < 0 || v.tile >= radix::cuda::tile_shapes(v.algo))
    throw invalid_argument(std::string("radix: ") + where + ": " + algo_name(v.algo) + " has " +
                           std::to_string(radix::cuda::tile_shapes(v.algo)) + " tile shape(s), not tile " +
                           std::to_string(v.tile));
  if (v.digit_bits == 0) v.digit_bits = default_bits(v.algo);
  if (v.algo != algorithm::four_way) v.coalesced = true;
  return v;
}

}  // namespace
}  // namespace radix::cuda_detail

namespace radix::cuda {

using cuda_detail::algo_name;

std::string to_string(const variant& v) {
  std::string s = algo_name(v.algo);
  if (v.digit_bits) s += "/" + std::to_string(v.digit_bits);
  if (v.tile) s += "/t" + std::to_string(v.tile);
  if (v.algo == algorithm::four_way && !v.coalesced) s += "/elementwise";
  return s;
}

bool parse_variant(const std::string& text, variant& out) {
  std::vector<std::string> parts;
  std::stringstream ss(text);
  for (std::string p; std::getline(ss, p, '/');) parts.push_back(p);
  if (parts.empty()) return false;
  variant v;
  bool found = false;
  for (auto a : {algorithm::onesweep, algorithm::reduce_then_scan, algorithm::four_way, algorithm::split})
    if (parts[0] == algo_name(a)) {
      v.algo = a;
      found = true;
    }
  if (!found) return false;
  for (std::size_t i = 1; i < parts.size(); ++i) {
    const std::string& p = parts[i];
    if (p == "elementwise") v.coalesced = false;
    else if (p == "coalesced") v.coalesced = true;
    else if (p.size() > 1 && p[0] == 't' && p.find_first_not_of("0123456789", 1) == std::string::npos)
      v.tile = std::stoi(p.substr(1));
    else if (!p.empty() && p.size() < 3 && p.find_first_not_of("0123456789") == std::string::npos)
      v.digit_bits = std::stoi(p);
    else return false;
  }
  if (!cuda_detail::digit_bits_ok(v.algo, v.digit_bits) || v.tile < 0 || v.tile >= tile_shapes(v.algo)) return false;
  out = v;
  return true;
}

int tile_shapes(algorithm a) {
  switch (a) {
    case algorithm::reduce_then_scan: return int(std::size(cuda_detail::sm90_rts_tiles));
    case algorithm::four_way: return int(std::size(cuda_detail::sm90_four_way_tiles));
    case algorithm::split: return int(std::size(cuda_detail::sm90_split_tiles));
    case algorithm::onesweep: return 1;
    default: return 0;
  }
}

std::vector<variant> candidates() {
  std::vector<variant> v;
  v.push_back({algorithm::onesweep, 0, 0, true});
  for (int t = 0; t < tile_shapes(algorithm::reduce_then_scan); ++t)
    for (int bits : {8, 4, 2, 1}) v.push_back({algorithm::reduce_then_scan, bits, t, true});
  for (int t = 0; t < tile_shapes(algorithm::four_way); ++t)
    for (int bits : {2, 3})
      for (bool c : {true, false}) v.push_back({algorithm::four_way, bits, t, c});
  for (int t = 0; t < tile_shapes(algorithm::split); ++t) v.push_back({algorithm::split, 4, t, true});
  return v;
}

variant choose(const sort_request& r) {
  const options& o = r.opts;
  if (o.algo != algorithm::automatic) return cuda_detail::checked({o.algo, o.digit_bits, 0, true}, "options.algo");
  // The automatic choice may take any algorithm that honours the options: an
  // explicit digit width it does not have sends it to Onesweep.
  auto with_options = [&](variant v) -> variant {
    if (o.digit_bits != 0) {
      if (!cuda_detail::digit_bits_ok(v.algo, o.digit_bits)) return {algorithm::onesweep, o.digit_bits, 0, true};
      v.digit_bits = o.digit_bits;
    }
    return cuda_detail::checked(v, "automatic choice");
  };
  if (const char* env = core::env::get("RADIX_CUDA_ALGORITHM"); env && *env) {
    variant v;
    if (!parse_variant(env, v))
      throw invalid_argument(std::string("radix: RADIX_CUDA_ALGORITHM='") + env +
                             "' is not a variant (examples: onesweep, reduce_then_scan/8, four_way/2, "
                             "four_way/3/elementwise, split/4)");
    return with_options(v);
  }
  if (auto v = cuda_detail::cached_variant(r)) return with_options(*v);
  // A GPU with less shared memory per block than Onesweep's tile needs (the
  // tables are the H100's) takes the reduce-then-scan sort's smaller tiles.
  if (!cuda_detail::onesweep_fits(r)) return with_options({algorithm::reduce_then_scan, 8, 0, true});
  return {algorithm::onesweep, o.digit_bits, 0, true};
}

}  // namespace radix::cuda
