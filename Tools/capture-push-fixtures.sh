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
# Sessions (`Tools/capture-push-fixtures.sh sessions`; both kinds when no argument is given),
# replayable through the whole engine with no network, in Fixtures/push/sessions/:
#   <transport>-v<N>-<case>.session      `gitwire push --record`, straight to the server
#   git-<transport>-v<N>-<case>.session  real `git push` through `gitwire record-proxy`
#   <transport>-v<N>-<case>.expected     what that `git push` printed (the .expected format of
#                                        Fixtures/README.md), for the same server state
# <transport> is `daemon` (git daemon --enable=receive-pack) or `http` (git http-backend with
# http.receivepack behind Tools/git-http-server.py); <N> is protocol version 0 or 1; <case> is a
# new branch into an empty repository, a fast-forward with a thin pack, a deletion, --atomic with
# one ref declined by the update hook, a pre-receive hook that declines with `remote:` lines,
# push options, and (smart HTTP only) a pack larger than http.postBuffer: git's probe request
# (a lone flush) first, then the commands and the pack in a chunked request. The server repository is made again before each push, so every push meets
# the same state. Like Tools/capture-fixtures.sh, this part runs in a private network namespace
# (`unshare -rn`), so git:// and http:// URLs carry no port and no port ends up in a fixture.
# gitwire's own sessions come out byte for byte the same on every run (its pack too: see
# PackWriterDeterminismTests); git's differ only where receive-pack's packets are cut by timing.
#
# Usage: Tools/capture-push-fixtures.sh [raw|sessions]   (raw captures: protocol v0 unless
# PROTOCOL is set for a capture; sessions: builds gitwire first, or GITWIRE=<binary>)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
mode=${1:-all}
case $mode in all | raw | sessions | sessions-in-namespace) ;; *) echo "usage: $0 [raw|sessions]" >&2; exit 2 ;; esac

