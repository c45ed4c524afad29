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
  int min_blocks;        ///< scatter blocks per SM the register budget must allow (__launch_bounds__)
  int radix_bits;        ///< digit width (<= 8)
  int hist_threads;      ///< threads per block of the all-digit histogram
  int hist_vectors;      ///< 16-byte vectors per thread per histogram chunk
  int ring_log2;         ///< look-back ring: 2^ring_log2 tiles x 256 digits x 8 bytes
  int lookback_limit;    ///< L: a tile looks back at most this many tiles
  int tail_bits;         ///< tail iterator: tiles in a group may finish out of order
  std::uint64_t small_n; ///< at or below: one block sorts the whole input in one launch
  bool prefetch = false;   ///< scatter: cp.async the next tile's keys while the current one scatters
  constexpr int tile() const { return threads * items; }
};

std::ostream& operator<<(std::ostream&, const onesweep_policy&);

/// sm_90 (H100). Tiles: 8-bit digits, 512 threads. Ring: 1024 tiles = 2 MiB,
/// look-back limit 256, tail groups of 256 tiles (a tile waits for its slot
/// only when more than 1024 - 256 - 255 tiles are in flight: never here).
constexpr onesweep_policy sm90_policy(int key_bytes) {
  switch (key_bytes) {
    case 1: return {512, 16, 2, 8, 256, 4, 10, 256, 8, 8192};
    case 2: return {512, 16, 2, 8, 256, 4, 10, 256, 8, 8192};
    case 4: return {512, 15, 2, 8, 256, 4, 10, 256, 8, 7680};
    default: return {512, 10, 2, 8, 256, 4, 10, 256, 8, 5120};
  }
}

/// An alternative sm_90 policy for 32-bit keys (keys only, 32-bit values),
/// selected at run time with RADIX_CUDA_ALT_POLICY=1 for tuning experiments
/// (NOTES.md): now the scatter kernel prefetching the next tile's keys
/// (cp.async into a third shared buffer while the current tile scatters).
/// Earlier: __match_any_sync ranking (timeline row 8, worse than ballots).
constexpr onesweep_policy sm90_alt_policy(int key_bytes) {
  onesweep_policy p = sm90_policy(key_bytes);
  p.prefetch = true;
  return p;
}


/// A tile shape of the seed algorithms (src/cuda/seed/): threads per block and
/// keys per thread. variant::tile indexes the algorithm's table below; every
/// entry is a compiled instantiation.
struct seed_tile_shape {
  int threads;
  int items;
  constexpr int tile() const { return threads * items; }
};
std::ostream& operator<<(std::ostream&, const seed_tile_shape&);

/// reduce_then_scan (seed 003): the local sort is Onesweep's ranking, which
/// needs a thread per 8-bit digit (>= 256 threads). The third is Onesweep's
/// 32-bit-key tile: fewer, larger tiles make a smaller count matrix.
constexpr seed_tile_shape sm90_rts_tiles[] = {{256, 16}, {512, 8}, {512, 15}};
/// four_way (seed 000): the paper ran 128 threads x 2 keys on a G80; wider
/// tiles amortise the block scan on an H100. 16-bit packed counters: < 65536 keys.
constexpr seed_tile_shape sm90_four_way_tiles[] = {{256, 8}};
/// split (seed 002): the paper used 512 threads x 1 key.
constexpr seed_tile_shape sm90_split_tiles[] = {{256, 8}};

}  // namespace radix::cuda_detail
