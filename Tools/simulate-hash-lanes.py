#!/usr/bin/env python3
"""How well the resolver's batches fill the sixteen SHA-1 lanes, from the sizes of a pack's delta
results (Documentation/Performance.md, "Every pack at hand").

Models cgw_sha1dc_hash_jobs: a batch's messages sorted longest first take free lanes, a step hashes
one 64-byte block in every lane and costs what 6 blocks cost one at a time (Tools/bench-hash-lanes.sh
measures it), and once no message waits and fewer than --handoff lanes are busy the rest are hashed
one at a time. Batches are cut as
DeltaTreeResolver cuts them (objects or bytes), results over 1 MiB are hashed alone; --large puts
results over that size in a second batch of their own (--large-objects, --large-bytes); --keep
models lanes kept across namings (a naming stops once no message waits and fewer than --keep
lanes, holding at most --carry-bytes, are busy; those results stay in memory, in the batch's bytes,
whole or with --unhashed only their bytes left to hash).
The order
of the results is pack order, which approximates the resolver's (siblings come together in both).

Input: lines "<id> <type> <size>" of the delta results, as from
    git verify-pack -v <idx> | awk 'NF >= 7 && $2 ~ /^(blob|tree|commit|tag)$/ { print $1 }' |
        git -C <a repository holding the pack> cat-file --batch-check
Usage: Tools/simulate-hash-lanes.py <sizes> [--objects 64] [--bytes 4194304] [--handoff 7]
       [--large <bytes>] [--large-objects 16] [--large-bytes 16777216]
       [--keep <lanes> [--carry-bytes 2097152] [--unhashed]]
Prints the cost in single-block equivalents, against hashing everything one at a time and against
full lanes throughout.
"""
import argparse

LANES = 16
STEP_COST = 6.0
ALONE = 1 << 20


def blocks(size):
    # The object header ("blob 123\0", about 20 bytes), the padding and the length.
    return (size + 20 + 8 + 64) // 64


def batch_cost(sizes, handoff):
    lengths = sorted((blocks(s) for s in sizes), reverse=True)
    if len(lengths) < handoff:
        return sum(lengths)
    busy, taken, steps = [], 0, 0
    while True:
        while len(busy) < LANES and taken < len(lengths):
            busy.append(lengths[taken])
            taken += 1
        if not busy:
            return steps * STEP_COST
        if taken == len(lengths) and len(busy) < handoff:
            return steps * STEP_COST + sum(busy)
        shortest = min(busy)
        steps += shortest
        busy = [b - shortest for b in busy if b > shortest]


def carry_cost(sizes, objects, limit, keep, carry_limit, handoff, unhashed):
    """The resolver with lanes kept across namings: a naming runs until no message waits and fewer
    than `keep` lanes are busy holding at most `carry_limit` bytes; those messages stay in their
    lanes (their results in memory, counted in the batch's bytes: whole, or with `unhashed` only
    the bytes left to hash, as if the pages hashed were given back) for the next naming."""
    cost = 0.0
    lanes = []  # [remaining blocks, size] of messages in lanes
    waiting = []

    def held():
        return sum(left * 64 if unhashed else size for left, size in lanes)

    def name(final):
        nonlocal cost, lanes, waiting
        queue = sorted(waiting, key=lambda s: -blocks(s))
        waiting = []
        while True:
            while len(lanes) < LANES and queue:
                size = queue.pop(0)
                lanes.append([blocks(size), size])
            if not lanes:
                return
            if not queue:
                if not final and len(lanes) < keep and held() <= carry_limit:
                    return
                if len(lanes) < handoff:
                    cost += sum(b for b, _ in lanes)
                    lanes = []
                    return
            step = min(b for b, _ in lanes)
            cost += step * STEP_COST
            lanes = [[b - step, size] for b, size in lanes if b > step]

    for size in sizes:
        if size > ALONE:
            cost += blocks(size)
            continue
        waiting.append(size)
        if len(waiting) + len(lanes) >= objects or sum(waiting) + held() >= limit:
            name(False)
    name(True)
    return cost


def report(sizes, cost):
    total = sum(blocks(s) for s in sizes)
    full = total * STEP_COST / LANES
    print(f"{len(sizes)} results, {sum(sizes)} bytes: cost {cost / 1e6:.2f}M block equivalents, "
          f"{cost / full:.2f} times full lanes ({full / 1e6:.2f}M), one at a time {total / 1e6:.2f}M")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("sizes")
    parser.add_argument("--objects", type=int, default=64)
    parser.add_argument("--bytes", type=int, default=4 << 20)
    parser.add_argument("--handoff", type=int, default=7)
    parser.add_argument("--large", type=int, default=0)
    parser.add_argument("--large-objects", type=int, default=16)
    parser.add_argument("--large-bytes", type=int, default=16 << 20)
    parser.add_argument("--keep", type=int, default=0)
    parser.add_argument("--carry-bytes", type=int, default=2 << 20)
    parser.add_argument("--unhashed", action="store_true")
    arguments = parser.parse_args()
    sizes = [int(line.split()[2]) for line in open(arguments.sizes) if line.strip()]
    if arguments.keep:
        report(sizes, carry_cost(sizes, arguments.objects, arguments.bytes, arguments.keep, arguments.carry_bytes,
                                 arguments.handoff, arguments.unhashed))
        return
    cost = 0.0
    small, large = [], []
    for size in sizes:
        if size > ALONE:
            cost += blocks(size)
        elif arguments.large and size > arguments.large:
            large.append(size)
            if len(large) >= arguments.large_objects or sum(large) >= arguments.large_bytes:
                cost += batch_cost(large, arguments.handoff)
                large = []
        else:
            small.append(size)
            if len(small) >= arguments.objects or sum(small) >= arguments.bytes:
                cost += batch_cost(small, arguments.handoff)
                small = []
    cost += batch_cost(small, arguments.handoff) + batch_cost(large, arguments.handoff)
    report(sizes, cost)


main()
