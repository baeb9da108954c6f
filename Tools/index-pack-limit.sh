#!/usr/bin/env bash
# The limit for `index-pack` on a pack: the time its unavoidable work takes on this machine,
# spread over the cores. The work: every entry inflated once, every object named once (SHA-1 of
# its header and content: delta results too, as git and gitwire both name every object), and the
# pack hashed for its checksum; timed by Tools/index-pack-limit.c with zlib and libdeflate, and
# with gitwire's SHA-1 with collision detection and without.
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
# Every object of the pack, through a repository that holds just this pack.
git init -q --bare "$work/repo.git"
ln -s "$pack" "$work/repo.git/objects/pack/pack.pack"
ln -s "$index" "$work/repo.git/objects/pack/pack.idx"
git -C "$work/repo.git" cat-file --batch-all-objects --batch | "$work/limit" "$pack" "$index" >"$work/speeds"
value() { awk -v k="$1" '$1 == k { print $2 }' "$work/speeds"; }
pack_bytes=$(stat -c %s "$pack")

awk -v entries="$(value entries)" -v inflated="$(value inflated)" -v zlib="$(value zlib_seconds)" \
    -v deflate="$(value libdeflate_seconds)" -v objects="$(value objects)" -v named="$(value named)" \
    -v checked="$(value checked_seconds)" -v plain="$(value plain_seconds)" -v pack="$pack_bytes" -v cores="$cores" 'BEGIN {
    # The pack checksum is hashed too, at the speed the objects were.
    checked += checked * pack / named; plain += plain * pack / named
    printf "%d entries inflate to %.0f MB: %.2f s with zlib, %.2f s with libdeflate\n", entries, inflated / 1e6, zlib, deflate
    printf "%d objects (%.0f MB) and the pack (%.0f MB) hashed: %.2f s checked SHA-1, %.2f s plain\n", objects, named / 1e6, pack / 1e6, checked, plain
    printf "limit on %d cores: %.2f s (libdeflate, checked SHA-1); %.2f s (zlib, checked); %.2f s (libdeflate, plain SHA-1)\n", cores, (deflate + checked) / cores, (zlib + checked) / cores, (deflate + plain) / cores
}'
