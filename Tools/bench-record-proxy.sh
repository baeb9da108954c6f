#!/usr/bin/env bash
# Measures the CPU time `gitwire record-proxy` spends recording one clone whose pack carries a
# random (incompressible) blob of each size given, through a git daemon on 127.0.0.1. Recording is
# linear when the CPU time grows like the size (gitwire issue #11: it was quadratic).
#
# Usage: Tools/bench-record-proxy.sh [MiB...]   (default: 8 16 32 48)
# GITWIRE=<path> measures another build of gitwire (default: a release build of this tree).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(8 16 32 48)
setup_machine
build_gitwire

start_work record-proxy
for size in "${sizes[@]}"; do
    git init -q --bare "$work/r$size.git"
    blob=$(head -c "$((size << 20))" /dev/urandom | git -C "$work/r$size.git" hash-object -w --stdin)
    tree=$(printf '100644 blob %s\tdata\n' "$blob" | git -C "$work/r$size.git" mktree)
    commit=$(git -C "$work/r$size.git" commit-tree -m data "$tree")
    git -C "$work/r$size.git" update-ref refs/heads/main "$commit"
done
start_daemon "r${sizes[0]}.git" 600

printf "%8s %12s\n" "MiB" "CPU (s)"
for size in "${sizes[@]}"; do
    proxy_port=$((20000 + RANDOM % 40000))
    rm -rf "$work/out" "$work/clone.git"
    /usr/bin/time -f "%U %S" -o "$work/time" "$gitwire" record-proxy --listen="127.0.0.1:$proxy_port" \
        --upstream="git://127.0.0.1:$port" --out="$work/out" --connections=1 --idle-timeout=120 \
        2>"$work/proxy.log" &
    proxy=$!
    for _ in $(seq 100); do
        grep -q "listening on" "$work/proxy.log" && break
        sleep 0.05
    done
    git clone -q --bare "git://127.0.0.1:$proxy_port/r$size.git" "$work/clone.git"
    wait "$proxy"
    awk -v size="$size" '{printf "%8d %12.2f\n", size, $1 + $2}' "$work/time"
done
