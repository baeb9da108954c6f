#!/usr/bin/env python3
"""Makes the inputs of the in-process micro-benchmarks (Benchmarks/) from a real repository.

    Tools/bench-micro-inputs.py <repository> <output folder>

Everything is what git 2.39's upload-pack sends or stores for that repository, captured here
rather than committed (a clone of git.git gives about 40 MB of inputs):

  v0-advertisement.bin   `git upload-pack --advertise-refs`: the protocol v0 ref advertisement
  v2-ls-refs.bin         protocol v2: the capability advertisement, then the answer to the
                         `ls-refs` request gitwire sends (peel, symrefs, unborn), as a client
                         reads them one after the other over git://
  fetch-sideband.bin     protocol v2: upload-pack's answer to a `fetch` of HEAD with `deepen 1`
                         (a shallow clone): shallow-info, then the pack in side-band-64k packets
                         with its progress messages
  deltas.bin             real deltas and their bases: every delta entry of the pack
                         `git pack-objects --revs` makes for the last RANGE commits of HEAD
                         (default 300), each as <u64 base size><base><u64 delta size><delta>,
                         sizes little-endian
  objects.bin            the blobs of HEAD's tree, each as <u64 size><content>
  objects.pack           the pack of fetch-sideband.bin (its bytes without the side-band)

The folder gets a file `inputs.txt` describing what was captured (repository, commit, sizes).
"""

import os
import struct
import subprocess
import sys
import tempfile
import zlib


def pkt(text):
    data = text.encode() if isinstance(text, str) else text
    return b"%04x" % (len(data) + 4) + data


def git(repository, *arguments, stdin=None, env=None):
    full_env = dict(os.environ)
    full_env.update(env or {})
    return subprocess.run(
        ["git", "-C", repository, *arguments], input=stdin, stdout=subprocess.PIPE, check=True, env=full_env
    ).stdout


def upload_pack_v2(repository, request):
    return subprocess.run(
        ["git", "upload-pack", "--stateless-rpc", repository],
        input=request,
        stdout=subprocess.PIPE,
        check=True,
        env=dict(os.environ, GIT_PROTOCOL="version=2"),
    ).stdout


def packets(data):
    """(length, payload) of every pkt-line in data; payload None for the special packets."""
    position = 0
    while position < len(data):
        length = int(data[position : position + 4], 16)
        if length < 4:
            yield length, None
            position += 4
        else:
            yield length, data[position + 4 : position + length]
            position += length


def pack_of_fetch(response):
    """The pack bytes (band 1) of a v2 fetch response."""
    pack = bytearray()
    in_pack = False
    for _, payload in packets(response):
        if payload is None:
            continue
        if not in_pack:
            in_pack = payload == b"packfile\n"
            continue
        if payload[0] == 1:
            pack += payload[1:]
    return bytes(pack)


def entry_header(pack, offset):
    """(type, size, offset of what follows the header) of the pack entry at offset."""
    byte = pack[offset]
    kind = (byte >> 4) & 7
    size = byte & 15
    shift = 4
    offset += 1
    while byte & 0x80:
        byte = pack[offset]
        size |= (byte & 0x7F) << shift
        shift += 7
        offset += 1
    return kind, size, offset


