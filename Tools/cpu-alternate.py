#!/usr/bin/env python3
# Runs two commands in alternating blocks and prints the median CPU time (user + system of the
# child and what it waited for, from wait4) that one call of each took.
# Usage: cpu-alternate.py <blocks> <calls a block> -- <command A...> -- <command B...>
# A is "gitwire" (this build) and B "baseline" in the output.
import os
import statistics
import subprocess
import sys

args = sys.argv[1:]
blocks, calls = int(args[0]), int(args[1])
rest = args[3:]
split = rest.index("--")
commands = (rest[:split], rest[split + 1:])


def cpu_ms(command):
    total = 0.0
    for _ in range(calls):
        child = subprocess.Popen(command, stdout=subprocess.DEVNULL)
        _, status, usage = os.wait4(child.pid, 0)
        if status != 0:
            sys.exit(f"{command[0]} failed")
        total += usage.ru_utime + usage.ru_stime
    return 1000 * total / calls


times = ([], [])
for _ in range(blocks):
    for which in (0, 1):
        times[which].append(cpu_ms(commands[which]))
a, b = (statistics.median(t) for t in times)
print(f"median CPU ms a call: gitwire {a:.2f}, baseline {b:.2f}, ratio {a / b:.3f} "
      f"(blocks: gitwire {[round(x, 1) for x in times[0]]}, baseline {[round(x, 1) for x in times[1]]})")
