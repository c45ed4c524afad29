"""An `ncu --metrics ... --csv` export, one line per kernel launch: its name and its metrics."""
import csv
import sys

rows = [r for r in csv.reader(l for l in open(sys.argv[1]) if l.startswith('"'))]
if len(rows) < 2:
    sys.exit("no rows")
h = rows[0]
ki, mi, vi, ii = h.index("Kernel Name"), h.index("Metric Name"), h.index("Metric Value"), h.index("ID")
launches = {}
for r in rows[1:]:
    short = r[mi].replace("smsp__average_warps_issue_stalled_", "st_").replace("_per_issue_active.ratio", "")
    launches.setdefault((r[ii], r[ki].split("(")[0][-60:]), []).append(f"{short}={r[vi]}")
for (i, name), ms in launches.items():
    print(f"[{i}] {name}\n    " + " ".join(ms))
