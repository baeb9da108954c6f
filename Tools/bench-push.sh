#!/usr/bin/env bash
# Benchmarks `gitwire push` against `git push` (2.39) side by side, with hyperfine:
#   1. whole history: the default branch of a copy of the repository pushed to an empty bare
#      repository over file:// and over git:// (git daemon --enable=receive-pack); the empty
#      repository is made again before every run (hyperfine --prepare, not timed).
#   2. 50 commits: the same repository with its last 50 commits unpacked into loose objects (as
#      they are after being committed), pushed to a server that has the history before them.
# Peak memory: /usr/bin/time -f %M over one push each (the largest process: git's pack-objects
# child, or gitwire; receive-pack on the server side is the same program for both, and over
# file:// it is a child of the client, so it counts for both). Pack sizes: the packs the two
# clients send, made by `git pack-objects` and `gitwire pack-objects` with the same options as
# push uses (--revs --delta-base-offset, and --thin for 2). Writes hyperfine's JSON and the
# tables to .build/bench/push/.
#
# gitwire is the README's build (Tools/lib.sh).
#
# Usage: Tools/bench-push.sh [repository=/work/.mirror/curl+curl/repo] [runs=3]
set -euo pipefail
source "$(dirname "$0")/lib.sh"

source_repository=${1:-/work/.mirror/curl+curl/repo}
runs=${2:-3}
[ -d "$source_repository" ] || { echo "usage: $0 [repository] [runs]: no repository at $source_repository" >&2; exit 2; }
setup_machine
build_gitwire
bench_out push
start_work bench-push
note() { echo "[$(date +%T)] $*" >&2; }

note "copying $source_repository (git clone --bare --no-local)"
git clone -q --bare --no-local "$source_repository" "$work/local.git"
branch=$(git -C "$work/local.git" symbolic-ref --short HEAD)
objects=$(git -C "$work/local.git" rev-list --objects "$branch" | wc -l)

# 2: the history before the last 50 commits packed, the 50 loose; the server has the history.
git init -q --bare "$work/local50.git"
git -C "$work/local.git" push -q "$work/local50.git" "$branch~50:refs/heads/$branch"
printf '%s\n^%s~50\n' "$branch" "$branch" | git -C "$work/local.git" pack-objects --revs --stdout -q |
    git -C "$work/local50.git" unpack-objects -q
git -C "$work/local50.git" update-ref "refs/heads/$branch" "$(git -C "$work/local.git" rev-parse "$branch")"
git -C "$work/local50.git" symbolic-ref HEAD "refs/heads/$branch"
git init -q --bare "$work/server50.git"
git -C "$work/local.git" push -q "$work/server50.git" "$branch~50:refs/heads/$branch"

git init -q --bare "$work/empty.git"
start_daemon empty.git $((1800 + runs * 1200)) --enable=receive-pack
note "gitwire: $gitwire; $runs runs each; $(machine_line)"

whole="rm -rf $work/empty.git $work/s.git && git init -q --bare $work/empty.git && git init -q --bare $work/s.git"
fifty="rm -rf $work/s.git && cp -a $work/server50.git $work/s.git"
hyperfine_run "$out/push.json" --runs "$runs" \
    --prepare "$whole" -n "git whole history, file://" "git -C $work/local.git push -q file://$work/s.git $branch" \
    --prepare "$whole" -n "gitwire whole history, file://" \
    "cd $work/local.git && $gitwire push -q file://$work/s.git $branch" \
    --prepare "$whole" -n "git whole history, git://" \
    "git -C $work/local.git push -q git://127.0.0.1:$port/empty.git $branch" \
    --prepare "$whole" -n "gitwire whole history, git://" \
    "cd $work/local.git && $gitwire push -q git://127.0.0.1:$port/empty.git $branch" \
    --prepare "$fifty" -n "git 50 commits, file://" "git -C $work/local50.git push -q file://$work/s.git $branch" \
    --prepare "$fifty" -n "gitwire 50 commits, file://" \
    "cd $work/local50.git && $gitwire push -q file://$work/s.git $branch"

memory="$out/memory.tsv"
: >"$memory"
for client in git gitwire; do
    command=(git -C "$work/local.git" push -q "file://$work/s.git" "$branch")
    command50=(git -C "$work/local50.git" push -q "file://$work/s.git" "$branch")
    if [ "$client" = gitwire ]; then
        command=(env GIT_DIR="$work/local.git" "$gitwire" push -q "file://$work/s.git" "$branch")
        command50=(env GIT_DIR="$work/local50.git" "$gitwire" push -q "file://$work/s.git" "$branch")
    fi
    bash -c "$whole"
    peak_rss "$memory" "$client whole history, file://" "${command[@]}"
    bash -c "$fifty"
    peak_rss "$memory" "$client 50 commits, file://" "${command50[@]}"
done

sizes() {
    local git_dir=$1 thin=$2 revisions=$3 ours theirs
    theirs=$(printf "$revisions" | git -C "$git_dir" pack-objects --revs --stdout -q --delta-base-offset $thin | wc -c)
    ours=$(printf "$revisions" | GIT_DIR="$git_dir" "$gitwire" pack-objects --revs --stdout -q --delta-base-offset $thin | wc -c)
    echo "| $4 | $theirs | $ours | $(python3 -c "print('%.3f' % ($ours / $theirs))") |"
}
{
    echo "repository: $source_repository ($objects objects on $branch); $(machine_line)"
    echo
    bench_table "$out/push.json" "$memory"
    echo
    echo "| pack sent | git bytes | gitwire bytes | ratio |"
    echo "| --- | --- | --- | --- |"
    sizes "$work/local.git" "" "$branch\n" "whole history"
    # gitwire pack-objects reads ids and ref names, not revision expressions.
    sizes "$work/local50.git" --thin "$branch\n^$(git -C "$work/local50.git" rev-parse "$branch~50")\n" \
        "50 commits (thin)"
} | tee "$out/table.md"
