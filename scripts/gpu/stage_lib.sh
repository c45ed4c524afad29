# shellcheck shell=bash
# Shared by scripts/gpu/run.sh and the scripts/gpu/*_stage.sh scripts (source it, don't run it):
# the checkout and $OUT, the stage list, notes to a summary file, the machine's header lines,
# timed runs whose exit status is noted, builds of targets, compute-sanitizer with a timeout,
# GoogleTest from a carried source copy, and the closing verdict.
#
# Sourcing it sets -u and pipefail, cds to the checkout (ROOT) and creates OUT (default $ROOT/out).
# The caller sets SUMMARY (the file note appends to; NOTE_ALSO names a second one), B (the build
# folder) and JOBS (parallel build jobs) before using the functions that read them, and FAILED=0
# where it uses run, build_app or stage_verdict.
set -u -o pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
OUT=${OUT:-$ROOT/out}
mkdir -p "$OUT"
NOTE_ALSO=""
BUILD_FAILED=()

# use_stages "DEFAULT STAGES" ARG...: STAGES = the arguments, or the default words when there are none.
use_stages() {
  local default=$1
  shift
  STAGES=("$@")
  if [ ${#STAGES[@]} -eq 0 ]; then read -ra STAGES <<< "$default"; fi
}
# has STAGE: whether STAGE was asked for.
has() { local s; for s in "${STAGES[@]}"; do [ "$s" = "$1" ] && return 0; done; return 1; }

# app_stage APP BUILD_DIR_DEFAULT "DEFAULT STAGES" ARG...: the settings of an app's stage script
# (apps/APP): B (BUILD_DIR, else the default), STAGES, SUMMARY ($OUT/APP_summary.txt), JOBS (all
# cores), FAILED=0, and APP, the program's path in B.
app_stage() {
  local app=$1
  B=${BUILD_DIR:-$2}
  use_stages "$3" "${@:4}"
  SUMMARY="$OUT/${app}_summary.txt"
  JOBS=$(nproc)
  FAILED=0
  APP="$B/apps/$app/radix_$app"
}

# note TEXT...: prints the line and appends it to $SUMMARY (and $NOTE_ALSO when set).
note() { echo "$*" | tee -a "$SUMMARY" ${NOTE_ALSO:+"$NOTE_ALSO"}; }
# utc_stamp / utc_time: now, as the notes write it.
utc_stamp() { date -u '+%Y-%m-%d %H:%M:%S UTC'; }
utc_time() { date -u '+%H:%M:%S UTC'; }
# since T0: whole seconds since T0 (a `date +%s` value).
since() { echo $(( $(date +%s) - $1 )); }

# note_gpu: the GPU's name, driver and memory, into the summary.
note_gpu() { nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | tee -a "$SUMMARY"; }

# stage_header TITLE [GIT_SUFFIX]: puts CUDA's bin folder on PATH, then the app stages' opening
# lines: title and time, GPU, nvcc, the checkout's commit and how many files differ from it
# (GIT_SUFFIX is appended to that line).
stage_header() {
  [ -d /usr/local/cuda/bin ] && export PATH=/usr/local/cuda/bin:$PATH
  note "== radix $1 $(utc_stamp) on $(hostname)"
  note_gpu
  nvcc --version 2>&1 | tail -2 | tee -a "$SUMMARY"
  note "-- git: $(git rev-parse --short HEAD 2>/dev/null) $(git status --porcelain 2>/dev/null | wc -l) changed files${2:-}"
}

# run NAME LOG CMD...: runs CMD with its output in $OUT/LOG, notes the exit status and time.
run() {
  local name=$1 log=$2
  shift 2
  local t0=$(date +%s)
  "$@" > "$OUT/$log" 2>&1
  local rc=$?
  local verdict=ok
  [ $rc -ne 0 ] && { verdict=FAILED; FAILED=$((FAILED + 1)); }
  note "-- $name: exit $rc ($(since $t0) s) $verdict [$log]"
  return $rc
}

# sanitizer TOOL SECONDS CMD...: compute-sanitizer --tool TOOL over CMD, stopped after SECONDS;
# exit 99 when it reports an error.
sanitizer() {
  local tool=$1 seconds=$2
  shift 2
  timeout "$seconds" compute-sanitizer --tool "$tool" --error-exitcode 99 "$@"
}

# build_targets LOG PREFIX TARGET...: builds each target in $B (output appended to $OUT/LOG); a
# failure is noted as "-- PREFIXbuild of TARGET FAILED" and its target added to BUILD_FAILED.
build_targets() {
  local log=$1 prefix=$2 t
  shift 2
  BUILD_FAILED=()
  for t in "$@"; do
    cmake --build "$B" -j"$JOBS" --target "$t" >> "$OUT/$log" 2>&1 || { note "-- ${prefix}build of $t FAILED"; BUILD_FAILED+=("$t"); }
  done
}

# build_app TARGET LOG [WHERE]: builds one app in $B (output appended to $OUT/LOG), notes
# "-- build TARGET[WHERE]: exit RC" and counts a failure.
build_app() {
  cmake --build "$B" -j"$JOBS" --target "$1" >> "$OUT/$2" 2>&1
  local rc=$?
  [ $rc -ne 0 ] && FAILED=$((FAILED + 1))
  note "-- build $1${3:-}: exit $rc"
}

# require_app PATH NAME [HINT]: stops the stage (exit 1, noted) when PATH, the program NAME, was not built.
require_app() {
  if [ ! -x "$1" ]; then
    note "-- $1 missing: nothing more to run${3:-}"
    note "== FAILED: $2 was not built"
    exit 1
  fi
}

# ensure_gtest LOG MISSING_NOTE [GTESTCONFIG...]: where GoogleTest is installed (the usual
# GTestConfig.cmake places, or one of those given) nothing; else builds and installs it into
# /tmp/gtest from the copy at build-gtest-src (output appended to $OUT/LOG; GTEST_BUILT=1), or notes
# "-- GoogleTest not installed and build-gtest-src missing: MISSING_NOTE". Returns 1 when that build failed.
ensure_gtest() {
  local log=$1 missing=$2
  shift 2
  GTEST_BUILT=0
  ls /usr/lib/x86_64-linux-gnu/cmake/GTest/GTestConfig.cmake /usr/local/lib/cmake/GTest/GTestConfig.cmake "$@" \
    >/dev/null 2>&1 && return 0
  if [ -d build-gtest-src ]; then
    note "-- GoogleTest not installed: building it from build-gtest-src"
    GTEST_BUILT=1
    { cmake -S build-gtest-src -B /tmp/gtest-build -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_GMOCK=OFF \
        -DCMAKE_INSTALL_PREFIX=/tmp/gtest &&
        cmake --build /tmp/gtest-build -j"$JOBS" && cmake --install /tmp/gtest-build; } >> "$OUT/$log" 2>&1
  else
    note "-- GoogleTest not installed and build-gtest-src missing: $missing"
  fi
}

# stage_verdict [T0]: the closing line, "== FAILED: N run(s) failed" (exit 1) or "== all passed",
# with the time; given T0 (a `date +%s` value), also the seconds since then.
stage_verdict() {
  local took
  took="$(utc_time)"
  [ -n "${1:-}" ] && took="$(since "$1") s, $took"
  if [ $FAILED -ne 0 ]; then
    note "== FAILED: $FAILED run(s) failed ($took)"
    exit 1
  fi
  note "== all passed ($took)"
}
