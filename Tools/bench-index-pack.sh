#!/usr/bin/env bash
# Benchmarks `gitwire index-pack` against `git index-pack` on the same pack with the same threads,
# with hyperfine (wall time, medians, ratio gitwire/git), then peak resident memory of one more run
# of each (`/usr/bin/time -f %M`, apart from the timed runs). Both must write the same .idx; the
# script stops if they do not. Writes hyperfine's JSON and the table to .build/bench/index-pack/.
#
# Usage: Tools/bench-index-pack.sh <pack-file | git-directory> [threads=2] [runs=3]
# Given a git directory (for example a local clone of a large repository), packs all its objects
# into a temporary pack first (use one with 100k+ objects).
# With BASELINE=<another gitwire binary> (an earlier build, say), that binary runs in the same
# hyperfine run as "baseline index-pack", must write the same .idx, and gets a row of its own, for
# before/after comparisons. With OBJECT_FORMAT=sha256 the pack (from a SHA-256 repository) is
# indexed with --object-format=sha256 by every tool.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source_pack=${1:?usage: $0 <pack-file | git-directory> [threads] [runs]}
threads=${2:-2}
runs=${3:-3}
source_pack=$(realpath "$source_pack")
setup_machine
build_gitwire
bench_out index-pack
start_work bench-index-pack

if [ -d "$source_pack" ]; then
    echo "packing all objects of $source_pack" >&2
    git -C "$source_pack" pack-objects --all --revs --stdout -q </dev/null >"$work/bench.pack"
else
    cp "$source_pack" "$work/bench.pack"
fi
pack="$work/bench.pack"
objects=$(od -An -tu1 -j8 -N4 "$pack" | awk '{print ($1*16777216)+($2*65536)+($3*256)+$4}')
name=$(basename "$source_pack" .pack)
# Outside any repository.
cd "$work"
export GIT_CEILING_DIRECTORIES="$work"

format=${OBJECT_FORMAT:+--object-format=$OBJECT_FORMAT}
baseline=${BASELINE:-}
baseline_args=()
if [ -n "$baseline" ]; then
    baseline_args=(--prepare "rm -f $work/baseline.idx" -n "baseline index-pack --threads=$threads"
        "$baseline index-pack $format --threads=$threads -o $work/baseline.idx $pack")
fi
hyperfine_run "$out/$name.json" -N --runs "$runs" \
    --prepare "rm -f $work/git.idx" -n "git index-pack --threads=$threads" \
    "git index-pack $format --threads=$threads -o $work/git.idx $pack" \
    --prepare "rm -f $work/gitwire.idx" -n "gitwire index-pack --threads=$threads" \
    "$gitwire index-pack $format --threads=$threads -o $work/gitwire.idx $pack" \
    "${baseline_args[@]}"
cmp "$work/git.idx" "$work/gitwire.idx" || { echo "the .idx files differ" >&2; exit 1; }
[ -z "$baseline" ] || cmp "$work/git.idx" "$work/baseline.idx" || { echo "the baseline's .idx differs" >&2; exit 1; }
: >"$out/$name.memory"
rm -f "$work/git.idx" "$work/gitwire.idx" "$work/baseline.idx"
peak_rss "$out/$name.memory" "git index-pack --threads=$threads" git index-pack $format --threads="$threads" -o "$work/git.idx" "$pack"
peak_rss "$out/$name.memory" "gitwire index-pack --threads=$threads" "$gitwire" index-pack $format --threads="$threads" -o "$work/gitwire.idx" "$pack"
[ -z "$baseline" ] || peak_rss "$out/$name.memory" "baseline index-pack --threads=$threads" "$baseline" index-pack $format --threads="$threads" -o "$work/baseline.idx" "$pack"
{
    echo "index-pack of $source_pack: $(du -h "$pack" | cut -f1), $objects objects, $runs runs (hyperfine);" \
        "peak memory from one more run each; identical .idx; $(machine_line)"
    bench_table "$out/$name.json" "$out/$name.memory"
} | tee "$out/$name.txt"
