#!/usr/bin/env bash
# The client's side of a whole-history push, alone: `pack-objects --revs --stdout
# --delta-base-offset` of a repository's default branch to a file, by git and by gitwire (and by
# earlier gitwire builds), interleaved run by run, each run under /usr/bin/time. Prints per
# command the medians of wall time, CPU time (user + system, and system alone) and peak RSS, every run's CPU time,
# and the pack's size against git's; checks that every gitwire build writes the same pack byte for
# byte, and that git index-pack --strict accepts it. CPU time and peak memory are what to compare
# on a loaded machine (wall time moves with the load); the load average is printed.
#
# gitwire is the README's build (Tools/lib.sh; GITWIRE=<binary> measures that binary instead).
#
# Usage: Tools/bench-pack-objects.sh [repository=/work/.mirror/curl+curl/repo] [runs=5]
#        BASELINE="<binary> [<binary>...]" adds earlier builds ("baseline1", ...).
set -euo pipefail
source "$(dirname "$0")/lib.sh"

repository=${1:-/work/.mirror/curl+curl/repo}
runs=${2:-5}
[ -d "$repository" ] || { echo "usage: $0 [repository] [runs]: no repository at $repository" >&2; exit 2; }
build_gitwire
start_work bench-pack-objects
branch=$(git -C "$repository" symbolic-ref --short HEAD)

names=(git gitwire)
binaries=(git "$gitwire")
number=0
for baseline in ${BASELINE:-}; do
    number=$((number + 1))
    names+=("baseline$number")
    binaries+=("$baseline")
done
echo "repository: $repository ($branch); $runs runs; $(machine_line)" >&2
: >"$work/runs.tsv"
for ((run = 0; run < runs; run++)); do
    for i in "${!names[@]}"; do
        if [ "${names[$i]}" = git ]; then
            command=(git -C "$repository" pack-objects --revs --stdout -q --delta-base-offset)
        else
            command=(env GIT_DIR="$repository" "${binaries[$i]}" pack-objects --revs --stdout -q --delta-base-offset)
        fi
        echo "$branch" | /usr/bin/time -f "%e %U %S %M" -o "$work/time" "${command[@]}" >"$work/${names[$i]}.pack"
        echo "${names[$i]} $(cat "$work/time")" >>"$work/runs.tsv"
    done
done
for name in "${names[@]}"; do
    if [ "$name" != git ] && ! cmp -s "$work/gitwire.pack" "$work/$name.pack"; then
        echo "note: $name's pack differs from gitwire's" >&2
    fi
done
(cd "$work" && git init -q --bare check.git && git -C check.git index-pack --strict --stdin <gitwire.pack >/dev/null)
python3 - "$work" "${names[@]}" <<'PY'
import os, statistics, sys
work, names = sys.argv[1], sys.argv[2:]
runs = {}
for line in open(os.path.join(work, "runs.tsv")):
    name, wall, user, system, rss = line.split()
    runs.setdefault(name, []).append((float(wall), float(user) + float(system), int(rss), float(system)))
git_size = os.path.getsize(os.path.join(work, "git.pack"))
print("| command | wall (median) | CPU user+sys (median; every run) | of it system | peak RSS | pack bytes (of git's) |")
print("| --- | --- | --- | --- | --- | --- |")
for name in names:
    values = runs[name]
    size = os.path.getsize(os.path.join(work, name + ".pack"))
    print("| %s | %.2f s | %.2f s (%s) | %.2f s | %.0f MiB | %d (%.3f) |" % (
        name, statistics.median(v[0] for v in values), statistics.median(v[1] for v in values),
        " ".join("%.2f" % v[1] for v in values), statistics.median(v[3] for v in values),
        statistics.median(v[2] for v in values) / 1024,
        size, size / git_size))
PY
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
