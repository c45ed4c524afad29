#!/usr/bin/env bash
# The one project script for the GPU machine: build with -arch=sm_90, run the
# CUDA tests and the conformance suite on the CUDA engine, compute-sanitizer
# (memcheck, racecheck, synccheck) over small cases of every kernel, and the
# benchmark. Logs go to $OUT (default ./out).
#
#   scripts/gpu/run.sh [stage...]     stages: build test limits (LIMITS) conformance sanitize large bench quickbench altbench (ALTS, ALT_ARGS)
#                                     records algos pic broadphase lbvh filesort opencl
#                                     benchsets (BS_CASES, BS_REPS) kerneltimes (KT_ROWS) passtimes (PT_CASES, PT_ONLY, PT_LAUNCHES)
#                                     profile (PROF_KERNEL, PROF_SKIP, PROF_ONLY, PROF_LOG2)
#                                     python (PY_ARCHS, default 90; PY_BENCH=0, PY_BENCH_ARGS): pip-builds the package
#                                     into /tmp/site (no downloads), runs python/tests and python -m stable_radix.bench
#                                     segments (SEG_ARGS): radix_segments_bench, the segmented sort against CUB
#                                     nccl (NCCL_TEST_ARGS, NCCL_BENCH_RUNS): radix_nccl_tests and radix_nccl_bench
#                                     (the sort over several GPUs; kind nvidia-h100-x2), NVLink multicast off;
#                                     NCCL_TIMEOUT (s per program, default 600), NCCL_SANITIZE (1: compute-sanitizer,
#                                     NCCL_SAN_TOOLS, over a 2-rank case; 0: skip), NCCL_SAN_TIMEOUT
#                                     (default: build test conformance sanitize large bench)
# build: BUILD_TARGETS (default: the library, the CUDA tests and benchmarks, the CLI); MINE_ONLY=1 builds only those.
# sanitize: SAN_TOOLS (default "memcheck racecheck synccheck"), SAN_TIMEOUT (s per tool), SAN_CASE
# algos (runnable alone): the conformance suite on each seed algorithm (ctest -L seed),
# radix_cuda_tests 'algo_*', compute-sanitizer over its --small cases, radix_algorithms_bench
# (markdown + CSV, ALGOS_BENCH_ARGS) and, where matplotlib is installed, the plot.
# pic, broadphase, lbvh, filesort and opencl run scripts/gpu/<name>_stage.sh (on this build,
# except opencl, which builds its own with CUDA off).
#
# Where GoogleTest is not installed (the device image), the conformance suite
# builds it from a copy of its sources at build-gtest-src/ (ignored by git;
# carry it: cp -r /usr/src/googletest build-gtest-src).
. "$(dirname "${BASH_SOURCE[0]}")/stage_lib.sh"
B=${BUILD_DIR:-build-gpu}
use_stages "build test conformance sanitize large bench" "$@"
SUMMARY="$OUT/summary.txt"
JOBS=${JOBS:-$(nproc)}

note "== radix GPU run $(utc_stamp) on $(hostname)"
note_gpu
nvcc --version | tail -2 | tee -a "$SUMMARY"

# Configures $B (GoogleTest from build-gtest-src where it is not installed); the
# build stage and, when $B is not configured yet, the algos stage call it.
configure_build() {
  # Until the lead wires them in: the device copy adds the subdirectories.
  grep -q 'add_subdirectory(cuda)' tests/CMakeLists.txt ||
    printf '\nif(RADIX_ENABLE_CUDA)\n  add_subdirectory(cuda)\nendif()\n' >> tests/CMakeLists.txt
  grep -q 'add_subdirectory(cuda)' bench/CMakeLists.txt ||
    printf '\nif(RADIX_ENABLE_CUDA)\n  add_subdirectory(cuda)\nendif()\n' >> bench/CMakeLists.txt
  PREFIX=""
  ensure_gtest build.log "conformance suite not built"
  [ "$GTEST_BUILT" = 1 ] && PREFIX="-DCMAKE_PREFIX_PATH=/tmp/gtest"
  cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DRADIX_ENABLE_CUDA=ON \
    -DRADIX_BUILD_EXAMPLES=OFF $PREFIX ${GPU_CMAKE_ARGS:-} >> "$OUT/build.log" 2>&1 ||
    note "-- configure FAILED (see build.log)"
}

