#!/usr/bin/env bash
# `git clone --bare` and `gitwire clone --bare` over git:// (a local `git daemon` on 127.0.0.1,
# protocol v2), one after the other in each round, so that a machine whose load changes treats
# both alike: per run, the wall time, the CPU time (user + system, of the command and its
# children: git's index-pack included, the server's processes in neither), the peak RSS of the
# largest process (GNU time) and the load average before the run. Then the medians. A loaded
# machine gives CPU times to compare and wall times only for the run beside them.
#
# Usage: Tools/bench-clone-interleaved.sh [repository=/work/.mirror/git+git/repo] [rounds=3]
# The repository is only read: it is copied with `git clone --bare --no-local`, and the copy is
# served. gitwire is the README's build (Tools/lib.sh; GITWIRE=<path> measures that binary).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source_repository=${1:-/work/.mirror/git+git/repo}
rounds=${2:-3}
[ -d "$source_repository" ] || { echo "usage: $0 [repository] [rounds]: no repository at $source_repository" >&2; exit 2; }
build_gitwire
start_work bench-clone-interleaved
git clone -q --bare --no-local "$source_repository" "$work/repo.git"
start_daemon repo.git $((600 + rounds * 600))
url="git://127.0.0.1:$port/repo.git"
echo "repository: $source_repository; gitwire: $gitwire; $rounds rounds; $(machine_line)"
printf '%-8s %5s %9s %9s %9s %9s  %s\n' tool round "wall s" "user s" "sys s" "peak MiB" "load before (1, 5, 15 min)"
: >"$work/runs"
for round in $(seq "$rounds"); do
    for tool in git gitwire; do
        rm -rf "$work/clone.git"
        load=$(cut -d' ' -f1-3 /proc/loadavg)
        if [ "$tool" = git ]; then command=(git clone -q --bare "$url" "$work/clone.git")
        else command=("$gitwire" clone -q --bare "$url" "$work/clone.git"); fi
        /usr/bin/time -f '%e %U %S %M' -o "$work/time" "${command[@]}"
        read -r wall user sys peak <"$work/time"
        printf '%-8s %5d %9.2f %9.2f %9.2f %9.1f  %s\n' "$tool" "$round" "$wall" "$user" "$sys" "$(awk -v k="$peak" 'BEGIN { print k / 1024 }')" "$load"
        echo "$tool $wall $(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }') $peak" >>"$work/runs"
    done
done
for tool in git gitwire; do
    wall=$(awk -v t="$tool" '$1 == t { print $2 }' "$work/runs" | median)
    cpu=$(awk -v t="$tool" '$1 == t { print $3 }' "$work/runs" | median)
    peak=$(awk -v t="$tool" '$1 == t { print $4 }' "$work/runs" | median)
    printf 'median %-8s wall %.2f s, CPU %.2f s, peak %.1f MiB\n' "$tool" "$wall" "$cpu" "$(awk -v k="$peak" 'BEGIN { print k / 1024 }')"
    echo "$tool $wall $cpu $peak" >>"$work/medians"
done
awk '{ w[$1] = $2; c[$1] = $3; m[$1] = $4 }
    END { printf "ratio gitwire/git: wall %.2f, CPU %.2f, peak memory %.2f\n", w["gitwire"] / w["git"], c["gitwire"] / c["git"], m["gitwire"] / m["git"] }' "$work/medians"
