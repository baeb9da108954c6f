#!/usr/bin/env bash
# Benchmarks `gitwire hash-object --stdin` (SHA-1 with collision detection) against
# `git hash-object --stdin` (git's SHA-1DC) on the same random data, and against gitwire with
# detection off (`--unchecked-sha1`), with hyperfine: medians, throughput (MB/s from the median)
# and the ratio gitwire/git of the medians (below 1: gitwire is faster). All three must print the
# same id; the script stops if they do not. Writes hyperfine's JSON and the table to
# .build/bench/hash/.
#
# Usage: Tools/bench-hash.sh [sizes in MB, comma-separated; default 200,500] [runs=5]
# git reads standard input above core.bigFileThreshold (512 MiB) in a slower streaming way, so a
# 1000 MB run shows that path of git; 200 and 500 MB compare the in-memory one.
# With OBJECT_FORMAT=sha256 both hash in a SHA-256 repository (git with its own SHA-256, gitwire
# with SHA-NI where the CPU has it), and there is no unchecked variant.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
sizes=${1:-200,500}
runs=${2:-5}
setup_machine
build_gitwire
bench_out hash
start_work bench-hash
# Outside any repository, or in a SHA-256 one.
export GIT_CEILING_DIRECTORIES="$work"
sha256=
if [ "${OBJECT_FORMAT:-sha1}" = sha256 ]; then
    sha256=1
    git init -q --object-format=sha256 "$work/repo"
    cd "$work/repo"
else
    cd "$work"
fi

: >"$out/hash.txt"
for size in ${sizes//,/ }; do
    head -c "$((size * 1000000))" /dev/urandom >"$work/data"
    expected=$(git hash-object --stdin <"$work/data")
    [ "$("$gitwire" hash-object --stdin <"$work/data")" = "$expected" ] ||
        { echo "gitwire printed another id than git" >&2; exit 1; }
    unchecked=()
    if [ -z "$sha256" ]; then
        [ "$("$gitwire" hash-object --stdin --unchecked-sha1 <"$work/data")" = "$expected" ] ||
            { echo "gitwire --unchecked-sha1 printed another id than git" >&2; exit 1; }
        unchecked=(-n "unchecked hash-object --stdin, $size MB" "$gitwire hash-object --stdin --unchecked-sha1 <$work/data")
    fi
    hyperfine_run "$out/hash-$size.json" --warmup 1 --runs "$runs" \
        -n "git hash-object --stdin, $size MB" "git hash-object --stdin <$work/data" \
        -n "gitwire hash-object --stdin, $size MB" "$gitwire hash-object --stdin <$work/data" \
        "${unchecked[@]}"
    {
        echo "hash-object --stdin (${OBJECT_FORMAT:-sha1}), $size MB of random data, $runs runs after 1 warm-up (hyperfine); $(machine_line)"
        echo "(unchecked: gitwire with --unchecked-sha1, SHA-1 without collision detection)"
        bench_table "$out/hash-$size.json" "" "$((size * 1000000))"
        echo
    } | tee -a "$out/hash.txt"
done
