#!/usr/bin/env python3
"""Damages delta entries' zlib streams in a real pack and checks that `gitwire index-pack` fails
where `git index-pack` does (the same offset, both refusing), so that reading delta streams with
zlib only in resolution (libdeflate finds where they end in the first pass) still fails at the
first bad stream in pack order, as git's first pass does.

Usage: Tools/damaged-delta-streams.py <gitwire> <pack> [trials=40] [seed=1]

Each trial picks delta entries (from `git verify-pack -v`) and one damage:
  flip       a byte flipped in the middle of the stream
  adler      a byte of the Adler-32 at the stream's end flipped
  window     the zlib header's window size set to 64 KiB (CINFO 8), check bits fixed
  dictionary the zlib header's preset-dictionary flag set, check bits fixed (git 2.39 stops
             on a BUG there: gitwire must refuse at that entry)
  truncate   the pack cut in the middle of the stream
  garbage    bytes inserted after the stream (the entry's stream ends before its next header)
  two        two deltas damaged (flip), the later one resolved first or not at all
The trailer is recomputed (but for `truncate`), so only the stream is wrong. Prints one line per
trial and a summary; exits 1 if any trial's outcome differs.
"""
import hashlib
import os
import random
import re
import subprocess
import sys
import tempfile


def entries_of(pack, work):
    copy = os.path.join(work, "orig.pack")
    with open(pack, "rb") as source, open(copy, "wb") as target:
        target.write(source.read())
    idx = os.path.join(work, "orig.idx")
    subprocess.run(["git", "index-pack", "-o", idx, copy], check=True, capture_output=True)
    out = subprocess.run(["git", "verify-pack", "-v", idx], check=True, capture_output=True, text=True).stdout
    rows = []
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 5 and re.fullmatch(r"[0-9a-f]{40}", parts[0]):
            rows.append((int(parts[4]), int(parts[3]), len(parts) >= 7))
    rows.sort()
    return rows  # (offset, size in pack, is delta)


def header_length(data, offset):
    """Length of the entry header (type, size, and the base's offset or name) at offset."""
    position = offset
    byte = data[position]
    kind = (byte >> 4) & 7
    position += 1
    while byte & 0x80:
        byte = data[position]
        position += 1
    if kind == 6:
        byte = data[position]
        position += 1
        while byte & 0x80:
            byte = data[position]
            position += 1
    elif kind == 7:
        position += 20
    return position - offset


def fix_header_check(cmf, flg):
    flg &= 0xE0
    flg |= (31 - (cmf * 256 + flg) % 31) % 31
    return flg


def run(command):
    result = subprocess.run(command, capture_output=True, text=True)
    return result.returncode, result.stderr


def offset_of(message, pattern):
    found = re.search(pattern, message)
    return int(found.group(1)) if found else None


def main():
    gitwire, pack = sys.argv[1], sys.argv[2]
    trials = int(sys.argv[3]) if len(sys.argv) > 3 else 40
    rng = random.Random(int(sys.argv[4]) if len(sys.argv) > 4 else 1)
    work = tempfile.mkdtemp(prefix="damaged-delta-")
    original = open(pack, "rb").read()
    rows = entries_of(pack, work)
    deltas = [row for row in rows if row[2] and row[1] > 16]
    kinds = ["flip", "adler", "window", "dictionary", "truncate", "garbage", "two"]
    differing = 0
    for trial in range(trials):
        kind = kinds[trial % len(kinds)]
        data = bytearray(original[:-20])
        chosen = sorted(rng.sample(deltas, 2 if kind == "two" else 1))
        offset, size, _ = chosen[0]
        start = offset + header_length(data, offset)
        end = offset + size
        if kind in ("flip", "two"):
            for entry_offset, entry_size, _ in chosen:
                stream_start = entry_offset + header_length(data, entry_offset)
                position = stream_start + 2 + rng.randrange(max(1, entry_offset + entry_size - stream_start - 6))
                data[position] ^= 1 << rng.randrange(8)
        elif kind == "adler":
            data[end - 1 - rng.randrange(4)] ^= 0x40
        elif kind == "window":
            data[start] = 0x88
            data[start + 1] = fix_header_check(0x88, data[start + 1])
        elif kind == "dictionary":
            data[start + 1] = fix_header_check(data[start], data[start + 1] | 0x20)
        elif kind == "garbage":
            data[end:end] = bytes([0x78, 0x9C, 0x03, 0x00])
        if kind == "truncate":
            damaged = bytes(data[: start + (end - start) // 2])
        else:
            damaged = bytes(data) + hashlib.sha1(data).digest()
        path = os.path.join(work, "damaged.pack")
        with open(path, "wb") as file:
            file.write(damaged)
        for name in ("git.idx", "gitwire.idx"):
            if os.path.exists(os.path.join(work, name)):
                os.remove(os.path.join(work, name))
        git_status, git_message = run(["git", "index-pack", "-o", os.path.join(work, "git.idx"), path])
        ours_status, ours_message = run(
            [gitwire, "index-pack", "--threads=2", "-o", os.path.join(work, "gitwire.idx"), path])
        git_offset = offset_of(git_message, r"offset (\d+)")
        ours_offset = offset_of(ours_message, r"offset (\d+)")
        same = (git_status != 0) == (ours_status != 0) and git_offset == ours_offset
        if kind == "truncate":
            # git reports truncation without an offset; both must refuse.
            same = git_status != 0 and ours_status != 0
        elif kind == "dictionary":
            # git 2.39 stops on `BUG: zlib.c:57: total_in mismatch` (zlib's Z_NEED_DICT is not an
            # error to it); gitwire must refuse at the stream.
            same = git_status != 0 and ours_status != 0 and ours_offset == offset
        differing += 0 if same else 1
        print(
            f"{'same' if same else 'DIFFERENT'}\t{kind}\tentry {offset}\tgit {git_status} "
            f"{git_message.strip().splitlines()[-1] if git_message.strip() else ''}\t"
            f"gitwire {ours_status} {ours_message.strip().splitlines()[-1] if ours_message.strip() else ''}")
    print(f"{trials - differing} of {trials} trials fail alike")
    sys.exit(1 if differing else 0)


if __name__ == "__main__":
    main()
