#!/usr/bin/env bash
# Captures real `git push` sessions for PushExchange's unit tests into Fixtures/push/.
#
# Each push runs through a --receive-pack wrapper that copies both directions byte for byte:
#   <name>.client   what git push sent (commands, push options, pack)
#   <name>.server   what git-receive-pack answered (advertisement, band 2 messages, report)
#   <name>.expected what git push printed (stderr, then stdout after a line "--- stdout") and its
#                   exit status (last line "--- exit <n>")
# Repositories are built with fixed names and dates, so object ids are the same on every run.
# Everything is local (file paths); no network is used.
#
# Usage: Tools/capture-push-fixtures.sh   (protocol v0 unless PROTOCOL is set for a capture)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out="$root/Fixtures/push"
work=$(mktemp -d /tmp/gitwire-push-capture.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"

export GIT_AUTHOR_NAME="A U Thor" GIT_AUTHOR_EMAIL=author@example.com
export GIT_COMMITTER_NAME="C O Mitter" GIT_COMMITTER_EMAIL=committer@example.com
export GIT_AUTHOR_DATE="1700300000 +0000" GIT_COMMITTER_DATE="1700300000 +0000"
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null HOME=/nonexistent LC_ALL=C TZ=UTC

cat >"$work/wrap.sh" <<'WRAP'
#!/bin/sh
# $1: the repository path git appends.
tee "$CAPTURE.client" | git-receive-pack "$1" | tee "$CAPTURE.server"
WRAP
chmod +x "$work/wrap.sh"

# capture <name> <git push arguments...>: run from the local repository $work/local (or $work/$LOCAL).
capture() {
    local name=$1
    shift
    set +e
    CAPTURE="$out/$name" git -c protocol.version="${PROTOCOL:-0}" -C "$work/${LOCAL:-local}" push --receive-pack="$work/wrap.sh" "$@" \
        >"$work/stdout" 2>"$work/stderr"
    local status=$?
    set -e
    { cat "$work/stderr"; echo "--- stdout"; cat "$work/stdout"; echo "--- exit $status"; } | sed "s|$work/|/tmp/push-capture/|g" >"$out/$name.expected"
}

git init -q --initial-branch=main "$work/local"
for i in 1 2 3; do
    echo "version $i" >"$work/local/file.txt"
    git -C "$work/local" add file.txt
    GIT_COMMITTER_DATE="$((1700000000 + i)) +0000" git -C "$work/local" commit -q -m "commit $i"
done
git -C "$work/local" branch feature HEAD~1
git -C "$work/local" tag -a -m "version one" v1 HEAD~2

# An empty repository: the capabilities^{} line; hooks that print on both hook stages.
git init -q --bare --initial-branch=main "$work/empty.git"
printf '#!/bin/sh\necho "pre-receive: checking"\nexit 0\n' >"$work/empty.git/hooks/pre-receive"
printf '#!/bin/sh\necho "post-receive: \\033[31mdone\\033[0m"\n' >"$work/empty.git/hooks/post-receive"
chmod +x "$work/empty.git/hooks/pre-receive" "$work/empty.git/hooks/post-receive"
capture new-branch-empty "$work/empty.git" main

# Push to a repository that has main: a fast-forward, a new branch, a tag, with -o options.
git init -q --bare --initial-branch=main "$work/served.git"
git -C "$work/served.git" config receive.advertisePushOptions true
git -C "$work/local" push -q "$work/served.git" HEAD~1:refs/heads/main HEAD~1:refs/heads/old
capture update-options "$work/served.git" -o ci.skip -o "note=two words" main feature v1 :old

# A pre-receive hook that declines; an update hook that rejects one ref with an escape sequence.
git init -q --bare --initial-branch=main "$work/hooked.git"
git -C "$work/local" push -q "$work/hooked.git" HEAD~2:refs/heads/main
printf '#!/bin/sh\ncase "$1" in refs/heads/blocked) printf "update: no \\033]0;title\\007 here\\n" >&2; exit 1;; esac\nexit 0\n' \
    >"$work/hooked.git/hooks/update"
chmod +x "$work/hooked.git/hooks/update"
capture update-hook-rejects "$work/hooked.git" main main:blocked
printf '#!/bin/sh\necho "pre-receive: declined"\nexit 1\n' >"$work/hooked.git/hooks/pre-receive"
chmod +x "$work/hooked.git/hooks/pre-receive"
capture pre-receive-declines "$work/hooked.git" feature

# Protocol v1 and --atomic with -q.
git init -q --bare --initial-branch=main "$work/v1.git"
PROTOCOL=1 capture v1-atomic-quiet "$work/v1.git" --atomic -q main feature

# A SHA-256 repository (git init --object-format=sha256) pushed to SHA-256 ones: the empty
# repository's capabilities^{} line with a 64-digit zero id, and an update of an existing one
# (a fast-forward, a new branch, a tag, a deletion), commands with object-format=sha256.
git init -q --initial-branch=main --object-format=sha256 "$work/local256"
for i in 1 2 3; do
    echo "version $i" >"$work/local256/file.txt"
    git -C "$work/local256" add file.txt
    GIT_COMMITTER_DATE="$((1700000000 + i)) +0000" git -C "$work/local256" commit -q -m "commit $i"
done
git -C "$work/local256" branch feature HEAD~1
git -C "$work/local256" tag -a -m "version one" v1 HEAD~2
git init -q --bare --initial-branch=main --object-format=sha256 "$work/empty256.git"
LOCAL=local256 capture sha256-new-branch-empty "$work/empty256.git" main
git init -q --bare --initial-branch=main --object-format=sha256 "$work/served256.git"
git -C "$work/local256" push -q "$work/served256.git" HEAD~1:refs/heads/main HEAD~1:refs/heads/old
LOCAL=local256 capture sha256-update "$work/served256.git" main feature v1 :old
