#!/usr/bin/env bash
# Benchmarks `gitwire clone --bare` and `gitwire fetch` against `git clone --bare` and `git fetch`
# over git:// (a local `git daemon` on 127.0.0.1, protocol v2, git's default) with hyperfine:
# wall time, N runs each, medians and ratios gitwire/git; then peak RSS of one more run of each
# (`/usr/bin/time -f %M`, apart from the timed runs); then one traced gitwire clone gives a stage
# breakdown of its wall time. Writes hyperfine's JSON and the table to .build/bench/clone/.
#
#   1. clone: a full bare clone of the repository. After the runs, both clones must have the same
#      refs (`git for-each-ref`) and the same number of packed objects (`git count-objects -v`);
#      `git fsck --connectivity-only` runs once on gitwire's clone (not timed).
#   2. fetch: the server first serves an older state of the repository (every branch reset
#      $BACK commits back, default 50, and the tags not in that older history dropped); git clones
#      it once. Then the server serves the full history, and `git fetch` and `gitwire fetch`
#      (refspecs +refs/heads/*:refs/heads/* +refs/tags/*:refs/tags/*) each run in a fresh copy
#      of that old clone (made by hyperfine's --prepare, not timed). Reported: wall time, peak
#      RSS, the size of the pack each received.
#   3. stages: one gitwire clone under `strace --seccomp-bpf` (only a few rare system calls are
#      stopped, so the overhead is small) with GIT_TRACE_PACKET, the two timelines merged: request
#      sent, first pack byte, connection closed, .idx written, packed-refs written, exit. Beside
#      each stage's wall time: gitwire's CPU time in it (user + system, from /proc every 50 ms by
#      Tools/cpu-sampler.py) and how many of the machine's cores were busy (anything, the server
#      included): where gitwire and the server leave cores idle, work could overlap.
#
# gitwire is the README's build (Tools/lib.sh). For git clone, peak RSS is that of its largest
# process (index-pack, which clone runs as a child): GNU time reports the maximum over the
# waited-for process tree.
#
# Usage: Tools/bench-clone.sh [repository=/work/.mirror/git+git/repo] [runs=3]
# The repository (a git directory with 100k+ objects, such as a local copy of git.git) is only
# read: it is first copied with `git clone --bare --no-local`, and that copy is served.
set -euo pipefail

default_source=/work/.mirror/git+git/repo
[ -d "$default_source" ] || default_source=/work/.mirror/git+git
source_repository=${1:-$default_source}
runs=${2:-3}
back=${BACK:-50}
source "$(dirname "$0")/lib.sh"
[ -d "$source_repository" ] || { echo "usage: $0 [repository] [runs]: no repository at $source_repository" >&2; exit 2; }
setup_machine
build_gitwire
bench_out clone
start_work bench-clone
note() { echo "[$(date +%T)] $*" >&2; }
load() { uptime | sed 's/.*load average: /load /'; }

# The served copy, and an older state of it (its own refs, the copy's objects as alternates).
note "copying $source_repository (git clone --bare --no-local)"
git clone -q --bare --no-local "$source_repository" "$work/full.git"
objects=$(git -C "$work/full.git" count-objects -v | awk '/^in-pack:/ { print $2 }')
pack_mib=$(git -C "$work/full.git" count-objects -v | awk '/^size-pack:/ { printf "%.0f", $2 / 1024 }')

git init -q --bare "$work/old.git"
echo "$work/full.git/objects" >"$work/old.git/objects/info/alternates"
git -C "$work/old.git" symbolic-ref HEAD "$(git -C "$work/full.git" symbolic-ref HEAD)"
old_tips=()
{
    while read -r ref; do
        if old=$(git -C "$work/full.git" rev-parse -q --verify "$ref~$back^{commit}"); then
            echo "create $ref $old"
            old_tips+=("--merged=$old")
        fi
    done < <(git -C "$work/full.git" for-each-ref --format='%(refname)' refs/heads)
    # Tags: those in the older history, and those that point at no commit (they date nothing).
    {
        git -C "$work/full.git" for-each-ref --format='%(refname)' "${old_tips[@]}" refs/tags
        git -C "$work/full.git" for-each-ref --format='%(refname) %(objecttype) %(*objecttype)' refs/tags |
            awk '$2 != "commit" && $3 != "commit" { print $1 }'
    } | sort -u | while read -r tag; do
        echo "create $tag $(git -C "$work/full.git" rev-parse "$tag")"
    done
} | git -C "$work/old.git" update-ref --stdin
git -C "$work/old.git" rev-parse -q --verify HEAD >/dev/null || { echo "the old state has no HEAD branch" >&2; exit 1; }

