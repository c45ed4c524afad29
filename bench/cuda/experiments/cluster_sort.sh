#!/usr/bin/env bash
# The cluster sort (cluster_sort_agent) in one device call: build the library,
# the CUDA tests and the matrix benchmark (scripts/gpu/run.sh build), run the
# route's tests, then the matrix at the sizes it takes with the route off, on
# (its own choice of block) and with 512-thread blocks forced, alternating.
#
#   CS_STAGES  any of: build test sanitize profile bench   (default: build test sanitize bench)
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
#   CS_VARIANTS  of off on t512 c4096 c8192 (default: off on t512)
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
  ncu --clock-control none --kernel-name regex:cluster_sort --launch-skip 5 --launch-count 1 --set full \
    --import-source yes -o "$OUT/cs_profile" -f "$MATRIX" ${CS_PROF:---ops keys --keys u32 --n 16 --dists uniform --reps 3} \
    > "$OUT/cs_profile.log" 2>&1
  log "ncu: exit $?"
  ncu --import "$OUT/cs_profile.ncu-rep" --page details > "$OUT/cs_profile_details.txt" 2>&1
  ncu --import "$OUT/cs_profile.ncu-rep" --page source --csv --print-source cuda,sass > "$OUT/cs_profile_src.csv" 2>&1
  grep -E "Duration|Registers Per|Achieved Occupancy|Executed Instructions |Cluster" "$OUT/cs_profile_details.txt" | head -12 | tee -a "$S"
fi
if has bench; then
  ARGS=${CS_BENCH:---ops keys,pairs4,pairs8,argsort32 --keys u8,u16,u32,f32,u64 --n 13,14,15,16,17 --dists uniform,zipf --reps 10}
  for r in $(seq "${CS_ROUNDS:-2}"); do
    for v in ${CS_VARIANTS:-off on t512}; do
      case $v in
        off) env=(RADIX_CUDA_CLUSTER_SORT_MAX=0) ;;
        on) env=() ;;
        t512) env=(RADIX_CUDA_CLUSTER_THREADS=512) ;;
        c4096) env=(RADIX_CUDA_CLUSTER_CHUNK=4096) ;;
        c8192) env=(RADIX_CUDA_CLUSTER_CHUNK=8192) ;;
      esac
      env "${env[@]}" "$MATRIX" $ARGS --csv "$OUT/cs_matrix_${v}_$r.csv" > "$OUT/cs_matrix_${v}_$r.txt" 2>&1
      log "matrix $v round $r: exit $?: $(grep -i "geometric\|geomean" "$OUT/cs_matrix_${v}_$r.txt" | head -1)"
    done
  done
fi
log "end"
# (a device call brings back at most 8 files: the logs travel as one archive)
tar -czf /tmp/cs_logs.tgz -C "$OUT" . && find "$OUT" -mindepth 1 ! -name cluster_summary.txt -delete &&
  mv /tmp/cs_logs.tgz "$OUT/"
