#!/usr/bin/env python3
"""What a command's peak resident memory is made of: runs it, samples /proc/<pid>/status and
/proc/<pid>/smaps every few milliseconds, and prints, for the sample with the largest resident
set, its anonymous part (heap, stacks, buffers) and its file-backed part (the executable's and
the libraries' pages mapped in), the executable's own share of the latter, and the peak the
kernel recorded (VmHWM, what /usr/bin/time's %M reports).

A file-backed page counts in the resident set once the process touched it or its neighbours:
on recent kernels a fault maps the whole large folio of the page cache that holds the page, so
the file-backed part depends on how scattered the code run is and on how the file's pages came
into the page cache (written by the linker, copied, read back after eviction).

Usage: Tools/peak-rss-split.py [--interval=0.002] <command> [argument...]
Output (one line, KiB): peak_hwm anon_at_peak file_at_peak executable_at_peak
"""
import os
import subprocess
import sys
import time


def status_fields(pid):
    fields = {}
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            name, _, value = line.partition(":")
            if name in ("VmRSS", "VmHWM", "RssAnon", "RssFile"):
                fields[name] = int(value.split()[0])
    return fields


def executable_rss(pid, executable):
    total = 0
    inside = False
    with open(f"/proc/{pid}/smaps") as smaps:
        for line in smaps:
            first = line.split()
            if first and "-" in first[0] and len(first) >= 5 and first[0][0] in "0123456789abcdef":
                inside = len(first) >= 6 and os.path.realpath(first[5]) == executable
            elif inside and line.startswith("Rss:"):
                total += int(first[1])
    return total


def main():
    arguments = sys.argv[1:]
    interval = 0.002
    if arguments and arguments[0].startswith("--interval="):
        interval = float(arguments[0].split("=", 1)[1])
        arguments = arguments[1:]
    if not arguments:
        sys.exit(__doc__)
    executable = os.path.realpath(
        arguments[0] if os.sep in arguments[0] else subprocess.check_output(["which", arguments[0]], text=True).strip()
    )
    process = subprocess.Popen(arguments, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    best = {"VmRSS": 0}
    best_executable = 0
    hwm = 0
    while process.poll() is None:
        try:
            fields = status_fields(process.pid)
            hwm = max(hwm, fields.get("VmHWM", 0))
            if fields.get("VmRSS", 0) > best["VmRSS"]:
                best = fields
                best_executable = executable_rss(process.pid, executable)
        except (FileNotFoundError, ProcessLookupError, ValueError):
            pass
        time.sleep(interval)
    if process.returncode != 0:
        sys.exit(f"{arguments[0]} failed with status {process.returncode}")
    print(hwm, best.get("RssAnon", 0), best.get("RssFile", 0), best_executable)


if __name__ == "__main__":
    main()
