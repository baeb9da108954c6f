#!/usr/bin/env bash
# Start-up of gitwire against git, side by side in one run: `--version` and `hash-object --stdin`
# on empty input (a command that does almost nothing but start), each the median of many
# alternating runs, in milliseconds, with the difference and the ratio.
#
# gitwire is the README's build: `swift build -c release --static-swift-stdlib`.
# Usage: Tools/bench-startup.sh [runs=300]
set -euo pipefail
runs=${1:-300}
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/Tools/setup.sh"
(cd "$root" && swift build -c release --static-swift-stdlib --product gitwire >&2)
gitwire="$root/.build/release/gitwire"
work=$(mktemp -d /tmp/gitwire-startup.XXXXXX)
trap 'rm -rf "$work"' EXIT

# Microseconds one run of "$@" takes (standard input empty, output discarded).
micros() {
    local start
    start=$(date +%s%N)
    "$@" </dev/null >/dev/null
    echo $((($(date +%s%N) - start) / 1000))
}

median() { sort -n | awk '{ value[NR] = $1 } END { print value[int((NR + 1) / 2)] }'; }

echo "$(git --version); gitwire $("$gitwire" --version | cut -d' ' -f3); $runs alternating runs each"
echo "(each time includes the shell's fork and exec, the same for both)"
printf '%-24s %10s %12s %10s %7s\n' command "git (ms)" "gitwire (ms)" "diff (ms)" ratio
for command in "--version" "hash-object --stdin"; do
    : >"$work/git"
    : >"$work/gitwire"
    for _ in $(seq "$runs"); do
        # shellcheck disable=SC2086
        micros git $command >>"$work/git"
        # shellcheck disable=SC2086
        micros "$gitwire" $command >>"$work/gitwire"
    done
    git_us=$(median <"$work/git")
    gitwire_us=$(median <"$work/gitwire")
    awk -v c="$command" -v g="$git_us" -v w="$gitwire_us" \
        'BEGIN { printf "%-24s %10.2f %12.2f %10.2f %7.2f\n", c, g / 1000, w / 1000, (w - g) / 1000, w / g }'
done
