// The chunked local-sort path of the OpenCL engine (GPU): reduce-then-scan over
// contiguous chunks. Embedded after radix_sort.cl, whose types, codec and
// macros it uses (src/opencl/embed.cmake joins the files in order).

// ---- chunked local-sort path (GPU): reduce-then-scan over contiguous chunks ---------
// Group g owns a contiguous chunk of the keys and walks it in tiles of
// RX_CS_TILE = RX_CS_ITEMS x RX_CS_KEYS keys (Helluy's G groups with long rows,
// so the count matrix is 2^r x G, not 2^r x tiles). Per pass: rx_cs_count
// writes the chunk's digit counts to counts[g * 2^r + d] (a chunk's row:
// coalesced), rx_cs_block_sums and rx_cs_block_starts turn them in place into
// the chunk's start of each digit (the scan in (digit, chunk) order, done
// down the columns), and rx_cs_reorder sorts
// each tile stably in local memory by two sub-digits of at most 4 bits, then
// writes it out as digit runs (neighbouring items, neighbouring addresses),
// advancing the chunk's running digit offsets tile by tile. No group waits for
// another. The sub-digit ranking keeps each item's counters in registers: 16
// counters of 4 bits in two uints, so only a work-group scan of 16 16-bit
// lanes (a uint8) goes through local memory.

#ifndef RX_CS_ITEMS
#define RX_CS_ITEMS 256
#endif
#ifndef RX_CS_KEYS
#define RX_CS_KEYS 16
#endif
#if RX_CS_KEYS > 15
#error "RX_CS_KEYS must be at most 15 (an item's counters are 4-bit lanes)"
#endif
#define RX_CS_TILE (RX_CS_ITEMS * RX_CS_KEYS)
#ifndef RX_CS_AT_LOCAL
#define RX_CS_AT_LOCAL 0
#endif
#ifndef RX_CS_RAKE
#define RX_CS_RAKE 16  // items per raking segment of the work-group scan
#endif
#define RX_CS_RAKERS (RX_CS_ITEMS / RX_CS_RAKE)
// One spare slot per 16: an item reading its own RX_CS_KEYS consecutive slots
// and its neighbours reading theirs hit different local-memory banks.
#define RX_CS_PAD(p) ((p) + ((p) >> 4))

// Four copies of the counters picked by item: fewer colliding local atomics on
// skewed input. The count of a digit does not depend on the order of increments.
// A group counts chunks g, g + groups, ...: the host launches at most
// cs_count_groups groups per compute unit, however many chunks there are.
__kernel __attribute__((reqd_work_group_size(RX_CS_ITEMS, 1, 1))) void rx_cs_count(
    __global const key_t* keys, ulong n, ulong chunk, RX_CODEC_ARGS, uint shift, uint bits, __global pos_t* counts,
    ulong o_keys, ulong o_counts) {
  __local volatile uint h[4 * 256];
  keys += o_keys;
  counts += o_counts;
  const codec_t c = RX_CODEC;
  const uint i = get_local_id(0);
  const ulong chunks = (n + chunk - 1) / chunk;
  const uint R = 1u << bits, mask = R - 1u;
  __local volatile uint* mine = h + (i & 3u) * R;
  for (ulong g = get_group_id(0); g < chunks; g += get_num_groups(0)) {
    for (uint d = i; d < 4 * R; d += RX_CS_ITEMS) h[d] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    const ulong begin = g * chunk, end = min(begin + chunk, n);
    ulong j = begin + i;
    // Four loads in flight an item, then their four counts: one load's
    // latency a key otherwise bounds the kernel (H100: 0.15 -> 0.11 ms a
    // pass at 2^26 keys).
    for (; j + 3 * RX_CS_ITEMS < end; j += 4 * RX_CS_ITEMS) {
      key_t kb[4];
#pragma unroll
      for (uint q = 0; q < 4u; ++q) kb[q] = keys[j + q * RX_CS_ITEMS];
#pragma unroll
      for (uint q = 0; q < 4u; ++q) atomic_inc(&mine[digit_of(c, kb[q], shift, mask)]);
    }
    for (; j < end; j += RX_CS_ITEMS) atomic_inc(&mine[digit_of(c, keys[j], shift, mask)]);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint d = i; d < R; d += RX_CS_ITEMS) counts[g * R + d] = h[d] + h[R + d] + h[2 * R + d] + h[3 * R + d];
    // The next chunk's clearing waits for these reads.
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}

