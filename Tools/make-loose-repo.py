#!/usr/bin/env python3
"""Writes a deterministic `git fast-import` stream for Tools/bench-push.sh's all-loose case.

A history of <commits> commits over 120 text files in 12 folders; each commit edits 3 files in
3 different folders (a few lines changed, some added), so each adds a commit, a root tree, 3
folder trees and 3 blobs: 8 objects a commit, and the blobs are good delta candidates, as in a
real project. The same arguments always give the same stream (fixed seed, fixed dates).

Usage: Tools/make-loose-repo.py <commits> | git fast-import --quiet
"""
import random
import sys

commits = int(sys.argv[1]) if len(sys.argv) > 1 else 3700
rng = random.Random(20261124)
folders = ["src%02d" % f for f in range(12)]
files = {}
words = ["alpha", "beta", "gamma", "delta", "packet", "object", "stream", "commit", "tree", "blob",
         "window", "depth", "offset", "header", "inflate", "deflate", "index", "remote", "branch"]


def line():
    return " ".join(rng.choice(words) for _ in range(rng.randint(3, 12))) + "\n"


for folder in folders:
    for number in range(10):
        files["%s/file%d.txt" % (folder, number)] = [line() for _ in range(rng.randint(20, 160))]

out = sys.stdout.buffer


def blob(lines):
    data = "".join(lines).encode()
    out.write(b"data %d\n" % len(data))
    out.write(data)
    out.write(b"\n")


for index in range(commits):
    out.write(b"commit refs/heads/main\n")
    out.write(b"committer Bench <bench@example.com> %d +0000\n" % (1700000000 + index * 60))
    message = ("change %d\n" % index).encode()
    out.write(b"data %d\n%s" % (len(message), message))
    if index == 0:
        for path in sorted(files):
            out.write(b"M 100644 inline %s\n" % path.encode())
            blob(files[path])
    else:
        for folder in rng.sample(folders, 3):
            path = "%s/file%d.txt" % (folder, rng.randrange(10))
            lines = files[path]
            for _ in range(rng.randint(1, 4)):
                lines[rng.randrange(len(lines))] = line()
            if rng.random() < 0.5:
                lines.insert(rng.randrange(len(lines) + 1), line())
            out.write(b"M 100644 inline %s\n" % path.encode())
            blob(lines)
    out.write(b"\n")
