// radix CLI — see layout.hpp.
#include "layout.hpp"

#include <algorithm>
#include <atomic>
#include <bit>

namespace radix_cli {

radix::key_desc key_spec::desc() const {
  if (is_bytes) return radix::byte_key_desc(bytes);
  return visit_key_type(type, []<class K>(std::type_identity<K>) { return radix::key_desc_of<K>(); });
}

std::string key_spec::str() const {
  if (is_bytes) return "bytes:" + std::to_string(bytes);
  return std::string(key_type_str(type)) + (big_endian ? ":be" : "");
}

key_spec parse_key_spec(const std::string& s) {
  key_spec k;
  if (s.rfind("bytes:", 0) == 0) {
    long long L = 0;
    try {
      L = parse_int(s.substr(6), 1, 255);
    } catch (const usage_error& e) {
      throw usage_error("the length L of bytes:L " + std::string(e.what()));
    }
    k.is_bytes = true;
    k.bytes = std::size_t(L);
    return k;
  }
  std::string name = s, order;
  if (const auto c = s.find(':'); c != std::string::npos) {
    name = s.substr(0, c);
    order = s.substr(c + 1);
  }
  try {
    k.type = parse_key_type(name);
  } catch (const usage_error& e) {
    throw usage_error(std::string(e.what()) + ", or bytes:L");
  }
  k.bytes = std::size_t(key_type_bits(k.type) / 8);
  if (!order.empty()) {
    if (order != "be" && order != "le") throw usage_error("byte order '" + order + "' is not be or le");
    k.big_endian = order == "be";
  }
  return k;
}

std::string element_layout::str() const {
  if (!records) return key.str() + " keys";
  return std::to_string(elem_bytes) + "-byte records, key " + key.str() + " at offset " + std::to_string(key_offset);
}

// ---- normalised keys ---------------------------------------------------------------

namespace {
template <class K, bool BigEndian>
K load_key(const std::byte* p) {
  unsigned char b[sizeof(K)];
  std::memcpy(b, p, sizeof(K));
  if constexpr (BigEndian) std::reverse(b, b + sizeof(K));
  K k;
  std::memcpy(&k, b, sizeof(K));
  return k;
}

template <class K, bool BigEndian>
std::uint64_t numeric_key(const std::byte* p, const sort_spec& s) {
  return s.sort_key(load_key<K, BigEndian>(p));
}

template <class K, bool BigEndian>
void wide_key(const std::byte* p, const sort_spec& s, std::uint8_t* out) {
  const radix::uint128 v = s.sort_key(load_key<K, BigEndian>(p));
  for (int j = 0; j < 16; ++j) out[j] = std::uint8_t(v >> (8 * (15 - j)));  // most significant first
}
}  // namespace

normaliser::normaliser(const element_layout& l, const order_spec& o) : l_(l), o_(o) {
  const int end = o.end(l.key);
  if (l.key.is_bytes) {
    size_ = l.key.bytes;
    mask_.assign(size_, 0);
    for (std::size_t j = 0; j < size_; ++j) {
      const int lo = int(8 * (size_ - 1 - j));  // the lowest bit of byte j in the big number
      for (int b = 0; b < 8; ++b)
        if (lo + b >= o.begin_bit && lo + b < end) mask_[j] |= std::uint8_t(1u << b);
    }
    return;
  }
  spec_.descending = o.descending;
  spec_.floats = o.floats;
  spec_.begin_bit = o.begin_bit;
  spec_.end_bit = end;
  visit_key_type(l.key.type, [&]<class K>(std::type_identity<K>) {
    if constexpr (sizeof(K) > 8) {
      size_ = sizeof(K);
      wide_ = l.key.big_endian ? &wide_key<K, true> : &wide_key<K, false>;
    } else {
      numeric_ = l.key.big_endian ? &numeric_key<K, true> : &numeric_key<K, false>;
    }
  });
}

void normaliser::operator()(const std::byte* elem, std::uint8_t* out) const {
  const std::byte* k = elem + l_.key_offset;
  if (numeric_) {
    std::uint64_t v = numeric_(k, spec_);
    v = __builtin_bswap64(v);  // most significant byte first: memcmp order
    std::memcpy(out, &v, 8);
    return;
  }
  if (wide_) {
    wide_(k, spec_, out);
    return;
  }
  const std::uint8_t flip = o_.descending ? 0xFF : 0x00;
  for (std::size_t j = 0; j < size_; ++j) out[j] = std::uint8_t((std::to_integer<std::uint8_t>(k[j]) ^ flip) & mask_[j]);
}

// ---- checksums and order checks ----------------------------------------------------

std::uint64_t element_hash(const std::byte* p, std::size_t n, std::uint64_t seed) {
  std::uint64_t h = seed ^ (0x9E3779B97F4A7C15ull * (n + 1));
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    std::uint64_t w;
    std::memcpy(&w, p + i, 8);
    h = (h ^ w) * 0xFF51AFD7ED558CCDull;
    h ^= h >> 32;
  }
  if (i < n) {
    std::uint64_t w = 0;
    std::memcpy(&w, p + i, n - i);
    h = (h ^ w ^ (std::uint64_t(n - i) << 59)) * 0xC4CEB9FE1A85EC53ull;
  }
  return mix64(h);
}

