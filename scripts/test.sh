#!/usr/bin/env bash
# Builds and tests radix the way CI does (.ci/run calls this script):
#   1. installs what is missing (apt-get; sudo only when not root)
#   2. configures with a CMake preset (default: Release, build/) and builds
#   3. runs ctest without the tests labelled `large`
#   4. installs the package to a temporary prefix (cmake --install) and builds
#      and runs examples/consumer against it through find_package(radix)
#   4b. pip-installs the Python package into a virtual environment and runs
#      python/tests (skipped, saying why, without python3 venv or a package index)
#   5. runs scripts/sanitize.sh: clang ASan+UBSan, TSan and libFuzzer jobs in
#      build-asan/, build-tsan/, build-fuzz/ (RADIX_SANITIZE=0 skips them)
# Works from any directory. See scripts/common.sh for the environment knobs
# (RADIX_PRESET, RADIX_BUILD_DIR, RADIX_JOBS, RADIX_CMAKE_ARGS).
# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

failures=()

# The README shows examples/quickstart.cpp between two markers: keep them equal.
radix_log "README example == examples/quickstart.cpp"
if ! diff -u "$RADIX_ROOT/examples/quickstart.cpp" \
  <(sed -n '/^<!-- BEGIN examples\/quickstart.cpp -->$/,/^<!-- END examples\/quickstart.cpp -->$/p' "$RADIX_ROOT/README.md" |
    sed '1,2d;$d' | sed '$d'); then
  failures+=("README.md's example differs from examples/quickstart.cpp (diff above)")
fi

# Without a visible GPU the CUDA benchmarks cannot run, and building them
# took about a tenth of the build on 2 cores: skipped then (the CUDA engine
# and its tests are still compiled; the tests say they skip).
if command -v nvcc >/dev/null 2>&1 || [[ -x /usr/local/cuda/bin/nvcc ]]; then
  if nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
    RADIX_CMAKE_ARGS="${RADIX_CMAKE_ARGS:-} -DRADIX_BUILD_CUDA_BENCH=ON"
  else
    radix_log "CUDA benchmarks: not built (no GPU visible to nvidia-smi; they cannot run here)"
    RADIX_CMAKE_ARGS="${RADIX_CMAKE_ARGS:-} -DRADIX_BUILD_CUDA_BENCH=OFF"
  fi
fi
radix_setup

# The same selection as the test presets of CMakePresets.json (which cannot
# point at another build folder).
radix_log "ctest (label 'large' excluded)"
# On failure the install check below still runs; the script fails at the end.
ctest --test-dir "$RADIX_BUILD_DIR" --label-exclude large --output-on-failure --no-tests=error -j "$RADIX_JOBS" ||
  failures+=("ctest: some tests failed (output above)")

# ctest lists skipped tests without saying why: the reasons are in their output.
radix_log "skipped tests and why"
awk '/^[0-9]+\/[0-9]+ Testing: / { name = $3 }
     /selected tests were SKIPPED|^SKIPPED:|^skipped:/ && name != "" { sub(/^[ \t]+/, ""); print "  " name ": " $0; name = "" }' \
  "$RADIX_BUILD_DIR/Testing/Temporary/LastTest.log" 2>/dev/null || true

tmp="$(mktemp -d "${TMPDIR:-/tmp}/radix-test.XXXXXX")"
if [[ "${RADIX_KEEP_TMP:-0}" != 1 ]]; then trap 'rm -rf "$tmp"' EXIT; fi
prefix="$tmp/prefix"

radix_log "install to $prefix"
cmake --install "$RADIX_BUILD_DIR" --prefix "$prefix"

radix_log "examples/consumer: find_package(radix) from $prefix"
cmake -S "$RADIX_ROOT/examples/consumer" -B "$tmp/consumer" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix"
cmake --build "$tmp/consumer" -j "$RADIX_JOBS"
"$tmp/consumer/radix_consumer"
if [[ -x "$tmp/consumer/radix_consumer_nccl" ]]; then
  "$tmp/consumer/radix_consumer_nccl"
else
  radix_log "examples/consumer: radix::nccl not in the package (radix built without NCCL, or no NCCL found here), its consumer skipped"
fi
"$prefix/bin/radix" --version

# The Python package, as a user installs it: `pip install .` into a fresh
# virtual environment, then its tests (the CUDA ones skip without a GPU).
# The CUDA engine is compiled for sm_90 only here (RADIX_PYTHON_CUDA_ARCHS);
# a plain `pip install .` builds every family from sm_80 to sm_120.
# RADIX_PYTHON=0 skips this step; it is also skipped, saying why, where
# python3 cannot make a virtual environment or no package index answers.
python_package() {
  if [[ "${RADIX_PYTHON:-1}" == 0 ]]; then
    radix_log "Python package: skipped (RADIX_PYTHON=0)"
    return 0
  fi
  local venv="$tmp/venv"
  if ! command -v python3 >/dev/null || ! python3 -m venv "$venv" >/dev/null 2>&1; then
    radix_log "Python package: skipped (python3 with the venv module is not available)"
    return 0
  fi
  if ! "$venv/bin/python" -m pip download -q --no-deps -d "$tmp/probe" nanobind >/dev/null 2>&1; then
    radix_log "Python package: skipped (no Python package index reachable for its build dependencies)"
    return 0
  fi
  radix_log "Python package: pip install . (CUDA archs ${RADIX_PYTHON_CUDA_ARCHS:-90}) and pytest python/tests"
  "$venv/bin/python" -m pip install -q "$RADIX_ROOT[test]" \
    -C cmake.define.CMAKE_CUDA_ARCHITECTURES="${RADIX_PYTHON_CUDA_ARCHS:-90}" || return 1
  # from outside the source tree, so that the installed package is the one imported
  (cd "$tmp" && "$venv/bin/python" -m pytest -q -rs "$RADIX_ROOT/python/tests") || return 1
}
python_package || failures+=("Python package: pip install or its tests failed (output above)")

# Clang's ASan+UBSan, TSan and libFuzzer jobs (RADIX_SANITIZE=0 skips them).
radix_log "scripts/sanitize.sh"
bash "$RADIX_ROOT/scripts/sanitize.sh" || failures+=("scripts/sanitize.sh: a sanitizer or fuzz job failed (output above)")

if ((${#failures[@]} != 0)); then
  radix_log "FAILED:"
  printf '  - %s\n' "${failures[@]}" >&2
  exit 1
fi
radix_log "all good: build, tests, install, find_package(radix) consumer, Python package, sanitizers and fuzzers"
