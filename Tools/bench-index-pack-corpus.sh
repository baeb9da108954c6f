#!/usr/bin/env bash
# `git index-pack` and `gitwire index-pack` on every pack of a corpus (Tools/make-index-pack-corpus.sh),
# in interleaved runs (git, gitwire, git, gitwire, ...) so that both meet the same load: medians of
# wall time, CPU time (user + system) and peak resident memory (`/usr/bin/time`), the ratios
# gitwire/git, and the load average before and after. Every run of gitwire must write the .idx git
# writes; the script stops if one does not. With BASELINE=<another gitwire binary> that binary
# runs in the same rounds and gets ratios of its own (before/after comparisons).
#
# Usage: Tools/bench-index-pack-corpus.sh [corpus=/tmp/idxpacks | pack...] [threads=2] [runs=3]
# The table goes to standard output (Markdown) and ${BENCH_OUT:-.build/bench}/index-pack-corpus/.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
target=${1:-/tmp/idxpacks}
threads=${2:-2}
runs=${3:-3}
if [ -d "$target" ]; then packs=("$target"/*.pack); else packs=("$target"); fi
build_gitwire
bench_out index-pack-corpus
start_work bench-index-pack-corpus
cd "$work"
export GIT_CEILING_DIRECTORIES="$work"
baseline=${BASELINE:-}
tools=(git gitwire)
[ -z "$baseline" ] || tools+=(baseline)

# run <tool> <pack> <idx>: appends "wall user system KiB" of one run to $work/<tool>.times
run() {
    local tool=$1 pack=$2 idx=$3 command
    case $tool in
    git) command=(git index-pack) ;;
    gitwire) command=("$gitwire" index-pack) ;;
    baseline) command=("$baseline" index-pack) ;;
    esac
    rm -f "$idx"
    /usr/bin/time -f '%e %U %S %M' -a -o "$work/$tool.times" \
        "${command[@]}" --threads="$threads" -o "$idx" "$pack" >/dev/null 2>"$work/stderr" </dev/null ||
        { cat "$work/stderr" >&2; echo "$tool index-pack failed on $pack" >&2; exit 1; }
}

table="$out/table.md"
{
    echo "index-pack --threads=$threads, $runs interleaved runs each, medians; $(machine_line)"
    echo
    echo "| pack | objects | size | git wall, CPU, peak | gitwire wall, CPU, peak | gitwire/git wall, CPU, memory | load before, after |"
    echo "| --- | --- | --- | --- | --- | --- | --- |"
} | tee "$table"
for pack in "${packs[@]}"; do
    pack=$(realpath "$pack")
    name=$(basename "$pack" .pack)
    objects=$(od -An -tu1 -j8 -N4 "$pack" | awk '{print ($1*16777216)+($2*65536)+($3*256)+$4}')
    rm -f "$work"/*.times
    load_before=$(cut -d' ' -f1 /proc/loadavg)
    for _ in $(seq "$runs"); do
        for tool in "${tools[@]}"; do
            run "$tool" "$pack" "$work/$tool.idx"
            [ "$tool" = git ] || cmp -s "$work/git.idx" "$work/$tool.idx" ||
                { echo "$tool's .idx differs from git's on $pack" >&2; exit 1; }
        done
    done
    load_after=$(cut -d' ' -f1 /proc/loadavg)
    cp "$work/git.times" "$out/$name.git.times"
    cp "$work/gitwire.times" "$out/$name.gitwire.times"
    measure() { awk -v f="$2" '{ if (f == "cpu") print $2 + $3; else if (f == "wall") print $1; else print $4 / 1024 }' "$work/$1.times" | median; }
    row() {
        printf '%.2f s, %.2f s, %.1f MiB' "$(measure "$1" wall)" "$(measure "$1" cpu)" "$(measure "$1" mem)"
    }
    ratio() { awk -v a="$(measure "$1" "$3")" -v b="$(measure "$2" "$3")" 'BEGIN { printf "%.2f", a / b }'; }
    line="| $name | $objects | $(du -h "$pack" | cut -f1) | $(row git) | $(row gitwire) | $(ratio gitwire git wall), $(ratio gitwire git cpu), $(ratio gitwire git mem) | $load_before, $load_after |"
    if [ -n "$baseline" ]; then
        line+=" baseline: $(row baseline), $(ratio baseline git wall), $(ratio baseline git cpu), $(ratio baseline git mem)"
    fi
    echo "$line" | tee -a "$table"
done
