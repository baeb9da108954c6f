#!/usr/bin/env bash
# Makes the repository the push sessions of Fixtures/push/sessions were pushed from, at <dir>:
# main (3 commits; big.txt changes one line of 200 in each, so that a fast-forward's blob is a
# delta against the server's: a thin pack) and feature at main~1. Fixed names and dates: the
# object ids are the same on every run. Tools/capture-push-fixtures.sh pushes from it, and the
# replay tests make it again to push the same objects with no network.
#
# Usage: Tools/make-push-repository.sh <dir>
set -euo pipefail
dir=$1
export GIT_AUTHOR_NAME="A U Thor" GIT_AUTHOR_EMAIL=author@example.com
export GIT_COMMITTER_NAME="C O Mitter" GIT_COMMITTER_EMAIL=committer@example.com
export GIT_AUTHOR_DATE="1700300000 +0000"
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null HOME=/nonexistent LC_ALL=C TZ=UTC
git init -q --initial-branch=main "$dir"
for i in 1 2 3; do
    echo "version $i" >"$dir/file.txt"
    seq 1 200 | sed "s/^$((i * 50))\$/line $((i * 50)) changed in commit $i/" >"$dir/big.txt"
    git -C "$dir" add file.txt big.txt
    GIT_COMMITTER_DATE="$((1700000000 + i)) +0000" git -C "$dir" commit -q -m "commit $i"
done
git -C "$dir" branch feature HEAD~1
git -C "$dir" config pack.threads 1
