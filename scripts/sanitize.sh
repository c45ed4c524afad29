#!/usr/bin/env bash
# Sanitizer and fuzz jobs; scripts/test.sh (so CI too) runs this at its end.
# Clang builds, each in its own folder next to build/:
#   1. build-asan: AddressSanitizer + UndefinedBehaviorSanitizer (-O1 -g) of the
#      library, the unit and CPU conformance tests and the `radix` tool, then
#      ctest -L 'cpu|cli' -LE large (the conformance runs without signed keys)
#   2. build-tsan: ThreadSanitizer of the thread pool test, the CPU routes test,
#      the scratch cache test and the CPU conformance keys/pairs runs without
#      the single-threaded small sizes, the signed keys and the 16-bit floats
#      (RADIX_TEST_CPU_FILTER), halt_on_error=1
#   3. build-fuzz: libFuzzer + ASan + UBSan: fuzz/fuzz_api and
#      fuzz/fuzz_cli_args (fuzz/README.md), RADIX_FUZZ_SECONDS each (default
#      60), side by side, from the checked-in corpora; new inputs go to a
#      temporary folder, crash inputs to build-fuzz/artifacts/
# Installs clang and its sanitizer runtimes when missing (apt-get, like
# scripts/common.sh); a job whose sanitizer still cannot build and run a test
# program is skipped with the reason. Knobs: RADIX_SANITIZE=0 skips it all;
# RADIX_FUZZ_SECONDS; RADIX_JOBS and RADIX_SKIP_INSTALL (scripts/common.sh).
# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

if [[ "${RADIX_SANITIZE:-1}" == 0 ]]; then
  radix_log "sanitizers and fuzzers: skipped (RADIX_SANITIZE=0)"
  exit 0
fi
fuzz_seconds="${RADIX_FUZZ_SECONDS:-60}"
start_all=$SECONDS
failures=()
times=()

tmp="$(mktemp -d "${TMPDIR:-/tmp}/radix-sanitize.XXXXXX")"
if [[ "${RADIX_KEEP_TMP:-0}" != 1 ]]; then trap 'rm -rf "$tmp"' EXIT; fi

# Runs "$@" and records how long it took under the name $1 (the rest is the command).
timed() {
  local name=$1 t0=$SECONDS rc=0
  shift
  "$@" || rc=$?
  times+=("$name: $((SECONDS - t0)) s")
  return "$rc"
}

# ---- a clang++ whose sanitizers work -------------------------------------------

printf '#include <thread>\nint main() { int x = 0; std::thread t([&] { x = 1; }); t.join(); return x - 1; }\n' >"$tmp/probe.cpp"
printf '#include <cstddef>\n#include <cstdint>\nextern "C" int LLVMFuzzerTestOneInput(const std::uint8_t*, std::size_t) { return 0; }\n' >"$tmp/probe_fuzz.cpp"

# probe CXX KIND: builds and runs a test program with that sanitizer set.
probe() {
  local cxx=$1 kind=$2 exe="$tmp/probe-$2"
  case "$kind" in
    asan) "$cxx" -fsanitize=address,undefined -pthread "$tmp/probe.cpp" -o "$exe" && ASAN_OPTIONS=detect_leaks=0 "$exe" ;;
    lsan) ASAN_OPTIONS=detect_leaks=1 "$tmp/probe-asan" ;;
    tsan) "$cxx" -fsanitize=thread -pthread "$tmp/probe.cpp" -o "$exe" && "$exe" ;;
    fuzz) "$cxx" -fsanitize=fuzzer,address,undefined "$tmp/probe_fuzz.cpp" -o "$exe" && "$exe" -runs=1 -detect_leaks=0 ;;
  esac >"$tmp/probe-$kind.log" 2>&1
}

find_clang() {
  local c
  for c in clang++ clang++-{14..19}; do
    if command -v "$c" >/dev/null 2>&1 && probe "$c" asan; then
      command -v "$c"
      return 0
    fi
  done
  return 1
}

if ! cxx="$(find_clang)"; then
  # Debian 12: `clang` is clang 14, whose sanitizer and libFuzzer runtimes are
  # in libclang-rt-14-dev (not installed by --no-install-recommends). Other
  # releases name it differently: clang alone is tried next.
  RADIX_APT_PACKAGES=(cmake ninja-build libgtest-dev clang libclang-rt-14-dev)
  (radix_install_deps) || { RADIX_APT_PACKAGES=(cmake ninja-build libgtest-dev clang); (radix_install_deps); } ||
    radix_log "could not install clang and its sanitizer runtimes"
  cxx="$(find_clang)" || cxx=""
