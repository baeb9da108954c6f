#!/usr/bin/env bash
# What a hostile receive-pack costs a push, gitwire and git side by side (interleaved runs):
# after a real status report, the receive-pack streams <MiB> MiB more of band-1 data before its
# closing flush (git-receive-pack behind a filter, run with --receive-pack on a local path).
# Prints, per run, wall time, CPU time (user+sys), peak memory and exit status, and the load
# average; no server beyond a child process, nothing on the network.
#
#   bash Tools/bench-push-hostile.sh [--runs=<n>] [--mib=<MiB>]      (defaults: 3 runs, 512 MiB)
#
# gitwire from the README's release build (GITWIRE=<path> measures that binary instead).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
runs=3
mib=512
for argument in "$@"; do
    case "$argument" in
        --runs=*) runs=${argument#--runs=} ;;
        --mib=*) mib=${argument#--mib=} ;;
        *) echo "bench-push-hostile.sh: unknown argument $argument" >&2; exit 2 ;;
    esac
done
build_gitwire
start_work gitwire-bench-push-hostile

git init -q -b main "$work/local"
for index in 1 2 3; do
    echo "$index" >"$work/local/file"
    git -C "$work/local" add file
    git -C "$work/local" -c user.name=bench -c user.email=bench@example.com commit -q -m "commit $index"
done
git init -q --bare "$work/template.git"

# The filter: the prelude the tests' filters share (Tools/receive-pack-filter-prelude.py), then
# its own code.
{
    printf '#!/usr/bin/env python3\nalarm_seconds = 600\nflush_each_write = False\n'
    cat "$root/Tools/receive-pack-filter-prelude.py"
    cat <<SCRIPT
while (line := read()):
    write(line)
write(b"")
sys.stdout.flush()
frame = b"\x01" + b"0004" * 16000
try:
    while (line := read()) is not None:
        if line == b"":
            for _ in range($mib * 1048576 // 64000):
                write(frame)
        write(line)
        sys.stdout.flush()
except BrokenPipeError:
    pass
sys.exit(child.wait())
SCRIPT
} >"$work/flood"
chmod +x "$work/flood"

measure() {
    local label=$1
    shift
    rm -rf "$work/served.git"
    cp -a "$work/template.git" "$work/served.git"
    local status=0
    (cd "$work/local" && /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$@" --receive-pack="$work/flood" \
        "$work/served.git" main >/dev/null 2>&1) || status=$?
    # A failing command makes time write "Command exited with non-zero status N" first.
    read -r wall user system peak < <(tail -n 1 "$work/time")
    printf '%-8s wall %6.2f s  cpu %6.2f s  peak %8.1f MiB  exit %s\n' "$label" "$wall" \
        "$(echo "$user + $system" | bc)" "$(echo "scale=1; $peak / 1024" | bc)" "$status"
}

echo "band-1 flood of $mib MiB after the status report; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
for run in $(seq "$runs"); do
    measure gitwire "$gitwire" push
    measure git git push
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
