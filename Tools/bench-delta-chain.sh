#!/usr/bin/env bash
# Benchmarks delta resolution on the delta-chain pack of gitwire issue #11 (a chain of LINKS offset
# deltas on a 256 KiB blob, all links first, then a leaf delta on each link) with
# Tools/bench-index-pack.sh: gitwire and git side by side, same .idx checked, ratios printed.
#
# Usage: Tools/bench-delta-chain.sh [links=2400] [threads=2] [runs=3] [--ref]
set -euo pipefail
source "$(dirname "$0")/lib.sh"
links=${1:-2400}
threads=${2:-2}
runs=${3:-3}
start_work chain
python3 "$root/Tools/make-delta-chain-pack.py" "$links" ${4:-} >"$work/chain.pack"
bash "$root/Tools/bench-index-pack.sh" "$work/chain.pack" "$threads" "$runs"
