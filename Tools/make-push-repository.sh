#!/usr/bin/env bash
# Makes the repository the push sessions of Fixtures/push/sessions were pushed from, at <dir>:
# main (3 commits; big.txt changes one line of 200 in each, so that a fast-forward's blob is a
# delta against the server's: a thin pack), feature at main~1, and large: main and a commit adding
# 96 KiB of pseudo-random bytes (seeded), which with http.postBuffer at 131072 (set here) makes a push
# over smart HTTP send git's probe request first and the pack chunked (git's rule: a body that does
# not fit in the buffer with a 65520-byte packet to spare), while the other pushes fit. Fixed names and dates: the
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
git -C "$dir" checkout -q -b large
python3 -c 'import random, sys; random.seed(7); sys.stdout.buffer.write(random.randbytes(96 << 10))' >"$dir/large.bin"
git -C "$dir" add large.bin
GIT_COMMITTER_DATE="1700000004 +0000" git -C "$dir" commit -q -m "large"
git -C "$dir" checkout -q main
git -C "$dir" config http.postBuffer 131072
git -C "$dir" config pack.threads 1
