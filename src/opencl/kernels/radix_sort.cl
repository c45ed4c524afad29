// OpenCL C 1.2 kernels of the OpenCL engine.
// After Helluy 2011, "A portable implementation of the radix sort algorithm
// in OpenCL": §2.1 per-item histograms H(c,g,i) stored at c*G*I + g*I + i,
// §2.2/§3.2.2 scan split into s parts, §2.3/§3.2.3 reorder, §3.2.1 transpose.
//
// Built by the host (src/opencl/program.cpp) with these -D options, one
// program per combination:
//   RX_KEY_BYTES   1, 2, 4 or 8      width of a key
//   RX_VAL_BYTES   0, 1, 2, 4 or 8   width of a value carried by the reorder (0: keys only)
//   RX_WIDE        0 or 1            64-bit positions (more than 2^32 - 1 slots)
//   RX_ITEMS       work-items per group of the histogram and reorder kernels (I)
//   RX_SCAN_WG     work-items per group of the scan kernels
//   RX_TILE        side of the transpose tile
//   RX_LS_ITEMS    work-items per group of the local-sort (GPU) kernels
//   RX_CS_ITEMS    work-items per group of the chunked local-sort kernels
//   RX_CS_KEYS     keys per work-item of a chunked local-sort tile (registers)
//   RX_CS_AT_LOCAL 1: a chunked item's sub-digit starts go through local memory (else selects)
// Everything else (digit position and width, the key codec, sizes, layouts)
// is a kernel argument, so one program serves every pass and every key kind.
//
// Layouts: item t = g*I + i owns the logical slots [t*chunk, (t+1)*chunk)
// (Helluy's rows). "linear" stores slot j at j; "transposed" stores it at
// (j % chunk)*T + j / chunk, so that items of a group read neighbouring
// addresses (Helluy's transposition, done on the fly after the first copy).

#if RX_KEY_BYTES == 1
typedef uchar key_t;
#elif RX_KEY_BYTES == 2
typedef ushort key_t;
#elif RX_KEY_BYTES == 4
typedef uint key_t;
#elif RX_KEY_BYTES == 8
typedef ulong key_t;
#else
#error "RX_KEY_BYTES must be 1, 2, 4 or 8"
#endif
#define RX_KEY_BITS (RX_KEY_BYTES * 8)

#if RX_VAL_BYTES == 1
typedef uchar val_t;
#elif RX_VAL_BYTES == 2
typedef ushort val_t;
#elif RX_VAL_BYTES == 4
typedef uint val_t;
#elif RX_VAL_BYTES == 8
typedef ulong val_t;
#elif RX_VAL_BYTES == 0
typedef uchar val_t;  // unused: keys only
#else
#error "RX_VAL_BYTES must be 0, 1, 2, 4 or 8"
#endif

#if RX_WIDE
typedef ulong pos_t;
#else
typedef uint pos_t;
#endif

// ---- the ordered-bits codec --------------------------------------------------
// The masks come from radix::core::make_codec on the host (the one transform,
// src/core/radix/core/ordered_bits.hpp); this is its operator(), written out
// again in OpenCL C with the same formulas:
//   biased(u)    = u ^ pos_xor ^ (negative(u) ? neg_xor ^ pos_xor : 0) ^ flip
//   canonical(u) = -0 -> +0 and every NaN -> one pattern after +inf
// tests/opencl checks it bit for bit against the C++ codec.
typedef struct {
  key_t pos_xor, neg_xor, flip, nan_above;
  int canon;
} codec_t;

inline codec_t make_codec(ulong pos_xor, ulong neg_xor, ulong flip, ulong nan_above, int canon) {
  codec_t c;
  c.pos_xor = (key_t)pos_xor;
  c.neg_xor = (key_t)neg_xor;
  c.flip = (key_t)flip;
  c.nan_above = (key_t)nan_above;
  c.canon = canon;
  return c;
}

inline key_t biased(codec_t c, key_t u) {
  const key_t neg = (key_t)((key_t)0 - (key_t)(u >> (RX_KEY_BITS - 1)));
  return (key_t)(u ^ c.pos_xor ^ (neg & (key_t)(c.neg_xor ^ c.pos_xor)) ^ c.flip);
}

