#!/usr/bin/env bash
# Regenerates every fixture in Fixtures/ from real servers started here on loopback.
#
# It runs itself inside a private network namespace (`unshare -rn`), where port 9418 is always
# free: clients connect to git://127.0.0.1/… with no port in the URL, so no port number ends up in
# a fixture. Repositories are built with fixed names and dates, so object ids are the same on every
# run. What changes between runs is only what the servers or clients themselves change (such as
# git's agent string after an upgrade).
#
#   ls-remote/*.session   gitwire ls-remote --record, straight to git daemon (v0, v1, v2)
#   ls-remote/*.expected  what real `git ls-remote` printed for the same command, for the tests
#   fetch/*.session       real `git clone` / `git fetch` through `gitwire record-proxy`
#   ls-remote/http-*      gitwire ls-remote --record over smart HTTP (git http-backend behind
#                         Tools/git-http-server.py on port 80 of the namespace), with git's output
#   http/v*.session       gitwire clone --record over smart HTTP, v0 and v2: the pkt-lines of
#                         every request and response, and each request line and status line
#   http/git-*.session    real `git clone` over smart HTTP through `gitwire record-proxy`
#   ls-remote/sha256-*    the same ls-remote captures of SHA-256 repositories (`git init
#   ls-remote/http-sha256-*   --object-format=sha256`, same content), over git:// and smart HTTP
#   sha256/fetch/*.session  real `git clone`/`git fetch` of a SHA-256 repository through the proxy
#   sha256/http/*.session   gitwire's and real git's clones of a SHA-256 repository over smart HTTP
#
# `Tools/capture-fixtures.sh http` recaptures only the HTTP fixtures.
#
# The ls-remote fixtures come out byte for byte the same on every run. In the fetch fixtures the
# bytes of each side-band stream are the same every time, but how upload-pack cuts them into
# packets depends on pipe timing (it forwards whatever one read of pack-objects' output gave),
# so those packets may be split differently from one run to the next.
#
# Usage: Tools/capture-fixtures.sh      (needs git, unshare and ip; builds gitwire first: the
# README's build from Tools/lib.sh, or GITWIRE=<binary>)
set -euo pipefail

if [ -z "${GITWIRE_CAPTURE_NETNS:-}" ]; then
    source "$(dirname "$0")/lib.sh"
    setup_machine
    build_gitwire
    exec unshare -rn env GITWIRE_CAPTURE_NETNS=1 GITWIRE="$gitwire" bash "$0" "$@"
fi

root=$(cd "$(dirname "$0")/.." && pwd)
ip link set lo up
gitwire=$GITWIRE
work=$(mktemp -d /tmp/gitwire-capture.XXXXXX)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

export GIT_AUTHOR_NAME="A U Thor" GIT_AUTHOR_EMAIL=author@example.com
export GIT_COMMITTER_NAME="C O Mitter" GIT_COMMITTER_EMAIL=committer@example.com
export GIT_AUTHOR_DATE="1700300000 +0000" GIT_COMMITTER_DATE="1700300000 +0000"
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null HOME=/nonexistent LC_ALL=C TZ=UTC

# fast-import input for <count> commits on <branch>, starting at time <t0>.
commits() {
    local count=$1 branch=$2 t0=$3 i
    for ((i = 1; i <= count; i++)); do
        local content="version $i"$'\n'"line $((i % 7))"$'\n'
        printf 'blob\nmark :%d\ndata %d\n%s\n' "$i" "${#content}" "$content"
        printf 'commit %s\nmark :%d\n' "$branch" $((i + 100000))
        printf 'author A U Thor <author@example.com> %d +0000\n' $((t0 + i))
        printf 'committer C O Mitter <committer@example.com> %d +0000\n' $((t0 + i))
        printf 'data 10\ncommit %-3d\n' "$i"
        [ "$i" -gt 1 ] && printf 'from :%d\n' $((i + 99999))
        printf 'M 100644 :%d file-%d.txt\n\n' "$i" $((i % 5))
    done
}

