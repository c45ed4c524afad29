// Tuning of the CUDA engine, as data: one small printable struct per
// architecture, key width and value width. Kernels take threads and items per thread as
// template arguments read from these constexpr tables; everything else
// (ring size, look-back limit, small-input threshold) is a run-time value.
#pragma once
#include <cstdint>
#include <iosfwd>

namespace radix::cuda_detail {

/// How a scatter tile ranks its keys (scatter_agent explains each).
enum class rank_order : std::uint8_t {
  rank_then_count,  ///< stable ranks within warps first, kept in registers (two 16-bit ranks a register), then counts
  count_then_rank,  ///< CUB's "early counts": digits counted with shared atomics, published and scanned, then each
                    ///< rank is a position in the sorted tile (no rank kept: fewer registers, longer tiles)
};

/// When a scatter tile's values are read (needs count_then_rank unless with_keys).
enum class value_staging : std::uint8_t {
  with_keys,   ///< each value loaded as its key is staged (one exposed load a value)
  prefetched,  ///< loaded to registers with the keys, so their latency passes while the keys are counted
  late,        ///< CUB's order: keys staged and scattered first, then the values staged through the keys' buffer
               ///< (as wide as the wider of the two): half the staging memory, so longer tiles
};

/// Where the scatter finds a staged key's digit.
enum class digit_source : std::uint8_t {
  staged,      ///< a byte a key in shared memory, written as it is staged
  recomputed,  ///< from the staged key (with late values, the keys' scatter keeps them in registers for the values')
};

struct onesweep_policy {
  int threads;            ///< threads per scatter block (>= 256: one per digit in the look-back)
  int items;              ///< keys per thread in a scatter tile
  int min_blocks;         ///< scatter blocks per SM the register budget must allow (__launch_bounds__)
  std::uint64_t small_n;  ///< at or below: one block sorts the whole input in one launch
  std::uint64_t medium_n; ///< above small_n and at or below: sm90_small_tiles (0: none)
  rank_order ranking;
  int lookback_batch;     ///< predecessors a look-back reads at once (one round trip)
  value_staging values = value_staging::with_keys;
  digit_source digits = digit_source::staged;
  std::uint64_t mid_n = 0;  ///< above medium_n and at or below: sm90_mid_tiles (0: none)
  constexpr int tile() const { return threads * items; }
};

std::ostream& operator<<(std::ostream&, const onesweep_policy&);

/// The largest input sorted by comparison counting (rank_sort_agent: n^2
/// comparisons spread over every SM) rather than by a radix sort: 8192 keys;
/// 4096 of 1 byte (one 8-bit pass, cheap to beat); 16384 of 4 or 8 bytes
/// with values (or indices) of 8 bytes or more, whose radix passes move
/// the most bytes a key.
constexpr int sm90_rank_sort_max(int key_bytes, int value_bytes) {
  if (key_bytes == 1) return 4096;
  return key_bytes >= 4 && value_bytes >= 8 ? 16384 : 8192;
}

/// The largest input of 1-byte keys alone (every bit of the key in the sort)
/// that one block sorts by counting (counting_block_agent) in one launch,
/// where more keys take a histogram kernel and a multi-block write.
constexpr long long sm90_counting_block_max = 1 << 16;
/// The largest input of pairs of 1-byte keys that one block sorts by
/// counting (counting_pairs_agent, whose capacity is 4096): at 2^12 keys it
/// was no faster than comparison counting and its copy home. Argsorts keep
/// comparison counting, which writes their indices directly and was faster.
constexpr long long sm90_counting_pairs_max = 1 << 11;

/// The largest input one thread block cluster sorts in its distributed
/// shared memory (cluster_sort_agent) rather than by Onesweep's passes, above
/// the one-block sorts. Measured on an H200 against the routes it replaces
/// (bench/results/cuda-h200-2026-12-01-cluster-sort.md): keys alone of 2 and
/// 4 bytes gain up to 2^16 (a cluster of 16 blocks of 4096 keys), 8-byte keys
/// up to 2^15 (more passes, twice the bytes); keys with values gain only
/// where the keys are 2 bytes (three passes), up to 2^15; 1-byte keys keep
/// their counting sorts, and 4- and 8-byte keys with values gain nothing
/// within the noise. The route's own limit is 16 x 4096 keys.
constexpr long long sm90_cluster_sort_max(int key_bytes, int value_bytes) {
  if (key_bytes == 1) return 0;
  if (value_bytes == 0) return key_bytes == 8 ? 1 << 15 : 1 << 16;
  return key_bytes == 2 && value_bytes <= 4 ? 1 << 15 : 0;
}

/// The cluster sort's widest digit. 7 bits take a pass off 32-bit keys
/// (five, not six) for twice the counter scan in two of them: the kernel
/// alone ran 6-8 % faster at 2^15-2^16 on an H200. 8-byte keys save one pass
/// of eleven and pay in four (no faster at 2^15, slower at 2^14); 2-byte keys
/// take three passes either way (bench/results/cuda-h200-2026-12-02-cluster-digits.md).
constexpr int sm90_cluster_digit_bits(int key_bytes) { return key_bytes == 4 ? 7 : 6; }

/// The all-digit histogram kernel's shape, the same for every key width:
/// 256 threads x 4 vectors of 16 bytes, 3 blocks per SM (80 registers: the
/// next chunk's loads are in flight while one is counted; at 4 blocks it
/// spills).
struct histogram_shape {
  static constexpr int threads = 256;
  static constexpr int vectors = 4;     ///< 16-byte vectors a thread loads per chunk
  static constexpr int min_blocks = 3;  ///< __launch_bounds__
};

/// What the scatter kernel is compiled for: the scatter's fields of a policy,
/// normalised for the value type (scatter_shape_of). The kernel and
/// scatter_agent take it as a type whose `value` is the shape (CUB's policy
/// types): nvcc 13's host stubs cannot spell a class-type template argument
/// of a __global__ function.
struct scatter_shape {
  int threads, items, min_blocks, lookback_batch;
  rank_order ranking;
  value_staging values;
  digit_source digits;
  constexpr int tile() const { return threads * items; }
};

/// The scatter's shape of policy p for keys with (has_values) or without values.
constexpr scatter_shape scatter_shape_of(const onesweep_policy& p, bool has_values) {
  return scatter_shape{p.threads, p.items, p.min_blocks, p.lookback_batch, p.ranking,
                       has_values ? p.values : value_staging::with_keys, p.digits};
}

/// The largest input sorted in the small tiles (sm90_small_tiles; 0: none):
/// below about one wave of the long tiles a pass takes about one tile's
/// latency, and a short tile has less of it. Measured on an H100 against the
/// long tiles, n = 2^14..2^21 (bench/results/cuda-h100-2026-11-27-small-tiles.md):
/// 32-bit keys alone leave them at 2^19 (at 2^20 longer tiles won in every
/// shape tried; cuda-h100-2026-11-26.md), as 32-bit keys with 4- or 8-byte
/// values do (the mid tiles or the long ones take over), and 64-bit keys
/// alone or with 4-byte values; with 16-byte values, and 64-bit keys with
/// 8-byte values, they stop at 2^18. On the H100 the long tiles tied at the
/// first size above each limit; on an H200 they were 5-18 % faster there on
/// skewed keys (cuda-h200-2026-12-03-tile-limits.md: 64-bit keys alone at
/// 2^20-2^21, with 4-byte values at 2^20, with 8-byte values at 2^19, 32-bit
/// keys with 8-byte values at 2^20). 8- and 16-bit keys with values: 2^19.
/// Not compiled for 1- and 2-byte values (not measured), 8-bit keys alone (a
/// counting sort) and 16-bit keys alone (sm90_mid_tiles).
constexpr std::uint64_t sm90_small_tiles_max(int key_bytes, int value_bytes) {
  constexpr std::uint64_t k = 1024;
  if (value_bytes == 1 || value_bytes == 2) return 0;
  if (key_bytes <= 2) return value_bytes == 0 ? 0 : 512 * k;
  if (value_bytes == 16) return 256 * k;
  if (key_bytes == 4) return 512 * k;
  return value_bytes == 8 ? 256 * k : 512 * k;
}

/// Whether a pass writes a tile whose keys all have its digit unranked
/// (scatter_agent::whole_tile). Measured on an H100 against ranking every tile
/// (bench/results/cuda-h100-2026-11-27-whole-tiles.md), on 16 distinct keys:
/// keys alone 1.02-1.23x faster from 2^20 to 2^28, keys with values
/// 0.96-1.15x (geometric mean 1.05) up to 2^24 and 1.00-1.07x above it with
/// 32-bit keys and 4-byte values; above 2^24 with 64-bit keys or 8-byte
/// values 1-3 % slower (the values, loaded after the look-back half a tile at
/// a time, lose to the staged path's single round of loads), so there every
/// tile is ranked. An argsort into 8-byte indices carries 4-byte ones (its last
/// pass widens them) and keeps whole tiles: 0.99x at 2^28 with 32-bit keys.
constexpr bool sm90_whole_tiles(int key_bytes, int value_bytes, std::uint64_t n) {
  const bool wide = key_bytes == 8 || value_bytes >= 8;
  return value_bytes == 0 || !wide || n <= (std::uint64_t(1) << 24);
}

/// sm_90 (H100), per key width and value width (0: keys only). The ring
/// (1024 tiles = 2 MiB, look-back limit 256, tail groups of 256 tiles) is
/// ring_config's, a run-time value. Chosen by
/// measurement on an H100 (bench/results/cuda-h100-2026-11-22-*.md and
/// cuda-h100-2026-11-23-d.md; src/cuda/NOTES.md's timeline): long tiles (fewer,
/// shorter look-backs) win until shared memory or registers run out; the early
/// counts (which keep no ranks in registers) let 32-bit keys run three blocks
/// of 384 x 28 per SM; a look-back reads one predecessor at a time (two for
/// 64-bit keys: reading 8 at once was 1-10 % slower for every width measured).
/// 4-byte values go late (CUB's order: staged through the keys' buffer after
/// the keys are out), which frees the values' staging memory for longer tiles
/// at two blocks per SM: 384 x 36 for 32-bit keys, 384 x 24 for 64-bit keys.
/// Their digits are staged: with the digits kept in registers for the values'
/// scatter instead (digit_source::recomputed), the kernels of 32-bit keys with
/// 8-byte values spilled, and staging was faster with 4- and 8-byte values,
/// integers and floats (H100, bench/results/cuda-h100-2026-11-28-staged-digits.md).
/// 8-byte values go late too: 384 x 24 for 32-bit keys,
/// 384 x 20 for 64-bit keys (H100, bench/results/cuda-h100-2026-11-26.md:
/// u64/u64 pairs 2^27 22.4 -> 16.0 ms, u32/u64 7.39 -> 6.36 ms, against 384 x 16
/// with each value loaded as its key is staged).
/// 16-byte values go late too, in 384 x 12 tiles (at 384 x 16 their 64
/// registers of values spilled), digits recomputed for 32-bit keys and staged
/// for 64-bit keys (H100, bench/results/cuda-h100-2026-11-26-pairs16.md: u32
/// and v128 pairs 2^24 1.55 -> 1.24 ms, u64 3.42 -> 2.87 ms, against 384 x 16
/// with each value loaded as its key is staged). Other values: 32-bit keys
/// 512 x 20 (1- and 2-byte values), at two blocks. 16-bit keys alone: 384 x 36 with the early counts
/// and the digits recomputed (u16 keys 2^28 3.53 -> 2.73 ms against 512 x 16
/// ranked first), up to 2^22 keys 512 x 16 (sm90_mid_tiles). 8- and 16-bit
/// keys with 4-byte values: 512 x 16, early counts, late values, digits in
/// registers (H200, bench/results/cuda-h200-2026-11-26-small-and-narrow.md: u16/u32
/// 2^28 4.70 -> 4.09 ms, u8/u32 3.54 -> 3.29 ms); with other values 512 x 16
/// ranked first (not measured otherwise).
constexpr onesweep_policy sm90_policy(int key_bytes, int value_bytes) {
  auto make = [](int threads, int items, int min_blocks, rank_order ranking, std::uint64_t medium_n, int batch) {
    return onesweep_policy{threads, items, min_blocks, std::uint64_t(threads) * items, medium_n, ranking, batch};
  };
  constexpr auto early = rank_order::count_then_rank, ranks_first = rank_order::rank_then_count;
  const std::uint64_t medium = sm90_small_tiles_max(key_bytes, value_bytes);

  switch (key_bytes) {
    case 1:
    case 2: {
      if (value_bytes == 4) {  // late values, digits in registers (5-17 % faster than ranked first)
        // one predecessor a look-back step: a batch of 8 spilled at these registers
        onesweep_policy p = make(384, 24, 2, early, medium, 1);
        p.values = value_staging::late;
        p.digits = digit_source::recomputed;
        p.mid_n = std::uint64_t(1) << 24;  // sm90_mid_tiles (512 x 16) up to here
        return p;
      }
      if (key_bytes == 1 || value_bytes != 0) return make(512, 16, 2, ranks_first, medium, 8);
      onesweep_policy p = make(384, 36, 2, early, 0, 8);  // 16-bit keys only: long tiles with the early counts
      p.digits = digit_source::recomputed;
      p.mid_n = std::uint64_t(1) << 22;  // sm90_mid_tiles up to here
      return p;
    }
    case 4: {
      if (value_bytes == 0) return make(384, 28, 3, early, medium, 1);
      if (value_bytes == 4) {
        onesweep_policy p = make(384, 36, 2, early, medium, 1);
        p.values = value_staging::late;   // measured for 4-byte values only
        p.digits = digit_source::staged;
        p.mid_n = std::uint64_t(1) << 25;  // sm90_mid_tiles up to here
        return p;
      }
      if (value_bytes == 8) {
        onesweep_policy p = make(384, 24, 2, early, medium, 1);
        p.values = value_staging::late;  // through a keys' buffer widened to 8 bytes
        p.digits = digit_source::staged;
        return p;
      }
      if (value_bytes == 16) {
        onesweep_policy p = make(384, 12, 2, early, medium, 1);
        p.values = value_staging::late;  // through a keys' buffer widened to 16 bytes
        p.digits = digit_source::recomputed;
        return p;
      }
      return make(512, 20, 2, early, medium, 1);
    }
    default: {
      if (value_bytes == 0) return make(384, 26, 2, early, medium, 2);
      onesweep_policy p = make(384, value_bytes == 4 ? 24 : value_bytes == 8 ? 20 : value_bytes == 16 ? 12 : 16, 2,
                               early, medium, 1);
      if (value_bytes >= 4) p.values = value_staging::late;
      return p;
    }
  }
}

/// Small tiles for inputs between small_n and medium_n (sm90_small_tiles_max
/// says where): below a few waves of the long tiles, a pass takes about one
/// tile's latency, and a short tile has less of it (2^16 u32 keys: 7 long
/// tiles, 22 short ones). Values other than 4 bytes wide are loaded as their
/// keys are staged (the other stagings were not measured in these tiles).
constexpr onesweep_policy sm90_small_tiles(int key_bytes, int value_bytes) {
  onesweep_policy p = sm90_policy(key_bytes, value_bytes);
  p.threads = 384, p.items = 8, p.min_blocks = 3, p.ranking = rank_order::count_then_rank;
  // measured with 4-byte values prefetched, before late values became the long tiles' default
  p.values = value_bytes == 4 ? value_staging::prefetched : value_staging::with_keys;
  p.digits = digit_source::staged;
  return p;
}

/// Mid tiles between medium_n and mid_n. 32-bit keys with 4-byte values:
/// 384 x 24, values late, digits staged. From 2^20 to 2^24 they beat
/// both the small tiles and the long 384 x 36 (up to 12 %,
/// bench/results/cuda-h100-2026-11-26.md, mid sizes), which win again at 2^28
/// (three fewer look-back waits a tile where the passes are long). 16-bit
/// keys alone: 512 x 16 (u16 keys 2^16 0.042 -> 0.031 ms, 2^20 0.046 ->
/// 0.039 against 384 x 36, which is 10 % faster from 2^24; H200,
/// bench/results/cuda-h200-2026-11-26-small-and-narrow.md). 1- and 2-byte
/// keys with 4-byte values: 512 x 16 up to 2^24, the long 384 x 24 above
/// (which wins at 2^28 and loses at 2^20; H100,
/// bench/results/cuda-h100-2026-11-28-narrow-pairs.md).
constexpr onesweep_policy sm90_mid_tiles(int key_bytes, int value_bytes) {
  onesweep_policy p = sm90_policy(key_bytes, value_bytes);
  p.threads = key_bytes <= 2 ? 512 : 384, p.items = key_bytes <= 2 ? 16 : 24, p.min_blocks = 2;
  if (key_bytes <= 2 && value_bytes == 4) p.lookback_batch = 2;  // faster than one at 2^20
  p.ranking = rank_order::count_then_rank;
  p.values = value_staging::late, p.digits = key_bytes == 4 ? digit_source::staged : digit_source::recomputed;
  return p;
}

/// A/B slots for tuning experiments (NOTES.md), compiled in only with
/// RADIX_CUDA_ALT_POLICY_BUILD and chosen per process with
/// RADIX_CUDA_ALT_POLICY=1..3 (run.sh stage altbench). Inputs small enough
/// for one block, or for the small tiles, still take the default's kernels.
/// The slots now vary 16-byte values of 32- and 64-bit keys (late, as 4- and
/// 8-byte values are), and whether 32-bit keys with 4- or 8-byte values stage
/// their digits (the recomputed ones cost floats more than integers), and
/// the tile of 32-bit keys alone (measured: 384 x 20 is 1-6 % faster at 2^20
/// and 4-10 % slower from 2^22, so 384 x 28 stays; NOTES row 71);
/// 32-bit keys alone or with 4-byte values vary at every n above one tile (a
/// slot also replaces the small and mid tiles); other rows run the default:
/// {threads, items, blocks per SM, ranking, value staging, digit source}.
/// The shapes measured before are in src/cuda/NOTES.md's timeline and git
/// history.
constexpr onesweep_policy sm90_alt_policy(int key_bytes, int value_bytes, int which) {
  struct shape { int threads, items, min_blocks; rank_order ranking; value_staging values; digit_source digits; };
  constexpr auto early = rank_order::count_then_rank;
  constexpr auto late = value_staging::late, keys = value_staging::with_keys;
  constexpr auto staged = digit_source::staged, recomputed = digit_source::recomputed;
  constexpr shape slots[5][3] = {
      {{384, 16, 2, early, late, staged}, {384, 12, 2, early, late, recomputed},
       {256, 16, 3, early, late, staged}},                                                    // 32-bit keys, 16-byte values
      {{384, 16, 2, early, late, staged}, {384, 12, 2, early, late, staged},
       {256, 16, 3, early, late, staged}},                                                    // 64-bit keys, 16-byte values
      {{384, 24, 2, early, late, staged}, {384, 36, 2, early, late, staged},
       {384, 24, 2, early, late, recomputed}},                                                // 32-bit keys, 4-byte values
      {{384, 24, 2, early, late, staged}, {384, 20, 2, early, late, staged},
       {384, 24, 2, early, late, recomputed}},                                                // 32-bit keys, 8-byte values
      {{384, 20, 3, early, keys, staged}, {384, 16, 3, early, keys, staged},
       {384, 24, 3, early, keys, staged}}};                                                   // 32-bit keys alone
  onesweep_policy p = sm90_policy(key_bytes, value_bytes);
  const int row = value_bytes == 16 && key_bytes >= 4 ? (key_bytes == 4 ? 0 : 1)
                  : key_bytes == 4 && value_bytes == 4 ? 2
                  : key_bytes == 4 && value_bytes == 8 ? 3
                  : key_bytes == 4 && value_bytes == 0 ? 4
                                                       : -1;
  if (row < 0) return p;
  const shape sh = slots[row][which - 1];
  p.threads = sh.threads, p.items = sh.items, p.min_blocks = sh.min_blocks, p.ranking = sh.ranking;
  p.values = sh.values, p.digits = sh.digits;
  p.small_n = sm90_policy(key_bytes, value_bytes).small_n;
  return p;
}

/// A tile shape of the seed algorithms (src/cuda/multipass/): threads per block and
/// keys per thread. variant::tile indexes the algorithm's table below; every
/// entry is a compiled instantiation.
struct multipass_tile_shape {
  int threads;
  int items;
  constexpr int tile() const { return threads * items; }
};
std::ostream& operator<<(std::ostream&, const multipass_tile_shape&);

/// reduce_then_scan (the course slides "CUDA LSD Radix Sort"): the local sort
/// is Onesweep's ranking, which needs a thread per 8-bit digit (>= 256 threads). The third is Onesweep's
/// 32-bit-key tile: fewer, larger tiles make a smaller count matrix.
constexpr multipass_tile_shape sm90_rts_tiles[] = {{256, 16}, {512, 8}, {512, 15}};
/// four_way (Ha, Krüger & Silva 2009, "Fast 4-way parallel radix sorting on
/// GPUs"): the paper ran 128 threads x 2 keys on a G80; wider
/// tiles amortise the block scan on an H100. 16-bit packed counters: < 65536 keys.
constexpr multipass_tile_shape sm90_four_way_tiles[] = {{256, 8}};
/// split (García, Alvizo, Olivares & Ramos 2014, "Fast Data Parallel Radix Sort
/// Implementation in DirectX 11 Compute Shader to Accelerate Ray Tracing
/// Algorithms"): the paper used 512 threads x 1 key.
constexpr multipass_tile_shape sm90_split_tiles[] = {{256, 8}};

}  // namespace radix::cuda_detail