// The scan of the count matrix in (digit, chunk) order, on its chunk-major
// layout: the chunks are cut into blocks of `rows`; rx_cs_block_sums adds up
// each block's column d (item d) into bsums[p * 2^r + d]; rx_cs_block_starts
// (group p) finds each digit's total and the blocks before p from bsums, then
// walks its block's rows replacing each count by its start. Two launches, all
// reads and writes along rows; no group waits for another. Eight rows at a
// time, so that an item's loads are in flight together.
#define RX_CS_ROW_BATCH 8
// Column d of rows g .. g + RX_CS_ROW_BATCH - 1, all loads issued together.
inline void cs_load_rows(__global const pos_t* counts, ulong g, uint R, uint d, pos_t* v) {
#pragma unroll
  for (uint q = 0; q < RX_CS_ROW_BATCH; ++q) v[q] = counts[(g + q) * R + d];
}
__kernel __attribute__((reqd_work_group_size(RX_CS_ITEMS, 1, 1))) void rx_cs_block_sums(
    __global const pos_t* counts, ulong chunks, ulong rows, uint bits, __global pos_t* bsums, ulong o_counts,
    ulong o_bsums) {
  counts += o_counts;
  bsums += o_bsums;
  const uint i = get_local_id(0), p = get_group_id(0), R = 1u << bits;
  const ulong begin = (ulong)p * rows, end = min(begin + rows, chunks);
  for (uint d = i; d < R; d += RX_CS_ITEMS) {
    pos_t s = 0;
    ulong g = begin;
    for (; g + RX_CS_ROW_BATCH <= end; g += RX_CS_ROW_BATCH) {
      pos_t v[RX_CS_ROW_BATCH];
      cs_load_rows(counts, g, R, d, v);
#pragma unroll
      for (uint q = 0; q < RX_CS_ROW_BATCH; ++q) s += v[q];
    }
    for (; g < end; ++g) s += counts[g * R + d];
    bsums[(ulong)p * R + d] = s;
  }
}

