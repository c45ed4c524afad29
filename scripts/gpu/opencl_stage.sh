#!/usr/bin/env bash
# The OpenCL engine on the GPU machine: build with OpenCL on, then run
# the OpenCL tests, the conformance suite and the benchmark on NVIDIA's OpenCL
# platform. Logs go to $OUT (default ./out); a summary is printed at the end.
#
#   scripts/gpu/opencl_stage.sh [stage...]   stages: build info test conformance bench sweep pocl
#                                            (default: build info test conformance bench)
#
# The device image has no <CL/cl.h> and no GoogleTest, and no network:
#   - OpenCL headers: carry build-clheaders/ (a copy of /usr/include/CL as
#     build-clheaders/CL/cl.h; ignored by git). CL_HEADERS=<dir> overrides.
#   - The loader: CUDA's libOpenCL.so (sees the "NVIDIA CUDA" and PoCL
#     platforms without ICD files); CL_LIBRARY=<path> overrides. When the NVIDIA
#     platform is still not seen, an ICD folder naming libnvidia-opencl.so.1 is
#     made and OCL_ICD_VENDORS pointed at it.
#   - GoogleTest: built from build-gtest-src/ (as scripts/gpu/run.sh does).
# Knobs: BUILD_DIR (build-opencl), WITH_CUDA=1 (CUDA on: the benchmark gains the
# CUDA engine and CUB rows; CUDA_TYPES=dev builds only the CUDA engine's
# development types, enough for those rows), RADIX_OPENCL_DEVICE (default NVIDIA),
# BENCH_ARGS (default --sizes 20,23,25,26 --repeat 20), SWEEP (policies for the
# sweep stage, ';'-separated RADIX_OPENCL_POLICY values, each optionally
# followed by '|' and kernel build options), SWEEP_SIZES (26), SWEEP_REPEAT (10),
# BUILD_TARGETS (only these targets, e.g. "radix_opencl_bench" for a sweep).
# One stage failing does not stop the others.
. "$(dirname "${BASH_SOURCE[0]}")/stage_lib.sh"
B=${BUILD_DIR:-build-opencl}
use_stages "build info test conformance bench" "$@"
SUMMARY="$OUT/opencl_summary.txt"
: > "$SUMMARY"
JOBS=$(nproc)
FAILED=()

note "== radix OpenCL stage $(utc_stamp) on $(hostname)"
note_gpu

# ---- headers and loader ---------------------------------------------------------------
CL_HEADERS=${CL_HEADERS:-}
if [ -z "$CL_HEADERS" ]; then
  for d in "$ROOT/build-clheaders" /usr/include /usr/local/cuda/targets/x86_64-linux/include; do
    [ -f "$d/CL/cl.h" ] && { CL_HEADERS=$d; break; }
  done
fi
CUDA_CL_LIB=/usr/local/cuda/targets/x86_64-linux/lib
CL_LIBRARY=${CL_LIBRARY:-}
if [ -z "$CL_LIBRARY" ]; then
  for f in "$CUDA_CL_LIB/libOpenCL.so" "$CUDA_CL_LIB/libOpenCL.so.1" /usr/lib/x86_64-linux-gnu/libOpenCL.so \
    /usr/lib/x86_64-linux-gnu/libOpenCL.so.1; do
    [ -e "$f" ] && { CL_LIBRARY=$f; break; }
  done
fi
note "-- OpenCL headers: ${CL_HEADERS:-NOT FOUND}; loader: ${CL_LIBRARY:-NOT FOUND}"
# Run time: the same loader as at link time (the SONAME libOpenCL.so.1 could
# otherwise resolve to the system loader, which lists only /etc/OpenCL/vendors).
if [ -n "$CL_LIBRARY" ]; then
  export LD_LIBRARY_PATH="$(dirname "$CL_LIBRARY")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
export RADIX_OPENCL_DEVICE=${RADIX_OPENCL_DEVICE:-NVIDIA}

BENCH="$B/bench/opencl/radix_opencl_bench"
TEST="$B/tests/opencl/test_opencl"