if has build; then
  t0=$(date +%s)
  configure_build
  # Our targets first (so that a broken peer target elsewhere does not stop them).
  # shellcheck disable=SC2086
  build_targets build.log "" ${BUILD_TARGETS:-radix radix_cuda_tests radix_cuda_bench radix_records_bench radix_cli}
  [ "${MINE_ONLY:-0}" = 1 ] || cmake --build "$B" -j"$JOBS" >> "$OUT/build.log" 2>&1 ||
    note "-- full build had failures (see build.log)"
  note "-- build: $(since $t0) s"
fi

TESTS="$B/tests/cuda/radix_cuda_tests"
BENCH="$B/bench/cuda/radix_cuda_bench"

if has test; then
  t0=$(date +%s)
  "$TESTS" > "$OUT/tests.log" 2>&1
  note "-- radix_cuda_tests: exit $? ($(since $t0) s): $(tail -1 "$OUT/tests.log")"
  grep -E "FAIL|CHECK failed|exception" "$OUT/tests.log" | head -20 | tee -a "$SUMMARY"
fi

# The CUDA tests as on GPUs of less shared memory a block (RADIX_CUDA_SHARED_LIMIT):
# 166912 bytes (A100), 101376 (sm_86, sm_89, sm_120): every case passes under
# both; a route a block cannot hold must step aside (the tests check the path
# only where the device holds it).
if has limits; then
  for lim in ${LIMITS:-166912 101376}; do
    t0=$(date +%s)
    RADIX_CUDA_SHARED_LIMIT=$lim "$TESTS" > "$OUT/tests_limit_$lim.log" 2>&1
    note "-- radix_cuda_tests, RADIX_CUDA_SHARED_LIMIT=$lim: exit $? ($(since $t0) s): $(tail -1 "$OUT/tests_limit_$lim.log")"
    grep -E "FAIL \]|exception" "$OUT/tests_limit_$lim.log" | head -20 | tee -a "$SUMMARY"
  done
fi

if has conformance; then
  t0=$(date +%s)
  # its binaries (a MINE_ONLY build skips them; already built ones cost nothing)
  build_targets conformance_build.log "conformance: " conformance_keys conformance_pairs conformance_argsort \
    conformance_records conformance_decomposer conformance_options conformance_byte_keys conformance_int128 \
    conformance_workspace conformance_segments radix_pic radix_broadphase radix_lbvh
  note "-- conformance: binaries built ($(since $t0) s)"
  t0=$(date +%s)
  # The seed algorithms' conformance runs (label seed) belong to the algos stage.
  (cd "$B" && ctest -L gpu -LE 'large|seed' --output-on-failure --timeout 900) > "$OUT/conformance.log" 2>&1
  note "-- ctest -L gpu -LE 'large|seed': exit $? ($(since $t0) s)"
  grep -E "tests passed|tests failed|Failed|Not Run|Skipped|\*\*\*" "$OUT/conformance.log" | head -30 | tee -a "$SUMMARY"
fi

if has sanitize; then
  : > "$OUT/sanitizer.log"
  # The algorithm cases (algo_*) have their own sanitizer runs in the algos stage.
  SAN_ARGS=(--small '!algo_*')
  [ -n "${SAN_CASE:-}" ] && SAN_ARGS=($SAN_CASE)
  for tool in ${SAN_TOOLS:-memcheck racecheck synccheck}; do
    t0=$(date +%s)
    sanitizer $tool "${SAN_TIMEOUT:-300}" "$TESTS" "${SAN_ARGS[@]}" >> "$OUT/sanitizer.log" 2>&1
    rc=$?
    note "-- compute-sanitizer --tool $tool radix_cuda_tests ${SAN_ARGS[*]}: exit $rc ($(since $t0) s)"
    grep -E "ERROR SUMMARY|RACECHECK SUMMARY|Invalid|Race reported|Barrier error" "$OUT/sanitizer.log" | tail -3 | tee -a "$SUMMARY"
  done
fi

if has large; then
  t0=$(date +%s)
  "$TESTS" --large > "$OUT/large.log" 2>&1
  note "-- radix_cuda_tests --large: exit $? ($(since $t0) s): $(tail -1 "$OUT/large.log")"
fi

