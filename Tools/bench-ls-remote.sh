#!/usr/bin/env bash
# Benchmarks `gitwire ls-remote` against `git ls-remote` over git:// (a `git daemon` on 127.0.0.1
# that this script starts and stops), protocol v0 and v2, with hyperfine: each repository size
# given (a bare repository of about <refs> refs: branches, lightweight and annotated tags), all
# commands in one hyperfine run per size. Both clients' outputs must be identical; the script
# stops if they are not. Writes hyperfine's JSON and a table of medians and ratios gitwire/git to
# .build/bench/ls-remote/.
#
# For protocol v0 it also times Tools/ls-remote-floor.c, a C client that only reads the
# advertisement: process start-up plus the server, the least any client can take.
#
# Usage: Tools/bench-ls-remote.sh [refs=10,6000 (comma-separated)] [runs=40] [warmup=3]
# GITWIRE=<binary> measures another build; BASELINE=<another gitwire binary> (an earlier build,
# say) runs in the same hyperfine run as "baseline ls-remote …".
set -euo pipefail
source "$(dirname "$0")/lib.sh"
sizes=${1:-10,6000}
runs=${2:-40}
warmup=${3:-3}
setup_machine
build_gitwire
bench_out ls-remote
start_work bench-ls-remote
# The floor: a C client that only reads the v0 advertisement (no parsing, no output).
cc -O2 -o "$work/ls-remote-floor" "$root/Tools/ls-remote-floor.c"

for refs in ${sizes//,/ }; do
    make_many_refs "$work/r$refs.git" "$refs"
done
start_daemon "r${sizes%%,*}.git" 1800

: >"$out/ls-remote.txt"
for refs in ${sizes//,/ }; do
    url="git://127.0.0.1:$port/r$refs.git"
    count=$(git -C "$work/r$refs.git" for-each-ref | wc -l)
    commands=()
    for version in 0 2; do
        cmp <(git -c protocol.version=$version ls-remote "$url") <("$gitwire" ls-remote --protocol-version=$version "$url") ||
            { echo "outputs differ for v$version" >&2; exit 1; }
        what="ls-remote $((count + 1)) refs v$version"
        commands+=(-n "git $what" "git -c protocol.version=$version ls-remote $url")
        commands+=(-n "gitwire $what" "$gitwire ls-remote --protocol-version=$version $url")
        if [ -n "${BASELINE:-}" ]; then
            commands+=(-n "baseline $what" "$BASELINE ls-remote --protocol-version=$version $url")
        fi
        if [ "$version" = 0 ]; then
            commands+=(-n "floor $what" "$work/ls-remote-floor $port /r$refs.git")
        fi
    done
    hyperfine_run "$out/ls-remote-$refs.json" -N --warmup "$warmup" --runs "$runs" "${commands[@]}"
    {
        echo "ls-remote over git:// (git daemon on 127.0.0.1), $((count + 1)) refs with HEAD, $runs runs after" \
            "$warmup warm-ups (hyperfine -N); $(machine_line)"
        echo "(floor: Tools/ls-remote-floor.c, a C client that only reads the v0 advertisement)"
        bench_table "$out/ls-remote-$refs.json"
        echo
    } | tee -a "$out/ls-remote.txt"
done
