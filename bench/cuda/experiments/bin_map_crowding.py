"""How often the bin sort's rows crowd a bin, on the CPU: a NumPy twin of
src/cuda/onesweep/bin_map.cuh (the 256 coarse ranges by the top 8 bits of
the ordered key, clipped to the span, sharing the fine bins by their keys)
over rows of normally distributed f32 keys (torch.randn's), with the
offset in a coarse range scaled by the range's exact width (as bin_map.cuh
does) or by the power of two above it (a shift instead of a multiply, which
leaves up to half a range's bins empty). A row crowds where a bin holds
more than bin_sort_agent::most_in_bin keys (32); the table also counts 16.

    python3 bench/cuda/experiments/bin_map_crowding.py [rows per shape]
"""
import sys

import numpy as np


def ordered(f32):
    u = f32.view(np.uint32).astype(np.uint64)
    return np.where((u >> 31) == 1, (~u) & 0xFFFFFFFF, u | 0x80000000).astype(np.uint64)


def fine_bins(o, bins, exact):
    n, lo, hi = len(o), o.min(), o.max()
    c = (o >> np.uint64(24)).astype(np.int64)
    keys = np.bincount(c, minlength=256)
    fine = np.where(keys > 0, np.maximum(1, ((bins - 256) * keys) // n), 0)
    base = np.concatenate([[0], np.cumsum(fine)[:-1]])
    first = np.arange(256, dtype=np.uint64) << np.uint64(24)
    start = np.maximum(first, lo)
    end = np.minimum(first | np.uint64(0xFFFFFF), hi)
    width = np.where(keys > 0, end - start, 0).astype(np.uint64)
    wbits = np.array([int(w).bit_length() for w in width])
    pre = np.maximum(wbits - 24, 0).astype(np.uint64)
    rel = (o - start[c]) >> pre[c]
    if exact:  # offset = rel * fine / (w + 1), by a 32-bit scale and a shift, as bin_map.cuh (which rounds the scale down in single precision: within 2^-23 of this one)
        w = width >> pre
        wb = np.array([int(x).bit_length() for x in w])
        fb = np.array([int(f).bit_length() for f in fine])
        shift = np.where(fine > 0, 31 + wb - fb, 0).astype(np.uint64)
        scale = (fine.astype(np.uint64) << shift) // (w + np.uint64(1))
        off = (rel * scale[c]) >> shift[c]
    else:  # offset = rel * fine / 2^bits(width)
        off = (rel * fine[c].astype(np.uint64)) >> (wbits.astype(np.uint64) - pre)[c]
    return base[c] + off.astype(np.int64)


def main():
    rows = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    rng = np.random.default_rng(1)
    print("| row keys | bins | offset scale | largest bin (median, max) | rows with a bin > 16 | > 32 |")
    print("|---|---|---|---|---|---|")
    for length, bins in [(1024, 2048), (4096, 4096), (8192, 4096), (16384, 8192)]:
        for exact in (False, True):
            most = [np.bincount(fine_bins(ordered(rng.standard_normal(length).astype(np.float32)), bins, exact)).max()
                    for _ in range(rows)]
            print(f"| {length} | {bins} | {'exact width' if exact else 'power of two'} | {int(np.median(most))}, "
                  f"{max(most)} | {sum(m > 16 for m in most)} / {rows} | {sum(m > 32 for m in most)} / {rows} |")


if __name__ == "__main__":
    main()
