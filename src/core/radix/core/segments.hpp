// Segments (a batch of arrays in one buffer), as every engine and the tests
// read them on the host: where segment s begins and ends, which segment holds
// element i, and the checks of host offsets. The device code has its own
// reader of the same layouts (src/cuda/segments).
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

#include "radix/error.hpp"
#include "radix/sort.hpp"

namespace radix::core {

/// Read-only view of host-side segments (offsets in host memory, or uniform).
class segment_view {
 public:
  segment_view(const segments& s, std::uint64_t n) : s_(s), n_(n) {}

  std::uint64_t count() const { return s_.layout == segment_layout::none ? 1 : s_.count; }
  /// First element of segment s; begin(count()) is n.
  std::uint64_t begin(std::uint64_t s) const {
    switch (s_.layout) {
      case segment_layout::none: return s == 0 ? 0 : n_;
      case segment_layout::uniform: return s * s_.length;
      case segment_layout::offsets:
        if (s_.offset_bytes == 4) return static_cast<const std::uint32_t*>(s_.offsets)[s];
        return static_cast<const std::uint64_t*>(s_.offsets)[s];
    }
    return 0;
  }
  std::uint64_t end(std::uint64_t s) const { return begin(s + 1); }
  std::uint64_t length(std::uint64_t s) const { return end(s) - begin(s); }

  /// The segment holding element i (i < n); of several ending at the same
  /// place (empty ones), the last.
  std::uint64_t segment_of(std::uint64_t i) const {
    if (s_.layout == segment_layout::uniform) return i / s_.length;
    if (s_.layout == segment_layout::none) return 0;
    std::uint64_t lo = 0, hi = s_.count;  // invariant: begin(lo) <= i < begin(hi)
    while (hi - lo > 1) {
      const std::uint64_t mid = lo + (hi - lo) / 2;
      (begin(mid) <= i ? lo : hi) = mid;
    }
    return lo;
  }

  /// Calls f(s, begin, end) for every segment s, in order.
  template <class F>
  void for_each(F&& f) const {
    for (std::uint64_t s = 0, b = begin(0); s < count(); ++s) {
      const std::uint64_t e = end(s);
      f(s, b, e);
      b = e;
    }
  }

 private:
  segments s_;
  std::uint64_t n_;
};

/// The checks of a segmented request that read no memory (same words on
/// every entry point): the layout, the offsets' width and pointer, and that
/// uniform segments cover n exactly. Throws radix::invalid_argument.
inline void check_segments_shape(const segments& s, std::uint64_t n, operation op, int index_bytes,
                                 bool check_pointers) {
  auto bad = [](const std::string& what) { throw invalid_argument("radix: segments: " + what); };
  switch (s.layout) {
    case segment_layout::none: return;
    case segment_layout::uniform: {
      if (s.length == 0 && n != 0) bad("uniform segments of length 0 cannot hold n = " + std::to_string(n));
      const std::uint64_t len = s.length;
      if (len != 0 && (s.count > n / len || s.count * len != n))
        bad(std::to_string(s.count) + " segments of length " + std::to_string(len) + " do not make n = " +
            std::to_string(n));
      if (len == 0 && n == 0) break;
      if (op == operation::argsort && index_bytes == 4 && len > 0x100000000ull)
        bad("32-bit argsort indices need segments of at most 2^32 elements, got length " + std::to_string(len));
      break;
    }
    case segment_layout::offsets:
      if (s.offset_bytes != 4 && s.offset_bytes != 8)
        bad("offsets must be 4 or 8 bytes, not " + std::to_string(s.offset_bytes));
      if (s.offset_bytes == 4 && n > 0xFFFFFFFFull)
        bad("32-bit offsets cannot address n = " + std::to_string(n) + " elements; use 64-bit offsets");
      if (check_pointers && s.offsets == nullptr) bad("offsets is null (count + 1 entries are needed)");
      break;
    default: bad("unknown layout");
  }
}

/// Reads host offsets: the first is 0, the last n, none decreases, and no
/// segment is longer than 32-bit argsort indices can number. Returns the
/// longest segment's length.
inline std::uint64_t check_host_offsets(const segments& s, std::uint64_t n, operation op, int index_bytes) {
  const segment_view v(s, n);
  if (s.layout == segment_layout::uniform) return s.length;
  if (s.layout == segment_layout::none) return n;
  auto bad = [](const std::string& what) { throw invalid_argument("radix: segments: " + what); };
  if (v.begin(0) != 0) bad("offsets[0] is " + std::to_string(v.begin(0)) + ", not 0");
  if (v.begin(s.count) != n)
    bad("offsets[count] is " + std::to_string(v.begin(s.count)) + " but n is " + std::to_string(n));
  std::uint64_t longest = 0;
  for (std::uint64_t i = 0; i < s.count; ++i) {
    const std::uint64_t b = v.begin(i), e = v.begin(i + 1);
    if (e < b) bad("offsets decrease at segment " + std::to_string(i) + " (" + std::to_string(b) + " then " +
                   std::to_string(e) + ")");
    longest = std::max(longest, e - b);
  }
  if (op == operation::argsort && index_bytes == 4 && longest > 0x100000000ull)
    bad("32-bit argsort indices need segments of at most 2^32 elements; the longest has " + std::to_string(longest));
  return longest;
}

}  // namespace radix::core