def deltas(repository, pack_path, index_path):
    """(base, delta) of every delta entry in the pack, bases read with `git cat-file --batch`."""
    with open(pack_path, "rb") as file:
        pack = file.read()
    entries = []  # (offset, base id)
    for line in git(repository, "verify-pack", "-v", index_path).decode().splitlines():
        fields = line.split()
        # <id> <type> <size> <size in pack> <offset> <depth> <base id> for deltas.
        if len(fields) == 7 and len(fields[0]) == 40:
            entries.append((int(fields[4]), fields[6]))
    entries.sort()
    base_ids = sorted({base for _, base in entries})
    contents = {}
    batch = git(repository, "cat-file", "--batch", stdin="".join(f"{oid}\n" for oid in base_ids).encode())
    position = 0
    for oid in base_ids:
        end = batch.index(b"\n", position)
        header = batch[position:end].split()
        size = int(header[2])
        contents[oid] = batch[end + 1 : end + 1 + size]
        position = end + 1 + size + 1
    pairs = []
    for offset, base in entries:
        kind, size, start = entry_header(pack, offset)
        if kind == 6:  # offset delta: a variable-length negative offset first
            while pack[start] & 0x80:
                start += 1
            start += 1
        elif kind == 7:  # reference delta: the base's id first
            start += 20
        else:
            raise SystemExit(f"entry at {offset} is not a delta (type {kind})")
        delta = zlib.decompressobj().decompress(pack[start:], size)
        if len(delta) != size:
            raise SystemExit(f"delta at {offset}: {len(delta)} bytes, header says {size}")
        pairs.append((contents[base], delta))
    return pairs


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    repository, out = sys.argv[1], sys.argv[2]
    commits = int(os.environ.get("RANGE", "300"))
    os.makedirs(out, exist_ok=True)
    head = git(repository, "rev-parse", "HEAD").decode().strip()
    notes = [f"repository: {repository}", f"HEAD: {head}"]

    advertisement = subprocess.run(
        ["git", "upload-pack", "--advertise-refs", repository], stdout=subprocess.PIPE, check=True
    ).stdout
    with open(os.path.join(out, "v0-advertisement.bin"), "wb") as file:
        file.write(advertisement)
    notes.append(f"v0-advertisement.bin: {len(advertisement)} bytes, {len(list(packets(advertisement)))} packets")

    capabilities = subprocess.run(
        ["git", "upload-pack", "--advertise-refs", repository],
        stdout=subprocess.PIPE,
        check=True,
        env=dict(os.environ, GIT_PROTOCOL="version=2"),
    ).stdout
    ls_refs = upload_pack_v2(
        repository,
        pkt("command=ls-refs\n") + pkt("object-format=sha1") + b"0001" + pkt("peel\n") + pkt("symrefs\n")
        + pkt("unborn\n") + b"0000",
    )
    with open(os.path.join(out, "v2-ls-refs.bin"), "wb") as file:
        file.write(capabilities + ls_refs)
    notes.append(
        f"v2-ls-refs.bin: {len(capabilities) + len(ls_refs)} bytes, {len(list(packets(ls_refs)))} ls-refs packets"
    )

    fetch = upload_pack_v2(
        repository,
        pkt("command=fetch\n") + pkt("object-format=sha1") + b"0001" + pkt("thin-pack\n") + pkt("ofs-delta\n")
        + pkt("deepen 1\n") + pkt(f"want {head}\n") + pkt("done\n") + b"0000",
    )
    with open(os.path.join(out, "fetch-sideband.bin"), "wb") as file:
        file.write(fetch)
    pack = pack_of_fetch(fetch)
    with open(os.path.join(out, "objects.pack"), "wb") as file:
        file.write(pack)
    notes.append(
        f"fetch-sideband.bin: {len(fetch)} bytes, {len(list(packets(fetch)))} packets, a {len(pack)}-byte pack"
    )

    with tempfile.TemporaryDirectory() as work:
        pack_path = os.path.join(work, "range.pack")
        revisions = f"HEAD~{commits}..HEAD\n".encode()
        with open(pack_path, "wb") as file:
            file.write(git(repository, "pack-objects", "--revs", "--stdout", stdin=revisions))
        subprocess.run(["git", "index-pack", pack_path], stdout=subprocess.DEVNULL, check=True)
        pairs = deltas(repository, pack_path, pack_path[:-5] + ".idx")
    with open(os.path.join(out, "deltas.bin"), "wb") as file:
        for base, delta in pairs:
            file.write(struct.pack("<Q", len(base)) + base + struct.pack("<Q", len(delta)) + delta)
    notes.append(
        f"deltas.bin: {len(pairs)} deltas of HEAD~{commits}..HEAD, {sum(len(d) for _, d in pairs)} delta bytes,"
        f" {sum(len(b) for b, _ in pairs)} base bytes"
    )

    blobs = [
        line.split()[2]
        for line in git(repository, "ls-tree", "-r", "HEAD").decode().splitlines()
        if line.split()[1] == "blob"
    ]
    batch = git(repository, "cat-file", "--batch", stdin="".join(f"{oid}\n" for oid in blobs).encode())
    total = 0
    position = 0
    with open(os.path.join(out, "objects.bin"), "wb") as file:
        for _ in blobs:
            end = batch.index(b"\n", position)
            size = int(batch[position:end].split()[2])
            file.write(struct.pack("<Q", size) + batch[end + 1 : end + 1 + size])
            total += size
            position = end + 1 + size + 1
    notes.append(f"objects.bin: {len(blobs)} blobs of HEAD, {total} bytes")

    with open(os.path.join(out, "inputs.txt"), "w") as file:
        file.write("\n".join(notes) + "\n")
    print("\n".join(notes))


if __name__ == "__main__":
    main()
