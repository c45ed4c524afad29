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
. "$(dirname "${BASH_SOURCE[0]}")/stage_lib.sh"
app_stage pic build-pic-gpu "build verify sanitize bench" "$@"
N=${PIC_N:-8M}
STEPS=${PIC_STEPS:-20}
REPS=${PIC_REPS:-20}

stage_header "PIC GPU stage"

if has build; then
  run configure pic_build.log cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DRADIX_ENABLE_CUDA=ON -DRADIX_BUILD_TESTS=OFF -DRADIX_BUILD_BENCH=OFF -DRADIX_BUILD_TOOLS=OFF \
    -DRADIX_BUILD_EXAMPLES=OFF -DRADIX_BUILD_APPS=ON ${PIC_CMAKE_ARGS:-}
  build_app radix_pic pic_build.log
fi

require_app "$APP" radix_pic

if has verify; then
  # Every step is verified inside radix_pic (checksum, cell order, charge against the
  # unsorted deposition); -e cpu,cuda adds the cross-check of the final lists and grids.
  # 32x32: the deposit's shared-memory path; 512x256 and 4096x4096 with fewer particles
  # than cells: its direct path (a tile spans more cells than it has slots).
  run "verify 1M 32x32 cpu,cuda" pic_verify_32.log "$APP" -e cpu,cuda -n 1M -g 32 -s 6 --no-compare
  run "verify 300K 512x256 gauss cpu,cuda" pic_verify_512.log "$APP" -e cpu,cuda -n 300000 -g 512x256 -s 4 --init gauss --no-compare
  run "verify 2M 4096x4096 cpu,cuda" pic_verify_4096.log "$APP" -e cpu,cuda -n 2M -g 4096 -s 3 --no-compare
  run "verify 8M 32x32 cpu,cuda" pic_verify_8m.log "$APP" -e cpu,cuda -n "$N" -g 32 -s 4 --no-compare
  grep -hE "Verification|Cross-check|FAILED" "$OUT"/pic_verify_*.log | sort | uniq -c | tee -a "$SUMMARY"
fi

if has sanitize; then
  for tool in memcheck racecheck synccheck; do
    run "compute-sanitizer $tool, 64K 32x32" pic_sanitize_${tool}_32.log \
      sanitizer $tool "${SAN_TIMEOUT:-600}" "$APP" -e cuda -n 64K -g 32 -s 2 -r 1
    run "compute-sanitizer $tool, 20000 100x60 (direct path)" pic_sanitize_${tool}_100x60.log \
      sanitizer $tool "${SAN_TIMEOUT:-600}" "$APP" -e cuda -n 20000 -g 100x60 -s 2 -r 1 --no-compare
    grep -hE "ERROR SUMMARY|RACECHECK SUMMARY" "$OUT"/pic_sanitize_${tool}_*.log | tee -a "$SUMMARY"
  done
fi

if has bench; then
  run "bench cuda $N 32x32" pic_bench_cuda.log "$APP" -e cuda -n "$N" -g 32 -s "$STEPS" -r "$REPS" \
    --out "$OUT/pic-cuda-h100.md" --png "$OUT/pic-cuda-32.png"
  # The CPU engine (all host cores) and the CUDA engine in one process: both tables, the
  # summary in Table 7's shape, the step ratio, and the cross-check of the final lists.
  run "bench cpu,cuda $N 32x32" pic_bench_both.log "$APP" -e cpu,cuda -n "$N" -g 32 -s "$STEPS" -r "$REPS" \
    --out "$OUT/pic-both-h100.md"
  # A large grid: the deposition on a random list misses the caches there.
  run "bench cuda $N 4096x4096" pic_bench_cuda_4096.log "$APP" -e cuda -n "$N" -g 4096 -s 10 -r "$REPS" \
    --out "$OUT/pic-cuda-h100-4096.md"
  # The picture for the README: a Gaussian blob streaming apart.
  run "picture cuda 8M 256x256 gauss" pic_picture.log "$APP" -e cuda -n "$N" -g 256 -s 60 --init gauss --no-compare \
    --png "$OUT/pic-gauss-256.png"
  for f in pic-cuda-h100.md pic-both-h100.md; do
    [ -f "$OUT/$f" ] && { echo "---- $f"; grep -E "^\| |Verification|Cross-check|Whole step" "$OUT/$f"; }
  done
fi

stage_verdict
