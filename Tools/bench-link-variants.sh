#!/usr/bin/env bash
# What each part of the README's link saves in peak memory: the objects of the README's build
# (Tools/build-release.sh) linked again by hand five ways, with SwiftPM's own link command for
# gitwire (.build/release.yaml) and one option more or less each time:
#   gold            gold, in the compiler's order (the build before)
#   gold-ordered    gold, --section-ordering-file from the same list of functions
#   lld-relr        lld with packed relative relocations (-z pack-relative-relocs), unordered
#   lld-ordered     lld, --symbol-ordering-file, no RELR
#   lld-relr-ordered  lld, RELR and ordered (the README's build)
# then, as Tools/bench-peak-split.sh does (every binary's pages dropped from the page cache first),
# `index-pack --threads=2` of <pack>, `--version` and `ls-remote` of a local repository, for git
# and each binary in interleaved runs; medians in MiB.
#
# Usage: Tools/bench-link-variants.sh [runs=3] [pack=/tmp/idxpacks/swift-nio-clone.pack]
set -euo pipefail
source "$(dirname "$0")/lib.sh"
runs=${1:-3}
pack=$(realpath "${2:-/tmp/idxpacks/swift-nio-clone.pack}")
unset GITWIRE
build_gitwire
order="$root/.build/gitwire.order"
[ -s "$order" ] || {
    echo "no function order in $order (Tools/function-order.sh failed?)" >&2
    exit 1
}
start_work bench-link-variants
sed 's/.*/.text.&\n.text.unlikely.&/' "$order" >"$work/order.gold"
python3 - "$root/.build/release.yaml" "$work" "$order" <<'EOF'
import json, re, subprocess, sys
manifest, work, order = sys.argv[1:]
lines = open(manifest).read().split("\n")
key = re.compile(r'"C\.gitwire-[a-z0-9_]+-unknown-linux-gnu-release\.exe":')
start = next(i for i, line in enumerate(lines) if key.search(line))
args = json.loads(next(l.strip()[5:] for l in lines[start:start + 20] if l.strip().startswith("args:")))
# SwiftPM's link of the README's build, without the options compared here.
dropped = {"-use-ld=lld", "pack-relative-relocs", "--no-warn-symbol-ordering"}
base, i = [], 0
while i < len(args):
    if args[i] == "-Xlinker" and i + 1 < len(args) and (
        args[i + 1] in dropped or args[i + 1] == "-z" and args[i + 3 : i + 4] == ["pack-relative-relocs"]
        or args[i + 1].startswith("--symbol-ordering-file=") or args[i + 1].startswith("--section-ordering-file=")):
        i += 4 if args[i + 1] == "-z" else 2
        continue
    if args[i] in dropped:
        i += 1
        continue
    base.append(args[i])
    i += 1
relr = ["-Xlinker", "-z", "-Xlinker", "pack-relative-relocs"]
lld_order = ["-Xlinker", f"--symbol-ordering-file={order}", "-Xlinker", "--no-warn-symbol-ordering"]
variants = {
    "gold": [],
    "gold-ordered": ["-Xlinker", f"--section-ordering-file={work}/order.gold"],
    "lld-relr": ["-use-ld=lld"] + relr,
    "lld-ordered": ["-use-ld=lld"] + lld_order,
    "lld-relr-ordered": ["-use-ld=lld"] + relr + lld_order,
}
output = base.index("-o") + 1
for name, extra in variants.items():
    command = list(base)
    command[output] = f"{work}/{name}"
    subprocess.run(command + extra, check=True)
EOF
variants=(gold gold-ordered lld-relr lld-ordered lld-relr-ordered)
python3 - "${variants[@]/#/$work/}" <<'EOF'
import os, sys
for path in sys.argv[1:]:
    descriptor = os.open(path, os.O_RDONLY)
    os.fsync(descriptor)
    os.posix_fadvise(descriptor, 0, 0, os.POSIX_FADV_DONTNEED)
    os.close(descriptor)
EOF
git init -q --bare "$work/repo.git"
git -C "$work/repo.git" fast-import --quiet <<'EOF'
commit refs/heads/main
committer A <a@example.com> 0 +0000
data 2
c
EOF
run() {
    local label=$1
    shift
    echo "$label $(python3 "$root/Tools/peak-rss-split.py" "$@")" >>"$work/runs"
}
run_short() {
    local label=$1
    shift
    /usr/bin/time -f %M -o "$work/time" "$@" >/dev/null 2>&1
    echo "$label $(tail -1 "$work/time") 0 0 0" >>"$work/runs"
}
load_before=$(cut -d' ' -f1 /proc/loadavg)
for _ in $(seq "$runs"); do
    for tool in git "${variants[@]}"; do
        if [ "$tool" = git ]; then command=(git); else command=("$work/$tool"); fi
        rm -f "$work/x.idx"
        run "$tool/index-pack" "${command[@]}" index-pack --threads=2 -o "$work/x.idx" "$pack"
        run_short "$tool/--version" "${command[@]}" --version
        run_short "$tool/ls-remote" "${command[@]}" ls-remote "$work/repo.git"
    done
done
load_after=$(cut -d' ' -f1 /proc/loadavg)
echo "$(basename "$pack"), --threads=2, $runs interleaved runs, medians in MiB; load $load_before, $load_after"
echo
echo "| run | peak | anonymous | file-backed | executable |  (0: a run too short to sample)"
echo "| --- | --- | --- | --- | --- |"
for label in $(cut -d' ' -f1 "$work/runs" | awk '!seen[$0]++'); do
    column() { awk -v l="$label" -v c="$1" '$1 == l { print $c / 1024 }' "$work/runs" | median; }
    printf '| %s | %.1f | %.1f | %.1f | %.1f |\n' "$label" "$(column 2)" "$(column 3)" "$(column 4)" "$(column 5)"
done
