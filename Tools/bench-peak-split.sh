#!/usr/bin/env bash
# What the peak memory of `git` and `gitwire` is made of, side by side (Tools/peak-rss-split.py:
# anonymous pages, file-backed pages and the executable's own share at the largest sample), in
# interleaved runs (git, gitwire, baseline, git, ...), medians in MiB, with the load average.
#
# The executable's resident part depends on how its file came into the page cache (a fault maps
# the whole large folio around the page on this kernel; see Documentation/Performance.md, "Peak
# memory on small packs"), so every gitwire binary's pages are first written back and dropped
# from the page cache (fsync + POSIX_FADV_DONTNEED): each is then read back the same way, as after
# a reboot, whether it was just linked, copied or long installed.
#
# Usage: Tools/bench-peak-split.sh [runs=5] [pack=/tmp/idxpacks/swift-nio-clone.pack] [threads=2]
# Measures `index-pack --threads=<threads> <pack>`, `--version` and `ls-remote` of a local bare
# repository made here. BASELINE=<another gitwire binary> adds its rows (before/after).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
runs=${1:-5}
pack=$(realpath "${2:-/tmp/idxpacks/swift-nio-clone.pack}")
threads=${3:-2}
build_gitwire
start_work bench-peak-split
baseline=${BASELINE:-}
binaries=("$gitwire")
[ -z "$baseline" ] || binaries+=("$(realpath "$baseline")")
python3 - "${binaries[@]}" <<'EOF'
import os, sys
for path in sys.argv[1:]:
    descriptor = os.open(path, os.O_RDONLY)
    os.fsync(descriptor)
    os.posix_fadvise(descriptor, 0, 0, os.POSIX_FADV_DONTNEED)
    os.close(descriptor)
EOF
git init -q --bare "$work/repo.git"
git -C "$work/repo.git" fast-import --quiet <<'EOF'
commit refs/heads/main
committer A <a@example.com> 0 +0000
data 2
c
EOF

# run <label> <command...>: appends "<label> hwm anon file executable" (KiB) to $work/runs
run() {
    local label=$1
    shift
    echo "$label $(python3 "$root/Tools/peak-rss-split.py" "$@")" >>"$work/runs"
}
# run_short <label> <command...>: the same for a run too short to sample: its peak only
# (/usr/bin/time; rusage seen from Python would carry the forking interpreter's own peak).
run_short() {
    local label=$1
    shift
    /usr/bin/time -f %M -o "$work/time" "$@" >/dev/null 2>&1
    echo "$label $(tail -1 "$work/time") 0 0 0" >>"$work/runs"
}
load_before=$(cut -d' ' -f1 /proc/loadavg)
for _ in $(seq "$runs"); do
    for tool in git gitwire baseline; do
        case $tool in
        git) command=(git) ;;
        gitwire) command=("$gitwire") ;;
        baseline)
            [ -n "$baseline" ] || continue
            command=("$baseline")
            ;;
        esac
        rm -f "$work/x.idx"
        run "$tool/index-pack" "${command[@]}" index-pack --threads="$threads" -o "$work/x.idx" "$pack"
        run_short "$tool/--version" "${command[@]}" --version
        run_short "$tool/ls-remote" "${command[@]}" ls-remote "$work/repo.git"
    done
done
load_after=$(cut -d' ' -f1 /proc/loadavg)
echo "$(basename "$pack"), --threads=$threads, $runs interleaved runs, medians in MiB; load $load_before, $load_after"
echo
echo "| run | peak | anonymous | file-backed | executable |  (0: a run too short to sample)"
echo "| --- | --- | --- | --- | --- |"
for label in $(cut -d' ' -f1 "$work/runs" | awk '!seen[$0]++'); do
    column() { awk -v l="$label" -v c="$1" '$1 == l { print $c / 1024 }' "$work/runs" | median; }
    printf '| %s | %.1f | %.1f | %.1f | %.1f |\n' "$label" "$(column 2)" "$(column 3)" "$(column 4)" "$(column 5)"
done
