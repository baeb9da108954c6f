#!/usr/bin/env bash
# Benchmarks gitwire against git over smart HTTP with hyperfine: `ls-remote` (v0 and v2) on a
# repository with many refs, and `clone --bare` of a repository with some history, both served by
# the real `git http-backend` behind Tools/git-http-server.py on 127.0.0.1 (started and stopped
# here). Outputs must be identical (the script stops if not). Writes hyperfine's JSON and a table
# of medians and ratios gitwire/git to .build/bench/http/.
#
# Usage: Tools/bench-http.sh [refs=6000] [runs=15] [commits=3000]
set -euo pipefail
source "$(dirname "$0")/lib.sh"
refs=${1:-6000}
runs=${2:-15}
commits=${3:-3000}
setup_machine
build_gitwire
bench_out http
start_work bench-http

mkdir -p "$work/served"
make_many_refs "$work/served/many.git" "$refs"
git init -q --bare "$work/served/history.git"
{
    for i in $(seq 1 "$commits"); do
        content="version $i $(printf '%0200d' "$i")"
        printf 'blob\nmark :%d\ndata %d\n%s\n' "$i" "${#content}" "$content"
        printf 'commit refs/heads/main\nmark :%d\ncommitter B <b@example.com> %d +0000\ndata 2\nc\n' $((i + 100000)) $((1700000000 + i))
        [ "$i" -gt 1 ] && printf 'from :%d\n' $((i + 99999))
        printf 'M 100644 :%d file-%d\n\n' "$i" $((i % 97))
    done
} | git -C "$work/served/history.git" fast-import --quiet
git -C "$work/served/history.git" repack -adq

start_http_server "$work/served" 3500
base="http://127.0.0.1:$http_port/git"

commands=()
for version in 0 2; do
    url="$base/many.git"
    cmp <(git -c protocol.version=$version ls-remote "$url") <("$gitwire" ls-remote --protocol-version=$version "$url") ||
        { echo "ls-remote outputs differ for v$version" >&2; exit 1; }
    commands+=(-n "git ls-remote v$version" "git -c protocol.version=$version ls-remote $url")
    commands+=(-n "gitwire ls-remote v$version" "$gitwire ls-remote --protocol-version=$version $url")
done
for version in 0 2; do
    url="$base/history.git"
    commands+=(--prepare "rm -rf $work/g.git" -n "git clone --bare v$version"
        "git -c protocol.version=$version clone -q --bare $url $work/g.git")
    commands+=(--prepare "rm -rf $work/w.git" -n "gitwire clone --bare v$version"
        "$gitwire clone -q --bare --protocol-version=$version $url $work/w.git")
done
# hyperfine takes either one --prepare for all commands or one per command.
prepares=()
for _ in 1 2 3 4; do prepares+=(--prepare true); done
hyperfine_run "$out/http.json" -N --warmup 2 --runs "$runs" "${prepares[@]}" "${commands[@]}"
diff <(git -C "$work/g.git" for-each-ref) <(git -C "$work/w.git" for-each-ref) ||
    { echo "the clones' refs differ" >&2; exit 1; }
{
    echo "smart HTTP (git http-backend behind Tools/git-http-server.py on 127.0.0.1): many.git" \
        "$(git -C "$work/served/many.git" for-each-ref | wc -l) refs; history.git $commits commits," \
        "$(du -sk "$work/served/history.git/objects/pack" | cut -f1) KiB packed; $runs runs after 2 warm-ups; $(machine_line)"
    bench_table "$out/http.json"
} | tee "$out/http.txt"
