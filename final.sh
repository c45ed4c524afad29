#!/usr/bin/env bash
# session validation driver (not committed): stage A = build + tests + bench, B = conformance + sanitize + large
set -u
OUT=${OUT:-out}; mkdir -p $OUT
B=build-gpu
if [ "$1" = A ]; then
  MINE_ONLY=1 OUT=$OUT scripts/gpu/run.sh build > $OUT/runA.txt 2>&1
  t0=$(date +%s)
  for t in conformance_keys conformance_pairs conformance_argsort conformance_records conformance_decomposer conformance_options conformance_byte_keys conformance_int128; do
    cmake --build $B -j16 --target $t >> $OUT/conf_build.log 2>&1 || echo "build of $t FAILED"
  done
  echo "conformance targets: $(( $(date +%s) - t0 )) s"
  OUT=$OUT scripts/gpu/run.sh test bench >> $OUT/runA.txt 2>&1
else
  OUT=$OUT SAN_TIMEOUT=170 scripts/gpu/run.sh conformance sanitize large >> $OUT/runB.txt 2>&1
fi
cat $OUT/summary.txt
