#!/usr/bin/env python3
"""Per-kernel GPU times from `ncu --csv --page raw --metrics gpu__time_duration.sum`.

Usage: kernel_times.py NCU_CSV              per kernel (template arguments cut):
                                            launches, median and total microseconds
       kernel_times.py --launches NCU_CSV  every launch's microseconds, in launch order

The benchmark runs ours, CUB and Thrust in one process, so the table sets our
kernels beside CUB's for the same inputs.
"""
import csv
import re
import statistics
import sys
from collections import OrderedDict


def short(name):
    name = re.sub(r"<.*", "", name)       # template arguments
    name = re.sub(r"\(.*", "", name)      # parameter list
    return name.split("::")[-1]


def read(path):
    rows = list(csv.reader(open(path, newline="")))
    head = next(i for i, r in enumerate(rows) if "Kernel Name" in r)
    cols = rows[head]
    k, t = cols.index("Kernel Name"), cols.index("gpu__time_duration.sum")
    unit = rows[head + 1][t] if not rows[head + 1][t].replace(".", "").isdigit() else "ns"
    scale = {"ns": 1e-3, "nsecond": 1e-3, "usecond": 1.0, "us": 1.0, "msecond": 1e3, "ms": 1e3}.get(unit, 1e-3)
    times = OrderedDict()
    order = []  # (kernel, us) in launch order
    for r in rows[head + 1:]:
        if len(r) <= max(k, t):
            continue
        try:
            v = float(r[t].replace(",", "")) * scale
        except ValueError:
            continue
        times.setdefault(short(r[k]), []).append(v)
        order.append((short(r[k]), v))
    return times, order


def main(path):
    times, _ = read(path)
    print("| kernel | launches | median us | total us |")
    print("|---|---:|---:|---:|")
    for name, v in times.items():
        print(f"| {name} | {len(v)} | {statistics.median(v):.1f} | {sum(v):.1f} |")


if __name__ == "__main__":
    if sys.argv[1] == "--launches":  # one line: every launch's time, in order
        print(" ".join(f"{v:.0f}" for _, v in read(sys.argv[2])[1]))
    else:
        main(sys.argv[1])
