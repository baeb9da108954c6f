#!/usr/bin/env bash
# The main job, end to end on a fresh machine: installs what is needed, builds gitwire, makes a
# throwaway repository, serves it with `git daemon` on 127.0.0.1 (stopped on exit, and after 120 s
# at the latest), and lists its refs with `gitwire ls-remote --symref`, then with git for comparison.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
setup_machine
build_gitwire
start_work demo

export GIT_AUTHOR_NAME=Demo GIT_AUTHOR_EMAIL=demo@example.com GIT_COMMITTER_NAME=Demo
export GIT_COMMITTER_EMAIL=demo@example.com
git init -q --initial-branch=main "$work/demo"
for i in 1 2 3; do
    echo "change $i" >"$work/demo/file.txt"
    git -C "$work/demo" add file.txt
    git -C "$work/demo" commit -q -m "commit $i"
done
git -C "$work/demo" branch feature HEAD~1
git -C "$work/demo" tag -a -m "first release" v1.0 HEAD~2
git -C "$work/demo" tag light HEAD
git clone -q --bare "$work/demo" "$work/demo.git"

start_daemon demo.git 120

url="git://127.0.0.1:$port/demo.git"
echo "\$ gitwire ls-remote --symref $url"
"$gitwire" ls-remote --symref "$url"
echo
echo "\$ git ls-remote --symref $url"
git ls-remote --symref "$url"