fi
if [[ -z "$cxx" ]]; then
  radix_log "sanitizers and fuzzers: SKIPPED: no clang++ builds and runs an ASan+UBSan program" \
    "(install clang and its runtimes, e.g. Debian 12: apt-get install clang libclang-rt-14-dev)." \
    "Last attempt said:"
  tail -n 5 "$tmp/probe-asan.log" >&2 2>/dev/null || true
  exit 0
fi
radix_log "sanitizers: $("$cxx" --version | head -n 1) ($cxx)"
radix_check_cmake
# LeakSanitizer stops the process's threads with ptrace, which some containers forbid.
leaks=1
if ! probe "$cxx" lsan; then
  leaks=0
  radix_log "LeakSanitizer does not work here (leak checks off); it said:"
  tail -n 3 "$tmp/probe-lsan.log" >&2 || true
fi

# What every job shares: clang, -O1 with line tables (the sanitizers' reports
# name file and line; full debug info made the three builds a sixth slower),
# the CPU engine only, no benchmarks, apps or examples.
common_args=(-G Ninja -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=RelWithDebInfo
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only" -DRADIX_ENABLE_CUDA=OFF -DRADIX_ENABLE_OPENCL=OFF
  -DRADIX_BUILD_BENCH=OFF -DRADIX_BUILD_APPS=OFF -DRADIX_BUILD_EXAMPLES=OFF)
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"