if has python; then
  t0=$(date +%s)
  # The image has scikit-build-core and nanobind: no build isolation, nothing fetched.
  rm -rf /tmp/site
  python3 -m pip install --no-build-isolation --no-deps --no-cache-dir --target /tmp/site \
    -C cmake.define.CMAKE_CUDA_ARCHITECTURES="${PY_ARCHS:-90}" -C build.verbose=true . > "$OUT/python_build.log" 2>&1
  note "-- python: pip install: exit $? ($(since $t0) s)"
  t0=$(date +%s)
  PYTHONPATH=/tmp/site python3 -m pytest -q -rs python/tests > "$OUT/python_tests.log" 2>&1
  note "-- python: pytest: exit $? ($(since $t0) s): $(tail -1 "$OUT/python_tests.log")"
  grep -E "SKIPPED|FAILED|Error" "$OUT/python_tests.log" | head -20 | tee -a "$SUMMARY"
  if [ "${PY_BENCH:-1}" = 1 ]; then
    t0=$(date +%s)
    (cd /tmp && PYTHONPATH=/tmp/site python3 -m stable_radix.bench --plot "$OUT/python_bench.png" ${PY_BENCH_ARGS:-}) \
      > "$OUT/python_bench.md" 2> "$OUT/python_bench.log"
    note "-- python: python -m stable_radix.bench: exit $? ($(since $t0) s)"
  fi
fi

if has segments; then
  t0=$(date +%s)
  build_targets segments_build.log "segments: " radix_segments_bench
  "$B/bench/cuda/radix_segments_bench" ${SEG_ARGS:-} > "$OUT/segments.md" 2> "$OUT/segments.log"
  note "-- radix_segments_bench ${SEG_ARGS:-}: exit $? ($(since $t0) s)"
  cat "$OUT/segments.md" "$OUT/segments.log"
fi

if has nccl; then
  # NVLink multicast (NVLS) stays off on the lent machines.
  export NCCL_NVLS_ENABLE=0
  # One process drives both GPUs: lazy kernel loading would deadlock against NCCL (include/radix/nccl.hpp).
  export CUDA_MODULE_LOADING=EAGER
  t0=$(date +%s)
  build_targets nccl_build.log "nccl: " radix_nccl_tests radix_nccl_bench
  timeout "${NCCL_TIMEOUT:-600}" "$B/tests/cuda/radix_nccl_tests" ${NCCL_TEST_ARGS:-} > "$OUT/nccl_tests.log" 2>&1
  note "-- radix_nccl_tests ${NCCL_TEST_ARGS:-}: exit $? ($(since $t0) s)"
  grep -E "^\[|failures|SKIPPED|exception|CHECK" "$OUT/nccl_tests.log" | tee -a "$SUMMARY"
  # compute-sanitizer over the count and merge kernels (they run only with two
  # ranks or more).
  if [ "${NCCL_SANITIZE:-1}" = 1 ]; then
    # NCCL's kernels are left out (they synchronize through flags in memory,
    # which racecheck reports as hazards), and API errors are not reported:
    # NCCL probes kernel images for other architectures, failing by design.
    # That hides radix's own API errors too; radix checks every return code.
    SAN_FILTER=()
    help=$(compute-sanitizer --help 2>&1)
    grep -q -- "--kernel-name-exclude" <<< "$help" && SAN_FILTER+=(--kernel-name-exclude kns=nccl)
    grep -q -- "--report-api-errors" <<< "$help" && SAN_FILTER+=(--report-api-errors no)
    for tool in ${NCCL_SAN_TOOLS:-memcheck racecheck}; do
      timeout "${NCCL_SAN_TIMEOUT:-300}" compute-sanitizer --tool "$tool" --error-exitcode 9 "${SAN_FILTER[@]}" \
        "$B/tests/cuda/radix_nccl_tests" dist_two_ranks_options > "$OUT/nccl_san_$tool.log" 2>&1
      note "-- compute-sanitizer --tool $tool radix_nccl_tests dist_two_ranks_options: exit $?"
      grep -E "ERROR SUMMARY" "$OUT/nccl_san_$tool.log" | tail -1 | tee -a "$SUMMARY"
    done
  fi
  # The CLI's --gpus end to end (tools/tests/file_sort.sh, section gpus).
  build_targets nccl_build.log "nccl: " radix_cli
  timeout "${NCCL_TIMEOUT:-600}" bash tools/tests/file_sort.sh "$(cd "$B" && pwd)/tools/radix" gpus /tmp/radix-cli-gpus \
    > "$OUT/nccl_cli.log" 2>&1
  note "-- file_sort.sh gpus: exit $?"
  tail -5 "$OUT/nccl_cli.log" | tee -a "$SUMMARY"
  # Each run: the arguments of one radix_nccl_bench call, runs separated by ';'. The
  # default covers the multi-GPU issue's bars: 2^31 u32 device-resident, 2^30 u64/u64
  # pairs, 2^31 host to host, 2^34 keys over two GPUs.
  IFS=';' read -ra RUNS <<< "${NCCL_BENCH_RUNS:---log2 31 --gpus 0,1,2 --profile;--log2 30 --key u64 --op pairs --gpus 0,2 --profile;--log2 31 --gpus 1,2 --host --reps 3;--log2 34 --gpus 2 --reps 1 --profile}"
  for r in "${RUNS[@]}"; do
    t1=$(date +%s)
    # shellcheck disable=SC2086
    timeout "${NCCL_TIMEOUT:-600}" "$B/bench/cuda/radix_nccl_bench" $r >> "$OUT/nccl_bench.md" 2>> "$OUT/nccl_bench.log"
    note "-- radix_nccl_bench $r: exit $? ($(since $t1) s)"
  done
  cat "$OUT/nccl_bench.md" | tee -a "$SUMMARY"
  tail -40 "$OUT/nccl_bench.log"
