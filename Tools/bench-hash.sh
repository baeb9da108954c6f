#!/usr/bin/env bash
# Benchmarks `gitwire hash-object --stdin` (SHA-1 with collision detection) against
# `git hash-object --stdin` (git's SHA-1DC) on the same random data, and against gitwire with
# detection off (`--unchecked-sha1`, libcrypto's plain SHA-1): alternating runs, medians of wall
# time and of CPU time (user + system), throughput in MB/s and the ratio of gitwire's
# throughput to git's. All three must print the same id; the script stops if they do not.
#
# Usage: Tools/bench-hash.sh [sizes in MB, comma-separated; default 200,500,1000] [runs=5]
# With OBJECT_FORMAT=sha256 both hash in a SHA-256 repository (git with its own SHA-256, gitwire
# with SHA-NI where the CPU has it), and there is no unchecked variant.
# CPU time is the steadier figure on a shared machine: wall time includes waiting for a core.
# git reads standard input above core.bigFileThreshold (512 MiB) in a slower streaming way, so
# the 1000 MB run shows that path of git; 200 and 500 MB compare the in-memory one.
set -euo pipefail

sizes=${1:-200,500,1000}
runs=${2:-5}
root=$(cd "$(dirname "$0")/.." && pwd)

if [ ! -x /usr/bin/time ]; then
    apt-get install -y time >/dev/null
fi

work=$(mktemp -d /tmp/gitwire-bench-hash.XXXXXX)
trap 'rm -rf "$work"' EXIT

(cd "$root" && swift build -c release --static-swift-stdlib --product gitwire >&2)
gitwire="$root/.build/release/gitwire"

# Runs "$@" with the data on standard input, outside any repository (SHA-1) or in a SHA-256 one;
# prints "wall cpu" and leaves the printed id in $work/id.
place=$work
tools="git checked unchecked"
if [ "${OBJECT_FORMAT:-sha1}" = sha256 ]; then
    place=$work/repo
    git init -q --object-format=sha256 "$place"
    tools="git checked"
fi
measure() {
    (cd "$place" && GIT_CEILING_DIRECTORIES="$work" /usr/bin/time -f "%e %U %S" -o "$work/time" "$@" \
        <"$work/data" >"$work/id")
    awk '{printf "%.3f %.3f\n", $1, $2 + $3}' "$work/time"
}

median() { sort -n | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }

printf "%-8s %-22s %9s %9s %11s %11s %9s\n" "size" "tool" "wall (s)" "cpu (s)" "wall MB/s" "cpu MB/s" "vs git"
for size in ${sizes//,/ }; do
    head -c "$((size * 1000000))" /dev/urandom >"$work/data"
    for tool in $tools; do : >"$work/$tool.times"; done
    for run in $(seq "$runs"); do
        measure git hash-object --stdin >>"$work/git.times"
        expected=$(cat "$work/id")
        measure "$gitwire" hash-object --stdin >>"$work/checked.times"
        [ "$(cat "$work/id")" = "$expected" ] || { echo "gitwire printed another id than git" >&2; exit 1; }
        [ "$place" != "$work" ] || {
            measure "$gitwire" hash-object --stdin --unchecked-sha1 >>"$work/unchecked.times"
            [ "$(cat "$work/id")" = "$expected" ] || { echo "unchecked gitwire printed another id" >&2; exit 1; }
        }
    done
    git_cpu=$(cut -d' ' -f2 "$work/git.times" | median)
    git_wall=$(cut -d' ' -f1 "$work/git.times" | median)
    for tool in $tools; do
        wall=$(cut -d' ' -f1 "$work/$tool.times" | median)
        cpu=$(cut -d' ' -f2 "$work/$tool.times" | median)
        case $tool in
            git) label="git hash-object" ;;
            checked) label="gitwire"; [ "$place" != "$work" ] || label="gitwire (checked)" ;;
            unchecked) label="gitwire (unchecked)" ;;
        esac
        awk -v s="$size" -v l="$label" -v w="$wall" -v c="$cpu" -v gc="$git_cpu" -v gw="$git_wall" 'BEGIN {
            printf "%-8s %-22s %9.3f %9.3f %11.0f %11.0f %4.2fx/%.2fx\n", s " MB", l, w, c, s / w, s / c, gw / w, gc / c
        }'
    done
done
echo "vs git: gitwire's throughput over git's, by wall time / by CPU time (above 1: gitwire is faster)"
