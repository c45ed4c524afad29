"""The hottest SASS lines of an `ncu --page source --csv --print-source sass` export, by warp-stall samples."""
import csv
import sys

rows = [r for r in csv.reader(l for l in open(sys.argv[1]) if l.startswith('"'))]
rows = rows[next((i for i, r in enumerate(rows) if r and r[0] == "Address"), 0):]  # after the kernel's name
if len(rows) < 2:
    sys.exit("no rows")
h = rows[0]
def col(*names):
    for n in names:
        for i, c in enumerate(h):
            if c.strip().lower() == n.lower():
                return i
    return None
src = col("Source")
smp = col("Warp Stall Sampling (All Samples)", "Warp Stall Sampling (All Cycles)")
ex = col("Instructions Executed", "Warp Instructions Executed")
stall_cols = [i for i, c in enumerate(h) if c.startswith("stall_") and "Not Issued" not in c]
print("columns:", [h[i] for i in (src, smp, ex) if i is not None], len(h))
def num(x):
    try:
        return float(x.replace(",", ""))
    except ValueError:
        return 0.0
total = sum(num(r[smp]) for r in rows[1:]) or 1
print(f"total samples {total:.0f}, {len(rows) - 1} SASS lines")
top = sorted(range(1, len(rows)), key=lambda i: -num(rows[i][smp]))[: int(sys.argv[2])]
for i in sorted(top):
    r = rows[i]
    reasons = sorted(((num(r[j]), h[j]) for j in stall_cols if num(r[j]) > 0), reverse=True)[:3]
    print(f"{i:5} {num(r[smp]) / total * 100:5.1f}% ex={r[ex] if ex is not None else ''} {r[src][:70]:70} {' '.join(f'{n}={v:.0f}' for v, n in reasons)}")