bare() {
    git init -q --bare --initial-branch=main ${OBJECT_FORMAT:+--object-format=$OBJECT_FORMAT} "$work/served/$1"
    git -C "$work/served/$1" config pack.threads 1
}

mkdir -p "$work/served"
# Every repository twice: as below, and (with the prefix sha256-) the same content in a SHA-256
# repository.
make_repositories() {
    local p=$1
    bare ${p}small.git
    {
        commits 12 refs/heads/main 1700000000
        printf 'reset refs/heads/feature\nfrom :100009\n\nreset refs/tags/light\nfrom :100005\n\n'
        printf 'tag v1\nfrom :100010\ntagger C O Mitter <committer@example.com> 1700200000 +0000\ndata 12\nversion one\n\n'
    } | git -C "$work/served/${p}small.git" fast-import --quiet
    git -C "$work/served/${p}small.git" update-ref refs/remotes/origin/main main
    git -C "$work/served/${p}small.git" symbolic-ref refs/remotes/origin/HEAD refs/remotes/origin/main

    bare ${p}many-refs.git
    {
        commits 100 refs/heads/main 1700000000
        for ((i = 0; i < 1000; i++)); do printf 'reset refs/heads/branch-%d\nfrom :%d\n\n' "$i" $((100001 + i % 100)); done
        for ((i = 0; i < 1000; i++)); do printf 'reset refs/tags/light-%d\nfrom :%d\n\n' "$i" $((100001 + i % 100)); done
        for ((i = 0; i < 500; i++)); do
            printf 'tag v1.%d\nfrom :%d\ntagger C O Mitter <committer@example.com> %d +0000\ndata 8\nrelease\n\n' \
                "$i" $((100001 + i % 100)) $((1700100000 + i))
        done
        printf 'reset refs/heads/ünïcödé\nfrom :100003\n\nreset refs/heads/a/b/c/d/e/f/g/h/i/j\nfrom :100004\n\n'
    } | git -C "$work/served/${p}many-refs.git" fast-import --quiet
    git -C "$work/served/${p}many-refs.git" tag -a -m "a tag of a tag" tag-of-tag v1.0
    git -C "$work/served/${p}many-refs.git" tag -a -m "a tag of a tree" tag-of-tree "main^{tree}"

    bare ${p}empty.git
    bare ${p}unborn.git
    commits 3 refs/heads/main 1700000000 | git -C "$work/served/${p}unborn.git" fast-import --quiet
    git -C "$work/served/${p}unborn.git" symbolic-ref HEAD refs/heads/not-yet
    bare ${p}detached.git
    commits 5 refs/heads/main 1700000000 | git -C "$work/served/${p}detached.git" fast-import --quiet
    git -C "$work/served/${p}detached.git" update-ref --no-deref HEAD main~2
    bare ${p}history.git
    commits 40 refs/heads/main 1700000000 | git -C "$work/served/${p}history.git" fast-import --quiet
    git -C "$work/served/${p}history.git" tag -a -m "release one" v1 main~10
    bare ${p}private.git
    commits 2 refs/heads/main 1700000000 | git -C "$work/served/${p}private.git" fast-import --quiet
}
make_repositories ""
OBJECT_FORMAT=sha256 make_repositories sha256-
for repository in "$work"/served/*.git; do
    case $repository in */private.git | */sha256-private.git) ;; *) touch "$repository/git-daemon-export-ok" ;; esac
done

# Serves the repositories in <dir> that have git-daemon-export-ok, on 127.0.0.1:<port>.
serve() {
    timeout 600 git daemon --reuseaddr --listen=127.0.0.1 --port="$2" --base-path="$1" "$1" 2>/dev/null &
    pids+=($!)
    for _ in $(seq 100); do
        git ls-remote "git://127.0.0.1:$2/small.git" >/dev/null 2>&1 && return
        sleep 0.05
    done
    echo "git daemon did not start on port $2" >&2
    exit 1
}

