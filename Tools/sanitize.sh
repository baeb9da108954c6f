#!/usr/bin/env bash
# Runs the test suite under a sanitizer, in a build directory of its own:
#
#   bash Tools/sanitize.sh address [--part N/M] [swift test options...]   # AddressSanitizer, .build-asan
#   bash Tools/sanitize.sh thread  [--part N/M] [swift test options...]   # ThreadSanitizer, .build-tsan
#
# With no options it runs the whole suite in one run; e.g. `bash Tools/sanitize.sh thread --filter
# 'RunLoop|Remote'` runs a subset. `--part N/M` runs part N of M: the suites `swift test list`
# names, sorted and cut into M runs of about as many tests each (the script checks that the M
# parts match every listed test exactly once), each part with a log and reports of its own. On the
# loaded 2-core machine the whole suite in one run starts every test at once and finishes none for
# many minutes; `--part 1/6` to `--part 6/6`, one after another, take about 4 to 18 minutes each
# under ThreadSanitizer (Documentation/Sanitizers.md has the figures of the runs). The build and
# `swift test` run niced (the machine is shared), though the test process SwiftPM starts runs at
# the normal priority. Everything the tests start from the build (the gitwire command, the test
# helper) is instrumented too. A run passes only if every test passes and no sanitizer report
# appears: every instrumented process, the test process and each child it starts, writes its
# reports to files of its own under <build directory>/sanitizer-reports (`log_path`), which this
# script reads after the run, so a report from a child whose standard error a test discards cannot
# slip by; the whole log is searched too. The log is kept in <build directory>/sanitize.log
# (sanitizer-reports-partN-ofM and sanitize-partN-ofM.log for a part).
#
# GITWIRE_TEST_SLOW (default 4 for address, 10 for thread) scales the tests' server lifetimes and
# the waits and timeouts that must not run out first, since a sanitizer makes everything slower.
set -euo pipefail
cd "$(dirname "$0")/.."

sanitizer=${1:-}
case "$sanitizer" in
    address) scratch=.build-asan slow=4 ;;
    thread) scratch=.build-tsan slow=10 ;;
    *)
        echo "usage: bash Tools/sanitize.sh (address | thread) [--part N/M] [swift test options...]" >&2
        exit 2
        ;;
esac
shift

# --part N/M: the suites, sorted by name, cut into M runs of about as many tests each; part N of
# them runs here. The M parts together cover every test exactly once (checked below).
part=
case "${1:-}" in
    --part) part=${2:-} && shift 2 ;;
    --part=*) part=${1#--part=} && shift ;;
esac
if [ -n "$part" ]; then
    if ! [[ "$part" =~ ^([1-9][0-9]*)/([1-9][0-9]*)$ ]] || [ "${BASH_REMATCH[1]}" -gt "${BASH_REMATCH[2]}" ]; then
        echo "sanitize.sh: --part takes N/M with 1 <= N <= M, not '$part'" >&2
        exit 2
    fi
    part_index=${BASH_REMATCH[1]} part_count=${BASH_REMATCH[2]}
    for argument in "$@"; do
        case "$argument" in
            --filter | --filter=*)
                echo "sanitize.sh: --part chooses the suites itself; it does not combine with --filter" >&2
                exit 2
                ;;
        esac
    done
fi

export GITWIRE_TEST_SLOW=${GITWIRE_TEST_SLOW:-$slow}
# AddressSanitizer: stop at the first error; leaks are checked at exit (LeakSanitizer). The
# Swift runtime's caches stay reachable, so they are not reported.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:halt_on_error=1:abort_on_error=0:strict_string_checks=1:detect_stack_use_after_return=1}
# ThreadSanitizer: report everything, keep going, fail at exit (status 66) if anything was
# reported. No suppressions: gitwire's locks are pthread mutexes TSan sees (see
# Sources/GitWirePOSIX/System/Locked.swift), and libcurl, uninstrumented, reports nothing.
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=0:second_deadlock_stack=1:history_size=4}

