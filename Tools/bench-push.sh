#!/usr/bin/env bash
# Benchmarks `gitwire push` against `git push` (2.39) side by side, with hyperfine:
#   1. whole history: the default branch of a copy of the repository pushed to an empty bare
#      repository over file:// and over git:// (git daemon --enable=receive-pack); the empty
#      repository is made again before every run (hyperfine --prepare, not timed).
#   2. 50 commits: the same repository with its last 50 commits unpacked into loose objects (as
#      they are after being committed), pushed to a server that has the history before them.
#   4. alternates (PUSH_CASES=alternates; not in the default set): the whole branch pushed to an
#      empty bare repository that borrows the history before the last 50 commits through
#      objects/info/alternates (receive-pack advertises it as `.have` lines): both clients send
#      only the 50 commits. The bytes each sends are read on the way (a receive-pack that copies
#      its input to a file first).
#   3. all loose: a repository of about 30,000 loose objects (3,700 commits of text files,
#      written by Tools/make-loose-repo.py, always the same), pushed whole to an empty bare
#      repository over file://, and packed alone (`pack-objects --revs --stdout` to /dev/null);
#      both clients with the same delta window and depth (git's defaults, 10 and 50).
# The floor of 1 and 3: Tools/push-floor.py, a client that only streams a pack made beforehand
# (by git pack-objects) to receive-pack: what is left is the server's own work (indexing the
# pack), which every client waits for. CPU time (user + system, the client and its children,
# receive-pack among them over file://) is in a table of its own: wall time on this shared
# machine moves with the load, CPU time much less.
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
#        PUSH_CASES=whole,fifty,loose (the default: those three; alternates too) picks the cases to run;
#        BASELINE=<binary> runs an earlier build too ("baseline <what>" rows).
set -euo pipefail
source "$(dirname "$0")/lib.sh"

source_repository=${1:-/work/.mirror/curl+curl/repo}
runs=${2:-3}
cases=${PUSH_CASES:-whole,fifty,loose}
has_case() { [[ ",$cases," == *",$1,"* ]]; }
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
tip=$(git -C "$work/local.git" rev-parse "$branch")
if has_case whole; then
    git -C "$work/local.git" pack-objects --revs --stdout -q --delta-base-offset <<<"$branch" >"$work/whole.pack"
fi
commands=()
if has_case whole; then
    commands+=(--prepare "$whole" -n "git whole history, file://" "git -C $work/local.git push -q file://$work/s.git $branch"
        --prepare "$whole" -n "gitwire whole history, file://"
        "cd $work/local.git && $gitwire push -q file://$work/s.git $branch"
        --prepare "$whole" -n "floor whole history, file://"
        "python3 $root/Tools/push-floor.py $work/s.git $work/whole.pack refs/heads/$branch $tip"
        --prepare "$whole" -n "git whole history, git://"
        "git -C $work/local.git push -q git://127.0.0.1:$port/empty.git $branch"
        --prepare "$whole" -n "gitwire whole history, git://"
        "cd $work/local.git && $gitwire push -q git://127.0.0.1:$port/empty.git $branch")
fi
if has_case fifty; then
    commands+=(--prepare "$fifty" -n "git 50 commits, file://" "git -C $work/local50.git push -q file://$work/s.git $branch"
        --prepare "$fifty" -n "gitwire 50 commits, file://"
        "cd $work/local50.git && $gitwire push -q file://$work/s.git $branch")
fi
if has_case alternates; then
    alternates="rm -rf $work/s.git && git init -q --bare $work/s.git && echo $work/server50.git/objects >$work/s.git/objects/info/alternates"
    commands+=(--prepare "$alternates" -n "git alternates, file://" "git -C $work/local.git push -q file://$work/s.git $branch"
        --prepare "$alternates" -n "gitwire alternates, file://"
        "cd $work/local.git && $gitwire push -q file://$work/s.git $branch")