only=${1:-all}
out="$root/Fixtures/ls-remote"
if [ "$only" = all ]; then
    rm -f "$out"/*.session "$out"/*.expected
    serve "$work/served" 9418
fi

# Records `gitwire ls-remote <args>` as <name>.session and what git prints as <name>.expected.
capture_ls_remote() {
    local name=$1 version=$2
    shift 2
    "$gitwire" ls-remote --record="$out/$name.session" --protocol-version="$version" "$@" >/dev/null 2>&1 || true
    local status=0
    git -c protocol.version="$version" ls-remote "$@" >"$work/stdout" 2>"$work/stderr" || status=$?
    {
        printf 'git-exit-status %d\ngit-stderr-bytes %d\ngit-stdout-bytes %d\n' \
            "$status" "$(wc -c <"$work/stderr")" "$(wc -c <"$work/stdout")"
        cat "$work/stderr" "$work/stdout"
    } >"$out/$name.expected"
    echo "captured ls-remote/$name" >&2
}

# Records one connection of `git <args>` through `gitwire record-proxy` listening on <listen> and
# forwarding to <upstream>, as the fixture <path>.
record_through_proxy() {
    local listen=$1 upstream=$2 path=$3
    shift 3
    rm -rf "$work/proxy"
    "$gitwire" record-proxy --listen="$listen" --upstream="$upstream" --out="$work/proxy" \
        --connections=1 --idle-timeout=60 2>"$work/proxy.log" &
    local proxy=$!
    # Up to 30 s: a debug build starts slowly on a loaded machine.
    for _ in $(seq 600); do
        grep -q listening "$work/proxy.log" 2>/dev/null && break
        sleep 0.05
    done
    git "$@" >/dev/null 2>&1
    wait "$proxy"
    mv "$work/proxy/connection-001.session" "$path"
}

capture_http() {
    rm -f "$out"/http-*.session "$out"/http-*.expected "$root/Fixtures/http"/*.session "$root/Fixtures/sha256/http"/*.session
    mkdir -p "$root/Fixtures/http" "$root/Fixtures/sha256/http"
    timeout 600 python3 "$root/Tools/git-http-server.py" --root "$work/served" --port 80 \
        --port-file "$work/http-port" 2>/dev/null &
    pids+=($!)
    for _ in $(seq 200); do [ -f "$work/http-port" ] && break; sleep 0.05; done
    local http=http://127.0.0.1/git
    for v in 0 2; do
        capture_ls_remote "http-v$v-small-symref" "$v" --symref "$http/small.git"
        capture_ls_remote "http-v$v-many-refs" "$v" "$http/many-refs.git"
        capture_ls_remote "http-v$v-empty" "$v" --symref "$http/empty.git"
        rm -rf "$work/http-clone"
        (cd "$work" && "$gitwire" clone -q --bare --protocol-version=$v \
            --record="$root/Fixtures/http/v$v-clone.session" "$http/history.git" http-clone)
        echo "captured http/v$v-clone" >&2
        rm -rf "$work/git-http-clone"
        record_through_proxy 127.0.0.1:8080 http://127.0.0.1 "$root/Fixtures/http/git-v$v-clone.session" \
            -c protocol.version=$v clone -q --bare http://127.0.0.1:8080/git/small.git "$work/git-http-clone"
        echo "captured http/git-v$v-clone" >&2
        # SHA-256.
        capture_ls_remote "http-sha256-v$v-small-symref" "$v" --symref "$http/sha256-small.git"
        capture_ls_remote "http-sha256-v$v-empty" "$v" --symref "$http/sha256-empty.git"
        rm -rf "$work/http-clone"
        (cd "$work" && "$gitwire" clone -q --bare --protocol-version=$v \
            --record="$root/Fixtures/sha256/http/v$v-clone.session" "$http/sha256-history.git" http-clone)
        echo "captured sha256/http/v$v-clone" >&2
        rm -rf "$work/git-http-clone"
        record_through_proxy 127.0.0.1:8080 http://127.0.0.1 "$root/Fixtures/sha256/http/git-v$v-clone.session" \
            -c protocol.version=$v clone -q --bare http://127.0.0.1:8080/git/sha256-small.git "$work/git-http-clone"
        echo "captured sha256/http/git-v$v-clone" >&2
    done
}

if [ "$only" = http ]; then
    capture_http
    echo "fixtures written to $root/Fixtures" >&2
    exit 0
fi

url=git://127.0.0.1
for v in 0 1 2; do
    capture_ls_remote "v$v-small-symref" "$v" --symref "$url/small.git"
    capture_ls_remote "v$v-empty" "$v" --symref "$url/empty.git"
    capture_ls_remote "v$v-unborn-head" "$v" --symref "$url/unborn.git"
    capture_ls_remote "v$v-detached-head" "$v" --symref "$url/detached.git"
    capture_ls_remote "v$v-many-refs" "$v" "$url/many-refs.git"
    capture_ls_remote "v$v-not-exported" "$v" "$url/private.git"
done
capture_ls_remote v0-patterns 0 "$url/many-refs.git" main 'v1.1*' 'ünïcödé'
capture_ls_remote v2-patterns 2 "$url/many-refs.git" main 'v1.1*' 'ünïcödé'
capture_ls_remote v2-heads-and-tags 2 --heads --tags --refs "$url/many-refs.git"
capture_ls_remote v2-tags-patterns 2 --tags "$url/many-refs.git" 'tag-of-*'
capture_ls_remote v2-server-options 2 -o first -o second "$url/small.git"
capture_ls_remote v0-exit-code-no-match 0 --exit-code "$url/small.git" no-such-ref
for v in 0 1 2; do capture_ls_remote "sha256-v$v-small-symref" "$v" --symref "$url/sha256-small.git"; done
for v in 0 2; do
    capture_ls_remote "sha256-v$v-empty" "$v" --symref "$url/sha256-empty.git"
    capture_ls_remote "sha256-v$v-unborn-head" "$v" --symref "$url/sha256-unborn.git"
    capture_ls_remote "sha256-v$v-detached-head" "$v" --symref "$url/sha256-detached.git"
    capture_ls_remote "sha256-v$v-many-refs" "$v" "$url/sha256-many-refs.git"
done
capture_ls_remote sha256-v2-patterns 2 --tags "$url/sha256-many-refs.git" 'tag-of-*' 'v1.1?'
capture_http

# git as the client, through the recording proxy: the daemon moves to 9419, the proxy takes 9418.
kill "${pids[@]}"
wait 2>/dev/null || true
pids=()
serve "$work/served" 9419
out="$root/Fixtures/fetch"
rm -f "$out"/*.session

mkdir -p "$root/Fixtures/sha256/fetch"
rm -f "$root/Fixtures/sha256/fetch"/*.session

# Records one connection of `git <args>` as <name>.session.
capture_git() {
    local name=$1
    shift
    record_through_proxy 127.0.0.1:9418 git://127.0.0.1:9419 "$out/$name.session" "$@"
    echo "captured ${out#"$root/Fixtures/"}/$name" >&2
}

# The fetch captures of <repository> (history.git or sha256-history.git).
capture_fetches() {
    local repository=$1
    for v in 0 2; do
        rm -rf "$work/clones"
        mkdir -p "$work/clones"
        capture_git "v$v-clone" -c protocol.version=$v clone --progress --bare "$url/$repository" "$work/clones/full.git"
        capture_git "v$v-shallow-clone" -c protocol.version=$v clone --no-progress --bare --depth=1 "$url/$repository" \
            "$work/clones/shallow.git"
        # An incremental fetch: clone an older state, let the server move on, fetch with haves.
        git clone -q --bare "$work/served/$repository" "$work/clones/old.git"
        git -C "$work/clones/old.git" update-ref refs/heads/main main~15
        git -C "$work/clones/old.git" tag -d v1 >/dev/null
        git -C "$work/clones/old.git" gc -q --prune=now
        capture_git "v$v-incremental-fetch" -C "$work/clones/old.git" -c protocol.version=$v fetch --no-progress \
            "$url/$repository" "+refs/heads/*:refs/heads/*" "+refs/tags/*:refs/tags/*"
    done
}
capture_fetches history.git
out="$root/Fixtures/sha256/fetch"
capture_fetches sha256-history.git
echo "fixtures written to $root/Fixtures" >&2