inline key_t ordered(codec_t c, key_t u) {
  if (!c.canon) return biased(c, u);
  const key_t sign = (key_t)((key_t)1 << (RX_KEY_BITS - 1));
  const key_t mag = (key_t)(u & (key_t)~sign);
  const key_t nonzero = (key_t)((key_t)0 - (key_t)(mag != (key_t)0));
  const key_t nan = (key_t)((key_t)0 - (key_t)(mag > c.nan_above));
  return (key_t)((biased(c, (key_t)(u & nonzero)) & (key_t)~nan) | (key_t)(nan & (key_t)~c.flip));
}

inline uint digit_of(codec_t c, key_t u, uint shift, uint mask) {
  return (uint)(ordered(c, u) >> shift) & mask;
}

#define RX_CODEC_ARGS ulong c_pos, ulong c_neg, ulong c_flip, ulong c_nan, int c_canon
// Kernels that touch the sort's scratch take, as their last arguments, an
// element offset per buffer (o_<name>): the scratch is carved out of one
// workspace buffer by offsets, not sub-buffers (NVIDIA's OpenCL made every
// sort on sub-buffers of a workspace 100 times slower).
#define RX_IO_OFFSETS \
  keys_in += o_kin;   \
  keys_out += o_kout; \
  vals_in += o_vin;   \
  vals_out += o_vout
#define RX_CODEC make_codec(c_pos, c_neg, c_flip, c_nan, c_canon)

inline ulong slot_at(ulong j, ulong chunk, ulong T, uint transposed) {
#if RX_WIDE
  return transposed ? (j % chunk) * T + j / chunk : j;
#else
  // Below 2^32 slots: 32-bit division, several times cheaper on GPUs.
  const uint jj = (uint)j, c = (uint)chunk;
  return transposed ? (ulong)((jj % c) * (uint)T + jj / c) : j;
#endif
}

// Writes the ordered key of every input key (tests: the codec against C++).
__kernel void rx_ordered(__global const key_t* in, __global key_t* out, ulong n, RX_CODEC_ARGS) {
  const codec_t c = RX_CODEC;
  for (ulong j = get_global_id(0); j < n; j += get_global_size(0)) out[j] = ordered(c, in[j]);
}

// ---- transpose (§3.2.1) --------------------------------------------------------
// Logical matrix of T rows (items) x chunk columns, row-major in `in` (only the
// first n slots exist); written column-major to `out`. Tiles go through local
// memory so that both the reads and the writes are contiguous.
#define RX_TRANSPOSE(NAME, T_)                                                                    \
  __kernel __attribute__((reqd_work_group_size(RX_TILE, RX_TILE, 1))) void NAME(                  \
      __global const T_* in, __global T_* out, ulong n, ulong chunk, ulong T, ulong o_in,         \
      ulong o_out) {                                                                              \
    __local T_ tile[RX_TILE][RX_TILE + 1];                                                        \
    in += o_in;                                                                                   \
    out += o_out;                                                                                 \
    const ulong col0 = (ulong)get_group_id(0) * RX_TILE, row0 = (ulong)get_group_id(1) * RX_TILE; \
    const uint lx = get_local_id(0), ly = get_local_id(1);                                        \
    ulong row = row0 + ly, col = col0 + lx, j = row * chunk + col;                                \
    if (row < T && col < chunk && j < n) tile[ly][lx] = in[j];                                    \
    barrier(CLK_LOCAL_MEM_FENCE);                                                                 \
    row = row0 + lx;                                                                              \
    col = col0 + ly;                                                                              \
    j = row * chunk + col;                                                                        \
    if (row < T && col < chunk && j < n) out[col * T + row] = tile[lx][ly];                      \
  }
RX_TRANSPOSE(rx_transpose_keys, key_t)
#if RX_VAL_BYTES
RX_TRANSPOSE(rx_transpose_vals, val_t)
#endif

