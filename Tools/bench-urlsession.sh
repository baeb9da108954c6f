#!/usr/bin/env bash
# Why gitwire drives libcurl from its own run loop rather than using FoundationNetworking's
# URLSession: the same <count> smart-HTTP discovery requests (GET info/refs?service=
# git-upload-pack, protocol v0) against Tools/git-http-server.py, all started at once,
#   - by a throwaway Swift program using one URLSession (Tools/urlsession-bench, built into
#     .build-bench/, not part of the gitwire package),
#   - by `gitwire ls-remote --batch --protocol-version=0` (one GET per remote, nothing else),
# both with 6 connections per host (URLSession's default on Linux and gitwire's). Reported per
# run: wall and CPU seconds and peak RSS (/usr/bin/time -v), and the most threads the process
# had (sampled from /proc every few milliseconds).
#
# Usage: Tools/bench-urlsession.sh [count=200] [runs=3]
set -euo pipefail
count=${1:-200}
runs=${2:-3}
source "$(dirname "$0")/lib.sh"
setup_machine
build_gitwire
(cd "$root" && swift build -c release --package-path Tools/urlsession-bench --scratch-path .build-bench >&2)
urlsession="$root/.build-bench/release/urlsession-bench"
source "$root/Tools/batch-repos.sh"
bench_out urlsession
start_work bench-urlsession
make_batch_repos "$count"

start_http_server "$work" 3600
for i in $(seq 0 $((count - 1))); do echo "http://127.0.0.1:$http_port/git/r$i.git"; done >"$work/urls"

# Runs the command after $1 (a label) under /usr/bin/time -v while sampling its thread count;
# prints: label wall cpu rss-MiB threads.
measure() {
    local label=$1
    shift
    /usr/bin/time -v -o "$work/time" "$@" >"$work/out" 2>/dev/null &
    local timer=$! pid="" threads=0 n
    while kill -0 "$timer" 2>/dev/null; do
        [ -n "$pid" ] || pid=$(awk '{ print $1 }' "/proc/$timer/task/$timer/children" 2>/dev/null || true)
        if [ -n "$pid" ]; then
            n=$({ ls "/proc/$pid/task" 2>/dev/null || true; } | wc -l)
            [ "$n" -gt "$threads" ] && threads=$n
        fi
        sleep 0.002
    done
    wait "$timer"
    awk -v l="$label" -v t="$threads" -F': ' '
        /Elapsed \(wall clock\)/ { n = split($2, p, ":"); wall = p[n] + (n > 1 ? p[n - 1] * 60 : 0) }
        /User time/ { cpu += $2 } /System time/ { cpu += $2 } /Maximum resident/ { rss = $2 / 1024 }
        END { printf "%s %.3f %.3f %.1f %d\n", l, wall, cpu, rss, t }' "$work/time" >>"$work/results"
}

"$urlsession" "$work/urls" 6 | grep -q "failures 0 " || { echo "URLSession requests failed" >&2; exit 1; }
for _ in $(seq "$runs"); do
    measure urlsession "$urlsession" "$work/urls" 6
    measure gitwire-v0 "$gitwire" ls-remote --protocol-version=0 --batch "$work/urls"
    measure gitwire-v2 "$gitwire" ls-remote --batch "$work/urls"
done
{
echo "$count discovery requests to one local git http-backend server, $runs alternating runs (medians), load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-58s %9s %9s %10s %8s\n' client "wall (s)" "CPU (s)" "RSS (MiB)" threads
for label in urlsession gitwire-v0 gitwire-v2; do
    case $label in
    urlsession) title="URLSession, one dataTask per URL, 6 per host" ;;
    gitwire-v0) title="gitwire ls-remote --batch --protocol-version=0 (GET only)" ;;
    gitwire-v2) title="gitwire ls-remote --batch (v2: GET, then POST ls-refs)" ;;
    esac
    for column in 2 3 4 5; do
        awk -v l="$label" -v c="$column" '$1 == l { print $c }' "$work/results" |
            median
    done | paste -sd' ' | awk -v t="$title" '{ printf "%-58s %9.3f %9.3f %10.1f %8d\n", t, $1, $2, $3, $4 }'
done
} | tee "$out/urlsession.txt"