# The push sessions (run inside the private network namespace; $GITWIRE is the gitwire binary).
capture_sessions() {
    ip link set lo up
    local gitwire=$GITWIRE
    local out="$root/Fixtures/push/sessions"
    # Global: the EXIT trap needs them after this function has returned.
    work=$(mktemp -d /tmp/gitwire-push-sessions.XXXXXX)
    pids=()
    # shellcheck disable=SC2317
    stop_all() {
        for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
        wait 2>/dev/null || true
        pids=()
    }
    trap 'stop_all; rm -rf "$work"' EXIT
    mkdir -p "$out" "$work/served"
    rm -f "$out"/*.session "$out"/*.expected

    export GIT_AUTHOR_NAME="A U Thor" GIT_AUTHOR_EMAIL=author@example.com
    export GIT_COMMITTER_NAME="C O Mitter" GIT_COMMITTER_EMAIL=committer@example.com
    export GIT_AUTHOR_DATE="1700300000 +0000" GIT_COMMITTER_DATE="1700300000 +0000"
    export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null HOME=/nonexistent LC_ALL=C TZ=UTC

    # The pushing repository (fixed dates: the same object ids on every run).
    local local_repo=$work/local
    bash "$root/Tools/make-push-repository.sh" "$local_repo"

    # The server's repository for <case>, made again from nothing.
    reset_server() {
        local served=$work/served/push.git
        rm -rf "$served"
        git init -q --bare --initial-branch=main "$served"
        git -C "$served" config http.receivepack true
        touch "$served/git-daemon-export-ok"
        [ "$1" = new-branch-empty ] && return
        git -C "$local_repo" push -q "$served" main~1:refs/heads/main
        case $1 in
            delete) git -C "$local_repo" push -q "$served" main~1:refs/heads/old ;;
            atomic-rejected)
                printf '#!/bin/sh\ncase "$1" in refs/heads/blocked) echo "update: $1 is blocked" >&2; exit 1;; esac\nexit 0\n' \
                    >"$served/hooks/update"
                chmod +x "$served/hooks/update"
                ;;
            pre-receive-declines)
                printf '#!/bin/sh\necho "pre-receive: checking"\necho "pre-receive: declined, \\033[31mno\\033[0m"\nexit 1\n' \
                    >"$served/hooks/pre-receive"
                chmod +x "$served/hooks/pre-receive"
                ;;
            push-options)
                git -C "$served" config receive.advertisePushOptions true
                printf '#!/bin/sh\necho "options: $GIT_PUSH_OPTION_COUNT"\ni=0\nwhile [ $i -lt "$GIT_PUSH_OPTION_COUNT" ]; do eval "echo \\"option $i: \\$GIT_PUSH_OPTION_$i\\""; i=$((i + 1)); done\n' \
                    >"$served/hooks/pre-receive"
                chmod +x "$served/hooks/pre-receive"
                ;;
        esac
    }
    # The push arguments of <case> (after the URL: refspecs; before it: options).
    local cases=(new-branch-empty fast-forward-thin delete atomic-rejected pre-receive-declines push-options large-probe)
    options_of() {
        case $1 in
            atomic-rejected) echo "--atomic" ;;
            push-options) echo "-o ci.skip -o note=two.words" ;;
        esac
    }
    refspecs_of() {
        case $1 in
            delete) echo ":old" ;;
            atomic-rejected) echo "main main:blocked" ;;
            pre-receive-declines) echo "main feature" ;;
            large-probe) echo "large" ;;
            *) echo "main" ;;
        esac
    }
    wait_for() { # <file> <pattern>: up to 30 s (a debug build starts slowly on a loaded machine)
        for _ in $(seq 600); do
            grep -q "$2" "$1" 2>/dev/null && return
            sleep 0.05
        done
        echo "timed out waiting for $2 in $1" >&2
        exit 1
    }
    start_servers() { # <git daemon port> <http port>
        timeout 900 git daemon --reuseaddr --listen=127.0.0.1 --port="$1" --base-path="$work/served" \
            --enable=receive-pack "$work/served" 2>/dev/null &
        pids+=($!)
        rm -f "$work/http-port"
        timeout 900 python3 "$root/Tools/git-http-server.py" --root "$work/served" --port "$2" \
            --port-file "$work/http-port" 2>/dev/null &
        pids+=($!)
        reset_server new-branch-empty
        for _ in $(seq 200); do
            git ls-remote "git://127.0.0.1:$1/push.git" >/dev/null 2>&1 && [ -s "$work/http-port" ] && return
            sleep 0.05
        done
        echo "the servers did not start" >&2
        exit 1
    }
    local transport version name url
    # gitwire's own sessions: straight to the servers on the default ports.
    start_servers 9418 80
    for transport in daemon http; do
        [ "$transport" = daemon ] && url=git://127.0.0.1/push.git || url=http://127.0.0.1/git/push.git
        for version in 0 1; do
            for name in "${cases[@]}"; do
                # Only smart HTTP has a probe request (git daemon takes the same pack as any other).
                [ "$name" = large-probe ] && [ "$transport" = daemon ] && continue
                reset_server "$name"
                # shellcheck disable=SC2046
                (cd "$local_repo" && "$gitwire" push --protocol-version=$version \
                    --record="$out/$transport-v$version-$name.session" $(options_of "$name") "$url" \
                    $(refspecs_of "$name") >/dev/null 2>&1) || true
                echo "captured push/sessions/$transport-v$version-$name" >&2
            done
        done
    done
    stop_all
    # Real git through `gitwire record-proxy` on the default ports, the servers behind it.
    start_servers 9419 8080
    local upstream
    for transport in daemon http; do
        if [ "$transport" = daemon ]; then
            url=git://127.0.0.1/push.git listen=127.0.0.1:9418 upstream=git://127.0.0.1:9419
        else
            url=http://127.0.0.1/git/push.git listen=127.0.0.1:80 upstream=http://127.0.0.1:8080
        fi
        for version in 0 1; do
            for name in "${cases[@]}"; do
                [ "$name" = large-probe ] && [ "$transport" = daemon ] && continue
                reset_server "$name"
                rm -rf "$work/proxy" "$work/proxy.log"
                "$gitwire" record-proxy --listen="$listen" --upstream="$upstream" --out="$work/proxy" \
                    --connections=1 --idle-timeout=60 2>"$work/proxy.log" &
                local proxy=$!
                wait_for "$work/proxy.log" listening
                local status=0
                # shellcheck disable=SC2046
                git -C "$local_repo" -c protocol.version=$version push $(options_of "$name") "$url" \
                    $(refspecs_of "$name") >"$work/stdout" 2>"$work/stderr" || status=$?
                wait "$proxy"
                mv "$work/proxy/connection-001.session" "$out/git-$transport-v$version-$name.session"
                {
                    printf 'git-exit-status %d\ngit-stderr-bytes %d\ngit-stdout-bytes %d\n' \
                        "$status" "$(wc -c <"$work/stderr")" "$(wc -c <"$work/stdout")"
                    cat "$work/stderr" "$work/stdout"
                } >"$out/$transport-v$version-$name.expected"
                echo "captured push/sessions/git-$transport-v$version-$name" >&2
            done
        done
    done
    echo "push sessions written to $out" >&2
}

if [ "$mode" = sessions-in-namespace ]; then
    capture_sessions
    exit 0
fi
if [ "$mode" = all ] || [ "$mode" = sessions ]; then
    # The sessions, in a private network namespace (port 9418 and 80 free there).
    (
        source "$root/Tools/lib.sh"
        build_gitwire
        unshare -rn env GITWIRE="$gitwire" bash "$0" sessions-in-namespace
    )
    [ "$mode" = sessions ] && exit 0
fi
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

# make_local <name> [object format]: the repository pushed from, three commits with fixed dates,
# a branch and an annotated tag, so that object ids are the same on every capture.
make_local() {
    git init -q --initial-branch=main --object-format="${2:-sha1}" "$work/$1"
    for i in 1 2 3; do
        echo "version $i" >"$work/$1/file.txt"
        git -C "$work/$1" add file.txt
        GIT_COMMITTER_DATE="$((1700000000 + i)) +0000" git -C "$work/$1" commit -q -m "commit $i"
    done
    git -C "$work/$1" branch feature HEAD~1
    git -C "$work/$1" tag -a -m "version one" v1 HEAD~2
}
make_local local

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
make_local local256 sha256
git init -q --bare --initial-branch=main --object-format=sha256 "$work/empty256.git"
LOCAL=local256 capture sha256-new-branch-empty "$work/empty256.git" main
git init -q --bare --initial-branch=main --object-format=sha256 "$work/served256.git"
git -C "$work/local256" push -q "$work/served256.git" HEAD~1:refs/heads/main HEAD~1:refs/heads/old
LOCAL=local256 capture sha256-update "$work/served256.git" main feature v1 :old