// ---- histogram (§2.1, §3.2.1) ----------------------------------------------------
// Item t counts the digits of its slots in its own column of local memory
// (loc[c*I + i]: no atomics, and no bank conflicts between neighbouring items),
// then the group writes H(c, t) = hist[c*T + t] for every digit c.
__kernel __attribute__((reqd_work_group_size(RX_ITEMS, 1, 1))) void rx_histogram(
    __global const key_t* keys, ulong n, ulong chunk, uint transposed, RX_CODEC_ARGS, uint shift, uint bits,
    __global pos_t* hist, __local pos_t* loc, ulong o_keys, ulong o_hist) {
  keys += o_keys;
  hist += o_hist;
  const codec_t c = RX_CODEC;
  const uint i = get_local_id(0), g = get_group_id(0);
  const ulong T = (ulong)get_num_groups(0) * RX_ITEMS, t = (ulong)g * RX_ITEMS + i;
  const uint R = 1u << bits, mask = R - 1u;
  for (uint m = i; m < R * RX_ITEMS; m += RX_ITEMS) loc[m] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  const ulong begin = t * chunk;
  const ulong count = begin >= n ? 0 : min(chunk, n - begin);
  if (transposed) {
    for (ulong k = 0; k < count; ++k) loc[digit_of(c, keys[k * T + t], shift, mask) * RX_ITEMS + i]++;
  } else {
    for (ulong k = 0; k < count; ++k) loc[digit_of(c, keys[begin + k], shift, mask) * RX_ITEMS + i]++;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  const ulong base = (ulong)g * RX_ITEMS;
  for (uint m = i; m < R * RX_ITEMS; m += RX_ITEMS) hist[(ulong)(m / RX_ITEMS) * T + base + m % RX_ITEMS] = loc[m];
}

// ---- scan (§2.2, §3.2.2) -----------------------------------------------------------
// The histogram (len entries) is cut into parts of `part` entries: each group
// sums one part (rx_scan_sums), then each group adds up the sums of the parts
// before its own and scans its part from there (rx_scan_parts). Two launches;
// no group ever waits for another. (A third launch in which one work-item
// scanned the part sums took most of the scan's time on the H100.)
__kernel __attribute__((reqd_work_group_size(RX_SCAN_WG, 1, 1))) void rx_scan_sums(
    __global const pos_t* hist, ulong len, ulong part, __global pos_t* sums, __local pos_t* tmp, ulong o_hist,
    ulong o_sums) {
  hist += o_hist;
  sums += o_sums;
  const uint i = get_local_id(0), g = get_group_id(0);
  const ulong begin = (ulong)g * part, end = min(begin + part, len);
  pos_t s = 0;
  for (ulong j = begin + i; j < end; j += RX_SCAN_WG) s += hist[j];
  tmp[i] = s;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint w = RX_SCAN_WG / 2; w > 0; w /= 2) {
    if (i < w) tmp[i] += tmp[i + w];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (i == 0) sums[g] = tmp[0];
}

__kernel __attribute__((reqd_work_group_size(RX_SCAN_WG, 1, 1))) void rx_scan_parts(
    __global pos_t* hist, ulong len, ulong part, __global const pos_t* sums, __local pos_t* tmp, ulong o_hist,
    ulong o_sums) {
  hist += o_hist;
  sums += o_sums;
  const uint i = get_local_id(0), g = get_group_id(0);
  const ulong begin = (ulong)g * part, end = min(begin + part, len);
  // The part's offset: the sum of the parts before it (at most a few thousand
  // loads, from L2), reduced in local memory.
  pos_t pre = 0;
  for (uint q = i; q < g; q += RX_SCAN_WG) pre += sums[q];
  tmp[i] = pre;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint w = RX_SCAN_WG / 2; w > 0; w /= 2) {
    if (i < w) tmp[i] += tmp[i + w];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  pos_t carry = tmp[0];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (ulong at = begin; at < end; at += RX_SCAN_WG) {
    const ulong j = at + i;
    const pos_t v = j < end ? hist[j] : 0;
    tmp[i] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    // Inclusive Hillis-Steele scan of one tile in local memory.
    for (uint w = 1; w < RX_SCAN_WG; w *= 2) {
      const pos_t add = i >= w ? tmp[i - w] : 0;
      barrier(CLK_LOCAL_MEM_FENCE);
      tmp[i] += add;
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (j < end) hist[j] = carry + tmp[i] - v;  // exclusive
    carry += tmp[RX_SCAN_WG - 1];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}

// ---- reorder (§2.3, §3.2.3) ----------------------------------------------------------
// Item t loads its scanned column H(., t) into local memory and moves its keys
// (and values) in order to their slots, incrementing the digit's counter: the
// slot order (digit, group, item, position in the item's row) is the stable one.
// `gen_index`: the values are the logical input slots (argsort's first pass).
__kernel __attribute__((reqd_work_group_size(RX_ITEMS, 1, 1))) void rx_reorder(
    __global const key_t* keys_in, __global key_t* keys_out, __global const val_t* vals_in, __global val_t* vals_out,
    ulong n, ulong chunk, uint in_transposed, uint out_transposed, RX_CODEC_ARGS, uint shift, uint bits,
    __global const pos_t* hist, uint gen_index, __local pos_t* loc, ulong o_kin, ulong o_kout, ulong o_vin,
    ulong o_vout, ulong o_hist) {
  RX_IO_OFFSETS;
  hist += o_hist;
  const codec_t c = RX_CODEC;
  const uint i = get_local_id(0), g = get_group_id(0);
  const ulong T = (ulong)get_num_groups(0) * RX_ITEMS, t = (ulong)g * RX_ITEMS + i;
  const uint R = 1u << bits, mask = R - 1u;
  const ulong base = (ulong)g * RX_ITEMS;
  for (uint m = i; m < R * RX_ITEMS; m += RX_ITEMS) loc[m] = hist[(ulong)(m / RX_ITEMS) * T + base + m % RX_ITEMS];
  barrier(CLK_LOCAL_MEM_FENCE);
  const ulong begin = t * chunk;
  const ulong count = begin >= n ? 0 : min(chunk, n - begin);
  for (ulong k = 0; k < count; ++k) {
    const ulong src = in_transposed ? k * T + t : begin + k;
    const key_t key = keys_in[src];
    const uint d = digit_of(c, key, shift, mask);
    const ulong to = loc[d * RX_ITEMS + i]++;
    const ulong dst = slot_at(to, chunk, T, out_transposed);
    keys_out[dst] = key;
#if RX_VAL_BYTES
    vals_out[dst] = gen_index ? (val_t)(begin + k) : vals_in[src];
#endif
  }
}

// ---- local-sort path (GPU): tile-based LSD with coalesced digit runs -------------
// Group g owns the contiguous tile [g*T, g*T + T) of T = RX_LS_ITEMS * K keys;
// item i owns the tile's slots [i*K, i*K + K). Per pass: rx_ls_count writes
// the tile's digit counts to counts[d * tiles + g] (digit-major), the scan
// kernels above turn them into the global start of each (digit, tile), and
// rx_ls_reorder sorts the tile stably in local memory and writes it out, so
// that neighbouring items write neighbouring addresses of one digit's run
// (Helluy's reorder lets each item scatter alone: uncoalesced on a GPU).

#ifndef RX_LS_ITEMS
#define RX_LS_ITEMS 64
#endif

// Per-group digit counts. Local atomics: the count of a digit does not
// depend on the order of the increments, and the reads stay coalesced.
__kernel __attribute__((reqd_work_group_size(RX_LS_ITEMS, 1, 1))) void rx_ls_count(
    __global const key_t* keys, ulong n, uint tile, RX_CODEC_ARGS, uint shift, uint bits, __global pos_t* counts,
    __local volatile uint* h, ulong o_keys, ulong o_counts) {
  keys += o_keys;
  counts += o_counts;
  const codec_t c = RX_CODEC;
  const uint i = get_local_id(0), g = get_group_id(0), tiles = get_num_groups(0);
  const uint R = 1u << bits, mask = R - 1u;
  for (uint d = i; d < R; d += RX_LS_ITEMS) h[d] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  const ulong base = (ulong)g * tile;
  const uint cnt = (uint)min((ulong)tile, n - base);
  for (uint j = i; j < cnt; j += RX_LS_ITEMS) atomic_inc(&h[digit_of(c, keys[base + j], shift, mask)]);
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint d = i; d < R; d += RX_LS_ITEMS) counts[(ulong)d * tiles + g] = h[d];
}

// Stable in-tile ranking without atomics: item i counts its own K keys in
// column i of cnt[d * RX_LS_ROW + i] (ushort: T < 2^16), rows are scanned
// (item per row) into each item's first slot within the digit, the digit
// totals are scanned into the digit's first slot in the tile, and each item
// places its keys in input order (items own contiguous, ordered blocks of the
// tile, so the result is stable). Then local slot j, of digit d, goes to
// global start(d, g) + j - (tile start of d): consecutive j, consecutive
// addresses. Rows are RX_LS_ITEMS + 2 counters long so that the items
// scanning neighbouring rows hit different local-memory banks.
// `gen_index`: the values are the input slots (argsort's first pass).
#define RX_LS_ROW (RX_LS_ITEMS + 2)
__kernel __attribute__((reqd_work_group_size(RX_LS_ITEMS, 1, 1))) void rx_ls_reorder(
    __global const key_t* keys_in, __global key_t* keys_out, __global const val_t* vals_in, __global val_t* vals_out,
    ulong n, uint per_item, RX_CODEC_ARGS, uint shift, uint bits, __global const pos_t* starts, uint gen_index,
    __local ushort* cnt, __local pos_t* off, __local ushort* dbase, __local uint* part, __local key_t* skeys,
    __local val_t* svals, ulong o_kin, ulong o_kout, ulong o_vin, ulong o_vout, ulong o_starts) {
  RX_IO_OFFSETS;
  starts += o_starts;
  const codec_t c = RX_CODEC;
  const uint i = get_local_id(0), g = get_group_id(0), tiles = get_num_groups(0);
  const uint R = 1u << bits, mask = R - 1u, tile = per_item * RX_LS_ITEMS;
  const ulong base = (ulong)g * tile;
  const uint total = (uint)min((ulong)tile, n - base);
  const uint mine = i * per_item;
  const uint my_end = min(mine + per_item, total);
  for (uint m = i; m < R * RX_LS_ROW; m += RX_LS_ITEMS) cnt[m] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  // The item's run is contiguous in global memory: its reads come from the
  // same few cache lines, step after step.
  for (uint k = mine; k < my_end; ++k) cnt[digit_of(c, keys_in[base + k], shift, mask) * RX_LS_ROW + i]++;
  barrier(CLK_LOCAL_MEM_FENCE);
  // Rows: exclusive scan over the items, the row total to dbase[d].
  for (uint d = i; d < R; d += RX_LS_ITEMS) {
    uint run = 0;
    for (uint t = 0; t < RX_LS_ITEMS; ++t) {
      const uint v = cnt[d * RX_LS_ROW + t];
      cnt[d * RX_LS_ROW + t] = (ushort)run;
      run += v;
    }
    dbase[d] = (ushort)run;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  // Digit totals: exclusive scan in two levels (a run of R/I digits per item
  // when R >= I, one item for the I run sums).
  const uint per = (R + RX_LS_ITEMS - 1) / RX_LS_ITEMS;
  const uint d0 = min(i * per, R), d1 = min(d0 + per, R);
  uint s = 0;
  for (uint d = d0; d < d1; ++d) s += dbase[d];
  part[i] = s;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (i == 0) {
    uint run = 0;
    for (uint t = 0; t < RX_LS_ITEMS; ++t) {
      const uint v = part[t];
      part[t] = run;
      run += v;
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  uint run = part[i];
  for (uint d = d0; d < d1; ++d) {
    const uint v = dbase[d];
    dbase[d] = (ushort)run;
    run += v;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  // Unsigned wrap-around is harmless (the global start >= the tile start).
  for (uint d = i; d < R; d += RX_LS_ITEMS) off[d] = starts[(ulong)d * tiles + g] - (pos_t)dbase[d];
  for (uint k = mine; k < my_end; ++k) {
    const key_t key = keys_in[base + k];
    const uint d = digit_of(c, key, shift, mask);
    const uint at = (uint)dbase[d] + cnt[d * RX_LS_ROW + i]++;
    skeys[at] = key;
#if RX_VAL_BYTES
    svals[at] = gen_index ? (val_t)(base + k) : vals_in[base + k];
#endif
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint j = i; j < total; j += RX_LS_ITEMS) {
    const key_t key = skeys[j];
    const pos_t to = off[digit_of(c, key, shift, mask)] + (pos_t)j;
    keys_out[to] = key;
#if RX_VAL_BYTES
    vals_out[to] = svals[j];
#endif
  }
}

// ---- helpers -------------------------------------------------------------------------
#if RX_VAL_BYTES
// out[j] = j (argsort when no bit is sorted).
__kernel void rx_iota(__global val_t* out, ulong n) {
  for (ulong j = get_global_id(0); j < n; j += get_global_size(0)) out[j] = (val_t)j;
}

// dst[j] = src[idx[j]] for values of `vbytes` bytes (pairs with values the
// reorder does not carry: sorted as keys + index, then gathered).
__kernel void rx_gather(__global const uchar* src, __global uchar* dst, __global const val_t* idx, ulong n,
                        ulong vbytes, ulong o_src, ulong o_idx) {
  src += o_src;  // bytes
  idx += o_idx;
  for (ulong j = get_global_id(0); j < n; j += get_global_size(0)) {
    const ulong from = (ulong)idx[j] * vbytes, to = j * vbytes;
    for (ulong b = 0; b < vbytes; ++b) dst[to + b] = src[from + b];
  }
}
#endif
