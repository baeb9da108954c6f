#!/usr/bin/env bash
# The cost of a step of cgw_sha1dc_hash_jobs's sixteen AVX-512 lanes in single blocks of the
# streaming path (Tools/hash-lanes.c), which sets HANDOFF_LANES in Sources/CGitWire/sha1dc.c and
# STEP_COST in Tools/simulate-hash-lanes.py (Documentation/Performance.md, "index-pack").
# CPU time, so a loaded machine gives the same answer, a little noisier.
# Usage: Tools/bench-hash-lanes.sh [message size=262144] [rounds=40] [file of real data]
set -euo pipefail
source "$(dirname "$0")/lib.sh"
start_work hash-lanes
(cd "$root" && clang -O2 -w -ISources/CGitWire/include -ISources/CGitWire -o "$work/hash-lanes" Tools/hash-lanes.c \
    Sources/CGitWire/sha1dc.c Sources/CGitWire/sha1dc_x86.c -lpthread)
"$work/hash-lanes" "$@"
