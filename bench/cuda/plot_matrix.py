#!/usr/bin/env python3
"""Plots radix_bench_matrix's CSV: the ratio CUB ms / radix ms (> 1: radix is
faster) over n, one line per row (op, key type, distribution), one panel per
operation; colour = key type, line style = distribution. Several CSVs (the
shards of one matrix) are merged.

    bench/cuda/plot_matrix.py matrix.csv [more.csv ...] [-o matrix.png] [--title TEXT] [--summary]

--summary also prints each row's geometric mean over n, the worst cell and the
overall geometric mean of the merged cells (what one run prints for its own
cells). Cells whose status is not "ok" are not plotted: a failed one is marked
with a red x on its panel's bottom edge and listed, a skipped one is counted. Without
matplotlib it prints why and exits 0 (after the summary, when asked for).
"""
import argparse
import csv
import math
import os
import sys

OPS = ["keys", "pairs4", "pairs8", "pairs16", "argsort32", "argsort64"]
KEYS = ["u8", "u16", "u32", "u64", "f32", "f32nan", "f64"]
DISTS = ["uniform", "zipf", "few16", "sorted", "swaps"]
STYLES = {"uniform": "-", "zipf": "--", "few16": ":", "sorted": "-.", "swaps": (0, (5, 1, 1, 1, 1, 1))}


def order(names, x):
    return names.index(x) if x in names else len(names)


def read_cells(paths):
    cells = {}  # (op, key, dist, log2n) -> row; a later file's cell replaces an earlier one
    for path in paths:
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                cells[(r["op"], r["key"], r["dist"], int(r["log2n"]))] = r
    return cells


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def rows_of(cells):
    rows = {}
    for (op, key, dist, lg), r in cells.items():
        rows.setdefault((op, key, dist), []).append((lg, r))
    return {k: sorted(v, key=lambda t: t[0]) for k, v in
            sorted(rows.items(), key=lambda kv: (order(OPS, kv[0][0]), order(KEYS, kv[0][1]), order(DISTS, kv[0][2])))}


def summary(cells, first):
    print(f"# radix vs CUB matrix: {first['device']}, CUB {first['cub']}, radix {first['commit']}, {len(cells)} cells")
    print("\n| op | key | dist | geomean | worst n | worst |\n|---|---|---|---|---|---|")
    every, worst = [], None
    for (op, key, dist), cs in rows_of(cells).items():
        ok = [(lg, float(r["ratio"])) for lg, r in cs if r["status"] == "ok"]
        if not ok:
            print(f"| {op} | {key} | {dist} | - | - | - |")
            continue
        lg_w, q_w = min(ok, key=lambda t: t[1])
        print(f"| {op} | {key} | {dist} | {geomean([q for _, q in ok]):.3f} | 2^{lg_w} | {q_w:.3f} |")
        every += [q for _, q in ok]
        if worst is None or q_w < worst[0]:
            worst = (q_w, f"{op} {key} 2^{lg_w} {dist}")
    if worst:
        print(f"\n- worst cell: {worst[1]}: {worst[0]:.3f}x")
        print(f"- overall geometric mean over {len(every)} cells: {geomean(every):.3f}x; "
              f"below 1.00x: {sum(q < 1.0 for q in every)}")
    for k, r in cells.items():
        if r["status"] != "ok" and not r["status"].startswith("SKIPPED"):
            print(f"- FAILED: {k[0]} {k[1]} 2^{k[3]} {k[2]}: {r['status']}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv", nargs="+", help="CSV files written by radix_bench_matrix --csv")
    ap.add_argument("-o", "--out", help="PNG to write (default: the first CSV's name with .png)")
    ap.add_argument("--title", default="", help="figure title (default: device, CUB version, commit)")
    ap.add_argument("--summary", action="store_true", help="print the merged cells' geometric means")
    args = ap.parse_args()

    cells = read_cells(args.csv)
    if not cells:
        print("plot_matrix.py: no cells in " + ", ".join(args.csv), file=sys.stderr)
        return 1
    first = next(iter(cells.values()))
    if args.summary:
        summary(cells, first)

    try:
        import matplotlib

        matplotlib.use("Agg")  # no display on the GPU machine
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot_matrix.py: matplotlib is not installed (pip install matplotlib); no plot written")
        return 0

    from matplotlib.lines import Line2D

    rows = rows_of(cells)
    ops = sorted({k[0] for k in rows}, key=lambda o: order(OPS, o))
    cols = min(3, len(ops))
    nrows = (len(ops) + cols - 1) // cols
    fig, axes = plt.subplots(nrows, cols, figsize=(7 * cols, 5 * nrows + 1.2), squeeze=False)
    colours = {k: plt.get_cmap("tab10")(i) for i, k in enumerate(KEYS)}
    lgs = sorted({k[3] for k in cells})
    failed, skipped = [], 0
    for ax, op in zip(axes.flat, ops):
        bad = []
        for (o, key, dist), cs in rows.items():
            if o != op:
                continue
            pts = [(lg, float(r["ratio"])) for lg, r in cs if r["status"] == "ok"]
            for lg, r in cs:
                if r["status"].startswith("SKIPPED"):
                    skipped += 1
                elif r["status"] != "ok":
                    failed.append(f"{op} {key} 2^{lg} {dist}")
                    bad.append(lg)
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], linestyle=STYLES.get(dist, "-"), marker=".",
                        color=colours.get(key, "black"), linewidth=1.1)
        ax.set_yscale("log", base=2)  # 2x faster and 2x slower are the same distance from 1
        ax.axhline(1.0, color="black", linewidth=0.8)
        for lg in bad:  # at the bottom edge: a failed cell has no ratio
            ax.plot([lg], [ax.get_ylim()[0]], "x", color="red", markersize=10, clip_on=False)
        ax.set_title(op)
        ax.set_xticks(lgs)
        ax.set_xlabel("log2 n")
        ax.set_ylabel("CUB ms / radix ms (> 1: radix faster)")
        ax.grid(True, which="both", alpha=0.3)
    for ax in list(axes.flat)[len(ops):]:
        ax.set_visible(False)
    present = {k[1] for k in rows}, {k[2] for k in rows}
    handles = [Line2D([], [], color=colours[k], label=k) for k in KEYS if k in present[0]]
    handles += [Line2D([], [], color="gray", linestyle=STYLES[d], label=d) for d in DISTS if d in present[1]]
    fig.legend(handles=handles, loc="lower center", ncol=len(handles), fontsize=9, frameon=False)
    fig.suptitle(args.title or f"radix vs CUB {first['cub']} on {first['device']} (radix {first['commit']}, "
                 f"{first['date']})", fontsize=10)
    notes = []
    if failed:
        notes.append("FAILED (red x): " + ", ".join(failed[:12]) + (" ..." if len(failed) > 12 else ""))
    if skipped:
        notes.append(f"{skipped} cells skipped (their status says why)")
    if notes:
        fig.text(0.01, 0.002, "\n".join(notes), fontsize=8, color="red" if failed else "black")
    fig.tight_layout(rect=(0, 0.06 if notes else 0.04, 1, 0.97))
    out = args.out or os.path.splitext(args.csv[0])[0] + ".png"
    fig.savefig(out, dpi=110)
    print(f"plot_matrix.py: wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
