#!/usr/bin/env bash
# The cluster sort (cluster_sort_agent) in one device call: build the library,
# the CUDA tests and the matrix benchmark (scripts/gpu/run.sh build), run the
# route's tests, then the matrix at the sizes it takes with the route off, on
# (its own choice of chunk, 7-bit digits) and with 6-bit digits, alternating.
#
#   CS_STAGES  any of: build test sanitize profile durations bench   (default: build test sanitize bench)
#   CS_DURATIONS  cells for the durations stage, "key:log2n" (the kernel alone, ncu's
#              gpu__time_duration of 8 launches a cell and variant, median)
#   CS_TESTS   radix_cuda_tests cases (default: the route's and the ones it changed; all: every case but the large)
#   CS_BENCH   radix_bench_matrix arguments (default below)
#   CS_ROUNDS  rounds of the three variants (default 2)
set -u -o pipefail
cd "$(dirname "$0")/../../.."
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
S="$OUT/cluster_summary.txt"
T0=$(date +%s)
log() { echo "[$(( $(date +%s) - T0 ))s] $*" | tee -a "$S"; }
has() { [[ " ${CS_STAGES:-build test sanitize bench} " == *" $1 "* ]]; }
#   CS_VARIANTS  of off on d6 c4096 (default: off on d6)
B=build-gpu
TESTS=$B/tests/cuda/radix_cuda_tests
MATRIX=$B/bench/cuda/radix_bench_matrix

if has build; then
  MINE_ONLY=1 BUILD_TARGETS="radix radix_cuda_tests radix_bench_matrix" bash scripts/gpu/run.sh build > "$OUT/cs_build.txt" 2>&1
  log "build: $(tail -1 "$OUT/cs_build.txt")"
fi
if has test; then
  for c in ${CS_TESTS:-cluster_sort_small cluster_sort_shapes narrow_order_check double_buffer_errors double_buffer_forms keys_every_type pairs_every_value_size argsort_index_widths}; do
    t=$(date +%s)
    if [ "$c" = all ]; then "$TESTS" > "$OUT/cs_test_$c.log" 2>&1; else "$TESTS" "$c" > "$OUT/cs_test_$c.log" 2>&1; fi
    log "test $c: exit $? ($(( $(date +%s) - t )) s): $(tail -1 "$OUT/cs_test_$c.log")"
    grep -E "FAIL|CHECK failed|exception" "$OUT/cs_test_$c.log" | head -5 | tee -a "$S"
  done
fi
if has sanitize; then
  for tool in ${CS_SAN_TOOLS:-memcheck racecheck synccheck}; do
    t=$(date +%s)
    timeout "${CS_SAN_TIMEOUT:-120}" compute-sanitizer --tool "$tool" --error-exitcode 99 --kernel-name kns=cluster_sort \
      "$TESTS" --small "${CS_SAN_CASE:-cluster_sort_small}" > "$OUT/cs_san_$tool.log" 2>&1
    log "compute-sanitizer --tool $tool (cluster_sort kernels) ${CS_SAN_CASE:-cluster_sort_small}: exit $? ($(( $(date +%s) - t )) s)"
    grep -E "ERROR SUMMARY|RACECHECK SUMMARY|Invalid|Race reported|Barrier error" "$OUT/cs_san_$tool.log" | tail -3 | tee -a "$S"
  done
fi
if has profile; then
  # ncu over one cluster sort of the matrix's first cell (CS_PROF: its arguments), source counters
  # (a cell is a warm-up and --reps timed sorts: skip fewer launches than that)
  ncu --clock-control none --kernel-name regex:cluster_sort --launch-skip 2 --launch-count 1 --set full \
    --import-source yes -o "$OUT/cs_profile" -f "$MATRIX" ${CS_PROF:---ops keys --keys u32 --n 16 --dists uniform --reps 3} \
    > "$OUT/cs_profile.log" 2>&1
  log "ncu: exit $?"
  ncu --import "$OUT/cs_profile.ncu-rep" --page details > "$OUT/cs_profile_details.txt" 2>&1
  ncu --import "$OUT/cs_profile.ncu-rep" --page source --csv --print-source cuda,sass > "$OUT/cs_profile_src.csv" 2>&1
  grep -E "Duration|Registers Per|Achieved Occupancy|Executed Instructions |Cluster" "$OUT/cs_profile_details.txt" | head -12 | tee -a "$S"
fi
env_of() {
  case $1 in
    off) env=(RADIX_CUDA_CLUSTER_SORT_MAX=0) ;;
    on) env=() ;;
    d6) env=(RADIX_CUDA_CLUSTER_DIGIT_BITS=6) ;;
    c4096) env=(RADIX_CUDA_CLUSTER_CHUNK=4096) ;;
  esac
}
if has durations; then
  for cell in ${CS_DURATIONS:-u32:15 u32:16 f32:16 u64:15 u16:16}; do
    for v in ${CS_VARIANTS:-off on d6}; do
      [ "$v" = off ] && continue
      env_of "$v"
      f="$OUT/cs_dur_${v}_${cell/:/_}.csv"
      env "${env[@]}" ncu --clock-control none --kernel-name regex:cluster_sort --launch-skip 1 --launch-count 8 \
        --metrics gpu__time_duration.sum --csv "$MATRIX" --ops keys --keys "${cell%%:*}" --n "${cell##*:}" \
        --dists uniform --reps 10 > "$f" 2>&1
      med=$(grep gpu__time_duration "$f" | awk -F'","' '{gsub(/"/,"",$NF); gsub(/,/,"",$NF); print $NF}' | sort -g |
        awk '{a[NR]=$1} END {if (NR) print (NR % 2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2), "(" NR " launches)"; else print "none"}')
      unit=$(grep -m1 gpu__time_duration "$f" | awk -F'","' '{print $(NF-1)}')
      log "duration $cell $v: $med $unit"
    done
  done
fi
if has bench; then
  ARGS=${CS_BENCH:---ops keys,pairs4,pairs8,argsort32 --keys u8,u16,u32,f32,u64 --n 13,14,15,16,17 --dists uniform,zipf --reps 10}
  for r in $(seq "${CS_ROUNDS:-2}"); do
    for v in ${CS_VARIANTS:-off on d6}; do
      env_of "$v"
      tag="${v}_$r"
      [ -e "$OUT/cs_matrix_$tag.csv" ] && tag="${v}_${r}b"  # a variant twice in a round (A B B A)
      env "${env[@]}" "$MATRIX" $ARGS --csv "$OUT/cs_matrix_$tag.csv" > "$OUT/cs_matrix_$tag.txt" 2>&1
      log "matrix $v round $r: exit $?: $(grep -i "geometric\|geomean" "$OUT/cs_matrix_$tag.txt" | head -1)"
    done
  done
fi
log "end"
# (a device call brings back at most 8 files: the logs travel as one archive)
tar -czf /tmp/cs_logs.tgz -C "$OUT" . && find "$OUT" -mindepth 1 ! -name cluster_summary.txt -delete &&
  mv /tmp/cs_logs.tgz "$OUT/"
