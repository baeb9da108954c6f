#!/usr/bin/env bash
# Where gitwire's start-up goes, build option by build option: builds gitwire once per step
# (each step adds one option to the one before), then times `--version` of every step and of git
# in one hyperfine run (-N), and prints each step's median, its ratio to git's, its page faults
# and what it loads. Takes several minutes (one link and a recompile of the gitwire module per
# step). Leaves the README's build (Tools/lib.sh) in .build/release at the end.
#
#   0  swift build -c release --static-swift-stdlib        (the README's build until issue 21)
#   1  + -Xlinker --no-export-dynamic                      (the toolchain exports every symbol)
#   2  + --disable-local-rpath                             (no $ORIGIN run path to search)
#   3  + libstdc++ and libgcc linked in                    (static archives, -static-libgcc)
#   4  + zlib and libdeflate linked in                     (= the README's build)
#   5  + -no-pie                                           (GITWIRE_PIE=0: no relocations at start)
#   6  -static-executable                                  (with STATIC_EXECUTABLE=1 only: libc
#                                                           too, for comparison; glibc warns that
#                                                           dlopen, used for libcurl, then needs
#                                                           the same glibc at run time; recompiles
#                                                           every module, twice)
#
# Results: .build/bench/startup-steps/. Usage: Tools/bench-startup-steps.sh [runs=500] [warmup=50]
set -euo pipefail
source "$(dirname "$0")/lib.sh"
runs=${1:-500}
warmup=${2:-50}
setup_machine
bench_out startup-steps
cxx="$root/.build/static-libs-cxx"
all="$root/.build/static-libs-all"
static_archives "$cxx" libstdc++.a
static_archives "$all" libstdc++.a libz.a libdeflate.a

base=(-c release --static-swift-stdlib)
step_flags() {
    case $1 in
    0) flags=("${base[@]}") ;;
    1) flags=("${base[@]}" -Xlinker --no-export-dynamic) ;;
    2) flags=("${base[@]}" --disable-local-rpath -Xlinker --no-export-dynamic) ;;
    3) flags=("${base[@]}" --disable-local-rpath -Xlinker --no-export-dynamic
        -Xswiftc "-L$cxx" -Xswiftc -Xclang-linker -Xswiftc -static-libgcc) ;;
    4) flags=("${base[@]}" --disable-local-rpath -Xlinker --no-export-dynamic
        -Xswiftc "-L$all" -Xswiftc -Xclang-linker -Xswiftc -static-libgcc) ;;
    5) flags=("${base[@]}" --disable-local-rpath -Xlinker --no-export-dynamic
        -Xswiftc "-L$all" -Xswiftc -Xclang-linker -Xswiftc -static-libgcc
        -Xswiftc -Xclang-linker -Xswiftc -no-pie) ;;
    6) flags=("${base[@]}" -Xswiftc -static-executable -Xlinker --no-export-dynamic) ;;
    esac
}
titles=("--static-swift-stdlib (old README build)" "+ --no-export-dynamic" "+ no \$ORIGIN run path"
    "+ libstdc++, libgcc linked in" "+ zlib, libdeflate linked in (README build)" "+ -no-pie"
    "-static-executable (comparison only)")

steps=(0 1 2 3 4 5)
if [ "${STATIC_EXECUTABLE:-0}" = 1 ]; then steps+=(6); fi
commands=(-n "git --version" "git --version")
for step in "${steps[@]}"; do
    step_flags "$step"
    echo "== step $step: ${titles[$step]}: swift build ${flags[*]}" >&2
    # SwiftPM does not link again when only what an -L folder holds changes.
    rm -f "$root/.build/release/gitwire"
    (cd "$root" && swift build "${flags[@]}" --product gitwire 2>&1 | grep -v '^\[' >&2)
    cp "$root/.build/release/gitwire" "$out/gitwire-$step"
    "$out/gitwire-$step" --version >/dev/null
    commands+=(-n "step$step --version" "$out/gitwire-$step --version")
done
rm -f "$root/.build/release/gitwire"
build_gitwire # the README's build again in .build/release

hyperfine_run "$out/steps.json" -N --warmup "$warmup" --runs "$runs" "${commands[@]}"
# Page faults of one start (perf, from Debian's linux-perf; "?" without it).
faults() {
    command -v perf >/dev/null || { echo "?"; return; }
    perf stat -x, -r 50 -e page-faults "$@" 2>&1 >/dev/null | awk -F, '/page-faults/ { print $1 }'
}
{
    echo "gitwire --version by build step, $runs runs after $warmup warm-ups (hyperfine -N); $(machine_line)"
    printf '| %s | %s | %s | %s | %s |\n' step median "ratio to git" "page faults" "loads"
    echo "| --- | --- | --- | --- | --- |"
    python3 - "$out/steps.json" >"$out/medians" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    print("%s\t%.3f\t%.3f" % (r["command_name"] if "command_name" in r else r["command"], r["median"] * 1000, r["min"] * 1000))
PY
    git_median=$(awk -F'\t' '$1 == "git --version" { print $2 }' "$out/medians")
    printf '| git | %.2f ms | 1.00 | %s | %s |\n' "$git_median" "$(faults git --version)" \
        "$(ldd "$(command -v git)" | awk '$1 !~ /vdso/ { print $1 }' | paste -sd' ')"
    for step in "${steps[@]}"; do
        median=$(awk -F'\t' -v n="step$step --version" '$1 == n { print $2 }' "$out/medians")
        printf '| %s | %.2f ms | %.2f | %s | %s |\n' "$step: ${titles[$step]}" "$median" \
            "$(awk -v m="$median" -v g="$git_median" 'BEGIN { print m / g }')" "$(faults "$out/gitwire-$step" --version)" \
            "$( (ldd "$out/gitwire-$step" 2>/dev/null || echo static) | awk '$1 !~ /vdso/ { print $1 }' | paste -sd' ')"
    done
} | tee "$out/steps.txt"
