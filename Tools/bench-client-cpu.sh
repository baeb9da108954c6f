#!/usr/bin/env bash
# Before/after CPU time (user + system, from wait4) of the gitwire client alone, this build against
# BASELINE=<another gitwire binary>, in alternating blocks (medians): ls-remote of a repository of
# 6,001 refs over git:// (v0 and v2), and a bare clone over git:// of the history of <pack> (a pack
# of SHA-1 objects whose tip commit is <tip>; say `echo v2.10.0 | git -C git.git pack-objects
# --revs --stdout`). CPU time, not wall time: on a shared machine wall time mostly measures the
# wait for a core, and the server's time is not the client's.
#
# Usage: BASELINE=<gitwire binary> Tools/bench-client-cpu.sh <pack> <tip commit> [blocks=5]
set -euo pipefail
pack=${1:?usage: BASELINE=<binary> $0 <pack> <tip commit> [blocks]}
tip=${2:?usage: BASELINE=<binary> $0 <pack> <tip commit> [blocks]}
blocks=${3:-5}
baseline=${BASELINE:?BASELINE=<another gitwire binary> is needed}
root=$(cd "$(dirname "$0")/.." && pwd)
(cd "$root" && swift build -c release --static-swift-stdlib --product gitwire >&2)
gitwire="$root/.build/release/gitwire"
source "$root/Tools/daemon.sh"
trap 'set +e; cleanup_work' EXIT
start_work client-cpu
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
make_many_refs "$work/many.git" 6000
git init -q --bare "$work/clone.git"
cp "$pack" "$work/clone.git/objects/pack/pack-bench.pack"
git -C "$work/clone.git" index-pack "$work/clone.git/objects/pack/pack-bench.pack" >/dev/null
git -C "$work/clone.git" update-ref refs/heads/master "$tip"
start_daemon many.git 1800
cd "$work"
for v in 0 2; do
    echo -n "ls-remote v$v, 6001 refs: "
    python3 "$root/Tools/cpu-alternate.py" "$blocks" 10 -- "$gitwire" ls-remote --protocol-version=$v \
        "git://127.0.0.1:$port/many.git" -- "$baseline" ls-remote --protocol-version=$v "git://127.0.0.1:$port/many.git"
done
echo -n "clone --bare ($(git -C clone.git count-objects -v | awk '/in-pack/ {print $2}') objects): "
python3 "$root/Tools/cpu-alternate.py" "$blocks" 1 -- sh -c "rm -rf a.git; $gitwire clone -q --bare git://127.0.0.1:$port/clone.git a.git" \
    -- sh -c "rm -rf b.git; $baseline clone -q --bare git://127.0.0.1:$port/clone.git b.git"
[ "$(git -C a.git for-each-ref)" = "$(git -C b.git for-each-ref)" ] || { echo "the clones differ" >&2; exit 1; }
