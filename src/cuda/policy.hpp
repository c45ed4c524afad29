// Tuning of the CUDA engine, as data: one small printable struct per
// architecture and key width. Kernels take threads and items per thread as
// template arguments read from these constexpr tables; everything else
// (ring size, look-back limit, small-input threshold) is a run-time value.
#pragma once
#include <cstdint>
#include <iosfwd>

namespace radix::cuda_detail {

struct onesweep_policy {
  int threads;           ///< threads per scatter block (>= 256: one per digit in the look-back)
  int items;             ///< keys per thread in a scatter tile
  int radix_bits;        ///< digit width (<= 8)
  int hist_threads;      ///< threads per block of the all-digit histogram
  int hist_vectors;      ///< 16-byte vectors per thread per histogram chunk
  int ring_log2;         ///< look-back ring: 2^ring_log2 tiles x 256 digits x 8 bytes
  int lookback_limit;    ///< L: a tile looks back at most this many tiles
  int tail_bits;         ///< tail iterator: tiles in a group may finish out of order
  std::uint64_t small_n; ///< at or below: one block sorts the whole input in one launch
  constexpr int tile() const { return threads * items; }
};

std::ostream& operator<<(std::ostream&, const onesweep_policy&);

/// sm_90 (H100). Tiles: 8-bit digits, 512 threads. Ring: 1024 tiles = 2 MiB,
/// look-back limit 512, tail groups of 32 tiles.
constexpr onesweep_policy sm90_policy(int key_bytes) {
  switch (key_bytes) {
    case 1: return {512, 16, 8, 256, 4, 10, 512, 5, 8192};
    case 2: return {512, 16, 8, 256, 4, 10, 512, 5, 8192};
    case 4: return {512, 15, 8, 256, 4, 10, 512, 5, 7680};
    default: return {512, 10, 8, 256, 4, 10, 512, 5, 5120};
  }
}

}  // namespace radix::cuda_detail