# The daemon serves repo.git, a symbolic link: first to the full copy, later to the old state,
# then again to the full copy (the server "advances").
ln -sfn full.git "$work/repo.git"
start_daemon repo.git $((1800 + runs * 900))
url="git://127.0.0.1:$port/repo.git"
header="repository: $source_repository, copied: $objects objects, $pack_mib MiB packed, $(git -C "$work/full.git" for-each-ref | wc -l) refs"
echo "$header" >&2
note "gitwire: $gitwire; protocol v2 over git://127.0.0.1; $runs runs each; $(machine_line)"

# Runs "$@" (from $work) with its output to $work/out; on failure prints the command, its exit
# status and its output, and stops the script.
run_checked() {
    if ! (cd "$work" && "$@" >"$work/out" 2>&1); then
        { echo "FAILED: $*"; echo "--- output:"; tail -n 40 "$work/out"; } >&2
        exit 1
    fi
}
in_pack() { git -C "$1" count-objects -v | awk '/^in-pack:/ { p = $2 } /^count:/ { l = $2 } END { print p " packed, " l " loose" }'; }
# Same refs and same object counts, or stop with what differs.
same_result() {
    local label=$1 a=$2 b=$3
    if ! diff <(git -C "$a" for-each-ref) <(git -C "$b" for-each-ref) >"$work/refs.diff"; then
        echo "$label: refs differ (git-for-each-ref, < git, > gitwire):" >&2
        head -n 20 "$work/refs.diff" >&2
        exit 1
    fi
    if [ "$(in_pack "$a")" != "$(in_pack "$b")" ]; then
        echo "$label: object counts differ: git $(in_pack "$a"), gitwire $(in_pack "$b")" >&2
        # A fetch may bring objects the repository already had (duplicates across packs): only
        # different sets of distinct objects are an error.
        if [ "$(distinct "$a")" != "$(distinct "$b")" ]; then
            echo "$label: distinct objects differ: git $(distinct "$a"), gitwire $(distinct "$b")" >&2
            exit 1
        fi
        echo "$label: same $(distinct "$a") distinct objects; the difference is duplicates" >&2
        mismatches="$mismatches; $label: in-pack git $(in_pack "$a"), gitwire $(in_pack "$b") (same $(distinct "$a") distinct objects)"
    fi
}
distinct() { git -C "$1" cat-file --batch-all-objects --batch-check='%(objectname)' | sort -u | wc -l; }
mismatches=""
: >"$out/clone.memory"

# 1. Clone.
note "clone: $runs runs each (hyperfine)"
hyperfine_run "$out/clone.json" -N --runs "$runs" \
    --prepare "rm -rf $work/clone-git.git" -n "git clone --bare" "git clone -q --bare $url $work/clone-git.git" \
    --prepare "rm -rf $work/clone-gitwire.git" -n "gitwire clone --bare" \
    "$gitwire clone -q --bare $url $work/clone-gitwire.git"
same_result "clone" "$work/clone-git.git" "$work/clone-gitwire.git"
clone_objects=$(in_pack "$work/clone-gitwire.git")
note "git fsck --connectivity-only on gitwire's clone"
if ! git -C "$work/clone-gitwire.git" fsck --connectivity-only >"$work/fsck.out" 2>&1; then
    echo "git fsck --connectivity-only failed on gitwire's clone:" >&2
    tail -n 20 "$work/fsck.out" >&2
    exit 1
fi
fsck_lines=$(wc -l <"$work/fsck.out")
note "clone: peak memory, one more run each"
rm -rf "$work/clone-git.git" "$work/clone-gitwire.git"
peak_rss "$out/clone.memory" "git clone --bare" git clone -q --bare "$url" "$work/clone-git.git"
peak_rss "$out/clone.memory" "gitwire clone --bare" "$gitwire" clone -q --bare "$url" "$work/clone-gitwire.git"
rm -rf "$work/clone-git.git"

