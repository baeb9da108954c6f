#!/usr/bin/env python3
"""Writes the delta-chain pack of gitwire issue #11 to standard output.

A 256 KiB text blob, a chain of LINKS offset deltas on it (each keeps its base but the last bytes
and appends a tag), all links first, then one leaf delta on each link (the first 1000 bytes of
the link and a tag). With the links first in pack order, a resolver that takes children in pack
order descends the whole chain while every link still waits for its leaf.

Usage: Tools/make-delta-chain-pack.py [LINKS=2400] [--ref] > chain.pack
(--ref: reference deltas instead of offset deltas.)
"""
import hashlib
import struct
import sys
import zlib


def varint(value):
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def entry_header(type_number, size):
    out = bytearray([(type_number << 4) | (size & 15)])
    size >>= 4
    while size:
        out[-1] |= 0x80
        out.append(size & 0x7F)
        size >>= 7
    return bytes(out)


def offset_encoding(distance):
    out = [distance & 0x7F]
    distance >>= 7
    while distance:
        distance -= 1
        out.insert(0, 0x80 | (distance & 0x7F))
        distance >>= 7
    return bytes(out)


def copy(offset, size):
    opcode, args = 0x80, bytearray()
    for bit in range(4):
        if (offset >> (8 * bit)) & 0xFF:
            opcode |= 1 << bit
            args.append((offset >> (8 * bit)) & 0xFF)
    for bit in range(3):
        if (size >> (8 * bit)) & 0xFF:
            opcode |= 0x10 << bit
            args.append((size >> (8 * bit)) & 0xFF)
    return bytes([opcode]) + bytes(args)


def delta(base_size, kept, tag):
    return varint(base_size) + varint(kept + len(tag)) + copy(0, kept) + bytes([len(tag)]) + tag


def blob_id(data):
    return hashlib.sha1(b"blob %d\0" % len(data) + data).digest()


def main():
    links = int(next((a for a in sys.argv[1:] if not a.startswith("-")), "2400"))
    ref = "--ref" in sys.argv
    text, line = bytearray(), 0
    while len(text) < 256 << 10:
        text += b"line %d of a file that a long delta chain grows from\n" % line
        line += 1
    root = bytes(text[: 256 << 10])
    body = bytearray()
    offsets, contents = [], []

    def add(type_number, data, base_offset=None, base_id=None):
        offset = 12 + len(body)
        body.extend(entry_header(type_number, len(data)))
        if base_offset is not None:
            body.extend(offset_encoding(offset - base_offset))
        if base_id is not None:
            body.extend(base_id)
        body.extend(zlib.compress(data))
        return offset

    offsets.append(add(3, root))
    contents.append(root)
    for link in range(1, links + 1):
        base = contents[-1]
        tag = b"link %06d\n" % link
        d = delta(len(base), len(base) - len(tag), tag)
        if ref:
            offsets.append(add(7, d, base_id=blob_id(base)))
        else:
            offsets.append(add(6, d, base_offset=offsets[-1]))
        contents.append(base[: len(base) - len(tag)] + tag)
    for link in range(1, links + 1):
        d = delta(len(contents[link]), 1000, b"leaf %d\n" % link)
        if ref:
            add(7, d, base_id=blob_id(contents[link]))
        else:
            add(6, d, base_offset=offsets[link])
    pack = b"PACK" + struct.pack(">II", 2, 2 * links + 1) + bytes(body)
    sys.stdout.buffer.write(pack + hashlib.sha1(pack).digest())


main()
