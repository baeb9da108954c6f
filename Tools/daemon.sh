# Sourced by the Tools scripts: a throwaway work folder and a `git daemon` on 127.0.0.1 that both
# go away when the script exits (the daemon also after `lifetime` seconds at the latest).
#
#   start_work <name>                  sets $work to a new folder under /tmp
#   start_daemon <repository> <lifetime> [<git daemon option>...]
#                                      serves $work on a free port, waits until <repository>
#                                      answers, sets $port and $daemon
#   make_many_refs <git dir> <refs>    a bare repository of 50 commits and about <refs> refs
#                                      (branches, lightweight and annotated tags)

work=""
daemon=""
cleanup_work() {
    # The killed daemon's status is not a failure: under `set -e` it must not stop the clean-up
    # before the work folder goes.
    if [ -n "$daemon" ]; then
        kill "$daemon" 2>/dev/null || true
        wait "$daemon" 2>/dev/null || true
    fi
    if [ -n "$work" ]; then rm -rf "$work"; fi
}
trap cleanup_work EXIT

make_many_refs() {
    local repository=$1 refs=$2 i
    git init -q --bare "$repository"
    {
        for i in $(seq 1 50); do
            printf 'blob\nmark :%d\ndata 8\nblob %-3d\n' "$i" "$i"
            printf 'commit refs/heads/main\nmark :%d\ncommitter B <b@example.com> %d +0000\ndata 2\nc\n' $((i + 1000)) $((1700000000 + i))
            [ "$i" -gt 1 ] && printf 'from :%d\n' $((i + 999))
            printf 'M 100644 :%d f\n\n' "$i"
        done
        for i in $(seq 1 $((refs / 3))); do
            printf 'reset refs/heads/branch-%d\nfrom :%d\n\n' "$i" $((1001 + i % 50))
            printf 'reset refs/tags/light-%d\nfrom :%d\n\n' "$i" $((1001 + i % 50))
            printf 'tag v%d\nfrom :%d\ntagger T <t@example.com> 1700000000 +0000\ndata 2\nt\n\n' "$i" $((1001 + i % 50))
        done
    } | git -C "$repository" fast-import --quiet
}

start_work() {
    work=$(mktemp -d "/tmp/gitwire-$1.XXXXXX")
}

start_daemon() {
    local repository=$1 lifetime=$2
    shift 2
    for _ in $(seq 10); do
        port=$((20000 + RANDOM % 40000))
        timeout "$lifetime" git daemon --reuseaddr --listen=127.0.0.1 --port="$port" --export-all \
            --base-path="$work" "$@" "$work" 2>/dev/null &
        daemon=$!
        for _ in $(seq 50); do
            git ls-remote "git://127.0.0.1:$port/$repository" HEAD >/dev/null 2>&1 && return 0
            kill -0 "$daemon" 2>/dev/null || break
            sleep 0.1
        done
        kill "$daemon" 2>/dev/null || true
        daemon=""
    done
    echo "could not start git daemon" >&2
    exit 1
}
