#!/usr/bin/env python3
"""Samples, every 50 ms until a process ends, the CPU time of the processes named NAME in its
tree and how busy the whole machine is, for a stage table of CPU use next to wall time.

Usage: Tools/cpu-sampler.py <pid> <name> <output> [<ready file>]

Each line of the output: the time of day (HH:MM:SS.ffffff, as `strace -tt` prints it), the CPU
time (user + system, seconds) of the processes named <name> under <pid> so far, and the cores the
whole machine kept busy since the previous line (from /proc/stat: all CPU time but idle and
iowait). A process that ended between two samples leaves its time out: sample a process that
lives for the whole run (gitwire's clone is one process). The ready file, if given, is made
once sampling has begun, so that the process sampled can wait for it (Python may take a second to
start on a loaded machine).
"""
import os
import sys
import time

root, name, output = int(sys.argv[1]), sys.argv[2], sys.argv[3]
ready = sys.argv[4] if len(sys.argv) > 4 else None
ticks = os.sysconf("SC_CLK_TCK")


def children(pid):
    found = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as f:
                found += [int(c) for c in f.read().split()]
    except OSError:
        pass
    return found


def tree_cpu():
    total, stack = 0.0, [root]
    while stack:
        pid = stack.pop()
        try:
            with open(f"/proc/{pid}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        comm = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2:].split()
        if comm == name:
            total += (int(fields[11]) + int(fields[12])) / ticks
        stack += children(pid)
    return total


def machine():
    with open("/proc/stat") as f:
        values = [int(v) for v in f.readline().split()[1:]]
    idle = values[3] + values[4]
    return sum(values) - idle


with open(output, "w") as out:
    busy, wall = machine(), time.monotonic()
    if ready:
        open(ready, "w").close()
    while os.path.exists(f"/proc/{root}"):
        time.sleep(0.05)
        now_busy, now_wall = machine(), time.monotonic()
        cores = (now_busy - busy) / ticks / max(now_wall - wall, 1e-6)
        busy, wall = now_busy, now_wall
        now = time.time()
        local = time.localtime(now)
        stamp = time.strftime("%H:%M:%S", local) + f".{int((now % 1) * 1e6):06d}"
        out.write(f"{stamp} {tree_cpu():.3f} {cores:.2f}\n")
        out.flush()
