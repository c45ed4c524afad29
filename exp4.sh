#!/usr/bin/env bash
# throw-away experiment driver (not committed)
set -u
OUT=${OUT:-out}; mkdir -p $OUT
export BUILD_DIR=build-exp
t0=$(date +%s)
GPU_CMAKE_ARGS="-DRADIX_CUDA_TYPES=dev -DCMAKE_CUDA_FLAGS=-DRADIX_CUDA_ALT_POLICY_BUILD" MINE_ONLY=1 OUT=$OUT/run scripts/gpu/run.sh build > /dev/null 2>&1
B=build-exp
echo "build $(( $(date +%s) - t0 )) s"
BE=$B/bench/cuda/radix_cuda_bench
RADIX_CUDA_ALT_POLICY=3 timeout 200 ncu --clock-control none --print-summary none --section SourceCounters --section WarpStateStats --page source --print-source sass --csv -k regex:onesweep_scatter --launch-skip 1 --launch-count 1 $BE --log2 24 --only "u32 keys" --reps 1 > $OUT/src3.csv 2> $OUT/src3.err
echo "ncu $?"; ls -la $OUT/src3.csv; head -c 600 $OUT/src3.csv