fi
if has_case loose; then
    # 3: every object loose, as after `git add` and `git commit` without a gc (gc.auto=0).
    git init -q --bare "$work/gen.git"
    python3 "$root/Tools/make-loose-repo.py" 3700 | git -C "$work/gen.git" fast-import --quiet
    git init -q --bare "$work/loose.git"
    git -C "$work/loose.git" config gc.auto 0
    git -C "$work/gen.git" pack-objects --all --stdout -q --window=0 </dev/null | git -C "$work/loose.git" unpack-objects -q
    git -C "$work/loose.git" update-ref refs/heads/main "$(git -C "$work/gen.git" rev-parse main)"
    git -C "$work/loose.git" symbolic-ref HEAD refs/heads/main
    loose_objects=$(git -C "$work/loose.git" count-objects -v | sed -n 's/^count: //p')
    loose_tip=$(git -C "$work/loose.git" rev-parse main)
    git -C "$work/loose.git" pack-objects --revs --stdout -q --delta-base-offset <<<main >"$work/loose.pack"
    commands+=(--prepare "$whole" -n "git all loose, push file://" "git -C $work/loose.git push -q file://$work/s.git main"
        --prepare "$whole" -n "gitwire all loose, push file://"
        "cd $work/loose.git && $gitwire push -q file://$work/s.git main"
        --prepare "$whole" -n "floor all loose, push file://"
        "python3 $root/Tools/push-floor.py $work/s.git $work/loose.pack refs/heads/main $loose_tip"
        --prepare true -n "git all loose, pack-objects"
        "echo main | git -C $work/loose.git pack-objects --revs --stdout -q --delta-base-offset --window=10 --depth=50 >/dev/null"
        --prepare true -n "gitwire all loose, pack-objects"
        "echo main | GIT_DIR=$work/loose.git $gitwire pack-objects --revs --stdout -q --delta-base-offset >/dev/null")
