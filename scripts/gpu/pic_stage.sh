#!/usr/bin/env bash
# The PIC application (apps/pic) on the GPU machine: build radix_pic
# for sm_90, verification runs of the GPU step (also against the CPU engine),
# compute-sanitizer (memcheck, racecheck, synccheck) over small GPU cases, then
# the 8M-particle / 32x32 comparison (Table 7 shape) on the CUDA engine and on
# the CPU engine. Logs, markdown tables and pictures go to $OUT (default ./out).
# Never stops at the first failure; prints a summary and exits 1 if anything failed.
#
#   scripts/gpu/pic_stage.sh [stage...]   stages: build verify sanitize bench (default: all four)
#   env: BUILD_DIR (build-pic-gpu), PIC_N (8M), PIC_STEPS (20), PIC_REPS (20),
#        PIC_CMAKE_ARGS (extra configure arguments), SAN_TIMEOUT (s per sanitizer run, 600)
set -u -o pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
OUT=${OUT:-$ROOT/out}
mkdir -p "$OUT"
B=${BUILD_DIR:-build-pic-gpu}
N=${PIC_N:-8M}
STEPS=${PIC_STEPS:-20}
REPS=${PIC_REPS:-20}
STAGES=("$@")
[ ${#STAGES[@]} -eq 0 ] && STAGES=(build verify sanitize bench)
has() { local s; for s in "${STAGES[@]}"; do [ "$s" = "$1" ] && return 0; done; return 1; }
SUMMARY="$OUT/pic_summary.txt"
note() { echo "$*" | tee -a "$SUMMARY"; }
FAILED=0
PIC="$B/apps/pic/radix_pic"
[ -d /usr/local/cuda/bin ] && export PATH=/usr/local/cuda/bin:$PATH

# run NAME LOG CMD...: runs CMD with its output in $OUT/LOG, notes the exit status and time.
run() {
  local name=$1 log=$2
  shift 2
  local t0=$(date +%s)
  "$@" > "$OUT/$log" 2>&1
  local rc=$?
  local verdict=ok
  [ $rc -ne 0 ] && { verdict=FAILED; FAILED=$((FAILED + 1)); }
  note "-- $name: exit $rc ($(( $(date +%s) - t0 )) s) $verdict [$log]"
  return $rc
}

note "== radix PIC GPU stage $(date -u '+%Y-%m-%d %H:%M:%S UTC') on $(hostname)"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | tee -a "$SUMMARY"
nvcc --version 2>&1 | tail -2 | tee -a "$SUMMARY"
note "-- git: $(git rev-parse --short HEAD 2>/dev/null) $(git status --porcelain 2>/dev/null | wc -l) changed files"

if has build; then
  run configure pic_build.log cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DRADIX_ENABLE_CUDA=ON -DRADIX_BUILD_TESTS=OFF -DRADIX_BUILD_BENCH=OFF -DRADIX_BUILD_TOOLS=OFF \
    -DRADIX_BUILD_EXAMPLES=OFF -DRADIX_BUILD_APPS=ON ${PIC_CMAKE_ARGS:-}
  cmake --build "$B" -j"$(nproc)" --target radix_pic >> "$OUT/pic_build.log" 2>&1
  rc=$?
  [ $rc -ne 0 ] && FAILED=$((FAILED + 1))
  note "-- build radix_pic: exit $rc"
fi

if [ ! -x "$PIC" ]; then
  note "-- $PIC missing: nothing more to run"
  note "== FAILED: radix_pic was not built"
  exit 1
fi

if has verify; then
  # Every step is verified inside radix_pic (checksum, cell order, charge against the
  # unsorted deposition); -e cpu,cuda adds the cross-check of the final lists and grids.
  # 32x32: the deposit's shared-memory path; 512x256 and 4096x4096 with fewer particles
  # than cells: its direct path (a tile spans more cells than it has slots).
  run "verify 1M 32x32 cpu,cuda" pic_verify_32.log "$PIC" -e cpu,cuda -n 1M -g 32 -s 6 --no-compare
  run "verify 300K 512x256 gauss cpu,cuda" pic_verify_512.log "$PIC" -e cpu,cuda -n 300000 -g 512x256 -s 4 --init gauss --no-compare
  run "verify 2M 4096x4096 cpu,cuda" pic_verify_4096.log "$PIC" -e cpu,cuda -n 2M -g 4096 -s 3 --no-compare
  run "verify 8M 32x32 cpu,cuda" pic_verify_8m.log "$PIC" -e cpu,cuda -n "$N" -g 32 -s 4 --no-compare
  grep -hE "Verification|Cross-check|FAILED" "$OUT"/pic_verify_*.log | sort | uniq -c | tee -a "$SUMMARY"
fi

if has sanitize; then
  for tool in memcheck racecheck synccheck; do
    run "compute-sanitizer $tool, 64K 32x32" pic_sanitize_${tool}_32.log timeout "${SAN_TIMEOUT:-600}" \
      compute-sanitizer --tool $tool --error-exitcode 99 "$PIC" -e cuda -n 64K -g 32 -s 2 -r 1
    run "compute-sanitizer $tool, 20000 100x60 (direct path)" pic_sanitize_${tool}_100x60.log timeout "${SAN_TIMEOUT:-600}" \
      compute-sanitizer --tool $tool --error-exitcode 99 "$PIC" -e cuda -n 20000 -g 100x60 -s 2 -r 1 --no-compare
    grep -hE "ERROR SUMMARY|RACECHECK SUMMARY" "$OUT"/pic_sanitize_${tool}_*.log | tee -a "$SUMMARY"
  done
fi

if has bench; then
  run "bench cuda $N 32x32" pic_bench_cuda.log "$PIC" -e cuda -n "$N" -g 32 -s "$STEPS" -r "$REPS" \
    --out "$OUT/pic-cuda-h100.md" --png "$OUT/pic-cuda-32.png"
  # The CPU engine (all host cores) and the CUDA engine in one process: both tables, the
  # summary in Table 7's shape, the step ratio, and the cross-check of the final lists.
  run "bench cpu,cuda $N 32x32" pic_bench_both.log "$PIC" -e cpu,cuda -n "$N" -g 32 -s "$STEPS" -r "$REPS" \
    --out "$OUT/pic-both-h100.md"
  # A large grid: the deposition on a random list misses the caches there.
  run "bench cuda $N 4096x4096" pic_bench_cuda_4096.log "$PIC" -e cuda -n "$N" -g 4096 -s 10 -r "$REPS" \
    --out "$OUT/pic-cuda-h100-4096.md"
  # The picture for the README: a Gaussian blob streaming apart.
  run "picture cuda 8M 256x256 gauss" pic_picture.log "$PIC" -e cuda -n "$N" -g 256 -s 60 --init gauss --no-compare \
    --png "$OUT/pic-gauss-256.png"
  for f in pic-cuda-h100.md pic-both-h100.md; do
    [ -f "$OUT/$f" ] && { echo "---- $f"; grep -E "^\| |Verification|Cross-check|Whole step" "$OUT/$f"; }
  done
fi

if [ $FAILED -ne 0 ]; then
  note "== FAILED: $FAILED run(s) failed ($(date -u '+%H:%M:%S UTC'))"
  exit 1
fi
note "== all passed ($(date -u '+%H:%M:%S UTC'))"
