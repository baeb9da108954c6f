#!/usr/bin/env bash
# Benchmarks `gitwire ls-remote` against `git ls-remote` over git:// on a repository with many
# refs, protocol v0 and v2, side by side in one run: mean wall time per call and the ratio.
# Both outputs must be identical; the script stops if they are not.
#
# gitwire is built in release mode with the Swift runtime linked statically (as a command-line
# tool is shipped; it saves the dynamic loader several milliseconds a start). The two commands
# run alternately and the medians are compared, so drift in the machine's load hits both alike.
#
# For protocol v0 it also times Tools/ls-remote-floor.c, a C client that only reads the
# advertisement: process start-up plus the server, the least any client can take.
#
# Usage: Tools/bench-ls-remote.sh [refs=6000] [runs=40]
# With BASELINE=<another gitwire binary> (an earlier build, say), that binary runs in the same
# alternation and gets a column of its own, for before/after comparisons.
set -euo pipefail
refs=${1:-6000}
runs=${2:-40}
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/Tools/setup.sh"
(cd "$root" && swift build -c release --static-swift-stdlib --product gitwire >&2)
gitwire="$root/.build/release/gitwire"

source "$root/Tools/daemon.sh"
start_work bench
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null

make_many_refs "$work/many.git" "$refs"

start_daemon many.git 900
url="git://127.0.0.1:$port/many.git"
# The floor: a C client that only reads the v0 advertisement (no parsing, no output).
cc -O2 -o "$work/ls-remote-floor" "$root/Tools/ls-remote-floor.c"
echo "repository: $(git -C "$work/many.git" for-each-ref | wc -l) refs; $runs runs per command"

# Microseconds one run of "$@" takes.
micros() {
    local start
    start=$(date +%s%N)
    "$@" >/dev/null
    echo $((($(date +%s%N) - start) / 1000))
}

median() { sort -n | awk '{ value[NR] = $1 } END { print value[int((NR + 1) / 2)] }'; }

baseline=${BASELINE:-}
if [ -n "$baseline" ]; then
    printf '%-8s %12s %12s %8s %14s %8s\n' protocol "git (ms)" "gitwire (ms)" ratio "baseline (ms)" ratio
else
    printf '%-8s %12s %12s %8s\n' protocol "git (ms)" "gitwire (ms)" ratio
fi
for version in 0 2; do
    cmp <(git -c protocol.version=$version ls-remote "$url") <("$gitwire" ls-remote --protocol-version=$version "$url") ||
        { echo "outputs differ for v$version" >&2; exit 1; }
    : >"$work/git.times"
    : >"$work/gitwire.times"
    : >"$work/baseline.times"
    : >"$work/floor.times"
    for _ in $(seq "$runs"); do
        micros git -c protocol.version=$version ls-remote "$url" >>"$work/git.times"
        micros "$gitwire" ls-remote --protocol-version=$version "$url" >>"$work/gitwire.times"
        [ "$version" != 0 ] || micros "$work/ls-remote-floor" "$port" /many.git >>"$work/floor.times"
        [ -z "$baseline" ] || micros "$baseline" ls-remote --protocol-version=$version "$url" >>"$work/baseline.times"
    done
    git_us=$(median <"$work/git.times")
    gitwire_us=$(median <"$work/gitwire.times")
    if [ -n "$baseline" ]; then
        baseline_us=$(median <"$work/baseline.times")
        awk -v v="v$version" -v g="$git_us" -v w="$gitwire_us" -v b="$baseline_us" \
            'BEGIN { printf "%-8s %12.1f %12.1f %8.2f %14.1f %8.2f\n", v, g / 1000, w / 1000, w / g, b / 1000, b / g }'
    else
        awk -v v="v$version" -v g="$git_us" -v w="$gitwire_us" \
            'BEGIN { printf "%-8s %12.1f %12.1f %8.2f\n", v, g / 1000, w / 1000, w / g }'
    fi
    if [ "$version" = 0 ]; then
        awk -v g="$git_us" -v f="$(median <"$work/floor.times")" \
            'BEGIN { printf "%-8s %12s %12.1f %8.2f   (a C client that only reads the advertisement)\n", "v0 floor", "", f / 1000, f / g }'
    fi
done
