// radix CLI — what a file holds and how its elements compare, shared by
// `radix sort`, `radix check` and `radix gen`.
//
// A file is a sequence of fixed-size elements: plain keys (--type T) or
// records (--record-size B, key at --key-offset K of --key-type T). The key
// is a number (u8..u64, u128, i8..i64, i128, f16, bf16, f32, f64;
// little-endian unless `:be`) or a byte string `bytes:L` compared as an unsigned big-endian number
// (memcmp order, the sort benchmarks' 10-byte keys).
//
// The order is the library's (keys.hpp states it independently); for
// merging and checking every key is turned into a *normalised key*: bytes
// whose memcmp order is the sort order (bit range, direction and float
// order applied), so that one comparison serves every key type.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <radix/radix.hpp>

#include "args.hpp"
#include "generate.hpp"
#include "keys.hpp"

namespace radix_cli {

struct key_spec {
  bool is_bytes = false;    ///< bytes:L
  key_type type = key_type::u32;
  std::size_t bytes = 4;    ///< key width in bytes
  bool big_endian = false;  ///< numeric keys stored most significant byte first

  radix::key_desc desc() const;
  int bits() const { return int(bytes * 8); }
  std::string str() const;
};

/// "u32", "u32:be", "i64:le", "bytes:10". Throws usage_error.
key_spec parse_key_spec(const std::string& s);

struct element_layout {
  std::size_t elem_bytes = 4;  ///< bytes per element of the main file
  std::size_t key_offset = 0;
  key_spec key{};
  bool records = false;        ///< --record-size given
  /// Plain little-endian numeric keys: the file is a key array.
  bool plain_keys() const { return !records && !key.is_bytes && !key.big_endian && key_offset == 0; }
  std::string str() const;
};

/// How the sort compares (the options a sort and a check share).
struct order_spec {
  bool descending = false;
  radix::float_order floats = radix::float_order::numeric;
  int begin_bit = 0;
  int end_bit = -1;  ///< -1: the whole key
  int end(const key_spec& k) const { return end_bit < 0 ? k.bits() : end_bit; }
};

/// Turns an element into its normalised key (see the top of this file).
class normaliser {
 public:
  normaliser(const element_layout& l, const order_spec& o);
  /// Bytes of a normalised key.
  std::size_t size() const { return size_; }
  /// Writes the normalised key of the element at `elem` to out[0..size()).
  void operator()(const std::byte* elem, std::uint8_t* out) const;
  /// Numeric keys: the normalised key as one integer (same order, no bytes).
  bool numeric() const { return numeric_ != nullptr; }
  std::uint64_t key64(const std::byte* elem) const { return numeric_(elem + l_.key_offset, spec_); }

 private:
  element_layout l_;
  order_spec o_;
  sort_spec spec_{};
  std::size_t size_ = 8;
  std::vector<std::uint8_t> mask_;  // bytes keys: bits of the range
  std::uint64_t (*numeric_)(const std::byte*, const sort_spec&) = nullptr;
  // 128-bit keys: writes the 16-byte big-endian sort key (too wide for key64).
  void (*wide_)(const std::byte*, const sort_spec&, std::uint8_t*) = nullptr;
};

/// Order-independent checksum of a multiset of elements (optionally paired
/// with values): the sum, modulo 2^64, of a 64-bit hash of each element.
/// Equal checksums and counts before and after a sort mean nothing was lost,
/// duplicated or altered (up to hash collisions).
std::uint64_t element_hash(const std::byte* p, std::size_t n, std::uint64_t seed = 0);
/// Sum of element hashes over [0, count) on this thread; values may be null.
/// With row > 0 the elements are rows of `row` elements (elems[0] being
/// element `first` of the file), and each hash is seeded with its row
/// number: the checksum of the multiset of (row, element) pairs, which
/// changes if an element moves to another row.
std::uint64_t checksum_seq(const std::byte* elems, std::size_t elem_bytes, const std::byte* values, std::size_t value_bytes,
                           std::uint64_t count, std::uint64_t row = 0, std::uint64_t first = 0);
/// Sum of element hashes over [0, count), in parallel; values may be null.
std::uint64_t checksum(const std::byte* elems, std::size_t elem_bytes, const std::byte* values, std::size_t value_bytes,
                       std::uint64_t count, std::uint64_t row = 0, std::uint64_t first = 0);

/// Index of the first element that is out of order (ordered before its
/// predecessor), or `count` when the sequence is sorted. Parallel. With
/// row > 0 the elements are rows of `row` elements, each in order on its own
/// (the first element of a row is not compared with the one before it).
std::uint64_t first_unsorted(const std::byte* elems, std::size_t elem_bytes, std::uint64_t count, const normaliser& nz,
                             std::uint64_t row = 0);
/// The same over elements [b, e) of an array, one thread: the first i in
/// [max(b, 1), e) with elems[i] ordered before elems[i - 1] (in the same
/// row, when row > 0), or e.
std::uint64_t first_unsorted_in(const std::byte* elems, std::size_t elem_bytes, std::uint64_t b, std::uint64_t e,
                                const normaliser& nz, std::uint64_t row = 0);

/// Shared command-line options: --type / --record-size / --key-offset /
/// --key-type, and --descending / --bits / --float-order. `apply` checks
/// them together after parsing.
struct layout_options {
  std::string type, key_type, record_size, key_offset;
  bool descending = false;
  std::string bits, floats;
  void add_to(std::vector<option_spec>& specs, bool with_order);
  /// Resolves the layout; throws usage_error.
  element_layout layout() const;
  order_spec order(const element_layout& l) const;
};

extern const char* const layout_help;  ///< the help text of these options

}  // namespace radix_cli