# configure_build DIR [cmake arguments...] [-- targets...]
configure_build() {
  local dir=$1 args=() targets=()
  shift
  while (($#)) && [[ "$1" != -- ]]; do args+=("$1"); shift; done
  if (($#)); then shift; targets=(--target "$@"); fi
  cmake -S "$RADIX_ROOT" -B "$dir" "${common_args[@]}" "${args[@]}" &&
    cmake --build "$dir" -j "$RADIX_JOBS" "${targets[@]}"
}

# ---- 1. ASan + UBSan -------------------------------------------------------------

asan_dir="$RADIX_ROOT/build-asan"
radix_log "ASan+UBSan: build ($asan_dir)"
# The CPU conformance runs skip the signed integer keys here: they take the
# unsigned keys' code paths through a sign-bit flip (ordered_bits, which the
# unit tests check under these sanitizers), and they were a quarter of the
# job's time. The plain build runs them all.
signed_keys='*/int8:*/int16:*/int32:*/int64'
if timed "ASan+UBSan build" configure_build "$asan_dir" -DRADIX_SANITIZE=address,undefined \
  "-DRADIX_TEST_CPU_FILTER=cpu/*-$signed_keys"; then
  radix_log "ASan+UBSan: ctest -L 'cpu|cli' -LE large"
  asan_options="detect_leaks=$leaks:strict_string_checks=1:check_initialization_order=1"
  # cli.file.outputs sorts under `ulimit -v` with 200 MB to spare, which ASan's
  # quarantine of freed blocks (256 MB) overruns: it runs again below without one.
  # The exchange plan's sweeps over 16 and 64 virtual ranks (pure arithmetic,
  # 7x slower under ASan: most of its 86 s of 278) run in the plain build only.
  timed "ASan+UBSan tests" env ASAN_OPTIONS="$asan_options" \
    ctest --test-dir "$asan_dir" -L 'cpu|cli' -LE large -E '^(cli\.file\.outputs|test_core_exchange_plan)$' \
    --output-on-failure --no-tests=error -j "$RADIX_JOBS" || failures+=("ASan+UBSan: some tests failed (output above)")
  timed "ASan+UBSan exchange plan" env ASAN_OPTIONS="$asan_options" \
    "$asan_dir/tests/test_core_exchange_plan" --gtest_filter='-*.EveryShapeOverSixteenAndSixtyFourRanks' ||
    failures+=("ASan+UBSan: test_core_exchange_plan failed (output above)")
  timed "ASan+UBSan cli.file.outputs" env ASAN_OPTIONS="$asan_options:quarantine_size_mb=0" \
    ctest --test-dir "$asan_dir" -R '^cli\.file\.outputs$' --output-on-failure --no-tests=error ||
    failures+=("ASan+UBSan: cli.file.outputs failed (output above)")
else
  failures+=("ASan+UBSan: the build failed")
fi

# ---- 2. TSan ---------------------------------------------------------------------

tsan_dir="$RADIX_ROOT/build-tsan"
if probe "$cxx" tsan; then
  radix_log "TSan: build ($tsan_dir)"
  # The small sizes run on one thread: nothing there for TSan to see. The
  # threads' code is the same for every key of a width: the signed keys and
  # the 16-bit floats (the same widths as unsigned keys) are skipped too.
  if timed "TSan build" configure_build "$tsan_dir" -DRADIX_SANITIZE=thread -DRADIX_BUILD_TOOLS=OFF \
    "-DRADIX_TEST_CPU_FILTER=cpu/*-*SmallSizes*:$signed_keys:*/float16:*/bfloat16" -- test_cpu_thread_pool test_cpu_routes test_api_scratch_cache \
    conformance_keys conformance_pairs
  then
    radix_log "TSan: thread pool, CPU routes, scratch cache, conformance keys and pairs (cpu, without the small sizes)"
    timed "TSan tests" env TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1" \
      ctest --test-dir "$tsan_dir" --output-on-failure --no-tests=error -j "$RADIX_JOBS" \
      -R '^(test_cpu_thread_pool|test_cpu_routes|test_api_scratch_cache|conformance\.(keys|pairs)\.cpu)$' ||
      failures+=("TSan: some tests failed (output above)")
  else
    failures+=("TSan: the build failed")
  fi
else
  radix_log "TSan: SKIPPED: $cxx cannot build and run a -fsanitize=thread program:"
  tail -n 5 "$tmp/probe-tsan.log" >&2 || true
fi

# ---- 3. libFuzzer ----------------------------------------------------------------

# fuzz NAME: runs fuzz/fuzz_NAME from its checked-in corpus; new inputs go to
# the first (temporary) folder, a crashing one to build-fuzz/artifacts/.
fuzz() {
  mkdir -p "$tmp/corpus-$1" "$fuzz_dir/artifacts"
  "$fuzz_dir/fuzz/fuzz_$1" -max_total_time="$fuzz_seconds" -timeout=30 -detect_leaks="$leaks" -print_final_stats=1 \
    -artifact_prefix="$fuzz_dir/artifacts/$1-" "$tmp/corpus-$1" "$RADIX_ROOT/fuzz/corpus/$1" >"$tmp/fuzz-$1.log" 2>&1
}

fuzz_dir="$RADIX_ROOT/build-fuzz"
if probe "$cxx" fuzz; then
  radix_log "fuzzers: build ($fuzz_dir)"
  if timed "fuzzers build" configure_build "$fuzz_dir" -DRADIX_SANITIZE=address,undefined -DRADIX_BUILD_FUZZERS=ON \
    -DRADIX_BUILD_TESTS=OFF -DRADIX_BUILD_TOOLS=OFF -- fuzz_api fuzz_cli_args; then
    radix_log "fuzzers: fuzz_api and fuzz_cli_args, ${fuzz_seconds} s each"
    fuzz_t0=$SECONDS
    declare -A fuzz_rc=()
    if ((RADIX_JOBS >= 2)); then  # side by side
      fuzz api & api_pid=$!
      fuzz cli_args & cli_pid=$!
      wait "$api_pid" && fuzz_rc[api]=0 || fuzz_rc[api]=$?
      wait "$cli_pid" && fuzz_rc[cli_args]=0 || fuzz_rc[cli_args]=$?
    else
      fuzz api && fuzz_rc[api]=0 || fuzz_rc[api]=$?
      fuzz cli_args && fuzz_rc[cli_args]=0 || fuzz_rc[cli_args]=$?
    fi
    times+=("fuzz runs: $((SECONDS - fuzz_t0)) s")
    for f in api cli_args; do
      if [[ "${fuzz_rc[$f]}" != 0 ]]; then
        radix_log "fuzz_$f FAILED (exit ${fuzz_rc[$f]}); the end of its log:"
        grep -v -e '^#[0-9]' -e 'NEW_FUNC' "$tmp/fuzz-$f.log" | tail -n 80 >&2
        failures+=("fuzz_$f: a finding (log above; the input is in $fuzz_dir/artifacts/)")
      else
        radix_log "fuzz_$f: no finding"
        grep -e '^Done' -e '^stat::new_units_added' "$tmp/fuzz-$f.log" >&2 || true
      fi
    done
  else
    failures+=("fuzzers: the build failed")
  fi
else
  radix_log "fuzzers: SKIPPED: $cxx cannot build and run a -fsanitize=fuzzer program:"
  tail -n 5 "$tmp/probe-fuzz.log" >&2 || true
fi

radix_log "sanitize.sh: $((SECONDS - start_all)) s in all"
printf '  - %s\n' "${times[@]}" >&2
if ((${#failures[@]} != 0)); then
  radix_log "sanitize.sh FAILED:"
  printf '  - %s\n' "${failures[@]}" >&2
  exit 1
fi
radix_log "sanitizers and fuzzers: no finding"
