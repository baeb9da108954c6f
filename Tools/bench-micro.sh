#!/usr/bin/env bash
# In-process micro-benchmarks of the hot parsers: the package in Benchmarks/ (ordo-one's
# package-benchmark, a package of its own so that gitwire itself never resolves it), on inputs
# captured from a real repository by Tools/bench-micro-inputs.py:
#   - pkt-line views and the side-band demultiplexer over upload-pack's whole answer to a shallow
#     clone (64 KiB reads), and the same with owned packets (`PktLineDecoder.next()`);
#   - the ls-remote exchange (codec, decoder and parser) on the v0 ref advertisement and on the v2
#     capabilities + ls-refs answer;
#   - delta application in Swift (`Delta.apply`) and in C (`Delta.applyNative`) on every delta of
#     the last 300 commits' pack;
#   - SHA-1 with collision detection over a whole pack (one stream) and the blobs of a checkout
#     named one at a time and in a batch (`ObjectHashBatch`), plain SHA-1 and SHA-256.
# Each is built in release (package-benchmark builds its targets so) and run for up to 3 s after
# two warm-up iterations; the script prints, per benchmark, the fastest and the median wall time
# of one iteration, the mean CPU time of one (the thread's, user+sys, from
# CLOCK_THREAD_CPUTIME_ID: what the parser costs whatever else the machine runs), MB/s and
# iterations/s from that CPU time (for the pkt-line rows, bytes handed on as views, not touched),
# and the median mallocs of one iteration, with the load average before and after. Writes
# package-benchmark's JMH export and that table to .build/bench/micro/.
#
# Usage: Tools/bench-micro.sh [package-benchmark run options, e.g. --filter '.*delta.*': a filter
#        must match a benchmark's whole name]
#        Tools/bench-micro.sh baseline update <name> | baseline compare <name> | baseline list
# REPO=<repository> is the repository the inputs come from (default: a clone of git.git at
# /work/.mirror/git+git/repo; any repository with a few hundred commits and many refs does);
# the inputs are kept in .build/bench/micro-inputs/ and made again when REPO's HEAD moves.
#
# Checking a change against main (the baselines live in Benchmarks/.benchmarkBaselines/, which
# git ignores, so they survive switching branches in one work tree):
#     git switch main   && Tools/bench-micro.sh baseline update main
#     git switch <mine> && Tools/bench-micro.sh baseline compare main
# `compare` runs the benchmarks again and prints each metric's percentiles beside the baseline's
# with the difference; in two work trees, copy Benchmarks/.benchmarkBaselines/ across first.
#
# No jemalloc is needed: package-benchmark 1.38 counts mallocs with its own malloc interposer (the
# `MallocInterposer` trait that Benchmarks/Package.swift asks for). Retain counts are not measured:
# with Swift 6.3 on Linux the runtime's retain hooks crash the benchmark unless package-benchmark
# preloads ordo-one's swift-runtime-interposer, which the package mirror here does not have.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
setup_machine
bench_out micro
repo=${REPO:-/work/.mirror/git+git/repo}
inputs=${BENCH_OUT:-$root/.build/bench}/micro-inputs
[ -d "$repo" ] || { echo "no repository at $repo: set REPO to a clone of git.git" >&2; exit 1; }
head=$(git -C "$repo" rev-parse HEAD)
if ! grep -qx "HEAD: $head" "$inputs/inputs.txt" 2>/dev/null; then
    echo "== capturing the inputs from $repo" >&2
    rm -rf "$inputs"
    python3 "$root/Tools/bench-micro-inputs.py" "$repo" "$inputs" >&2
fi
export GITWIRE_BENCH_INPUTS=$inputs

cd "$root/Benchmarks"
plugin=(swift package --disable-sandbox --allow-writing-to-package-directory benchmark)
if [ "${1:-}" = baseline ]; then
    exec "${plugin[@]}" "$@" --no-progress
fi

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
rm -f "$out"/*.jmh.json
"${plugin[@]}" --format jmh --path "$out" --no-progress "$@" >&2
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
python3 - "$out" "$load_before" "$load_after" <<'PY' | tee "$out/micro.txt"
import glob, json, re, sys

out, before, after = sys.argv[1:4]
print(f"load average before {before}, after {after}")
print("| benchmark | wall, fastest | wall, median | CPU, mean | MB/s (CPU) | ops/s (CPU) | mallocs | iterations |")
print("| --- | --- | --- | --- | --- | --- | --- | --- |")
elements = [element for path in glob.glob(f"{out}/*.jmh.json") for element in json.load(open(path))]
for element in sorted(elements, key=lambda element: element["benchmark"]):
    metrics = element["secondaryMetrics"]
    name = element["benchmark"].split(".", 3)[3].replace("_", " ")
    match = re.search(r" \[(\d+) B\]$", name)
    size = int(match.group(1)) if match else 0
    name = re.sub(r" \[\d+ B\]$", "", name)
    wall = metrics["Time (wall clock)"]["scorePercentiles"]  # µs
    cpu = metrics["CPU time of the thread (ns)"]["score"] / 1000  # µs, the mean
    mallocs = metrics["Malloc (total)"]["scorePercentiles"]["50.0"]
    iterations = len(element["primaryMetric"]["rawData"][0])
    print(f"| {name} | {wall['0.0'] / 1000:,.2f} ms | {wall['50.0'] / 1000:,.2f} ms | {cpu / 1000:,.2f} ms"
          f" | {size / cpu if size else 0:,.0f} | {1e6 / cpu:,.1f} | {mallocs:,.0f} | {iterations} |")
PY
