#!/usr/bin/env bash
# Lists the functions a short, representative gitwire workload runs, as the linker's section names
# (one a line), for `ld.gold --section-ordering-file`: linked in that order, the code that start-up,
# ls-remote, index-pack and clone run sits together in a few pages of the executable instead of
# being spread over its whole `.text` (see Documentation/Performance.md, "Function order").
#
# The workload runs under callgrind (valgrind) on a copy of <binary> without debug information
# (valgrind cannot read clang 21's DWARF 5): `--version`, `ls-remote` and `clone --bare` of a local
# repository made here, and `index-pack --threads=2` of its pack (offset and reference deltas).
# Only which functions run matters, not how they were laid out, so <binary> may be one linked with
# an older list. Exits non-zero, writing nothing to <output>, when a tool is missing or a step
# fails; Tools/lib.sh (build_gitwire) then links without an order and says so.
#
# Usage: Tools/function-order.sh <binary> <output>
set -euo pipefail
source "$(dirname "$0")/lib.sh"
binary=$(realpath "$1")
output=$2
for tool in valgrind strip git python3; do
    command -v "$tool" >/dev/null || {
        echo "function-order: no $tool" >&2
        exit 1
    }
done
start_work function-order
strip --strip-debug -o "$work/gitwire" "$binary"

# A repository of 40 commits over 16 files that change a few lines each time, so that its pack has
# deltas, and a copy of its pack whose deltas name their bases (reference deltas).
python3 - >"$work/import" <<'EOF'
import random
random.seed(24)
files = [[f"line {f} {i} " + "x" * random.randrange(10, 70) for i in range(120)] for f in range(16)]
for commit in range(40):
    print("commit refs/heads/main")
    print(f"committer A <a@example.com> {1700000000 + commit} +0000")
    message = f"commit {commit}"
    print(f"data {len(message)}\n{message}")
    for f, lines in enumerate(files):
        for _ in range(random.randrange(0, 4)):
            lines[random.randrange(len(lines))] = f"changed {commit} " + "y" * random.randrange(5, 60)
        text = "\n".join(lines) + "\n"
        print(f"M 100644 inline dir{f % 4}/file{f}.txt\ndata {len(text.encode())}\n{text}")
    if commit % 10 == 9:
        print(f"tag v{commit}\nfrom refs/heads/main\ntagger A <a@example.com> {1700000000 + commit} +0000\ndata 3\ntag")
EOF
git init -q --bare --initial-branch=main "$work/repo.git"
git -C "$work/repo.git" fast-import --quiet <"$work/import"
git -C "$work/repo.git" repack -q -adf --depth=50 --window=50
git -C "$work/repo.git" pack-objects -q --all --no-reuse-delta --delta-base-offset --stdout \
    </dev/null >"$work/ofs.pack"
git -C "$work/repo.git" pack-objects -q --all --no-reuse-delta --stdout </dev/null >"$work/ref.pack"

run=0
trace() {
    run=$((run + 1))
    # valgrind's warnings (it knows no pidfd_open, which gitwire then does without) are shown only
    # when a run fails.
    if ! valgrind -q --tool=callgrind --demangle=no --dump-instr=no --separate-recs=1 \
        --callgrind-out-file="$work/callgrind.$run" "$work/gitwire" "$@" >/dev/null 2>"$work/trace.log"; then
        echo "function-order: gitwire $* failed under callgrind:" >&2
        cat "$work/trace.log" >&2
        return 1
    fi
}
trace --version
trace ls-remote "$work/repo.git"
trace index-pack --threads=2 -o "$work/ofs.idx" "$work/ofs.pack"
trace index-pack --threads=2 -o "$work/ref.idx" "$work/ref.pack"
trace clone -q --bare "$work/repo.git" "$work/clone.git"
git -C "$work/clone.git" fsck --no-progress >/dev/null

# The functions of the executable itself (not of libc or libm) in the order the runs first list
# them; gold reads a name with *, ? or [ as a pattern, which none of the binary's names needs.
python3 - "$work/gitwire" "$work"/callgrind.* >"$work/order" <<'EOF'
import os, re, sys
executable = os.path.realpath(sys.argv[1])
seen = {}
# Callgrind compresses names: "(id) name" the first time, "(id)" after; ob= and cob= share one
# table of objects, fn= and cfn= one of functions. Only ob= and fn= say where the costs that follow
# belong, so every function with a cost in the executable gets a line.
line_pattern = re.compile(r"(c?ob|c?fn)=(?:\((\d+)\))? ?(.*)")
for path in sys.argv[2:]:
    names = {"ob": {}, "fn": {}}
    current_object = None
    with open(path, errors="replace") as trace:
        for line in trace:
            match = line_pattern.match(line.rstrip("\n"))
            if not match:
                continue
            kind, number, text = match.groups()
            table = names[kind.lstrip("c")]
            if number is None:
                name = text
            else:
                if text:
                    table[number] = text
                name = table.get(number)
            if kind == "ob":
                current_object = name
            elif kind == "fn" and name and current_object:
                if os.path.realpath(current_object) == executable:
                    name = re.sub(r"'\d+$", "", name)
                    if not name.startswith("0x") and not re.search(r"[*?\[\s]", name):
                        seen.setdefault(name, len(seen))
for name in seen:
    print(name)
EOF
functions=$(wc -l <"$work/order")
if [ "$functions" -lt 500 ]; then
    echo "function-order: only $functions functions seen" >&2
    exit 1
fi
mv "$work/order" "$output"
echo "function-order: $functions functions listed in $output" >&2
