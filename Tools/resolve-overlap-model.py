#!/usr/bin/env python3
"""How much delta resolution could a clone do while its pack still arrives, and at what cost?

Usage: Tools/resolve-overlap-model.py <bare repository> [cache MiB ...]

The repository must hold the pack as a clone received it (`git clone --bare --no-local <source>`
keeps the server's pack byte for byte, entries in wire order). Reads each entry's offset and delta
base from `git verify-pack -v` and each object's size from `git cat-file --batch-check`, then
replays the pack in wire order under two policies, for each size of a cache of base data (LRU,
bytes of object content; default 16 32 64 128 256 MiB):

- all at arrival: every delta is resolved as soon as it arrives; a base not in the cache is
  rebuilt from its nearest cached ancestor (or its whole object, inflated again). Reported: the
  bytes rebuilt, against the bytes of all delta results (what resolving them once produces).
- cache hits only: a delta is resolved at arrival when its base's data is in the cache (and the
  base is whole or was itself resolved at arrival); the others wait for the end of the pack, where
  the ancestors they need that were resolved early are rebuilt (applied again, not named again).
  Reported: the deltas and result bytes resolved at arrival, and the bytes rebuilt at the end.

Costs are counted in bytes produced: applying a delta and naming its result both take time in
proportion to the result's size. No timing: this says which design can work, not how fast.
"""
import glob
import os
import subprocess
import sys
from collections import OrderedDict

repository = sys.argv[1]
budgets = [int(m) for m in sys.argv[2:]] or [16, 32, 64, 128, 256]


def git(*args):
    return subprocess.run(["git", "-C", repository, *args], check=True, capture_output=True, text=True).stdout


# Relative to the repository unless absolute (os.path.join keeps an absolute second part).
pack_dir = os.path.join(repository, git("rev-parse", "--git-path", "objects/pack").strip())
indexes = [os.path.abspath(i) for i in glob.glob(f"{pack_dir}/*.idx")]
if len(indexes) != 1:
    sys.exit(f"expected one pack in {repository}, found {len(indexes)}")
real = {}
for line in git("cat-file", "--batch-all-objects", "--batch-check=%(objectname) %(objectsize)").splitlines():
    name, size = line.split()
    real[name] = int(size)
rows = []
for line in git("verify-pack", "-v", indexes[0]).splitlines():
    f = line.split()
    if len(f) >= 5 and len(f[0]) in (40, 64) and f[1] in ("commit", "tree", "blob", "tag"):
        rows.append((int(f[4]), f[0], real[f[0]], f[6] if len(f) >= 7 else None))
rows.sort()
position = {name: i for i, (_, name, _, _) in enumerate(rows)}
size = [r[2] for r in rows]
base = [position[r[3]] if r[3] else None for r in rows]
children = [[] for _ in rows]
for i, b in enumerate(base):
    if b is not None:
        children[b].append(i)
n = len(rows)
deltas = [i for i in range(n) if base[i] is not None]
delta_bytes = max(1, sum(size[i] for i in deltas))
offsets = [r[0] for r in rows]
print(f"{repository}: {n} objects, {len(deltas)} deltas ({delta_bytes / 2**20:.0f} MiB of results), "
      f"{sum(1 for i in deltas if base[i] > i)} based on a later entry")
spans = sorted(offsets[max(c)] - offsets[i] for i, c in enumerate(children) if c)
if spans:
    print("pack bytes from a base to its last delta: median %.2f MiB, 90th percentile %.2f MiB, largest %.1f MiB" % (
        spans[len(spans) // 2] / 2**20, spans[len(spans) * 9 // 10] / 2**20, spans[-1] / 2**20))


class Cache:
    def __init__(self, budget):
        self.budget, self.held, self.entries = budget, 0, OrderedDict()

    def put(self, i):
        if size[i] > self.budget or i in self.entries:
            return
        self.entries[i] = True
        self.held += size[i]
        while self.held > self.budget:
            j, _ = self.entries.popitem(last=False)
            self.held -= size[j]

    def hit(self, i):
        if i in self.entries:
            self.entries.move_to_end(i)
            return True
        return False


def all_at_arrival(budget):
    cache, rebuilt = Cache(budget), 0
    for i in range(n):
        b = base[i]
        if b is not None and not cache.hit(b):
            j = b
            while j is not None and not cache.hit(j):
                rebuilt += size[j]
                j = base[j]
            cache.put(b)
        if children[i]:
            cache.put(i)
    return rebuilt


def cache_hits_only(budget):
    cache, early = Cache(budget), [False] * n
    for i in range(n):
        b = base[i]
        if b is None:
            if children[i]:
                cache.put(i)
        elif (base[b] is None or early[b]) and cache.hit(b):
            early[i] = True
            if children[i]:
                cache.put(i)
    needed = set()
    for i in deltas:
        if not early[i]:
            j = base[i]
            while j is not None and base[j] is not None and early[j] and j not in needed:
                needed.add(j)
                j = base[j]
    return sum(early), sum(size[i] for i in range(n) if early[i]), sum(size[j] for j in needed)


for mib in budgets:
    rebuilt = all_at_arrival(mib << 20)
    count, early_bytes, later = cache_hits_only(mib << 20)
    print(f"cache {mib:4d} MiB: all at arrival: {rebuilt / 2**20:7.1f} MiB rebuilt ({100 * rebuilt / delta_bytes:5.1f}%); "
          f"cache hits only: {100 * count / max(1, len(deltas)):5.1f}% of deltas, "
          f"{100 * early_bytes / delta_bytes:5.1f}% of result bytes at arrival, "
          f"{later / 2**20:6.1f} MiB ({100 * later / delta_bytes:4.1f}%) rebuilt at the end")