fi
# hyperfine takes one --prepare for all commands or one for each: every command has one.
# BASELINE=<binary>: an earlier build in the same runs, as "baseline <what>" next to each gitwire
# command (before/after figures from one run).
if [ -n "${BASELINE:-}" ]; then
    with_baseline=()
    for ((i = 0; i < ${#commands[@]}; i++)); do
        with_baseline+=("${commands[$i]}")
        if [ "${commands[$i]}" = -n ] && [[ "${commands[$((i + 1))]}" == gitwire\ * ]]; then
            prepare=(--prepare "${commands[$((i - 1))]}")
            baseline_command=${commands[$((i + 2))]//$gitwire/$BASELINE}
            with_baseline+=("${commands[$((i + 1))]}" "${commands[$((i + 2))]}"
                "${prepare[@]}" -n "baseline ${commands[$((i + 1))]#gitwire }" "$baseline_command")
            i=$((i + 2))
        fi
    done
    commands=("${with_baseline[@]}")
fi
hyperfine_run "$out/push.json" --runs "$runs" "${commands[@]}"

memory="$out/memory.tsv"
: >"$memory"
for client in git gitwire; do
    command=(git -C "$work/local.git" push -q "file://$work/s.git" "$branch")
    command50=(git -C "$work/local50.git" push -q "file://$work/s.git" "$branch")
    commandloose=(git -C "$work/loose.git" push -q "file://$work/s.git" main)
    if [ "$client" = gitwire ]; then
        command=(env GIT_DIR="$work/local.git" "$gitwire" push -q "file://$work/s.git" "$branch")
        command50=(env GIT_DIR="$work/local50.git" "$gitwire" push -q "file://$work/s.git" "$branch")
        commandloose=(env GIT_DIR="$work/loose.git" "$gitwire" push -q "file://$work/s.git" main)
    fi
    if has_case whole; then
        bash -c "$whole"
        peak_rss "$memory" "$client whole history, file://" "${command[@]}"
    fi
    if has_case fifty; then
        bash -c "$fifty"
        peak_rss "$memory" "$client 50 commits, file://" "${command50[@]}"
    fi
    if has_case loose; then
        bash -c "$whole"
        peak_rss "$memory" "$client all loose, push file://" "${commandloose[@]}"
    fi
    if has_case alternates; then
        bash -c "$alternates"
        peak_rss "$memory" "$client alternates, file://" "${command[@]}"
    fi
done

# 4: the pack each client sends to the server with alternates, read on the way.
sent_pack_bytes() {
    local copier="$work/copying-receive-pack"
    printf '#!/bin/sh\ntee "%s" | git-receive-pack "$@"\n' "$work/sent" >"$copier"
    chmod +x "$copier"
    bash -c "$alternates"
    if [ "$1" = git ]; then
        git -C "$work/local.git" push -q --receive-pack="$copier" "file://$work/s.git" "$branch"
    else
        (cd "$work/local.git" && "$gitwire" push -q --receive-pack="$copier" "file://$work/s.git" "$branch")
    fi
    python3 -c 'import sys; d = open(sys.argv[1], "rb").read(); i = d.find(b"PACK\0\0\0\2"); print(len(d) - i if i >= 0 else 0, int.from_bytes(d[i + 8:i + 12], "big") if i >= 0 else 0)' "$work/sent"
}

# Mean CPU time (user + system) of each command, and gitwire's over git's.
cpu_table() {
    python3 - "$1" <<'PY'
import json, sys
results = {r.get("command_name") or r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}
print("| CPU time (user + system, mean) | git | gitwire | ratio |")
print("| --- | --- | --- | --- |")
for name, ours in results.items():
    if not name.startswith("gitwire "):
        continue
    what = name[len("gitwire "):]
    git = results.get("git " + what)
    if git is None:
        continue
    a, b = git["user"] + git["system"], ours["user"] + ours["system"]
    floor = results.get("floor " + what)
    extra = " (floor %.2f s)" % (floor["user"] + floor["system"]) if floor else ""
    print("| %s | %.2f s%s | %.2f s | %.2f |" % (what, a, extra, b, b / a))
PY
}

sizes() {
    local git_dir=$1 thin=$2 revisions=$3 git_only=${5:-} ours theirs
    theirs=$(printf "$revisions" | git -C "$git_dir" pack-objects --revs --stdout -q --delta-base-offset $thin $git_only |
        wc -c)
    ours=$(printf "$revisions" | GIT_DIR="$git_dir" "$gitwire" pack-objects --revs --stdout -q --delta-base-offset $thin | wc -c)
    echo "| $4 | $theirs | $ours | $(python3 -c "print('%.3f' % ($ours / $theirs))") |"
}
{
    echo "repository: $source_repository ($objects objects on $branch); $(machine_line)"
    echo
    bench_table "$out/push.json" "$memory"
    echo
    cpu_table "$out/push.json"
    echo
    echo "| pack sent | git bytes | gitwire bytes | ratio |"
    echo "| --- | --- | --- | --- |"
    if has_case whole; then sizes "$work/local.git" "" "$branch\n" "whole history"; fi
    # gitwire pack-objects reads ids and ref names, not revision expressions.
    if has_case fifty; then
        sizes "$work/local50.git" --thin "$branch\n^$(git -C "$work/local50.git" rev-parse "$branch~50")\n" \
            "50 commits (thin)"
    fi
    if has_case alternates; then
        read -r theirs theirs_objects < <(sent_pack_bytes git)
        read -r ours ours_objects < <(sent_pack_bytes gitwire)
        echo "| alternates ($theirs_objects and $ours_objects objects sent) | $theirs | $ours | $(python3 -c "print('%.3f' % ($ours / $theirs))") |"
    fi
    if has_case loose; then
        sizes "$work/loose.git" "" "main\n" "all loose ($loose_objects objects; git --window=10 --depth=50)" \
            "--window=10 --depth=50"
    fi
} | tee "$out/table.md"