# 2. Incremental fetch.
ln -sfn old.git "$work/repo.git"
note "old state: cloning it with git"
git clone -q --bare "$url" "$work/base.git"
base_objects=$(in_pack "$work/base.git")
ln -sfn full.git "$work/repo.git"
ls "$work/base.git/objects/pack" >"$work/base.packs"
# The size in bytes of the pack the fetch added to $1 ("none" when it kept no new pack).
new_pack() {
    local pack
    pack=$(ls "$1/objects/pack" | grep '\.pack$' | grep -vxF -f "$work/base.packs" || true)
    if [ -z "$pack" ]; then echo none; else stat -c %s "$1/objects/pack/$pack"; fi
}
refspecs="'+refs/heads/*:refs/heads/*' '+refs/tags/*:refs/tags/*'"
fresh() { echo "rm -rf $work/$1 && cp -a $work/base.git $work/$1 && sync"; }
note "fetch: $runs runs each (hyperfine)"
hyperfine_run "$out/fetch.json" --runs "$runs" \
    --prepare "$(fresh fetch-git.git)" -n "git fetch" "git -C $work/fetch-git.git fetch -q $url $refspecs" \
    --prepare "$(fresh fetch-gitwire.git)" -n "gitwire fetch" "$gitwire fetch -q $url $work/fetch-gitwire.git $refspecs"
same_result "fetch" "$work/fetch-git.git" "$work/fetch-gitwire.git"
git_pack=$(new_pack "$work/fetch-git.git")
gw_pack=$(new_pack "$work/fetch-gitwire.git")
fetch_objects=$(in_pack "$work/fetch-gitwire.git")
changed=$(diff <(git -C "$work/base.git" for-each-ref) <(git -C "$work/fetch-gitwire.git" for-each-ref) | grep -c '^>' || true)
note "fetch: peak memory, one more run each"
for tool in git gitwire; do
    rm -rf "$work/fetch-$tool.git"
    cp -a "$work/base.git" "$work/fetch-$tool.git"
done
peak_rss "$out/clone.memory" "git fetch" git -C "$work/fetch-git.git" fetch -q "$url" '+refs/heads/*:refs/heads/*' '+refs/tags/*:refs/tags/*'
peak_rss "$out/clone.memory" "gitwire fetch" "$gitwire" fetch -q "$url" "$work/fetch-gitwire.git" '+refs/heads/*:refs/heads/*' '+refs/tags/*:refs/tags/*'

# 3. Stage breakdown of one gitwire clone (not part of the medians above).
note "traced gitwire clone ($(load))"
rm -rf "$work/clone-gitwire.git" "$work/trace.packet" "$work/trace.strace"
# The clone waits (at most 30 s) until the sampler has begun, so that every stage is sampled.
rm -f "$work/sampler.ready"
(
    cd "$work"
    for _ in $(seq 3000); do [ -e "$work/sampler.ready" ] && break; sleep 0.01; done
    exec env GIT_TRACE_PACKET="$work/trace.packet" \
        strace --seccomp-bpf -f -tt -o "$work/trace.strace" -e trace=execve,connect,close,openat,rename,exit_group \
        "$gitwire" clone -q --bare "$url" clone-gitwire.git
) >"$work/out" 2>&1 &
traced=$!
python3 "$root/Tools/cpu-sampler.py" "$traced" "$(basename "$gitwire")" "$work/trace.cpu" "$work/sampler.ready" &
sampler=$!
while [ ! -e "$work/sampler.ready" ] && kill -0 "$sampler" 2>/dev/null; do sleep 0.01; done
traced_start=$(date +%s%N)
if ! wait "$traced"; then
    { echo "FAILED: traced gitwire clone"; echo "--- output:"; tail -n 40 "$work/out"; } >&2
    exit 1
fi
wait "$sampler"
traced_wall=$(awk -v a="$traced_start" -v b="$(date +%s%N)" 'BEGIN { printf "%.2f", (b - a) / 1e9 }')

