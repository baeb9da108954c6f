#!/usr/bin/env bash
# Start-up of gitwire against git in one hyperfine run (no shell, -N): `--version`, and
# `hash-object --stdin` on empty input (a command that does almost nothing but start).
# Writes hyperfine's JSON and a table of medians and ratios gitwire/git to .build/bench/startup/.
#
# gitwire is the README's build (Tools/lib.sh: build_gitwire); GITWIRE=<binary> measures another.
# BASELINE=<another gitwire binary> (an earlier build, say) runs in the same hyperfine run as
# "baseline <command>", for before/after comparisons.
# Usage: Tools/bench-startup.sh [runs=500] [warmup=50]
set -euo pipefail
source "$(dirname "$0")/lib.sh"
runs=${1:-500}
warmup=${2:-50}
setup_machine
build_gitwire
bench_out startup

commands=()
for command in "--version" "hash-object --stdin"; do
    commands+=(-n "git $command" "git $command" -n "gitwire $command" "$gitwire $command")
    if [ -n "${BASELINE:-}" ]; then commands+=(-n "baseline $command" "$BASELINE $command"); fi
done
hyperfine_run "$out/startup.json" -N --warmup "$warmup" --runs "$runs" "${commands[@]}"
{
    echo "start-up, $runs runs after $warmup warm-ups (hyperfine -N); $(machine_line)"
    echo "gitwire: $gitwire ($(ldd "$gitwire" 2>/dev/null | awk '$1 !~ /vdso/ { print $1 }' | paste -sd' '))"
    modules=$(linked_modules "$gitwire")
    [ -z "$modules" ] || echo "warning: linked in, each relocated at every start: $modules"
    bench_table "$out/startup.json"
} | tee "$out/startup.txt"
