#!/bin/bash
# A/B builds of the CUDA benchmark in one device call (src/cuda/NOTES.md, "A/B slots").
# Each variant is a dev-types build (RADIX_CUDA_TYPES=dev) with its own CUDA flags,
# built in parallel under /tmp/ab_<name>; then the benchmark rows of every case run
# in turn, AB_ROUNDS times, in each buffer layout, one process per row.
#
#   AB_VARIANTS  "name=CUDA flags;..."   e.g. "base=;align=-DSOME_MACRO=128"
#                (nvcc splits -D values at commas: pass numbers, not lists);
#                "name@DIR=flags" builds the sources in DIR instead (another
#                commit, e.g. `git archive COMMIT | tar -x -C DIR`, carried)
#   AB_CASES     "name[:slot]|row|log2;..."  slot k runs with RADIX_CUDA_ALT_POLICY=k
#                (the variant must define RADIX_CUDA_ALT_POLICY_BUILD)
#   AB_LAYOUTS   default "shared doc";  AB_ROUNDS default 2;  AB_REPS default 15
#
#   AB_VARIANTS="base=;alt=-DRADIX_CUDA_ALT_POLICY_BUILD" \
#   AB_CASES="base|u32/u32 pairs|28;alt:1|u32/u32 pairs|28" scripts/gpu/ab.sh
#
# Prints (and appends to $OUT/summary.txt) one line per row: seconds since the
# start, variant, slot, layout, then the benchmark's columns case .. CUB / radix
# and "same as CUB". Build logs go to $OUT/ab_build_<name>.log.
set -u -o pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
OUT=${OUT:-$ROOT/out}
mkdir -p "$OUT"
S="$OUT/summary.txt"
T0=$(date +%s)
log() { echo "[$(( $(date +%s) - T0 ))s] $*" | tee -a "$S"; }

IFS=';' read -ra VARIANTS <<< "${AB_VARIANTS:?set AB_VARIANTS}"
IFS=';' read -ra CASES <<< "${AB_CASES:?set AB_CASES}"
JOBS=$(( $(nproc) / ${#VARIANTS[@]} )); [ "$JOBS" -lt 1 ] && JOBS=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a "$S"

for v in "${VARIANTS[@]}"; do
  name=${v%%=*}; flags=${v#*=}
  src=.
  if [[ "$name" == *@* ]]; then src=${name#*@}; name=${name%%@*}; fi
  ( cmake -S "$src" -B "/tmp/ab_$name" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
      -DRADIX_ENABLE_CUDA=ON -DRADIX_BUILD_EXAMPLES=OFF -DRADIX_CUDA_TYPES=dev "-DCMAKE_CUDA_FLAGS=$flags" \
      > "$OUT/ab_build_$name.log" 2>&1 &&
    cmake --build "/tmp/ab_$name" --target radix_cuda_bench -j"$JOBS" >> "$OUT/ab_build_$name.log" 2>&1
    echo "build $name ($flags): exit $?" | tee -a "$S" ) &
done
wait
log "builds done"

for round in $(seq "${AB_ROUNDS:-2}"); do
  for layout in ${AB_LAYOUTS:-shared doc}; do
    for c in "${CASES[@]}"; do
      IFS='|' read -r who row lg <<< "$c"
      name=${who%%:*}; slot=""; [ "$who" != "$name" ] && slot=${who#*:}
      env ${slot:+RADIX_CUDA_ALT_POLICY=$slot} "/tmp/ab_$name/bench/cuda/radix_cuda_bench" --reps "${AB_REPS:-15}" \
        --only "$row" --log2 "$lg" --layout "$layout" 2>> "$OUT/ab_bench.err" |
        grep "^| [a-z0-9]" | grep -v "^| case" | cut -d'|' -f2-8,14 |
        while read -r r; do log "$name ${slot:+slot$slot }$layout $r"; done
    done
  done
done
log "end"
