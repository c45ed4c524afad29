# shellcheck shell=bash
# Shared by scripts/quickstart.sh, test.sh and sanitize.sh (source it, don't run it):
# where things are, installing what a fresh Debian/Ubuntu machine lacks,
# finding nvcc, and configuring + building with a CMake preset.
#
# Environment knobs (all optional):
#   RADIX_SANITIZE      0: scripts/test.sh skips scripts/sanitize.sh (the clang
#                       ASan+UBSan, TSan and libFuzzer jobs, ~14 min on 2 cores)
#   RADIX_PRESET        configure preset of CMakePresets.json (default: default)
#   RADIX_BUILD_DIR     build folder (default: the preset's, build/ for default)
#   RADIX_JOBS          parallel build and test jobs (default: number of CPUs)
#   RADIX_CMAKE_ARGS    extra arguments for the configure step (word-split)
#   RADIX_SKIP_INSTALL  1: never run apt-get, only report what is missing

set -euo pipefail

RADIX_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
RADIX_PRESET="${RADIX_PRESET:-default}"
if [[ -z "${RADIX_BUILD_DIR:-}" ]]; then
  if [[ "$RADIX_PRESET" == default ]]; then RADIX_BUILD_DIR="$RADIX_ROOT/build"; else RADIX_BUILD_DIR="$RADIX_ROOT/build-$RADIX_PRESET"; fi
fi
RADIX_JOBS="${RADIX_JOBS:-$(nproc 2>/dev/null || echo 2)}"

# Debian/Ubuntu packages the project uses: the toolchain, GoogleTest for the
# tests, ccache for rebuilds, the benchmark peers (TBB, Boost.Sort, Highway), and
# the OpenCL engine's headers, ICD loader and PoCL (OpenCL on the CPU, for its tests).
RADIX_APT_PACKAGES=(cmake ninja-build g++ libgtest-dev ccache libtbb-dev libboost-dev libhwy-dev
  pocl-opencl-icd ocl-icd-opencl-dev opencl-c-headers)

radix_log() { printf '\n==> %s\n' "$*" >&2; }
radix_die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# Installs the packages that are missing; does nothing when all are present.
radix_install_deps() {
  if ! command -v dpkg-query >/dev/null 2>&1; then
    radix_log "not a Debian/Ubuntu system: install cmake (>= 3.25), ninja, g++ (C++20), GoogleTest by hand"
    return 0
  fi
  local missing=() p
  for p in "${RADIX_APT_PACKAGES[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then missing+=("$p"); fi
  done
  if ((${#missing[@]} == 0)); then
    radix_log "packages: all present (${RADIX_APT_PACKAGES[*]})"
    return 0
  fi
  if [[ "${RADIX_SKIP_INSTALL:-0}" == 1 ]]; then
    radix_log "packages missing (RADIX_SKIP_INSTALL=1, not installing): ${missing[*]}"
    return 0
  fi
  local sudo=()
  if [[ "$(id -u)" != 0 ]]; then
    command -v sudo >/dev/null 2>&1 || radix_die "need root or sudo to install: ${missing[*]}"
    sudo=(sudo)
  fi
  radix_log "installing: ${missing[*]}"
  local apt=("${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -q -o DPkg::Lock::Timeout=600)
  "${apt[@]}" update
  "${apt[@]}" install -y --no-install-recommends "${missing[@]}" </dev/null
}

# Puts nvcc on PATH when the CUDA toolkit is installed in its usual place but
# not on PATH (CMake then builds the CUDA engine; see RADIX_ENABLE_CUDA).
radix_find_cuda() {
  if command -v nvcc >/dev/null 2>&1; then return 0; fi
  local d
  for d in /usr/local/cuda/bin /usr/local/cuda-*/bin; do
    if [[ -x "$d/nvcc" ]]; then
      export PATH="$d:$PATH"
      radix_log "CUDA: using $d/nvcc"
      return 0
    fi
  done
  radix_log "CUDA: no nvcc found, building the CPU engine only"
}

radix_check_cmake() {
  command -v cmake >/dev/null 2>&1 || radix_die "cmake not found"
  local v
  v="$(cmake --version | sed -n '1s/[^0-9]*\([0-9][0-9]*\.[0-9][0-9]*\).*/\1/p')"
  local major="${v%%.*}" minor="${v#*.}"
  if ((major < 3 || (major == 3 && minor < 25))); then
    radix_die "cmake $v is too old: radix needs 3.25 or newer (e.g. 'pip install cmake')"
  fi
}

# Configures with the preset (into RADIX_BUILD_DIR) and builds everything.
radix_configure_build() {
  radix_check_cmake
  radix_log "tools: $(cmake --version | head -n 1); $(c++ --version 2>/dev/null | head -n 1);" \
    "$(command -v nvcc >/dev/null 2>&1 && nvcc --version | tail -n 1 || echo 'no nvcc')"
  radix_log "configure: preset '$RADIX_PRESET' in $RADIX_BUILD_DIR"
  # shellcheck disable=SC2086  # RADIX_CMAKE_ARGS is meant to be word-split
  (cd "$RADIX_ROOT" && cmake --preset "$RADIX_PRESET" -B "$RADIX_BUILD_DIR" ${RADIX_CMAKE_ARGS:-})
  radix_log "build: $RADIX_JOBS jobs"
  cmake --build "$RADIX_BUILD_DIR" -j "$RADIX_JOBS"
}

# Everything a script needs before it can use the build.
radix_setup() {
  radix_install_deps
  radix_find_cuda
  radix_configure_build
}
