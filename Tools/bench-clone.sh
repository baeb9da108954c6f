#!/usr/bin/env bash
# Benchmarks `gitwire clone --bare` and `gitwire fetch` against `git clone --bare` and `git fetch`
# over git:// (a local `git daemon` on 127.0.0.1, protocol v2, git's default), side by side in one
# run: wall time and peak RSS (`/usr/bin/time -f '%e %M'`), N alternating runs each, medians and
# ratios gitwire/git. Then one traced gitwire clone gives a stage breakdown of its wall time.
#
#   1. clone: a full bare clone of the repository. Every run checks that both clones have the same
#      refs (`git for-each-ref`) and the same number of packed objects (`git count-objects -v`);
#      `git fsck --connectivity-only` runs once on gitwire's clone (not timed).
#   2. fetch: the server first serves an older state of the repository (every branch reset
#      $BACK commits back, default 50, and the tags not in that older history dropped); git clones
#      it once. Then the server serves the full history, and `git fetch` and `gitwire fetch`
#      (refspecs +refs/heads/*:refs/heads/* +refs/tags/*:refs/tags/*) each run in a fresh copy
#      of that old clone. Reported: wall time, peak RSS, the size of the pack each received.
#   3. stages: one gitwire clone under `strace --seccomp-bpf` (only a few rare system calls are
#      stopped, so the overhead is small) with GIT_TRACE_PACKET, the two timelines merged: request
#      sent, first pack byte, connection closed, .idx written, packed-refs written, exit.
#
# gitwire is built in release mode with the Swift runtime linked statically, as the other
# benchmarks build it. For git clone, peak RSS is that of its largest process (index-pack,
# which clone runs as a child): GNU time reports the maximum over the waited-for process tree.
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
root=$(cd "$(dirname "$0")/.." && pwd)
[ -d "$source_repository" ] || { echo "usage: $0 [repository] [runs]: no repository at $source_repository" >&2; exit 2; }

bash "$root/Tools/setup.sh"
if [ ! -x /usr/bin/time ]; then apt-get install -y -q time >/dev/null; fi
command -v strace >/dev/null || apt-get install -y -q strace >/dev/null
(cd "$root" && swift build -c release --static-swift-stdlib --product gitwire >&2)
gitwire="$root/.build/release/gitwire"

source "$root/Tools/daemon.sh"
# daemon.sh's own trap stops at the daemon's non-zero exit status under `set -e` before removing
# the work folder: clean up with errexit off.
trap 'set +e; cleanup_work' EXIT
start_work bench-clone
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
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
echo "repository: $source_repository, copied: $objects objects, $pack_mib MiB packed, $(git -C "$work/full.git" for-each-ref | wc -l) refs"
echo "gitwire: $gitwire; $(git --version); protocol v2 over git://127.0.0.1; $runs runs each, alternating"
echo "machine: $(nproc) cores; at start: $(load)"

# Runs "$@" (from $work) under /usr/bin/time; appends "seconds kilobytes" to the times file $1.
# On failure prints the command, its exit status and its output, and stops the script.
measure() {
    local times=$1
    shift
    if ! (cd "$work" && /usr/bin/time -f '%e %M' -o "$work/time" "$@" >"$work/out" 2>&1); then
        {
            echo "FAILED: $*"
            cat "$work/time"
            echo "--- output:"
            tail -n 40 "$work/out"
        } >&2
        exit 1
    fi
    tail -n 1 "$work/time" >>"$times"
}

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
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

# Prints a table row: label, then medians of git's and gitwire's times files, ratios, extra text.
row() {
    local label=$1 git_times=$2 gw_times=$3 extra=${4:-}
    local gt gr wt wr
    gt=$(cut -d' ' -f1 "$git_times" | median)
    gr=$(cut -d' ' -f2 "$git_times" | median)
    wt=$(cut -d' ' -f1 "$gw_times" | median)
    wr=$(cut -d' ' -f2 "$gw_times" | median)
    awk -v l="$label" -v gt="$gt" -v gr="$gr" -v wt="$wt" -v wr="$wr" -v x="$extra" 'BEGIN {
        printf "%-7s %9.2f %9.1f %9.2f %9.1f %7.2f %7.2f  %s\n", l, gt, gr / 1024, wt, wr / 1024, wt / gt, wr / gr, x }'
}

# 1. Clone.
: >"$work/clone-git.times"
: >"$work/clone-gitwire.times"
for run in $(seq "$runs"); do
    rm -rf "$work/clone-git.git" "$work/clone-gitwire.git"
    note "clone run $run/$runs: git ($(load))"
    measure "$work/clone-git.times" git clone -q --bare "$url" clone-git.git
    note "clone run $run/$runs: gitwire ($(load))"
    measure "$work/clone-gitwire.times" "$gitwire" clone -q --bare "$url" clone-gitwire.git
    same_result "clone run $run" "$work/clone-git.git" "$work/clone-gitwire.git"
    note "clone run $run/$runs: git $(tail -n 1 "$work/clone-git.times"), gitwire $(tail -n 1 "$work/clone-gitwire.times") (s KiB)"
