"""Two radix_bench_matrix CSVs of the same cells (A, then B): radix ms and ratio to CUB per cell."""
import csv
import sys

a = {(r["op"], r["key"], r["log2n"], r["dist"]): r for r in csv.DictReader(open(sys.argv[1]))}
b = {(r["op"], r["key"], r["log2n"], r["dist"]): r for r in csv.DictReader(open(sys.argv[2]))}
print(f"{'cell':34} {'A ms':>9} {'A/CUB':>6} {'B ms':>9} {'B/CUB':>6} {'A/B':>5}")
for k, rb in b.items():
    ra = a.get(k)
    if not ra:
        continue
    ta, tb = float(ra["radix_ms"]), float(rb["radix_ms"])
    print(f"{' '.join(k):34} {ta:9.5f} {float(ra['ratio']):6.3f} {tb:9.5f} {float(rb['ratio']):6.3f} {ta / tb:5.2f}")
