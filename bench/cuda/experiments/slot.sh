#!/usr/bin/env bash
# A policy or kernel slot for the one-row harnesses (narrow_pairs.cu, wide_spills.cu): a copy of this
# tree's include/ and src/ with a patch applied, and the harnesses built against it with ptxas's
# register and spill report. The binaries run on the GPU machine without a CMake build, so a base and
# a few slots are timed side by side in one short call (bench/README.md, "One row's kernels").
#
#   bench/cuda/experiments/slot.sh NAME [PATCH]
#
# NAME: the slot's folder under $SLOTS (default /tmp/slots); "base" with no PATCH is the tree as it is.
# PATCH: a diff against the tree (`git diff > x.patch` after editing, then `git checkout` the files).
# HARNESSES (default "wide_spills narrow_pairs"), ARCH (default 90).
# Writes $SLOTS/NAME/bin/<harness> and <harness>.ptxas, and prints every kernel that spills.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
name=${1:?usage: slot.sh NAME [PATCH]}
patch=${2:-}
dir=${SLOTS:-/tmp/slots}/$name
rm -rf "$dir"
mkdir -p "$dir/bin"
cp -r "$root/include" "$root/src" "$dir/"
if [ -n "$patch" ]; then
  patch=$(cd "$(dirname "$patch")" && pwd)/$(basename "$patch")
  (cd "$dir" && patch -s -p1 < "$patch")
fi
for h in ${HARNESSES:-wide_spills narrow_pairs}; do
  t0=$(date +%s)
  nvcc -I "$dir/include" -I "$dir/src" -I "$dir/src/core" -I "$dir/src/cuda" -O3 -DNDEBUG \
    --generate-code=arch=compute_${ARCH:-90},code=sm_${ARCH:-90} --expt-relaxed-constexpr -std=c++20 \
    -Xptxas -v -o "$dir/bin/$h" "$root/bench/cuda/experiments/$h.cu" > "$dir/bin/$h.ptxas" 2>&1 ||
    { tail -20 "$dir/bin/$h.ptxas"; exit 1; }
  echo "$name/$h: built in $(( $(date +%s) - t0 )) s"
  # ptxas names a kernel, then its spills: print the kernels with any, demangled.
  awk '/Compiling entry function/ { f = $0; sub(/.*function ./, "", f); sub(/. for .*/, "", f) }
       /bytes spill stores/ && $5 + 0 > 0 { print $5, f }' "$dir/bin/$h.ptxas" |
    while read -r bytes fn; do echo "  spills $bytes bytes: $(echo "$fn" | c++filt | sed 's/radix::cuda_detail:://g' | cut -c1-200)"; done
done
