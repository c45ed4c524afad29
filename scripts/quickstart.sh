#!/usr/bin/env bash
# Quick start on a fresh Debian/Ubuntu machine: installs what is missing
# (apt-get; sudo only when not root), builds radix (Release, build/), and sorts
# 2^24 random 32-bit keys with `radix bench` on the default engine.
# Works from any directory. Extra arguments go to `radix bench`, e.g.
#   scripts/quickstart.sh -t f32 -n 1M
# See scripts/common.sh for the environment knobs (RADIX_BUILD_DIR, ...).
# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

radix_setup

radix_log "radix bench -n 2^24 -t u32 $*"
"$RADIX_BUILD_DIR/tools/radix" bench -n '2^24' -t u32 "$@"

radix_log "done. Next: scripts/test.sh runs the tests; $RADIX_BUILD_DIR/tools/radix --help lists the tool's commands."
