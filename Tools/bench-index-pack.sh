#!/usr/bin/env bash
# Benchmarks `gitwire index-pack` against `git index-pack` on the same pack with the same threads:
# wall time and peak resident memory (from /usr/bin/time), several runs each, medians and ratios.
# Both must write the same .idx; the script stops if they do not.
#
# Usage: Tools/bench-index-pack.sh <pack-file | git-directory> [threads=2] [runs=3]
# Given a git directory (for example a local clone of a large repository), packs all its objects
# into a temporary pack first (use one with 100k+ objects).
# With BASELINE=<another gitwire binary> (an earlier build, say), that binary runs in the same
# alternation, must write the same .idx, and gets a row of its own, for before/after comparisons.
# With OBJECT_FORMAT=sha256 the pack (from a SHA-256 repository) is indexed with
# --object-format=sha256 by every tool.
set -euo pipefail

source=${1:?usage: $0 <pack-file | git-directory> [threads] [runs]}
threads=${2:-2}
runs=${3:-3}
root=$(cd "$(dirname "$0")/.." && pwd)

if [ ! -x /usr/bin/time ]; then
    apt-get install -y time >/dev/null
fi

work=$(mktemp -d /tmp/gitwire-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT

if [ -d "$source" ]; then
    echo "packing all objects of $source" >&2
    git -C "$source" pack-objects --all --revs --stdout -q </dev/null >"$work/bench.pack"
else
    cp "$source" "$work/bench.pack"
fi
pack="$work/bench.pack"

(cd "$root" && swift build -c release --static-swift-stdlib --product gitwire >&2)
gitwire="$root/.build/release/gitwire"

objects=$(od -An -tu1 -j8 -N4 "$pack" | awk '{print ($1*16777216)+($2*65536)+($3*256)+$4}')
echo "pack: $(du -h "$pack" | cut -f1), $objects objects, threads=$threads, runs=$runs"

# Runs "$@" in the work directory (outside any repository) and prints "seconds kilobytes".
measure() {
    (cd "$work" && GIT_CEILING_DIRECTORIES="$work" /usr/bin/time -f "%e %M" -o "$work/time" "$@" >/dev/null)
    cat "$work/time"
}

baseline=${BASELINE:-}
format=()
[ -z "${OBJECT_FORMAT:-}" ] || format=(--object-format="$OBJECT_FORMAT")
: >"$work/git.times"
: >"$work/gitwire.times"
: >"$work/baseline.times"
for run in $(seq "$runs"); do
    rm -f "$work/git.idx" "$work/gitwire.idx" "$work/baseline.idx"
    measure git index-pack "${format[@]}" --threads="$threads" -o "$work/git.idx" "$pack" >>"$work/git.times"
    measure "$gitwire" index-pack "${format[@]}" --threads="$threads" -o "$work/gitwire.idx" "$pack" >>"$work/gitwire.times"
    cmp -s "$work/git.idx" "$work/gitwire.idx" || { echo "run $run: the .idx files differ" >&2; exit 1; }
    if [ -n "$baseline" ]; then
        measure "$baseline" index-pack "${format[@]}" --threads="$threads" -o "$work/baseline.idx" "$pack" >>"$work/baseline.times"
        cmp -s "$work/git.idx" "$work/baseline.idx" || { echo "run $run: the baseline's .idx differs" >&2; exit 1; }
    fi
done

median() { sort -n | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
git_time=$(cut -d' ' -f1 "$work/git.times" | median)
git_rss=$(cut -d' ' -f2 "$work/git.times" | median)
gw_time=$(cut -d' ' -f1 "$work/gitwire.times" | median)
gw_rss=$(cut -d' ' -f2 "$work/gitwire.times" | median)

awk -v gt="$git_time" -v gr="$git_rss" -v wt="$gw_time" -v wr="$gw_rss" 'BEGIN {
    printf "%-8s %10s %14s\n", "tool", "wall (s)", "peak RSS (MiB)"
    printf "%-8s %10.2f %14.1f\n", "git", gt, gr / 1024
    printf "%-8s %10.2f %14.1f\n", "gitwire", wt, wr / 1024
    printf "ratio gitwire/git: wall %.2f, peak RSS %.2f (identical .idx in every run)\n", wt / gt, wr / gr
}'
if [ -n "$baseline" ]; then
    bl_time=$(cut -d' ' -f1 "$work/baseline.times" | median)
    bl_rss=$(cut -d' ' -f2 "$work/baseline.times" | median)
    awk -v gt="$git_time" -v gr="$git_rss" -v wt="$gw_time" -v wr="$gw_rss" -v bt="$bl_time" -v br="$bl_rss" 'BEGIN {
        printf "%-8s %10.2f %14.1f\n", "baseline", bt, br / 1024
        printf "ratio gitwire/baseline: wall %.3f, peak RSS %.3f\n", wt / bt, wr / br
    }'
    echo "all runs (s KiB): gitwire $(tr '\n' ',' <"$work/gitwire.times"); baseline $(tr '\n' ',' <"$work/baseline.times")"
fi