mib() { if [ "$1" = none ]; then echo "no new pack"; else awk -v b="$1" 'BEGIN { printf "%.2f MiB", b / 1048576 }'; fi; }
{
    echo "$header"
    echo "clone --bare and fetch over git:// (git daemon on 127.0.0.1, protocol v2), $runs runs each" \
        "(hyperfine); peak memory from one more run each; $(machine_line)"
    python3 - "$out/clone.json" "$out/fetch.json" >"$out/clone-fetch.json" <<'PY'
import json, sys
print(json.dumps({"results": sum((json.load(open(f))["results"] for f in sys.argv[1:]), [])}))
PY
    bench_table "$out/clone-fetch.json" "$out/clone.memory"
    # CPU time beside wall time: on a loaded machine wall time says little, and CPU time is what
    # an overlap of stages cannot reduce. The server's CPU time (git daemon's children) is in
    # neither.
    python3 - "$out/clone-fetch.json" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    cpu = r["user"] + r["system"]
    print(f"{r['command']}: CPU time (user + system, mean of the runs, its children included) {cpu:.2f} s"
          f" (user {r['user']:.2f} s, system {r['system']:.2f} s); wall "
          + ", ".join(f"{t:.2f}" for t in r["times"]) + " s in run order")
PY
    echo
    echo "clone: $clone_objects in gitwire's clone, same refs as git's; fsck --connectivity-only passed ($fsck_lines lines of output)"
    echo "fetch: old state $back commits back per branch ($base_objects), $changed refs new or moved," \
        "after the fetch $fetch_objects; pack received: git $(mib "$git_pack"), gitwire $(mib "$gw_pack")"
    [ -z "$mismatches" ] || echo "object counts that differed${mismatches}"
    echo
echo "gitwire clone, stages (one run under strace --seccomp-bpf, wall ${traced_wall} s):"
{
    sed 's/^/P /' "$work/trace.packet"
    sed 's/^/S /' "$work/trace.strace"
    sed 's/^/C /' "$work/trace.cpu"
} | awk '
    function secs(t,  p) { split(t, p, ":"); return p[1] * 3600 + p[2] * 60 + p[3] }
    $1 == "P" && /> done$/ && !request { request = secs($2) }
    $1 == "P" && /< PACK \.\.\.$/ && !pack { pack = secs($2) }
    # CPU samples: time, gitwire CPU seconds so far, busy cores of the machine since the last.
    # The last samples, taken after gitwire ended, read 0: the total is the largest.
    $1 == "C" {
        samples++; ctime[samples] = secs($2); ccpu[samples] = $3; cbusy[samples] = $4
        if ($3 > cputotal) cputotal = $3
    }
    $1 == "S" {
        t = secs($3); if (!start) start = t; end = t
        if ($4 ~ /^connect\(/ && !connect) { connect = t; fd = $4; sub(/^connect\(/, "", fd); sub(/,.*/, "", fd) }
        else if (connect && !closed && ($4 == "close(" fd ")" || $4 == "close(" fd)) closed = t
        else if ($0 ~ /openat\(.*tmp_pack_/ && !packfile) packfile = t
        else if ($0 ~ /openat\(.*tmp_idx_/ && !idx) idx = t
        else if ($0 ~ /rename\(.*\.idx"\)/ && !idxdone) idxdone = t
        else if ($0 ~ /openat\(.*packed-refs\.lock/ && !refs) refs = t
        else if ($0 ~ /rename\(.*HEAD\.lock"/) refsdone = t
    }
    # gitwire CPU seconds at time t: the last sample at or before t.
    function cpu(t,  i, v) { v = 0; for (i = 1; i <= samples && ctime[i] <= t; i++) if (ccpu[i] > v) v = ccpu[i]; return v }
    # Mean busy cores of the machine from a to b (samples ending in that span).
    function busy(a, b,  i, sum, n) {
        for (i = 1; i <= samples; i++) if (ctime[i] > a && ctime[i] <= b) { sum += cbusy[i]; n++ }
        return n ? sum / n : -1
    }
    function stage(name, from, to,  c, m) {
        if (from && to) {
            printf "  %-58s %8.2f s %5.1f%%", name, to - from, 100 * (to - from) / (end - start)
            # Only stages the sampler saw from their start (Python may start after the clone).
            if (samples && to - from > 0.05 && from >= ctime[1]) {
                c = cpu(to) - cpu(from); m = busy(from, to)
                printf "  cpu %6.2f s (%.2f cores)", c, c / (to - from)
                if (m >= 0) printf ", machine %.2f of '"$(nproc)"' cores busy", m
            }
            printf "\n"
        }
        else printf "  %-58s %8s\n", name, "?"
    }
    END {
        stage("start-up, connect, ls-refs, fetch request sent", start, request)
        stage("server: counting and compressing, until the first pack byte", request, pack)
        stage("transfer: receiving the pack (parsed and stored as it comes)", pack, closed)
        stage("delta resolution (after the connection closed)", closed, idx)
        stage("writing the .idx, renaming pack and .idx", idx, idxdone)
        stage("connectivity check (from the .idx rename to packed-refs.lock)", idxdone, refs)
        stage("ref writing (packed-refs, HEAD)", refs, refsdone)
        stage("exit", refsdone, end)
        printf "  %-58s %8.2f s\n", "total (first to last traced event)", end - start
        if (samples) printf "  %-58s %8.2f s\n", "gitwire CPU time (user + system, sampled every 50 ms)", cputotal
    }'
} | tee "$out/clone.txt"
