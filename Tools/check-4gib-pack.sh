#!/usr/bin/env bash
# Indexes the pack of gitwire issue #11 with `gitwire index-pack` and `git index-pack` and checks
# that both write the same .idx: a blob of 2^32 zeros (a 4 MB zlib stream: one maximally
# compressed MiB repeated after full flushes) and an OFS_DELTA on it. Needs about 4.3 GiB of
# memory for each tool and python3; takes minutes (zlib inflates such zeros at ~300 MB/s here,
# and git hashes with SHA-1DC). Prints both times.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
setup_machine
build_gitwire
start_work 4gib
python3 - "$work/big.pack" <<'PY'
import hashlib, struct, sys, zlib
size = 1 << 32
compressor = zlib.compressobj(9)
first = compressor.compress(bytes(1 << 20)) + compressor.flush(zlib.Z_FULL_FLUSH)
repeated = compressor.compress(bytes(1 << 20)) + compressor.flush(zlib.Z_FULL_FLUSH)
assert first[2:] == repeated
stream = first + repeated * 4095 + compressor.flush(zlib.Z_FINISH)[:-4]
stream += struct.pack(">I", ((size % 65521) << 16) | 1)
def header(kind, n):
    out = bytearray([(kind << 4) | (n & 15)]); n >>= 4
    while n:
        out[-1] |= 0x80; out.append(n & 0x7F); n >>= 7
    return bytes(out)
def varint(n):
    out = bytearray()
    while True:
        byte = n & 0x7F; n >>= 7; out.append(byte | (0x80 if n else 0))
        if not n: return bytes(out)
blob = header(3, size) + stream
delta = varint(size) + varint(10) + bytes([0x9F, 0xFB, 0xFF, 0xFF, 0xFF, 5, 5]) + b"hello"
distance, encoded = len(blob), None
out = [distance & 0x7F]; distance >>= 7
while distance:
    distance -= 1; out.insert(0, 0x80 | (distance & 0x7F)); distance >>= 7
body = b"PACK" + struct.pack(">II", 2, 2) + blob + header(6, len(delta)) + bytes(out) + zlib.compress(delta)
open(sys.argv[1], "wb").write(body + hashlib.sha1(body).digest())
PY
ls -l "$work/big.pack"
/usr/bin/time -f "git:     %e s, %M KB" git index-pack -o "$work/git.idx" "$work/big.pack"
/usr/bin/time -f "gitwire: %e s, %M KB" "$gitwire" index-pack -o "$work/gitwire.idx" "$work/big.pack"
cmp "$work/git.idx" "$work/gitwire.idx" && echo "the .idx files are the same"
