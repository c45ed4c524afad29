// Keys wider than 64 bits (byte strings, 128-bit integers) are sorted LSD
// over 64-bit chunks, each chunk a stable radix sort of its own (Ha, Krüger & Silva 2009,
// §4.7: sort a key part with an index, then gather). This header says which
// chunks a key has, where each lies in memory and which of its bits the
// requested bit range keeps; every engine and the tests plan with it.
#pragma once
#include <cstddef>
#include <cstdint>

#include "radix/core/config.hpp"

namespace radix::core {

/// One chunk of a wide key: `bytes` (1..8) bytes at byte `first_byte` of the
/// key, read as one unsigned number (big-endian for byte strings and keys
/// stored most significant byte first, little-endian for native integers).
struct wide_chunk {
  int lo_bit = 0;           ///< value bit of the chunk's least significant bit
  int bytes = 8;            ///< bytes the chunk covers
  int key_bytes = 8;        ///< width of the extracted number: 1, 2, 4 or 8
  int begin_bit = 0;        ///< the part of the requested bit range inside this chunk
  int end_bit = 64;
  int first_byte = 0;       ///< offset of the chunk's first byte in the key
  bool big_endian = true;   ///< assemble the bytes most significant first
  bool is_signed = false;   ///< the top chunk of a signed integer (sign bit flipped by the sort)
};

/// Most chunks a key can have (byte strings up to 255 bytes).
constexpr int max_wide_chunks = 32;

RADIX_HD constexpr int pow2_bytes(int b) { return b <= 1 ? 1 : b <= 2 ? 2 : b <= 4 ? 4 : 8; }

/// Fills `out` with the chunks of a key of `key_bytes` bytes that overlap
/// the bit range [begin_bit, end_bit) of its value (end_bit < 0: the whole
/// key), least significant first, and returns how many. `byte_string`: memcmp
/// order (the layout is the big-endian one); otherwise an integer, signed or
/// not, stored little-endian unless `stored_big_endian`.
///
/// Chunks are cut from the most significant end: every chunk but the least
/// significant is 8 bytes, so the most significant chunk is the key's
/// leading 8 bytes (a 10-byte key: bytes 0..7, then 8..9). Sorting that chunk
/// alone first usually decides the order (compute_perm on the GPU does so).
RADIX_HD constexpr int plan_wide_chunks(int key_bytes, bool byte_string, bool is_signed, bool stored_big_endian,
                                        int begin_bit, int end_bit, wide_chunk* out) {
  const int L = key_bytes;
  const int end = end_bit < 0 ? 8 * L : end_bit;
  const int chunks = (L + 7) / 8;
  const int rem = L % 8;
  const bool be = byte_string || stored_big_endian;
  int k = 0;
  int low_bytes = 0;  // bytes of the key below this chunk
  for (int c = 0; c < chunks; ++c) {
    const int cb = c == 0 && rem ? rem : 8;
    const int lo = 8 * low_bytes;
    const int rb = begin_bit > lo ? begin_bit : lo;
    const int re = end < lo + 8 * cb ? end : lo + 8 * cb;
    const int first = be ? L - low_bytes - cb : low_bytes;
    low_bytes += cb;
    if (rb >= re) continue;  // outside the bit range: no pass
    wide_chunk w;
    w.lo_bit = lo;
    w.bytes = cb;
    w.key_bytes = pow2_bytes(cb);
    w.begin_bit = rb - lo;
    w.end_bit = re - lo;
    w.first_byte = first;
    w.big_endian = be;
    w.is_signed = !byte_string && is_signed && c == chunks - 1;
    out[k++] = w;
  }
  return k;
}

}  // namespace radix::core