fi

if has bench || has quickbench; then
  t0=$(date +%s)
  ARGS=()
  has quickbench && ARGS=(--quick)
  "$BENCH" "${ARGS[@]}" ${BENCH_ARGS:-} > "$OUT/bench.md" 2> "$OUT/bench.log"
  note "-- radix_cuda_bench ${ARGS[*]} ${BENCH_ARGS:-}: exit $? ($(since $t0) s)"
  cat "$OUT/bench.md"
fi
if has altbench; then
  # Tuning experiments: the alternative sm_90 policies (policy.hpp, sm90_alt_policy;
  # build with GPU_CMAKE_ARGS=-DCMAKE_CUDA_FLAGS=-DRADIX_CUDA_ALT_POLICY_BUILD), each
  # in its own process with the same arguments (ALT_ARGS, default BENCH_ARGS).
  for a in ${ALTS:-1 2 3}; do
    RADIX_CUDA_ALT_POLICY=$a "$BENCH" ${ALT_ARGS:-${BENCH_ARGS:-}} > "$OUT/bench_alt$a.md" 2>> "$OUT/bench.log"
    note "-- RADIX_CUDA_ALT_POLICY=$a radix_cuda_bench ${ALT_ARGS:-${BENCH_ARGS:-}}: exit $?"
    grep "^| " "$OUT/bench_alt$a.md" | tee -a "$SUMMARY"
  done