__kernel __attribute__((reqd_work_group_size(RX_CS_ITEMS, 1, 1))) void rx_cs_block_starts(
    __global pos_t* counts, ulong chunks, ulong rows, uint bits, __global const pos_t* bsums, uint blocks,
    ulong o_counts, ulong o_bsums) {
  __local pos_t base[256], before[256];
  counts += o_counts;
  bsums += o_bsums;
  const uint i = get_local_id(0), p = get_group_id(0), R = 1u << bits;
  // Each digit's total over all chunks, and its count in the blocks before p.
  for (uint d = i; d < R; d += RX_CS_ITEMS) {
    pos_t total = 0, pre = 0;
    for (uint q = 0; q < blocks; ++q) {
      const pos_t v = bsums[(ulong)q * R + d];
      total += v;
      pre += q < p ? v : 0;
    }
    base[d] = total;
    before[d] = pre;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (i == 0) {  // the digits' exclusive scan: at most 256 adds
    pos_t run = 0;
    for (uint d = 0; d < R; ++d) {
      const pos_t t = base[d];
      base[d] = run;
      run += t;
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  const ulong begin = (ulong)p * rows, end = min(begin + rows, chunks);
  for (uint d = i; d < R; d += RX_CS_ITEMS) {
    pos_t at = base[d] + before[d];
    ulong g = begin;
    for (; g + RX_CS_ROW_BATCH <= end; g += RX_CS_ROW_BATCH) {
      pos_t v[RX_CS_ROW_BATCH];
      cs_load_rows(counts, g, R, d, v);
#pragma unroll
      for (uint q = 0; q < RX_CS_ROW_BATCH; ++q) {
        counts[(g + q) * R + d] = at;
        at += v[q];
      }
    }
    for (; g < end; ++g) {
      const pos_t v = counts[g * R + d];
      counts[g * R + d] = at;
      at += v;
    }
  }
}

// Lane d (0..15) of 16 16-bit lanes packed in a uint8 (lanes 2j, 2j+1 in .sj).
inline uint cs_lane(uint8 v, uint d) {
  const uint h = d >> 1;
  uint w = v.s0;
  w = h == 1u ? v.s1 : w;
  w = h == 2u ? v.s2 : w;
  w = h == 3u ? v.s3 : w;
  w = h == 4u ? v.s4 : w;
  w = h == 5u ? v.s5 : w;
  w = h == 6u ? v.s6 : w;
  w = h == 7u ? v.s7 : w;
  return (w >> ((d & 1u) * 16u)) & 0xFFFFu;
}

// Lane d (0..15) of 16 4-bit lanes in two uints (an item's counts: at most
// RX_CS_KEYS <= 15 keys).
inline uint cs_nib(uint lo, uint hi, uint d) { return ((d < 8u ? lo : hi) >> ((d & 7u) * 4u)) & 15u; }

// The exclusive scan of 16 16-bit lanes (each digit's start in the tile from
// the tile's digit totals).
inline uint8 cs_exclusive_lanes(uint8 s) {
  uint run = 0;
  uint l[16];
  for (uint d = 0; d < 16u; ++d) {
    l[d] = run;
    run += cs_lane(s, d);
  }
  return (uint8)(l[0] | (l[1] << 16), l[2] | (l[3] << 16), l[4] | (l[5] << 16), l[6] | (l[7] << 16),
                 l[8] | (l[9] << 16), l[10] | (l[11] << 16), l[12] | (l[13] << 16), l[14] | (l[15] << 16));
}

// Slots of a tile at or past `total` are not keys: they take sub-digit 15,
// which sends them, being last already, to the tile's end in every sub-pass.
inline uint cs_sub(codec_t c, key_t key, uint slot, uint total, uint sshift, uint smask) {
  return slot < total ? (uint)(ordered(c, key) >> sshift) & smask : 15u;
}

__kernel __attribute__((reqd_work_group_size(RX_CS_ITEMS, 1, 1))) void rx_cs_reorder(
    __global const key_t* keys_in, __global key_t* keys_out, __global const val_t* vals_in, __global val_t* vals_out,
    ulong n, ulong chunk, RX_CODEC_ARGS, uint shift, uint bits, __global const pos_t* starts, uint gen_index,
    ulong o_kin, ulong o_kout, ulong o_vin, ulong o_vout, ulong o_starts) {
  __local key_t lk[RX_CS_PAD(RX_CS_TILE)];
#if RX_VAL_BYTES
  __local val_t lv[RX_CS_PAD(RX_CS_TILE)];
#endif
  __local uint8 scan_buf[RX_CS_PAD(RX_CS_ITEMS)];
  __local uint8 scan_part[RX_CS_RAKERS];
  __local uint8 scan_base[1];
  __local pos_t run[256];
  __local ushort first[256], past[256];
  __local uchar ld[RX_CS_TILE];  // the sorted tile's digits
#if RX_CS_AT_LOCAL
  __local ushort at_l[16 * RX_CS_ITEMS];  // each item's 16 sub-digit starts, lane-major
#endif

  RX_IO_OFFSETS;
  starts += o_starts;
  const codec_t c = RX_CODEC;
  const uint i = get_local_id(0), g = get_group_id(0);
  const uint R = 1u << bits, mask = R - 1u;
  const uint b1 = min(bits, 4u), b2 = bits - b1, subs = b2 ? 2u : 1u;
  for (uint d = i; d < R; d += RX_CS_ITEMS) {
    run[d] = starts[(ulong)g * R + d];
    first[d] = 0;
    past[d] = 0;
  }
  const ulong begin = (ulong)g * chunk, end = min(begin + chunk, n);
  key_t k[RX_CS_KEYS];
#if RX_VAL_BYTES
  val_t v[RX_CS_KEYS];
#endif
  uchar meta[RX_CS_KEYS];

  for (ulong base = begin; base < end; base += RX_CS_TILE) {
    const uint total = (uint)min((ulong)RX_CS_TILE, end - base);
    // Coalesced load into local memory, then each item takes its own run.
    for (uint j = i; j < total; j += RX_CS_ITEMS) {
      lk[RX_CS_PAD(j)] = keys_in[base + j];
#if RX_VAL_BYTES
      lv[RX_CS_PAD(j)] = gen_index ? (val_t)(base + j) : vals_in[base + j];
#endif
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    for (uint sub = 0; sub < subs; ++sub) {
      const uint sbits = sub == 0 ? b1 : b2;
      const uint sshift = shift + (sub == 0 ? 0u : b1), smask = (1u << sbits) - 1u;
      // Each key's sub-digit and rank among the item's keys of that sub-digit
      // (4 bits each) stay in meta[] for the scatter.
      uint lo = 0, hi = 0;
#pragma unroll
      for (uint j = 0; j < RX_CS_KEYS; ++j) {
        const uint slot = i * RX_CS_KEYS + j;
        k[j] = lk[RX_CS_PAD(slot)];
#if RX_VAL_BYTES
        v[j] = lv[RX_CS_PAD(slot)];
#endif
        const uint d = cs_sub(c, k[j], slot, total, sshift, smask);
        meta[j] = (uchar)(d | (cs_nib(lo, hi, d) << 4));
        const uint inc = 1u << ((d & 7u) * 4u);
        lo += d < 8u ? inc : 0u;
        hi += d < 8u ? 0u : inc;
      }
      uint8 mine;
      mine.s0 = cs_nib(lo, hi, 0) | (cs_nib(lo, hi, 1) << 16);
      mine.s1 = cs_nib(lo, hi, 2) | (cs_nib(lo, hi, 3) << 16);
      mine.s2 = cs_nib(lo, hi, 4) | (cs_nib(lo, hi, 5) << 16);
      mine.s3 = cs_nib(lo, hi, 6) | (cs_nib(lo, hi, 7) << 16);
      mine.s4 = cs_nib(lo, hi, 8) | (cs_nib(lo, hi, 9) << 16);
      mine.s5 = cs_nib(lo, hi, 10) | (cs_nib(lo, hi, 11) << 16);
      mine.s6 = cs_nib(lo, hi, 12) | (cs_nib(lo, hi, 13) << 16);
      mine.s7 = cs_nib(lo, hi, 14) | (cs_nib(lo, hi, 15) << 16);
      // The exclusive work-group scan of the items' counters (16-bit lanes),
      // plus each digit's start in the tile, gives where this item's first key
      // of each digit goes. Raking: RX_CS_RAKERS items scan RX_CS_RAKE items'
      // vectors each; item 0 scans the segment sums and the digit totals.
      // (Written out here: as a called function with the barriers inside,
      // PoCL 3.1 never ran item 0's step and the tiles came out unsorted.)
      // Its barriers also order every item's reads above before the writes
      // below.
      scan_buf[RX_CS_PAD(i)] = mine;
      barrier(CLK_LOCAL_MEM_FENCE);
      if (i < RX_CS_RAKERS) {
        uint8 sum = (uint8)(0);
        for (uint q = 0; q < RX_CS_RAKE; ++q) {
          const uint a = RX_CS_PAD(i * RX_CS_RAKE + q);
          const uint8 t = scan_buf[a];
          scan_buf[a] = sum;
          sum += t;
        }
        scan_part[i] = sum;
      }
      barrier(CLK_LOCAL_MEM_FENCE);
      if (i == 0) {
        uint8 sum = (uint8)(0);
        for (uint q = 0; q < RX_CS_RAKERS; ++q) {
          const uint8 t = scan_part[q];
          scan_part[q] = sum;
          sum += t;
        }
        scan_base[0] = cs_exclusive_lanes(sum);
      }
      barrier(CLK_LOCAL_MEM_FENCE);
      const uint8 at = scan_buf[RX_CS_PAD(i)] + scan_part[i / RX_CS_RAKE] + scan_base[0];
#if RX_CS_AT_LOCAL
      // This item's 16 starts, lane-major (lane d of item i at d * I + i): a
      // key then finds its sub-digit's start with one local load instead of a
      // chain of selects, and the items of a warp read neighbouring words.
      // Only this item reads its column: no barrier.
      const uint words[8] = {at.s0, at.s1, at.s2, at.s3, at.s4, at.s5, at.s6, at.s7};
#pragma unroll
      for (uint w = 0; w < 8u; ++w) {
        at_l[(2u * w) * RX_CS_ITEMS + i] = (ushort)words[w];
        at_l[(2u * w + 1u) * RX_CS_ITEMS + i] = (ushort)(words[w] >> 16);
      }
#endif
#pragma unroll
      for (uint j = 0; j < RX_CS_KEYS; ++j) {
#if RX_CS_AT_LOCAL
        const uint to = (uint)at_l[(meta[j] & 15u) * RX_CS_ITEMS + i] + (meta[j] >> 4);
#else
        const uint to = cs_lane(at, meta[j] & 15u) + (meta[j] >> 4);
#endif
        lk[RX_CS_PAD(to)] = k[j];
        // The last sub-pass leaves each slot's whole digit for the write-out.
        if (sub + 1 == subs) ld[to] = (uchar)digit_of(c, k[j], shift, mask);
#if RX_VAL_BYTES
        lv[RX_CS_PAD(to)] = v[j];
#endif
      }
      barrier(CLK_LOCAL_MEM_FENCE);
    }

    // The tile is sorted by the digit: where each digit's run begins and
    // ends, then the runs go out.
    for (uint j = i; j < total; j += RX_CS_ITEMS) {
      const uint d = ld[j];
      if (j == 0 || ld[j - 1] != d) first[d] = (ushort)j;
      if (j + 1 == total || ld[j + 1] != d) past[d] = (ushort)(j + 1);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint j = i; j < total; j += RX_CS_ITEMS) {
      const uint d = ld[j];
      const pos_t to = run[d] + (pos_t)(j - first[d]);
      keys_out[to] = lk[RX_CS_PAD(j)];
#if RX_VAL_BYTES
      vals_out[to] = lv[RX_CS_PAD(j)];
#endif
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint d = i; d < R; d += RX_CS_ITEMS) {
      run[d] += (pos_t)(past[d] - first[d]);
      first[d] = 0;
      past[d] = 0;
    }
    // The next tile's loads touch lk/lv only after this barrier.
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}

