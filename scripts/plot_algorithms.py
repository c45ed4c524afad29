#!/usr/bin/env python3
"""Plots radix_algorithms_bench's CSV: throughput (GKeys/s) against N
(log scale) for every CUDA algorithm variant and CUB, one panel per workload
(u32 keys, u32/u32 pairs), for one input distribution (uniform by default).

    scripts/plot_algorithms.py algorithms.csv [-o algorithms.png] [--dist uniform] [--title TEXT]

Needs matplotlib (pip install matplotlib). Rows whose status is not "ok"
(a variant that threw or mis-sorted) are left out of the lines and listed
under the panels, so that a failure is never silently missing.
"""
import argparse
import csv
import os
import sys


def read_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv", help="the CSV written by radix_algorithms_bench --csv")
    ap.add_argument("-o", "--out", help="PNG to write (default: the CSV's name with .png)")
    ap.add_argument("--dist", default="uniform", help="input distribution to plot (uniform or gauss)")
    ap.add_argument("--title", default="", help="figure title (default: taken from the CSV's name)")
    args = ap.parse_args()

    try:
        import matplotlib

        matplotlib.use("Agg")  # no display on the GPU machine
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot_algorithms.py: matplotlib is not installed (pip install matplotlib); no plot written",
              file=sys.stderr)
        return 3

    rows = [r for r in read_rows(args.csv) if r["dist"] == args.dist]
    if not rows:
        print(f"plot_algorithms.py: no rows with dist={args.dist} in {args.csv}", file=sys.stderr)
        return 1
    out = args.out or os.path.splitext(args.csv)[0] + ".png"

    workloads = []
    for r in rows:
        if r["workload"] not in workloads:
            workloads.append(r["workload"])
    fig, axes = plt.subplots(1, len(workloads), figsize=(7.5 * len(workloads), 8.5), squeeze=False)
    failed = []
    for ax, wl in zip(axes[0], workloads):
        series = {}  # variant -> [(n, gkeys)]
        for r in rows:
            if r["workload"] != wl:
                continue
            if r["status"] != "ok":
                failed.append(f"{r['variant']} {wl} n={r['n']}")
                continue
            series.setdefault(r["variant"], []).append((int(r["n"]), float(r["gkeys_per_s"])))
        names = sorted(v for v in series if v != "cub")
        # one colour family per algorithm, shades within it, so that the families read at a glance
        families = {"onesweep": "Blues", "reduce_then_scan": "Greens", "four_way": "Oranges", "split": "Purples"}
        for name in names:
            fam = name.split("/")[0]
            members = [m for m in names if m.split("/")[0] == fam]
            shade = 0.5 + 0.45 * (members.index(name) / max(1, len(members) - 1))
            color = plt.get_cmap(families.get(fam, "Greys"))(shade)
            pts = sorted(series[name])
            style = "--" if "elementwise" in name else "-"
            ax.plot([p[0] for p in pts], [p[1] for p in pts], style, marker="o", markersize=3, linewidth=1.2,
                    color=color, label=name)
        if "cub" in series:
            pts = sorted(series["cub"])
            ax.plot([p[0] for p in pts], [p[1] for p in pts], "-", marker="s", color="black", linewidth=2.5,
                    label="CUB DeviceRadixSort")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("N (elements)")
        ax.set_ylabel("GKeys/s")
        ax.set_title(f"{wl}, {args.dist} keys")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7, ncol=3, loc="upper center", bbox_to_anchor=(0.5, -0.12))
    fig.suptitle(args.title or f"radix CUDA algorithms vs CUB ({os.path.basename(args.csv)})")
    if failed:
        fig.text(0.01, 0.005, "FAILED (not plotted): " + "; ".join(failed[:12]) + (" ..." if len(failed) > 12 else ""),
                 fontsize=7, color="red")
    fig.tight_layout(rect=(0, 0.03, 1, 0.96))
    fig.savefig(out, dpi=130)
    print(f"wrote {out}" + (f" ({len(failed)} failed rows listed, not plotted)" if failed else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