# ---- build --------------------------------------------------------------------------------
if has build; then
  t0=$(date +%s)
  : > "$OUT/opencl_build.log"
  PREFIX=""
  ensure_gtest opencl_build.log "tests will not build" /tmp/gtest/lib/cmake/GTest/GTestConfig.cmake ||
    { note "-- GoogleTest build FAILED (see opencl_build.log)"; FAILED+=(gtest); }
  [ -f /tmp/gtest/lib/cmake/GTest/GTestConfig.cmake ] && PREFIX="-DCMAKE_PREFIX_PATH=/tmp/gtest"
  CLARGS=()
  [ -n "$CL_HEADERS" ] && CLARGS+=("-DOpenCL_INCLUDE_DIR=$CL_HEADERS")
  [ -n "$CL_LIBRARY" ] && CLARGS+=("-DOpenCL_LIBRARY=$CL_LIBRARY")
  # CUDA off: this stage is about OpenCL, and it keeps the build to a minute.
  # WITH_CUDA=1: on, for the benchmark's CUDA engine and CUB rows (a few
  # minutes more; only the targets below are built then).
  CUDA_ARGS=(-DRADIX_ENABLE_CUDA=OFF)
  [ "${WITH_CUDA:-0}" = 1 ] && CUDA_ARGS=(-DRADIX_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90
    ${CUDA_TYPES:+-DRADIX_CUDA_TYPES=$CUDA_TYPES})
  # Only a benchmark asked for: no tests or apps to configure (nor GoogleTest).
  [[ -n "${BUILD_TARGETS:-}" && "$BUILD_TARGETS" != *test* && "$BUILD_TARGETS" != *conformance* ]] &&
    CUDA_ARGS+=(-DRADIX_BUILD_TESTS=OFF -DRADIX_BUILD_APPS=OFF)
  cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release "${CUDA_ARGS[@]}" -DRADIX_ENABLE_OPENCL=ON \
    -DRADIX_BUILD_TOOLS=OFF -DRADIX_BUILD_EXAMPLES=OFF "${CLARGS[@]}" $PREFIX >> "$OUT/opencl_build.log" 2>&1 ||
    { note "-- configure FAILED (see opencl_build.log)"; FAILED+=(configure); }
  # Our targets first, so that a broken target elsewhere does not stop them.
  TARGETS=${BUILD_TARGETS:-"radix test_opencl radix_opencl_bench conformance_keys conformance_pairs conformance_argsort radix_pic
    conformance_records conformance_decomposer conformance_options conformance_byte_keys conformance_int128"}
  build_targets opencl_build.log "" $TARGETS
  for t in "${BUILD_FAILED[@]}"; do FAILED+=("build:$t"); done
  if [ "${WITH_CUDA:-0}" != 1 ] && [ -z "${BUILD_TARGETS:-}" ]; then
    cmake --build "$B" -j"$JOBS" >> "$OUT/opencl_build.log" 2>&1 || note "-- full build had failures (see opencl_build.log)"
  fi
  note "-- build: $(since $t0) s"
fi

# ---- which platforms are seen ------------------------------------------------------------
if has info || has test || has conformance || has bench || has sweep; then
  if [ -x "$BENCH" ]; then
    # Is the device RADIX_OPENCL_DEVICE names (a name, or an index: not checked) the one in use?
    seen() { [[ "$RADIX_OPENCL_DEVICE" =~ ^[0-9]+$ ]] || grep -qi "host API device: .*$RADIX_OPENCL_DEVICE" "$OUT/opencl_info.txt"; }
    "$BENCH" --info > "$OUT/opencl_info.txt" 2>&1
    if ! seen; then
      # Fallback: the loader with an ICD folder naming NVIDIA's library.
      ICD="$OUT/icd"
      mkdir -p "$ICD"
      echo "libnvidia-opencl.so.1" > "$ICD/nvidia.icd"
      export OCL_ICD_VENDORS="$ICD"
      "$BENCH" --info > "$OUT/opencl_info.txt" 2>&1
      if seen; then
        note "-- '$RADIX_OPENCL_DEVICE' not seen through $CL_LIBRARY alone: using OCL_ICD_VENDORS=$ICD"
      else
        unset OCL_ICD_VENDORS
        "$BENCH" --info > "$OUT/opencl_info.txt" 2>&1
      fi
    fi
    cat "$OUT/opencl_info.txt" | tee -a "$SUMMARY"
    seen || { note "-- WARNING: the device '$RADIX_OPENCL_DEVICE' is not the one in use"; FAILED+=(device-choice); }
  else
    note "-- $BENCH missing: no device information"
    # Not a failure when BUILD_TARGETS left the benchmark out on purpose.
    [[ -n "${BUILD_TARGETS:-}" && "$BUILD_TARGETS" != *radix_opencl_bench* ]] || FAILED+=(info)
  fi
fi

# ---- tests ------------------------------------------------------------------------------------
if has test; then
  t0=$(date +%s)
  if [ -x "$TEST" ]; then
    timeout 900 "$TEST" > "$OUT/opencl_tests.log" 2>&1
    rc=$?
    note "-- test_opencl: exit $rc ($(since $t0) s): $(grep -E '^\[  (PASSED|FAILED) ' "$OUT/opencl_tests.log" | head -2 | tr '\n' ' ')"
    grep -E "^\[  FAILED|Failure" "$OUT/opencl_tests.log" | head -20 | tee -a "$SUMMARY"
    [ $rc -eq 0 ] || FAILED+=(test_opencl)
  else
    note "-- test_opencl not built"
    FAILED+=(test_opencl)
  fi
fi

if has conformance; then
  t0=$(date +%s)
  (cd "$B" && ctest -L opencl -LE large --output-on-failure --timeout 900) > "$OUT/opencl_conformance.log" 2>&1
  rc=$?
  note "-- ctest -L opencl -LE large: exit $rc ($(since $t0) s)"
  grep -E "tests passed|tests failed|Failed|Not Run|Skipped|\*\*\*|Passed" "$OUT/opencl_conformance.log" | head -30 |
    tee -a "$SUMMARY"
  [ $rc -eq 0 ] || FAILED+=(conformance)
fi

# ---- benchmark ----------------------------------------------------------------------------------
if has bench; then
  t0=$(date +%s)
  if [ -x "$BENCH" ]; then
    "$BENCH" ${BENCH_ARGS:---sizes 20,23,25,26 --repeat 20} > "$OUT/opencl_bench.md" 2> "$OUT/opencl_bench.log"
    rc=$?
    note "-- radix_opencl_bench ${BENCH_ARGS:---sizes 20,23,25,26 --repeat 20}: exit $rc ($(since $t0) s)"
    grep -E "^## |phases\)|wall, sort|std::sort  |CPU engine|vs std::sort" "$OUT/opencl_bench.md" | tee -a "$SUMMARY"
    [ $rc -eq 0 ] || FAILED+=(bench)
  else
    FAILED+=(bench)
  fi
fi

# Tuning experiment: the bench at 2^26 under several policies.
if has sweep; then
  # The local-sort path (experimental) and its alternatives (tile
  # shape, digit width, scan parts), then Helluy's path for comparison.
  SWEEP=${SWEEP:-"local_sort=1,scan_parts=1024;local_sort=1,ls_items=32,ls_keys=64,scan_parts=1024;local_sort=1,ls_items=32,ls_keys=128,scan_parts=1024;local_sort=1,ls_items=64,ls_keys=16,scan_parts=1024;local_sort=1,ls_items=128,ls_keys=16,digit_bits=7,scan_parts=1024;local_sort=1,scan_parts=256;local_sort=1,scan_parts=4096,scan_items=256;local_sort=0"}
  IFS=';' read -r -a POLS <<< "$SWEEP"
  : > "$OUT/opencl_sweep.md"
  # An entry "policy|options" also passes kernel build options (-D...): a
  # kernel variant measured without rebuilding anything. On NVIDIA each
  # variant's registers and local memory go to opencl_sweep_build.log.
  : > "$OUT/opencl_sweep_build.log"
  for ent in "${POLS[@]}"; do
    pol=${ent%%|*}
    opts=""
    [ "$pol" != "$ent" ] && opts=${ent#*|}
    echo "### RADIX_OPENCL_POLICY=$pol RADIX_OPENCL_BUILD_OPTIONS=$opts" | tee -a "$OUT/opencl_sweep_build.log" >> "$OUT/opencl_sweep.md"
    nvopt=""
    grep -qi "host API device: .*NVIDIA" "$OUT/opencl_info.txt" 2>/dev/null && nvopt="-cl-nv-verbose"
    RADIX_OPENCL_POLICY="$pol" RADIX_OPENCL_BUILD_OPTIONS="$opts $nvopt" RADIX_OPENCL_BUILD_LOG=1 \
      timeout ${SWEEP_TIMEOUT:-300} "$BENCH" --sizes ${SWEEP_SIZES:-26} --repeat ${SWEEP_REPEAT:-10} --baseline-repeat 1 \
      >> "$OUT/opencl_sweep.md" 2>> "$OUT/opencl_sweep_build.log"
    note "-- sweep $ent: exit $? :: $(grep -E 'phases\)' "$OUT/opencl_sweep.md" | tail -1)"
  done
fi

# The same conformance suite on the machine's PoCL (the CPU), for comparison.
if has pocl; then
  t0=$(date +%s)
  (cd "$B" && RADIX_OPENCL_DEVICE=Portable ctest -L opencl -LE large --output-on-failure --timeout 900) \
    > "$OUT/opencl_pocl_conformance.log" 2>&1
  note "-- PoCL: ctest -L opencl: exit $? ($(since $t0) s)"
fi

note "== done $(date -u '+%H:%M:%S UTC')"
if [ ${#FAILED[@]} -eq 0 ]; then
  note "== SUMMARY: all requested stages passed (${STAGES[*]})"
else
  note "== SUMMARY: FAILED: ${FAILED[*]} (stages: ${STAGES[*]}; logs in $OUT)"
fi
exit 0