fi
if has benchsets; then
  # The benchmark's rows for several argument sets BS_CASES (separated by ';'), e.g.
  # the buffer layouts: BS_CASES="--layout shared --log2 28;--layout doc --log2 28".
  # Leading NAME=VALUE words of a set are its environment (RADIX_CUDA_NARROW=0 ...).
  IFS=';' read -ra BS <<< "${BS_CASES:---log2 28}"
  for c in "${BS[@]}"; do
    read -ra W <<< "$c"
    envs=()
    while [ ${#W[@]} -gt 0 ] && [[ "${W[0]}" == *=* ]]; do envs+=("${W[0]}"); W=("${W[@]:1}"); done
    note "-- ${envs[*]} radix_cuda_bench --reps ${BS_REPS:-20} ${W[*]}"
    env "${envs[@]}" "$BENCH" --reps ${BS_REPS:-20} "${W[@]}" 2>> "$OUT/bench.log" | grep "^| [a-z0-9]" | grep -v "^| case" | tee -a "$SUMMARY"
  done
fi
if has kerneltimes; then
  # Per-kernel times (ncu gpu__time_duration, clocks left alone) of benchmark rows,
  # ours beside CUB's in one process. KT_ROWS: "substring:log2" entries, separated by ';'.
  IFS=';' read -ra KT <<< "${KT_ROWS:-u32 keys:28}"
  for r in "${KT[@]}"; do
    only=${r%:*}; lg=${r##*:}; tag=$(echo "$only-$lg" | tr -c 'a-zA-Z0-9\n-' '_')
    ncu --clock-control none --metrics gpu__time_duration.sum --csv --page raw \
      "$BENCH" --only "$only" --log2 "$lg" --reps 1 > "$OUT/kt_$tag.csv" 2>> "$OUT/kerneltimes.log"
    note "-- kernel times: '$only' 2^$lg (ncu exit $?)"
    python3 scripts/gpu/kernel_times.py "$OUT/kt_$tag.csv" 2>&1 | tee -a "$SUMMARY"
  done
  (cd "$OUT" && tar czf kerneltimes.tgz kt_*.csv && rm -f kt_*.csv)
fi
if has passtimes; then
  # Per-launch times of the scatter kernel (ncu; one line per case, the first
  # PT_LAUNCHES launches: warm-ups first) for benchmark argument sets PT_CASES,
  # separated by ';' -- e.g. the odd-pass question of NOTES.md:
  # PT_CASES="--log2 28;--n 268434432;--n 266993664;--n 266994664" (2^28 has a partial last
  # tile of 1024 keys; 268434432 = 2^28 - 1024 has none; 266993664 = 24832 full tiles ran
  # every pass at the even speed; 266994664 adds a partial tile to it)
  IFS=';' read -ra PT <<< "${PT_CASES:---log2 28}"
  for c in "${PT[@]}"; do
    ncu --clock-control none --kernel-name regex:onesweep_scatter --launch-count ${PT_LAUNCHES:-16} \
      --metrics gpu__time_duration.sum --csv --page raw "$BENCH" --only "${PT_ONLY:-u32 keys}" --reps 1 $c \
      > "$OUT/pt.csv" 2>> "$OUT/passtimes.log"
    note "-- scatter launches (us), ${PT_ONLY:-u32 keys} $c: $(python3 scripts/gpu/kernel_times.py --launches "$OUT/pt.csv")"
    "$BENCH" --only "${PT_ONLY:-u32 keys}" --reps 15 $c 2>> "$OUT/passtimes.log" | grep "^| [a-z]" | grep -v "^| case" | head -1 | tee -a "$SUMMARY"
  done
  rm -f "$OUT/pt.csv"
fi
if has profile; then
  # ncu source counters of one kernel launch (PROF_KERNEL regex, PROF_SKIP launches
  # skipped) of one benchmark row (PROF_ONLY, PROF_LOG2); the SASS view as CSV.
  ncu --clock-control none --kernel-name "regex:${PROF_KERNEL:-onesweep_scatter}" --launch-skip ${PROF_SKIP:-4} \
    --launch-count 1 --set full --import-source no -o "$OUT/profile" -f \
    "$BENCH" --only "${PROF_ONLY:-u32 keys}" --log2 ${PROF_LOG2:-26} --reps 1 > "$OUT/profile.log" 2>&1
  note "-- ncu profile of ${PROF_KERNEL:-onesweep_scatter}: exit $?"
  ncu --import "$OUT/profile.ncu-rep" --page details > "$OUT/profile_details.txt" 2>&1
  ncu --import "$OUT/profile.ncu-rep" --page source --csv --print-source sass > "$OUT/profile_sass.csv" 2>&1
  gzip -f "$OUT/profile_sass.csv"
  grep -E "Duration|Registers|Achieved Occupancy|Executed Instructions |Theoretical Occupancy" "$OUT/profile_details.txt" | head -12 | tee -a "$SUMMARY"
fi
if has records; then
  # Record sorting: radix::cuda::sort_records vs CUB / Thrust + plain gather.
  t0=$(date +%s)
  "$B/bench/cuda/radix_records_bench" ${RECORDS_ARGS:-} > "$OUT/records.md" 2> "$OUT/records.log"
  note "-- radix_records_bench ${RECORDS_ARGS:-}: exit $? ($(since $t0) s)"
  cat "$OUT/records.md"
fi
if has algos; then
  # The seed algorithms (reduce_then_scan, four_way, split) next to Onesweep.
  [ -f "$B/build.ninja" ] || configure_build
  t0=$(date +%s)
  build_targets algos_build.log "algos: " radix_cuda_tests radix_algorithms_bench conformance_keys conformance_pairs \
    conformance_argsort conformance_records conformance_decomposer conformance_options conformance_byte_keys \
    conformance_int128
  note "-- algos: build $(since $t0) s [algos_build.log]"

  t0=$(date +%s)
  (cd "$B" && ctest -L seed -j"${ALGOS_CTEST_JOBS:-4}" --output-on-failure --timeout 900) > "$OUT/algos_conformance.log" 2>&1
  note "-- algos: ctest -L seed (conformance on each seed algorithm): exit $? ($(since $t0) s) [algos_conformance.log]"
  grep -E "tests passed|tests failed|Failed|Not Run|\*\*\*|\(Failed\)|Timeout" "$OUT/algos_conformance.log" | head -40 | tee -a "$SUMMARY"

  t0=$(date +%s)
  "$TESTS" 'algo_*' > "$OUT/algos_tests.log" 2>&1
  note "-- algos: radix_cuda_tests 'algo_*': exit $? ($(since $t0) s): $(tail -1 "$OUT/algos_tests.log") [algos_tests.log]"
  grep -E "FAIL|exception|no case matches" "$OUT/algos_tests.log" | head -20 | tee -a "$SUMMARY"

  for tool in memcheck racecheck synccheck; do
    t0=$(date +%s)
    sanitizer $tool "${SAN_TIMEOUT:-600}" "$TESTS" --small 'algo_*' > "$OUT/algos_sanitizer_$tool.log" 2>&1
    note "-- algos: compute-sanitizer --tool $tool radix_cuda_tests --small 'algo_*': exit $? ($(since $t0) s) [algos_sanitizer_$tool.log]"
    grep -E "ERROR SUMMARY|RACECHECK SUMMARY|Invalid|Race reported|Barrier error|FAIL" "$OUT/algos_sanitizer_$tool.log" |
      tail -3 | tee -a "$SUMMARY"
  done

  t0=$(date +%s)
  "$B/bench/cuda/radix_algorithms_bench" ${ALGOS_BENCH_ARGS:-} --csv "$OUT/algorithms.csv" > "$OUT/algorithms.md" \
    2> "$OUT/algos_bench.log"
  note "-- algos: radix_algorithms_bench ${ALGOS_BENCH_ARGS:-}: exit $? ($(since $t0) s) [algorithms.md, algorithms.csv, algos_bench.log]"
  grep -E "FAILED|INCOMPLETE|x CUB|not measured" "$OUT/algorithms.md" | head -20 | tee -a "$SUMMARY"
  if python3 -c 'import matplotlib' 2>/dev/null; then
    python3 scripts/plot_algorithms.py "$OUT/algorithms.csv" -o "$OUT/algorithms.png" 2>&1 | tee -a "$SUMMARY"
  else
    note "-- algos: no matplotlib here: plot later with scripts/plot_algorithms.py algorithms.csv"
  fi
  # Every log of the stage in one archive (sanitizer logs can be large).
  (cd "$OUT" && tar -czf algos_logs.tar.gz algos_*.log algorithms.md algorithms.csv 2>/dev/null)
  note "-- algos: logs in algos_logs.tar.gz"
fi
if has pic; then
  BUILD_DIR="$B" OUT="$OUT" bash scripts/gpu/pic_stage.sh ${PIC_STAGES:-verify sanitize bench} > "$OUT/pic_stage.log" 2>&1
  note "-- pic stage: exit $? (summary in pic_summary.txt)"
fi
for app in broadphase lbvh; do
  if has $app; then
    BUILD_DIR="$B" OUT="$OUT" bash scripts/gpu/${app}_stage.sh > "$OUT/${app}_stage.log" 2>&1
    note "-- $app stage: exit $? (summary in ${app}_summary.txt)"
  fi
done
if has filesort; then
  BUILD_DIR="$B" OUT="$OUT" bash scripts/gpu/filesort_stage.sh
  note "-- filesort stage: exit $?"
fi
if has opencl && [ -f scripts/gpu/opencl_stage.sh ]; then
  BUILD_DIR="$B" OUT="$OUT" bash scripts/gpu/opencl_stage.sh > "$OUT/opencl_stage.log" 2>&1
  note "-- opencl stage: exit $?"
fi
note "== done $(utc_time)"