# Each part keeps a log and reports of its own, so parts run one after another leave all of theirs.
suffix=${part:+-part$part_index-of$part_count}
log=$scratch/sanitize$suffix.log
reports_dir=$PWD/$scratch/sanitizer-reports$suffix
mkdir -p "$scratch"
rm -rf "$reports_dir"
mkdir -p "$reports_dir"
# Every instrumented process (children too, whatever their working directory) writes its reports
# to <reports_dir>/report.<pid>.
export ASAN_OPTIONS="$ASAN_OPTIONS:log_path=$reports_dir/report"
export TSAN_OPTIONS="$TSAN_OPTIONS:log_path=$reports_dir/report"
started=$(date +%s)
echo "== building with --sanitize=$sanitizer into $scratch"
nice -n 19 swift build --build-tests -Xcc -O2 --sanitize="$sanitizer" --scratch-path "$scratch"
part_arguments=()
if [ -n "$part" ]; then
    # `swift test list` names every test Module.Suite/test(…) (nested suites add /Inner).
    tests=$(nice -n 19 swift test list --skip-build -Xcc -O2 --disable-xctest --sanitize="$sanitizer" \
        --scratch-path "$scratch" | grep -aE '^[A-Za-z_][A-Za-z0-9_]*\.[A-Za-z_][A-Za-z0-9_]*/' | sort -u)
    [ -n "$tests" ] || { echo "sanitize.sh: swift test list gave no tests" >&2 && exit 1; }
    # One line per part: its number, then its suites. A suite goes to the part its middle test
    # falls in when all the tests, sorted by suite, are cut into part_count equal runs.
    assignment=$(printf '%s\n' "$tests" | sed 's|/.*||' | uniq -c | awk -v parts="$part_count" '
        { name[NR] = $2; count[NR] = $1; total += $1 }
        END {
            before = 0
            for (i = 1; i <= NR; i++) {
                p = int((before + count[i] / 2) * parts / total) + 1
                if (p > parts) p = parts
                line[p] = line[p] " " name[i]
                before += count[i]
            }
            for (p = 1; p <= parts; p++) print p line[p]
        }')
    suites_regex() { # the --filter of part $1: ^(Module\.Suite|…)/
        local names
        names=$(printf '%s\n' "$assignment" | awk -v p="$1" '$1 == p { $1 = ""; print }' | xargs -n 1)
        [ -n "$names" ] || return 0
        printf '^(%s)/' "$(printf '%s\n' "$names" | sed 's/\./\\./g' | paste -sd '|')"
    }
    # Coverage: every listed test is matched by exactly one part's filter.
    matches=$(for ((p = 1; p <= part_count; p++)); do
        regex=$(suites_regex "$p")
        [ -z "$regex" ] || printf '%s\n' "$tests" | grep -aE "$regex"
    done | sort | uniq -c | awk '$1 != 1' | wc -l)
    covered=$(for ((p = 1; p <= part_count; p++)); do
        regex=$(suites_regex "$p")
        [ -z "$regex" ] || printf '%s\n' "$tests" | grep -aE "$regex"
    done | sort -u | wc -l)
    total_tests=$(printf '%s\n' "$tests" | wc -l)
    if [ "$matches" != 0 ] || [ "$covered" != "$total_tests" ]; then
        echo "sanitize.sh: the $part_count parts do not cover the $total_tests tests exactly once" >&2
        exit 1
    fi
    regex=$(suites_regex "$part_index")
    if [ -z "$regex" ]; then
        echo "== part $part: no suites (there are fewer suites than parts)"
        exit 0
    fi
    part_tests=$(printf '%s\n' "$tests" | grep -acE "$regex")
    echo "== part $part: $part_tests of the $total_tests tests (the $part_count parts cover each once)," \
        "$(printf '%s\n' "$assignment" | awk -v p="$part_index" '$1 == p { print NF - 1 " suites, " $2 " to " $NF }')"
    part_arguments=(--filter "$regex")
fi
echo "== testing (GITWIRE_TEST_SLOW=$GITWIRE_TEST_SLOW), log in $log"
set +e
# --disable-xctest: every test is a swift-testing one, and XCTest's empty pass leaks its own
# suite objects at exit (LeakSanitizer reports them; not gitwire's).
nice -n 19 swift test --skip-build -Xcc -O2 --disable-xctest --sanitize="$sanitizer" --scratch-path "$scratch" "${part_arguments[@]}" "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e
elapsed=$(($(date +%s) - started))
if [ -n "$part" ]; then
    # The part ran exactly the tests its filter was meant to choose.
    ran=$(grep -aoE 'Test run with [0-9]+ tests?' "$log" | tail -n 1 | grep -oE '[0-9]+' || true)
    if [ "$ran" != "$part_tests" ]; then
        echo "== part $part: $part_tests tests listed for it, but the run reports ${ran:-no count}" >&2
        [ "$status" != 0 ] || status=1
    fi
fi

# Reports look like "WARNING: ThreadSanitizer: …" or "==123==ERROR: AddressSanitizer: …", each with
# a "SUMMARY: …Sanitizer: …" line.
pattern="(WARNING|ERROR): [A-Za-z]+Sanitizer|SUMMARY: [A-Za-z]+Sanitizer"
files=("$reports_dir"/report.*)
[ -e "${files[0]}" ] || files=()
reports=$(cat "$log" "${files[@]}" | grep -acE "$pattern" || true)
echo "== $sanitizer sanitizer: tests exited with $status, $reports sanitizer report line(s)" \
    "(${#files[@]} report file(s) in $reports_dir), ${elapsed} s in all"
if [ "$reports" != 0 ] || [ "${#files[@]}" != 0 ]; then
    cat "$log" "${files[@]}" | grep -aE "$pattern" | sed 's/^==[0-9]*==//' | sort | uniq -c >&2
    exit 1
fi
exit "$status"
