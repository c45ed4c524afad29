#!/usr/bin/env bash
# The broad-phase application (apps/broadphase) on the GPU machine:
# verification runs (the GPU frame against brute force / a uniform grid, and
# against the CPU engine), compute-sanitizer (memcheck, racecheck, synccheck)
# over small GPU cases, and the sweep 16K..4M objects on the CUDA engine and
# the CPU engine (markdown tables, the Fig. 6-shaped plot, a picture of one
# frame). Everything goes to $OUT (default ./out). Never stops at the first
# failure; prints a summary and exits 1 if anything failed.
#
#   scripts/gpu/broadphase_stage.sh [stage...]   stages: build verify sanitize bench (default: verify sanitize bench)
#   env: BUILD_DIR (build-gpu: configured by `scripts/gpu/run.sh build`; the `build` stage
#        configures it only when asked), BP_SIZES (16K..4M), BP_FRAMES (10), BP_REPS (10),
#        BP_CMAKE_ARGS (extra configure arguments for `build`), SAN_TIMEOUT (s per sanitizer run, 300)
. "$(dirname "${BASH_SOURCE[0]}")/stage_lib.sh"
app_stage broadphase build-gpu "verify sanitize bench" "$@"
SIZES=${BP_SIZES:-16K..4M}
FRAMES=${BP_FRAMES:-10}
REPS=${BP_REPS:-10}

stage_header "broad-phase GPU stage"

if has build; then
  # Only when asked: the default is the tree `scripts/gpu/run.sh build` configured.
  run configure broadphase_build.log cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CUDA_ARCHITECTURES=90 -DRADIX_ENABLE_CUDA=ON -DRADIX_BUILD_APPS=ON ${BP_CMAKE_ARGS:-}
fi
# Build the target (a no-op when run.sh built everything already).
build_app radix_broadphase broadphase_build.log " in $B"

require_app "$APP" radix_broadphase

if has verify; then
  # Pairs against brute force and the uniform grid on every frame; -e cpu,cuda adds the
  # frame-by-frame comparison of the two engines' pair lists (identical, in order).
  run "verify boxes 3001+20001 cuda, both references" bp_verify_small.log "$APP" -e cuda -n 3001,20001 -f 4 -r 1 \
    --verify both --verify-all --warmup 60
  run "verify lattice (exact ties) cuda" bp_verify_lattice.log "$APP" -e cuda -n 3001,100000 -s lattice -f 3 -r 1 \
    --verify-all
  run "verify landscape cuda,cpu" bp_verify_landscape.log "$APP" -e cuda,cpu -n 5000,1M -s landscape -f 4 -r 1 \
    --warmup 30 --verify-all
  run "verify boxes settled 16K..1M cuda,cpu" bp_verify_boxes.log "$APP" -e cuda,cpu -n 16K..1M -f 4 -r 1 --warmup 120
  run "verify dense x axis cuda,cpu" bp_verify_dense.log "$APP" -e cuda,cpu -n 50000 -f 3 -r 1 --density 1000 \
    --verify-all
  grep -hE "^Verification|Cross-check|FAILED|grown" "$OUT"/bp_verify_*.log | sort | uniq -c | tee -a "$SUMMARY"
fi

if has sanitize; then
  for tool in memcheck racecheck synccheck; do
    run "compute-sanitizer $tool, boxes 3001" bp_sanitize_${tool}_boxes.log \
      sanitizer $tool "${SAN_TIMEOUT:-300}" "$APP" -e cuda -n 3001 -f 2 -r 1 --warmup 60
    run "compute-sanitizer $tool, landscape 2000" bp_sanitize_${tool}_landscape.log \
      sanitizer $tool "${SAN_TIMEOUT:-300}" "$APP" -e cuda -n 2000 -s landscape -f 2 -r 0
    grep -hE "ERROR SUMMARY|RACECHECK SUMMARY" "$OUT"/bp_sanitize_${tool}_*.log | tee -a "$SUMMARY"
  done
fi

if has bench; then
  # Both engines in one process on the same scene: per-engine tables, the Fig. 6-shaped
  # summary (cpu frame / cuda frame per size), the coherence table, the cross-check, and
  # the plot. A warm-up of 120 steps lets the boxes land (more pairs than in free fall).
  run "bench boxes $SIZES cuda,cpu" bp_bench_boxes.log "$APP" -e cuda,cpu -n "$SIZES" -f "$FRAMES" -r "$REPS" \
    --warmup 120 --out "$OUT/broadphase-boxes-h100.md" --plot "$OUT/broadphase-boxes-plot.png"
  run "bench landscape 64K..4M cuda,cpu" bp_bench_landscape.log "$APP" -e cuda,cpu -n 64K..4M -s landscape \
    -f "$FRAMES" -r "$REPS" --warmup 60 --out "$OUT/broadphase-landscape-h100.md" \
    --plot "$OUT/broadphase-landscape-plot.png"
  # Pictures of one frame for the README (small scenes, so that boxes are visible).
  run "picture boxes" bp_picture_boxes.log "$APP" -e cuda -n 4000 -f 2 -r 0 --warmup 150 \
    --png "$OUT/broadphase-boxes-frame.png"
  run "picture landscape" bp_picture_landscape.log "$APP" -e cuda -n 20000 -s landscape -f 2 -r 0 --warmup 120 \
    --png "$OUT/broadphase-landscape-frame.png"
  for f in broadphase-boxes-h100.md broadphase-landscape-h100.md; do
    [ -f "$OUT/$f" ] && { echo "---- $f"; grep -E "^\| |^Verification|Cross-check|FAILED" "$OUT/$f"; }
  done
fi

stage_verdict
