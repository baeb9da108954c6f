#!/usr/bin/env bash
# Where `gitwire index-pack` spends its CPU time, by stage: samples the README build with
# `perf record` (software clock, so it works where the CPU's counters are not exposed) and sorts
# every sampled function into inflate, SHA-1, delta application, CRC-32, sorting, copying,
# reference counting, kernel (reads and writes) and the rest.
#
# Usage: Tools/profile-index-pack.sh <pack> [threads=1]
# Shares are of CPU time, so they do not depend on what else the machine is doing; with more
# than one thread they add up the threads' time.
set -euo pipefail
pack=${1:?usage: Tools/profile-index-pack.sh <pack> [threads]}
threads=${2:-1}
source "$(dirname "$0")/lib.sh"
command -v perf >/dev/null || { echo "needs perf (Debian: linux-perf)" >&2; exit 1; }
build_gitwire
start_work profile

perf record -q -e cpu-clock -F 2000 -o "$work/perf.data" \
    "$gitwire" index-pack --threads="$threads" -o "$work/pack.idx" "$pack" >/dev/null 2>"$work/perf.log" ||
    { cat "$work/perf.log" >&2; exit 1; }
perf report -i "$work/perf.data" --no-children --sort dso,symbol --stdio 2>/dev/null | tee "${PROFILE_RAW:-/dev/null}" |
    awk '/^ +[0-9.]+%/ { share = $1; sub("%", "", share); dso = $2; $1 = ""; $2 = ""; $3 = ""; print share "\t" dso "\t" $0 }' |
    awk -F'\t' '
    {
        share = $1; dso = $2; symbol = $3
        gsub(/^ +| +- -$| +$/, "", symbol)
        if (symbol ~ /sha1dc|cgw_sha1|process_one|check_block/ || (dso == "gitwire" && symbol == "process")) stage = "SHA-1 (collision-detecting)"
        else if (symbol ~ /crc32/) stage = "CRC-32"
        else if (dso ~ /libz|libdeflate/ || symbol ~ /inflate|adler32|deflate_decompress/) stage = "inflate (zlib, libdeflate)"
        else if (symbol ~ /Delta[A-Za-z0-9]*apply|5DeltaO5apply/) stage = "delta application"
        else if (symbol ~ /memmove|memcpy|memset/) stage = "copying (memmove/memset)"
        else if (symbol ~ /sort|merge|PackIndexWriter/) stage = "sorting and writing the index"
        else if (symbol ~ /swift_retain|swift_release|swift_bridgeObject|swift_allocObject|swift_deallocObject|malloc|free/) stage = "allocation and reference counting"
        else if (dso ~ /kernel/) stage = "kernel (reading and writing the pack)"
        else stage = "the rest (parsing, bookkeeping)"
        total[stage] += share
    }
    END { for (stage in total) printf "%6.1f%%  %s\n", total[stage], stage }' | sort -rn
