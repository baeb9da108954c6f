#!/usr/bin/env python3
"""The least any push client can take over file://: starts `git receive-pack <repository>`,
reads its advertisement, sends one command (`<old> <new> <ref>` with report-status and
ofs-delta), streams a pack file made beforehand as it is, and waits for the report and for
receive-pack to exit. What is left is the server's own work (receive-pack indexing or unpacking
the pack, checking connectivity, updating the ref), which every client waits for.

Usage: Tools/push-floor.py <repository> <pack file> <ref> <new id> [<old id>]
"""
import subprocess
import sys

repository, pack_path, ref, new = sys.argv[1:5]
old = sys.argv[5] if len(sys.argv) > 5 else "0" * 40


def read_pkt(stream):
    size = stream.read(4)
    if len(size) < 4:
        return None
    length = int(size, 16)
    return b"" if length == 0 else stream.read(length - 4)


def pkt(data):
    return b"%04x" % (len(data) + 4) + data


server = subprocess.Popen(["git", "receive-pack", repository], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
while True:
    line = read_pkt(server.stdout)
    if not line:
        break
command = ("%s %s %s" % (old, new, ref)).encode() + b"\0 report-status ofs-delta quiet"
server.stdin.write(pkt(command) + b"0000")
with open(pack_path, "rb") as pack:
    while True:
        chunk = pack.read(1 << 20)
        if not chunk:
            break
        server.stdin.write(chunk)
server.stdin.close()
report = []
while True:
    line = read_pkt(server.stdout)
    if not line:
        break
    report.append(line)
status = server.wait()
if status != 0 or not report or not report[0].startswith(b"unpack ok"):
    sys.exit("receive-pack failed: status %d, report %r" % (status, report))
