# Sourced by the Tools scripts: a throwaway work folder and a `git daemon` on 127.0.0.1 that both
# go away when the script exits (the daemon also after `lifetime` seconds at the latest).
#
#   start_work <name>                  sets $work to a new folder under /tmp
#   start_daemon <repository> <lifetime>  serves $work on a free port, waits until <repository>
#                                      answers, sets $port and $daemon

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

start_work() {
    work=$(mktemp -d "/tmp/gitwire-$1.XXXXXX")
}

start_daemon() {
    local repository=$1 lifetime=$2
    for _ in $(seq 10); do
        port=$((20000 + RANDOM % 40000))
        timeout "$lifetime" git daemon --reuseaddr --listen=127.0.0.1 --port="$port" --export-all \
            --base-path="$work" "$work" 2>/dev/null &
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
