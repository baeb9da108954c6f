#!/usr/bin/env bash
# Builds the packs index-pack is measured on (Documentation/Performance.md, the README's table),
# three of each repository:
#   <name>-clone.pack   the pack `git clone --bare` receives from `git daemon` (offset deltas,
#                       the server's delta choices, reused from its own packs)
#   <name>-repack.pack  that clone after `git repack -adf` (every delta searched again)
#   <name>-ref.pack     the clone's objects as `git pack-objects` writes them without
#                       --delta-base-offset: every delta names its base by object id
# Each repository is served from its own folder by `git daemon` on 127.0.0.1, which stops by itself
# after a bounded lifetime. The packs are written outside the package (default /tmp/idxpacks).
#
# Usage: Tools/make-index-pack-corpus.sh [output folder=/tmp/idxpacks] [<name>=<bare repository>...]
# Without repositories: git=, libgit2=, swift-nio= and dulwich= from /work/.mirror (bare mirrors
# made by the `fetch` tool), or MIRRORS=<folder> where <owner>+<name>/repo lies.
# CLONE_ONLY=1 makes only the <name>-clone.pack of each (git.git's repack and reference-delta
# packs cost most of the script's CPU time).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
corpus=${1:-/tmp/idxpacks}
shift || true
mirrors=${MIRRORS:-/work/.mirror}
repositories=("$@")
if [ ${#repositories[@]} -eq 0 ]; then
    repositories=("git=$mirrors/git+git/repo" "libgit2=$mirrors/libgit2+libgit2/repo"
        "swift-nio=$mirrors/apple+swift-nio/repo" "dulwich=$mirrors/jelmer+dulwich/repo")
fi
mkdir -p "$corpus"
corpus=$(realpath "$corpus")
start_work index-pack-corpus
export GIT_CEILING_DIRECTORIES="$work"
# The server's delta search on one thread too (objects whose deltas it cannot reuse are searched
# again, and threads split that search differently from run to run): git -c passes this on to
# git daemon's upload-pack and pack-objects.
export GIT_CONFIG_PARAMETERS="'pack.threads=1'"

for entry in "${repositories[@]}"; do
    name=${entry%%=*}
    source_repository=$(realpath "${entry#*=}")
    echo "== $name ($source_repository)" >&2
    # git daemon serves what lies under its base path: a link to the mirror.
    ln -sfn "$source_repository" "$work/$name.git"
    start_daemon "$name.git" 1800
    rm -rf "$work/clone-$name.git"
    git clone -q --bare "git://127.0.0.1:$port/$name.git" "$work/clone-$name.git"
    stop_process "$daemon"
    packs=("$work/clone-$name.git"/objects/pack/pack-*.pack)
    [ ${#packs[@]} -eq 1 ] || { echo "expected one pack in the clone of $name" >&2; exit 1; }
    cp "${packs[0]}" "$corpus/$name-clone.pack"
    if [ "${CLONE_ONLY:-0}" = 1 ]; then
        rm -rf "$work/clone-$name.git"
        continue
    fi
    # Reference deltas: the clone's objects, deltas reused but naming their bases by id.
    git -C "$work/clone-$name.git" pack-objects --all --revs --stdout -q </dev/null >"$corpus/$name-ref.pack"
    # Different delta choices: every delta searched again (git's default window and depth), on one
    # thread so that the pack is the same from run to run (threads split the search differently).
    git -C "$work/clone-$name.git" repack -adf -q --threads=1
    packs=("$work/clone-$name.git"/objects/pack/pack-*.pack)
    [ ${#packs[@]} -eq 1 ] || { echo "expected one pack in $name after repack" >&2; exit 1; }
    cp "${packs[0]}" "$corpus/$name-repack.pack"
    rm -rf "$work/clone-$name.git"
done
for pack in "$corpus"/*.pack; do
    objects=$(od -An -tu1 -j8 -N4 "$pack" | awk '{print ($1*16777216)+($2*65536)+($3*256)+$4}')
    printf '%s\t%s objects\t%s\n' "$(basename "$pack")" "$objects" "$(du -h "$pack" | cut -f1)"
done