done
clone_objects=$(in_pack "$work/clone-gitwire.git")
note "git fsck --connectivity-only on gitwire's clone"
if ! git -C "$work/clone-gitwire.git" fsck --connectivity-only >"$work/fsck.out" 2>&1; then
    echo "git fsck --connectivity-only failed on gitwire's clone:" >&2
    tail -n 20 "$work/fsck.out" >&2
    exit 1
fi
fsck_lines=$(wc -l <"$work/fsck.out")
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
refspecs=('+refs/heads/*:refs/heads/*' '+refs/tags/*:refs/tags/*')
: >"$work/fetch-git.times"
: >"$work/fetch-gitwire.times"
for run in $(seq "$runs"); do
    rm -rf "$work/fetch-git.git" "$work/fetch-gitwire.git"
    cp -a "$work/base.git" "$work/fetch-git.git"
    cp -a "$work/base.git" "$work/fetch-gitwire.git"
    sync
    note "fetch run $run/$runs: git ($(load))"
    measure "$work/fetch-git.times" git -C fetch-git.git fetch -q "$url" "${refspecs[@]}"
    note "fetch run $run/$runs: gitwire ($(load))"
    measure "$work/fetch-gitwire.times" "$gitwire" fetch -q "$url" fetch-gitwire.git "${refspecs[@]}"
    same_result "fetch run $run" "$work/fetch-git.git" "$work/fetch-gitwire.git"
    git_pack=$(new_pack "$work/fetch-git.git")
    gw_pack=$(new_pack "$work/fetch-gitwire.git")
    note "fetch run $run/$runs: git $(tail -n 1 "$work/fetch-git.times"), gitwire $(tail -n 1 "$work/fetch-gitwire.times") (s KiB); packs $git_pack, $gw_pack bytes"
done
fetch_objects=$(in_pack "$work/fetch-gitwire.git")
changed=$(diff <(git -C "$work/base.git" for-each-ref) <(git -C "$work/fetch-gitwire.git" for-each-ref) | grep -c '^>' || true)

# 3. Stage breakdown of one gitwire clone (not part of the medians above).
note "traced gitwire clone ($(load))"
rm -rf "$work/clone-gitwire.git" "$work/trace.packet" "$work/trace.strace"
measure "$work/traced.times" env GIT_TRACE_PACKET="$work/trace.packet" \
    strace --seccomp-bpf -f -tt -o "$work/trace.strace" -e trace=execve,connect,close,openat,rename,exit_group \
    "$gitwire" clone -q --bare "$url" clone-gitwire.git
traced_wall=$(cut -d' ' -f1 "$work/traced.times")

echo
echo "== at end: $(load)"
echo
printf '%-7s %9s %9s %9s %9s %7s %7s\n' "" "git" "git" "gitwire" "gitwire" "ratio" "ratio"
printf '%-7s %9s %9s %9s %9s %7s %7s\n' "" "wall (s)" "RSS (MiB)" "wall (s)" "RSS (MiB)" "wall" "RSS"
row clone "$work/clone-git.times" "$work/clone-gitwire.times" "($clone_objects, same refs in every run)"
mib() { if [ "$1" = none ]; then echo "no new pack"; else awk -v b="$1" 'BEGIN { printf "%.2f MiB", b / 1048576 }'; fi; }
row fetch "$work/fetch-git.times" "$work/fetch-gitwire.times" "(pack received: git $(mib "$git_pack"), gitwire $(mib "$gw_pack"))"
echo
echo "medians of $runs runs; all runs (s KiB):"
for kind in clone fetch; do
    echo "  $kind git:     $(tr '\n' ',' <"$work/$kind-git.times" | sed 's/,$//;s/,/, /g')"
    echo "  $kind gitwire: $(tr '\n' ',' <"$work/$kind-gitwire.times" | sed 's/,$//;s/,/, /g')"
done
echo "fsck --connectivity-only on gitwire's clone: passed ($fsck_lines lines of output)"
[ -z "$mismatches" ] || echo "object counts that differed${mismatches}"
echo "fetch: old state $back commits back per branch ($base_objects), $changed refs new or moved, after the fetch $fetch_objects"

echo
echo "gitwire clone, stages (one run under strace --seccomp-bpf, wall ${traced_wall} s):"
{
    sed 's/^/P /' "$work/trace.packet"
    sed 's/^/S /' "$work/trace.strace"
} | awk '
    function secs(t,  p) { split(t, p, ":"); return p[1] * 3600 + p[2] * 60 + p[3] }
    $1 == "P" && /> done$/ && !request { request = secs($2) }
    $1 == "P" && /< PACK \.\.\.$/ && !pack { pack = secs($2) }
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
    function stage(name, from, to) {
        if (from && to) printf "  %-58s %8.2f s %5.1f%%\n", name, to - from, 100 * (to - from) / (end - start)
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
    }'
