#!/usr/bin/env bash
# GPU-machine stage of `radix sort` (files): a 16 GiB file of u64 keys sorted
# by the CUDA engine and by the CPU engine, each verified with `radix check`
# (order, and the input's checksum), with --stats for the time per phase.
# Called by scripts/gpu/run.sh (stage `filesort`) after its build stage, or
# alone; logs go to $OUT/filesort.log and a summary line to $OUT/summary.txt.
#
#   SIZE=16G BIGDIR=/tmp/radix-big scripts/gpu/filesort_stage.sh
. "$(dirname "${BASH_SOURCE[0]}")/stage_lib.sh"
B=${BUILD_DIR:-build-gpu}
SIZE=${SIZE:-16G}
BIG=${BIGDIR:-/tmp/radix-big}
LOG="$OUT/filesort.log"
SUMMARY="$OUT/summary.txt"
NOTE_ALSO="$LOG"
JOBS=$(nproc)

if [ ! -x "$B/tools/radix" ]; then
  cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DRADIX_ENABLE_CUDA=ON \
    -DRADIX_BUILD_TESTS=OFF -DRADIX_BUILD_BENCH=OFF -DRADIX_BUILD_EXAMPLES=OFF >>"$LOG" 2>&1
  build_targets filesort.log "filesort: " radix_cli
  [ ${#BUILD_FAILED[@]} -eq 0 ] || exit 1
fi
R="$B/tools/radix"
mkdir -p "$BIG"
{
  echo "== filesort stage $(utc_stamp), $SIZE of u64 keys in $BIG"
  df -h "$BIG"
  free -g
  "$R" --version
} >>"$LOG" 2>&1

t0=$(date +%s.%N)
"$R" gen "$BIG/keys.u64" --size "$SIZE" -t u64 --seed 42 -q >>"$LOG" 2>&1 || { note "-- filesort: gen FAILED"; exit 1; }
note "-- filesort: gen $SIZE: $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $t0}") s"
"$R" check "$BIG/keys.u64" -t u64 --no-order -q >>"$LOG" 2>&1

# Each engine three times, alternating, so that the disk's variation (the
# write phase waits for the data to reach the disk) hits both alike.
for rep in 1 2 3; do
  for eng in cuda cpu; do
    sync
    t0=$(date +%s.%N)
    if "$R" sort "$BIG/keys.u64" -o "$BIG/sorted.u64" -t u64 --engine "$eng" --stats -q >>"$LOG" 2>&1; then
      wall=$(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $t0}")
      verdict="sorted"
      if [ "$rep" = 1 ]; then
        "$R" check "$BIG/sorted.u64" --same-as "$BIG/keys.u64" -t u64 -q >>"$LOG" 2>&1 && verdict="sorted and verified by radix check" ||
          verdict="VERIFICATION FAILED"
      fi
      note "-- filesort: $eng engine, run $rep: $SIZE u64 $verdict in $wall s: $(grep -E 'read \+ checksum' "$LOG" | tail -1 | sed 's/^ *//')"
    else
      note "-- filesort: $eng engine, run $rep: sort FAILED (see filesort.log)"
    fi
    rm -f "$BIG/sorted.u64"
  done
done
rm -rf "$BIG"
