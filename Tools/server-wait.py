#!/usr/bin/env python3
"""How long a clone's server works before its pack's first byte (issue #24's clone bound).

Usage: Tools/server-wait.py <bare repository> [runs]

Runs the pack-objects that upload-pack runs for a clone of every branch and tag
(`git pack-objects --revs --thin --stdout --delta-base-offset --include-tag`, the wanted tips
on stdin), reads its output to the end, and prints the CPU time (user + system, from
/proc/<pid>/stat) it had used when its first byte arrived and when it ended, with the wall times.
The CPU time before the first byte is the server's wait, which no client can overlap: a clone on
C cores takes at least  wait + client CPU time / C  (plus what the server does after its first
byte, when that is on the same cores). CPU times do not depend much on the machine's load; the
wall times do.
"""
import os
import subprocess
import sys
import time

TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    # utime, stime, cutime, cstime are fields 14-17 (1-based); after the ")" split they start at 11.
    return sum(int(x) for x in fields[11:15]) / TICK


def one_run(repo):
    tips = subprocess.run(
        ["git", "-C", repo, "for-each-ref", "--format=%(objectname)", "refs/heads", "refs/tags"],
        check=True, capture_output=True, text=True).stdout
    start = time.monotonic()
    proc = subprocess.Popen(
        ["git", "-C", repo, "pack-objects", "--revs", "--thin", "--stdout", "--delta-base-offset",
         "--include-tag", "-q"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    proc.stdin.write(tips.encode())
    proc.stdin.close()
    first = proc.stdout.read(1)
    wait_wall = time.monotonic() - start
    wait_cpu = cpu_seconds(proc.pid)
    total = len(first)
    last_cpu = wait_cpu
    while True:
        chunk = proc.stdout.read(1 << 20)
        if not chunk:
            break
        total += len(chunk)
        try:
            last_cpu = cpu_seconds(proc.pid)
        except OSError:
            pass
    # The last sample before exit; the rusage of the reaped child is exact.
    _, status, usage = os.wait4(proc.pid, 0)
    end_wall = time.monotonic() - start
    end_cpu = usage.ru_utime + usage.ru_stime
    if status != 0:
        sys.exit(f"pack-objects failed: status {status}")
    return wait_wall, wait_cpu, end_wall, max(end_cpu, last_cpu), total


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    repo = sys.argv[1]
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    print("run  wait wall  wait CPU  total wall  total CPU  pack bytes")
    results = []
    for n in range(runs):
        r = one_run(repo)
        results.append(r)
        print(f"{n + 1:3}  {r[0]:8.2f}s  {r[1]:7.2f}s  {r[2]:9.2f}s  {r[3]:8.2f}s  {r[4]:,}")
    med = sorted(results, key=lambda r: r[1])[len(results) // 2]
    print(f"median by wait CPU: wait {med[1]:.2f} s CPU ({med[0]:.2f} s wall), "
          f"after the first byte {med[3] - med[1]:.2f} s CPU")


if __name__ == "__main__":
    main()
