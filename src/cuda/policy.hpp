// Tuning of the CUDA engine, as data: one small printable struct per
// architecture, key width and value width. Kernels take threads and items per thread as
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
  bool early_counts;     ///< scatter: count digits (shared atomics) and publish before ranking (CUB's "early counts")
  int lookback_batch;    ///< predecessors a look-back reads at once (one round trip)
  constexpr int tile() const { return threads * items; }
};

std::ostream& operator<<(std::ostream&, const onesweep_policy&);

/// sm_90 (H100), per key width and value width (0: keys only). Ring: 1024
/// tiles = 2 MiB, look-back limit 256, tail groups of 256 tiles, look-back
/// batches of 8. Scatter tiles: 12 warps for 32- and 64-bit keys, chosen by
/// measurement (NOTES.md, timeline rows 17-23): keys only rank first; with
/// values, and 64-bit keys, the early counts win; long tiles (fewer, shorter
/// look-backs) win until shared memory or registers run out. Values wider
/// than 4 bytes take shorter tiles so that two blocks still fit an SM.
constexpr onesweep_policy sm90_policy(int key_bytes, int value_bytes) {
  auto make = [](int threads, int items, bool early) {
    return onesweep_policy{threads, items, 2, 8, 256, 4, 10, 256, 8, std::uint64_t(threads) * items, early, 8};
  };
  switch (key_bytes) {
    case 1:
    case 2: return make(512, 16, false);
    case 4:
      if (value_bytes == 0) return make(384, 28, false);
      return value_bytes <= 4 ? make(384, 27, true) : make(384, 16, true);
    default: return make(384, value_bytes == 0 ? 24 : 16, true);
  }
}

/// A/B slots for tuning experiments (NOTES.md), compiled in only with
/// RADIX_CUDA_ALT_POLICY_BUILD for 32- and 64-bit keys (keys only or 32-bit
/// values) and chosen per process with RADIX_CUDA_ALT_POLICY=1..3 (run.sh
/// stage altbench). Inputs small enough for one block still take the default
/// policy's single-tile kernel. Set up for the next measurements (NOTES.md,
/// "Where the time goes now"): longer tiles again, and 3 blocks per SM for
/// 32-bit keys (ptxas: 384 x 24 at 56 registers spills 44 bytes, 384 x 22
/// only 4); 512 x 20 has no spills at 64 registers.
constexpr onesweep_policy sm90_alt_policy(int key_bytes, int value_bytes, int which) {
  onesweep_policy p = sm90_policy(key_bytes, value_bytes);
  const bool k32_keys = key_bytes == 4 && value_bytes == 0;
  switch (which) {
    case 1: p.items += 4; break;  // longer tiles
    case 2:                       // 32-bit keys: 3 blocks per SM; else the other ranking order
      if (k32_keys) p.items = 24, p.min_blocks = 3;
      else p.early_counts = !p.early_counts;
      break;
    default:  // 32-bit keys: 16 warps; else look-back batches of 12
      if (k32_keys) p.threads = 512, p.items = 20;
      else p.lookback_batch = 12;
      break;
  }
  p.small_n = sm90_policy(key_bytes, value_bytes).small_n;
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