std::uint64_t checksum_seq(const std::byte* elems, std::size_t elem_bytes, const std::byte* values, std::size_t value_bytes,
                           std::uint64_t count, std::uint64_t row, std::uint64_t first) {
  // The row of element i and its place in that row, kept up to date without a division per element.
  std::uint64_t r = row ? first / row : 0, in_row = row ? first % row : 0;
  std::uint64_t s = 0;
  for (std::uint64_t i = 0; i < count; ++i) {
    std::uint64_t h = element_hash(elems + i * elem_bytes, elem_bytes, row ? mix64(r) : 0);
    if (values) h = element_hash(values + i * value_bytes, value_bytes, h);
    s += h;
    if (row && ++in_row == row) in_row = 0, ++r;
  }
  return s;
}

std::uint64_t checksum(const std::byte* elems, std::size_t elem_bytes, const std::byte* values, std::size_t value_bytes,
                       std::uint64_t count, std::uint64_t row, std::uint64_t first) {
  std::atomic<std::uint64_t> total{0};
  parallel_chunks(count, [&](std::uint64_t b, std::uint64_t e) {
    total.fetch_add(checksum_seq(elems + b * elem_bytes, elem_bytes, values ? values + b * value_bytes : nullptr,
                                 value_bytes, e - b, row, first + b));
  });
  return total.load();
}

std::uint64_t first_unsorted_in(const std::byte* elems, std::size_t elem_bytes, std::uint64_t b, std::uint64_t e,
                                const normaliser& nz, std::uint64_t row) {
  if (b == 0) b = 1;
  if (b >= e) return e;
  // The next element that starts a row: it is not compared with its predecessor.
  std::uint64_t row_start = row ? (b + row - 1) / row * row : ~std::uint64_t(0);
  const auto starts_row = [&](std::uint64_t i) {
    if (i != row_start) return false;
    row_start += row;
    return true;
  };
  if (nz.numeric()) {
    std::uint64_t prev = nz.key64(elems + (b - 1) * elem_bytes);
    for (std::uint64_t i = b; i < e; ++i) {
      const std::uint64_t cur = nz.key64(elems + i * elem_bytes);
      if (!starts_row(i) && cur < prev) return i;
      prev = cur;
    }
    return e;
  }
  std::vector<std::uint8_t> prev(nz.size()), cur(nz.size());
  nz(elems + (b - 1) * elem_bytes, prev.data());
  for (std::uint64_t i = b; i < e; ++i) {
    nz(elems + i * elem_bytes, cur.data());
    if (!starts_row(i) && std::memcmp(prev.data(), cur.data(), nz.size()) > 0) return i;
    prev.swap(cur);
  }
  return e;
}

std::uint64_t first_unsorted(const std::byte* elems, std::size_t elem_bytes, std::uint64_t count, const normaliser& nz,
                             std::uint64_t row) {
  std::atomic<std::uint64_t> first{count};
  parallel_chunks(count, [&](std::uint64_t b, std::uint64_t e) {
    const std::uint64_t i = first_unsorted_in(elems, elem_bytes, b, e, nz, row);
    if (i == e) return;
    std::uint64_t f = first.load();
    while (i < f && !first.compare_exchange_weak(f, i)) {
    }
  });
  return first.load();
}

