#!/usr/bin/env bash
# The limit for `index-pack` on a pack: the time its unavoidable work takes at the speed of the
# primitives on this machine, spread over the cores. The work: every entry inflated once, every
# object's content hashed once (the delta results too, as git and gitwire both name every object),
# and the pack itself hashed for its checksum. The speeds: Tools/index-pack-limit.c, on this pack's
# entries (zlib and libdeflate; gitwire's SHA-1 with collision detection and without).
#
# Usage: Tools/index-pack-limit.sh <pack> [cores=$(nproc)]
set -euo pipefail
pack=$(realpath "${1:?usage: Tools/index-pack-limit.sh <pack> [cores]}")
cores=${2:-$(nproc)}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/gitwire-limit.XXXXXX)
trap 'rm -rf "$work"' EXIT

index=${pack%.pack}.idx
if [ ! -f "$index" ]; then
    git index-pack -o "$work/pack.idx" "$pack" >/dev/null
    index=$work/pack.idx
fi
# clang: CGitWire.h uses enums with a fixed underlying type.
clang -O2 -I "$root/Sources/CGitWire/include" -I "$root/Sources/CGitWire" -o "$work/limit" "$root/Tools/index-pack-limit.c" \
    "$root/Sources/CGitWire/sha1dc.c" "$root/Sources/CGitWire/sha1dc_x86.c" -lz -ldeflate -lpthread
"$work/limit" "$pack" "$index" >"$work/speeds"
value() { awk -v k="$1" '$1 == k { print $2 }' "$work/speeds"; }

# Every object's size, through a repository that holds just this pack.
git init -q --bare "$work/repo.git"
ln -s "$pack" "$work/repo.git/objects/pack/pack.pack"
ln -s "$index" "$work/repo.git/objects/pack/pack.idx"
objects=$(git -C "$work/repo.git" cat-file --batch-all-objects --batch-check='%(objectsize)' | awk '{ s += $1 } END { printf "%d", s }')
hashed=$((objects + $(stat -c %s "$pack")))

awk -v inflated="$(value inflated)" -v hashed="$hashed" -v zlib="$(value zlib_mbps)" -v deflate="$(value libdeflate_mbps)" \
    -v checked="$(value sha1_checked_mbps)" -v plain="$(value sha1_plain_mbps)" -v cores="$cores" -v entries="$(value entries)" 'BEGIN {
    printf "%d entries: %.0f MB inflated, %.0f MB hashed (every object, and the pack)\n", entries, inflated / 1e6, hashed / 1e6
    printf "speeds here: inflate %d MB/s with zlib, %d MB/s with libdeflate; SHA-1 %d MB/s checked, %d MB/s plain\n", zlib, deflate, checked, plain
    zc = (inflated / zlib + hashed / checked) / 1e6; dc = (inflated / deflate + hashed / checked) / 1e6
    dp = (inflated / deflate + hashed / plain) / 1e6
    printf "limit on %d cores: %.2f s (libdeflate, checked SHA-1); %.2f s (zlib, checked); %.2f s (libdeflate, plain SHA-1)\n", cores, dc / cores, zc / cores, dp / cores
}'
