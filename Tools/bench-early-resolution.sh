#!/usr/bin/env bash
# What resolving deltas while the pack arrives (EarlyDeltaResolver, gitwire issue #24) costs in
# memory and CPU on `index-pack --stdin`, the path a clone's pack takes: in each round
# `git index-pack --stdin`, then `gitwire index-pack --stdin` with GITWIRE_RESOLVE_WHILE_RECEIVING=0
# (off) and =1 (on), all with the same threads, one after the other so that a changing load meets
# all three alike. Per run the wall time, CPU time (user + system), peak RSS (GNU time's %M) and
# the load average before; then the medians. Every .idx must equal git's. With it on, gitwire says
# how many deltas were resolved before the input ended (GITWIRE_REPORT_EARLY_RESOLUTION=1).
#
# Usage: Tools/bench-early-resolution.sh [pack=/tmp/idxpacks/git-clone.pack ...] [-- threads=2 rounds=3]
# e.g. Tools/bench-early-resolution.sh /tmp/idxpacks/git-clone.pack /tmp/idxpacks/swift-nio-clone.pack -- 2 3
# The packs come from Tools/make-index-pack-corpus.sh. gitwire is the README's build (Tools/lib.sh;
# GITWIRE=<path> measures that binary). For whole clones with and without, see
# Tools/bench-clone-interleaved.sh with BASELINE=Tools/gitwire-early-off.sh.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
packs=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do
    packs+=("$1")
    shift
done
[ $# -gt 0 ] && shift
threads=${1:-2}
rounds=${2:-3}
[ ${#packs[@]} -gt 0 ] || packs=(/tmp/idxpacks/git-clone.pack)
build_gitwire
start_work bench-early-resolution
git init -q --bare "$work/repo.git"
echo "gitwire: $gitwire; --threads=$threads; $rounds rounds; $(machine_line)"
printf '%-24s %-5s %5s %8s %8s %9s  %s\n' pack tool round "wall s" "CPU s" "peak MiB" "load before"
for pack in "${packs[@]}"; do
    name=$(basename "$pack" .pack)
    : >"$work/runs"
    for round in $(seq "$rounds"); do
        for tool in git off on; do
            rm -f "$work"/out.*
            case $tool in
                git) command=(git --git-dir="$work/repo.git" index-pack --threads="$threads" --stdin "$work/out.pack") ;;
                off) command=(env GITWIRE_RESOLVE_WHILE_RECEIVING=0 "$gitwire" index-pack --threads="$threads" --stdin "$work/out.pack") ;;
                on) command=(env GITWIRE_RESOLVE_WHILE_RECEIVING=1 GITWIRE_REPORT_EARLY_RESOLUTION=1 "$gitwire" index-pack --threads="$threads" --stdin "$work/out.pack") ;;
            esac
            load=$(cut -d' ' -f1 /proc/loadavg)
            /usr/bin/time -f '%e %U %S %M' -o "$work/time" "${command[@]}" <"$pack" >/dev/null 2>"$work/stderr"
            read -r wall user sys peak <"$work/time"
            if [ $tool = git ]; then cp "$work/out.idx" "$work/git.idx"; else
                cmp -s "$work/git.idx" "$work/out.idx" || { echo "$tool: .idx differs from git's on $pack" >&2; exit 1; }
            fi
            cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')
            mib=$(awk -v k="$peak" 'BEGIN { printf "%.1f", k / 1024 }')
            printf '%-24s %-5s %5d %8.2f %8.2f %9s  %s\n' "$name" $tool "$round" "$wall" "$cpu" "$mib" "$load"
            grep '^early resolution' "$work/stderr" | sed 's/^/    /' || true
            echo "$tool $wall $cpu $mib" >>"$work/runs"
        done
    done
    for tool in git off on; do
        m() { awk -v t=$tool -v f="$1" '$1 == t { print $f }' "$work/runs" | median; }
        printf 'median %-24s %-4s wall %.2f s, CPU %.2f s, peak %.1f MiB\n' "$name" $tool "$(m 2)" "$(m 3)" "$(m 4)"
    done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