// ---- the shared options ------------------------------------------------------------

const char* const layout_help =
    "What the file holds:\n"
    "  -t, --type T           plain keys of type T: u8 u16 u32 u64 u128 i8 i16 i32\n"
    "                         i64 i128 f16 bf16 f32 f64 (little-endian), or bytes:L;\n"
    "                         also spelled uint32, uint32_t, int8_t, float, float32,\n"
    "                         double, float64, half, float16, bfloat16, int128, ...\n"
    "      --record-size B    fixed-size records of B bytes ...\n"
    "      --key-offset K     ... whose key starts at byte K (default 0) ...\n"
    "      --key-type T       ... and has type T: a type above, T:be for a\n"
    "                         big-endian integer or float, or bytes:L for an L-byte\n"
    "                         string compared as an unsigned big-endian number\n"
    "                         (memcmp order; the sort benchmarks' keys are bytes:10\n"
    "                         at offset 0 of 100-byte records)\n";

void layout_options::add_to(std::vector<option_spec>& specs, bool with_order) {
  specs.push_back({"type", 't', true, [this](const std::string& v) { type = v; }});
  specs.push_back({"key-type", 0, true, [this](const std::string& v) { key_type = v; }});
  specs.push_back({"record-size", 0, true, [this](const std::string& v) { record_size = v; }});
  specs.push_back({"key-offset", 0, true, [this](const std::string& v) { key_offset = v; }});
  if (!with_order) return;
  specs.push_back({"descending", 0, false, [this](const std::string&) { descending = true; }});
  specs.push_back({"bits", 0, true, [this](const std::string& v) { bits = v; }});
  specs.push_back({"float-order", 0, true, [this](const std::string& v) { floats = parse_choice(v, {"numeric", "total"}); }});
}

element_layout layout_options::layout() const {
  element_layout l;
  if (!record_size.empty()) {
    if (!type.empty()) throw usage_error("--type is for plain key files; records take --key-type");
    if (key_type.empty()) throw usage_error("--record-size needs --key-type (and --key-offset if the key is not first)");
    const std::uint64_t rb = option_value("--record-size", record_size, [](const std::string& v) {
      const std::uint64_t b = parse_count(v);
      if (b == 0 || b > (std::uint64_t(1) << 24)) throw usage_error("must be 1..16M bytes");
      return b;
    });
    l.records = true;
    l.elem_bytes = std::size_t(rb);
    l.key = option_value("--key-type", key_type, parse_key_spec);
    l.key_offset = key_offset.empty() ? 0 : std::size_t(option_value("--key-offset", key_offset, parse_count));
    if (l.key_offset > l.elem_bytes || l.key.bytes > l.elem_bytes - l.key_offset)  // no overflow for huge offsets
      throw usage_error("the key (" + std::to_string(l.key.bytes) + " bytes at offset " + std::to_string(l.key_offset) +
                        ") does not fit in a record of " + std::to_string(l.elem_bytes) + " bytes");
    return l;
  }
  if (!key_offset.empty()) throw usage_error("--key-offset needs --record-size");
  if (!type.empty() && !key_type.empty()) throw usage_error("give --type or --key-type, not both");
  const std::string& t = !type.empty() ? type : key_type;
  if (t.empty()) throw usage_error("say what the file holds: --type T, or --record-size B --key-type T");
  l.key = option_value(!type.empty() ? "--type" : "--key-type", t, parse_key_spec);
  l.elem_bytes = l.key.bytes;
  return l;
}

order_spec layout_options::order(const element_layout& l) const {
  order_spec o;
  o.descending = descending;
  if (floats == "total") o.floats = radix::float_order::total;
  if (!bits.empty()) {
    const auto [a, b] = option_value("--bits", bits, [&](const std::string& v) { return parse_bit_range(v, l.key.bits()); });
    o.begin_bit = a;
    o.end_bit = b;
  }
  return o;
}

}  // namespace radix_cli
