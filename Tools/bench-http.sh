#!/usr/bin/env bash
# Benchmarks gitwire against git over smart HTTP, side by side in one run: `ls-remote` (v0 and v2)
# on a repository with many refs, and `clone --bare` of a repository with some history, both
# served by the real `git http-backend` behind Tools/git-http-server.py on loopback. The commands
# run alternately and the medians are compared; outputs must be identical (the script stops if
# not). gitwire is the README's build (`swift build -c release --static-swift-stdlib`).
#
# Usage: Tools/bench-http.sh [refs=6000] [runs=15] [commits=3000]
set -euo pipefail
refs=${1:-6000}
runs=${2:-15}
commits=${3:-3000}
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/Tools/setup.sh"
(cd "$root" && swift build -c release --static-swift-stdlib --product gitwire >&2)
gitwire="$root/.build/release/gitwire"
source "$root/Tools/daemon.sh"
start_work bench-http
server=""
trap '[ -n "$server" ] && kill "$server" 2>/dev/null; cleanup_work' EXIT
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null

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

timeout 3600 python3 "$root/Tools/git-http-server.py" --root "$work/served" --lifetime 3500 \
    --port-file "$work/port" 2>/dev/null &
server=$!
for _ in $(seq 200); do [ -f "$work/port" ] && break; sleep 0.05; done
base="http://127.0.0.1:$(cat "$work/port")/git"
echo "many.git: $(git -C "$work/served/many.git" for-each-ref | wc -l) refs;" \
    "history.git: $commits commits, $(du -sk "$work/served/history.git/objects/pack" | cut -f1) KiB packed; $runs runs each"

micros() {
    local start
    start=$(date +%s%N)
    "$@" >/dev/null 2>&1
    echo $((($(date +%s%N) - start) / 1000))
}
median() { sort -n | awk '{ value[NR] = $1 } END { print value[int((NR + 1) / 2)] }'; }
report() {
    local name=$1 g=$2 w=$3
    printf '%-28s %10.1f %12.1f %8.2f\n' "$name" "$(echo "$g / 1000" | bc -l)" "$(echo "$w / 1000" | bc -l)" \
        "$(echo "$w / $g" | bc -l)"
}

printf '%-28s %10s %12s %8s\n' benchmark "git (ms)" "gitwire (ms)" ratio
for version in 0 2; do
    url="$base/many.git"
    diff <(git -c protocol.version=$version ls-remote "$url") <("$gitwire" ls-remote --protocol-version=$version "$url")
    : >"$work/g"
    : >"$work/w"
    for _ in $(seq "$runs"); do
        micros git -c protocol.version=$version ls-remote "$url" >>"$work/g"
        micros "$gitwire" ls-remote --protocol-version=$version "$url" >>"$work/w"
    done
    report "ls-remote v$version" "$(median <"$work/g")" "$(median <"$work/w")"
done
for version in 0 2; do
    url="$base/history.git"
    : >"$work/g"
    : >"$work/w"
    for _ in $(seq "$runs"); do
        rm -rf "$work/g.git" "$work/w.git"
        micros git -c protocol.version=$version clone -q --bare "$url" "$work/g.git" >>"$work/g"
        micros "$gitwire" clone -q --bare --protocol-version=$version "$url" "$work/w.git" >>"$work/w"
    done
    diff <(git -C "$work/g.git" for-each-ref) <(git -C "$work/w.git" for-each-ref)
    report "clone --bare v$version" "$(median <"$work/g")" "$(median <"$work/w")"
done
