#!/usr/bin/env python3
"""Splits a pack writer's run at the pack's first byte: the time and CPU time (user, system)
before it (the walk and the plan: nothing can be sent before the header's object count) and
after it (writing the pack), read from /proc/<pid>/stat when the first byte comes.

Usage: pack-stages.py <label> <command...>   (the command gets the revisions on standard input
from this script's standard input, and writes the pack to standard output, read here and
dropped). Prints one tab-separated line: label, first byte (s), end (s), CPU user and system
before the first byte, user and system after it, peak RSS (MiB), pack bytes.
"""
import os
import resource
import subprocess
import sys
import time

label, command = sys.argv[1], sys.argv[2:]
ticks = os.sysconf("SC_CLK_TCK")
revisions = sys.stdin.buffer.read()


def cpu(pid):
    """User and system CPU seconds of the process and its waited-for children so far."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[13])) / ticks, (int(fields[12]) + int(fields[14])) / ticks


start = time.monotonic()
child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
child.stdin.write(revisions)
child.stdin.close()
first = child.stdout.read(1)
first_at = time.monotonic() - start
before = cpu(child.pid)
total = len(first)
while True:
    chunk = child.stdout.read1(1 << 20)
    if not chunk:
        break
    total += len(chunk)
# The CPU time at the end, before the process is reaped (its /proc entry goes then).
status = child.wait()
end_at = time.monotonic() - start
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
if status != 0:
    sys.exit(f"{label}: exit status {status}")
# getrusage covers every child reaped so far: this script runs one command, so it is this one's.
print("\t".join([label, "%.2f" % first_at, "%.2f" % end_at,
                 "%.2f" % before[0], "%.2f" % before[1],
                 "%.2f" % (usage.ru_utime - before[0]), "%.2f" % (usage.ru_stime - before[1]),
                 "%.0f" % (usage.ru_maxrss / 1024), str(total)]))
