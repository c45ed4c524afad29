#!/usr/bin/env bash
# The LBVH application (apps/lbvh) on the GPU machine: validation of
# the GPU build at full size on the three generated meshes (against brute-force
# rays, and against the CPU engine's build: identical codes, tree and boxes),
# 30- and 63-bit codes, the app's ctest entries, compute-sanitizer (memcheck,
# racecheck, synccheck) over a small mesh, then the benchmark in Table I's
# shape (build times per phase, GPU against the CPU engine, frames per second
# of rebuild + render at 1024x1024) with the pictures. Logs, markdown and PNGs
# go to $OUT (default ./out). Never stops at the first failure; prints a
# summary and exits 1 if anything failed. About 2-3 minutes on an H100 + 16 cores.
#
#   scripts/gpu/lbvh_stage.sh [stage...]   stages: build verify sanitize bench
#                                          (default: verify sanitize bench; run after
#                                          scripts/gpu/run.sh build, which configures build-gpu)
#   env: BUILD_DIR (build-gpu), LBVH_MESHES (bunny,dragon,welsh), LBVH_REPS (20),
#        LBVH_FRAMES (100), LBVH_CMAKE_ARGS (extra configure arguments for 'build'
#        when BUILD_DIR is not configured yet), SAN_TIMEOUT (s per sanitizer run, 300)
. "$(dirname "${BASH_SOURCE[0]}")/stage_lib.sh"
app_stage lbvh build-gpu "verify sanitize bench" "$@"
MESHES=${LBVH_MESHES:-bunny,dragon,welsh}
REPS=${LBVH_REPS:-20}
FRAMES=${LBVH_FRAMES:-100}
T_START=$(date +%s)

stage_header "LBVH GPU stage" "; $(nproc) cores"

if has build; then
  # Configure only when BUILD_DIR has never been configured (run.sh build normally has done it).
  if [ ! -f "$B/CMakeCache.txt" ]; then
    run configure lbvh_configure.log cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
      -DRADIX_ENABLE_CUDA=ON -DRADIX_BUILD_TESTS=ON -DRADIX_BUILD_BENCH=OFF -DRADIX_BUILD_TOOLS=OFF \
      -DRADIX_BUILD_EXAMPLES=OFF -DRADIX_BUILD_APPS=ON ${LBVH_CMAKE_ARGS:-}
  fi
  run "build radix_lbvh" lbvh_build.log cmake --build "$B" -j"$JOBS" --target radix_lbvh
fi

require_app "$APP" radix_lbvh " (build it: scripts/gpu/run.sh build, or this script's 'build' stage)"

if has verify; then
  # The app's ctest entries (CPU and GPU: small meshes, files, malformed files, usage).
  run "ctest -R apps.lbvh" lbvh_ctest.log bash -c "cd '$B' && ctest -R 'apps\\.lbvh' --output-on-failure --timeout 300"
  grep -E "tests passed|tests failed|Skipped|\*\*\*Failed" "$OUT/lbvh_ctest.log" | tee -a "$SUMMARY"
  # Full size: every build validated (structure, 4096 rays against brute force on the GPU),
  # and the GPU build compared with the CPU engine's (must be identical).
  run "verify $MESHES cpu,cuda 30-bit" lbvh_verify_30.log "$APP" -e cpu,cuda -m "$MESHES" -r 2 --no-render
  run "verify $MESHES cpu,cuda 63-bit" lbvh_verify_63.log "$APP" -e cpu,cuda -m "$MESHES" -b 63 -r 2 --no-render
  grep -hE "^Validation|^Cross-check|FAILED" "$OUT"/lbvh_verify_*.log | sed 's/build hash [0-9a-f]*//' | tee -a "$SUMMARY"
fi

if has sanitize; then
  for tool in memcheck racecheck synccheck; do
    run "compute-sanitizer $tool, gen:3000" lbvh_sanitize_${tool}.log \
      sanitizer $tool "${SAN_TIMEOUT:-300}" "$APP" -e cuda -m gen:3000 -r 1 -f 2 --size 64x48 --rays 64
    grep -hE "ERROR SUMMARY|RACECHECK SUMMARY" "$OUT/lbvh_sanitize_${tool}.log" | tee -a "$SUMMARY"
  done
  run "compute-sanitizer memcheck, gen:3000 63-bit + files" lbvh_sanitize_memcheck63.log \
    sanitizer memcheck "${SAN_TIMEOUT:-300}" "$APP" -e cuda -m gen:3000,apps/lbvh/tests/one.obj,apps/lbvh/tests/tiny.ply \
    -b 63 -r 1 -f 2 --size 64x48 --rays 64
  grep -hE "ERROR SUMMARY" "$OUT/lbvh_sanitize_memcheck63.log" | tee -a "$SUMMARY"
fi

if has bench; then
  # Table I: the GPU build and frame rate (rebuild + render 1024x1024 every frame, 8 cameras
  # orbiting), the CPU engine on this machine's cores for comparison, and the pictures.
  run "bench cpu,cuda $MESHES 30-bit" lbvh_bench.log "$APP" -e cpu,cuda -m "$MESHES" -r "$REPS" -f "$FRAMES" \
    --cpu-frames 1 --out "$OUT/lbvh-h100.md" --png "$OUT/lbvh-png"
  run "bench cuda $MESHES 63-bit" lbvh_bench_63.log "$APP" -e cuda -m "$MESHES" -b 63 -r "$REPS" -f "$FRAMES" \
    --no-verify --out "$OUT/lbvh-h100-63bit.md"
  for f in lbvh-h100.md lbvh-h100-63bit.md; do
    [ -f "$OUT/$f" ] && { echo "---- $f"; sed -n '/^## Summary/,$p' "$OUT/$f"; grep -E "frames per second" "$OUT/$f"; } | tee -a "$SUMMARY"
  done
fi

stage_verdict "$T_START"
