"""How often the bin sort's rows crowd a bin, on the CPU: a NumPy twin of
src/cuda/onesweep/bin_map.cuh (the 256 coarse ranges by the top 8 bits of
the ordered key, clipped to the span, sharing the fine bins by their keys)
over rows of normally distributed f32 keys (torch.randn's), with the
offset in a coarse range scaled by a power of two (as bin_map.cuh does) or
by the range's exact width. A row crowds where a bin holds more than
`most` keys (bin_sort_agent::most_in_bin, 16).

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
    if exact:  # offset = rel * fine / (width + 1), by a 32.32 scale
        scale = (fine.astype(np.uint64) << np.uint64(32)) // ((width >> pre) + np.uint64(1))
        off = (rel * scale[c]) >> np.uint64(32)
    else:  # offset = rel * fine / 2^bits(width)
        off = (rel * fine[c].astype(np.uint64)) >> (wbits.astype(np.uint64) - pre)[c]
    return base[c] + off.astype(np.int64)


def main():
    rows = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    rng = np.random.default_rng(1)
    print("| row keys | bins | offset scale | largest bin (median, max) | rows with a bin > 16 | > 32 |")
    print("|---|---|---|---|---|---|")
    for length, bins in [(1024, 1024), (4096, 4096), (8192, 4096), (16384, 8192)]:
        for exact in (False, True):
            most = [np.bincount(fine_bins(ordered(rng.standard_normal(length).astype(np.float32)), bins, exact)).max()
                    for _ in range(rows)]
            print(f"| {length} | {bins} | {'exact width' if exact else 'power of two'} | {int(np.median(most))}, "
                  f"{max(most)} | {sum(m > 16 for m in most)} / {rows} | {sum(m > 32 for m in most)} / {rows} |")


if __name__ == "__main__":
    main()
