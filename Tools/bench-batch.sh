#!/usr/bin/env bash
# Benchmarks `gitwire ls-remote --batch` against sequential `git ls-remote` runs: <count> small
# repositories served by one local `git daemon` (--max-connections raised), then by
# Tools/git-http-server.py (git http-backend per request), over HTTP and over HTTPS (a throwaway
# certificate authority made here with openssl, trusted through GIT_SSL_CAINFO). Modes run alternately, <runs> times
# each, and medians are compared, so drift in the machine's load hits all alike.
#
# Reported for each mode: wall time, the server's CPU time for the run (the daemon or the HTTP
# server with every child it reaped, from /proc/<pid>/stat), and how many connection requests the
# kernel dropped because a listener's accept queue was full (ListenOverflows: counted for the
# whole machine, so other work on it can add some). Then the bound:
# the same number of `git upload-pack --advertise-refs` runs without any network, one after the
# other and as many at once as there are cores, and the server's CPU time divided by the cores.
# Peak memory (maximum RSS, /usr/bin/time -v) of one gitwire batch and of one git ls-remote.
#
# gitwire is built as the README builds it: `swift build -c release --static-swift-stdlib`.
#
# Usage: Tools/bench-batch.sh [count=200] [runs=3]
set -euo pipefail
count=${1:-200}
runs=${2:-3}
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/Tools/setup.sh"
(cd "$root" && swift build -c release --static-swift-stdlib --product gitwire >&2)
gitwire="$root/.build/release/gitwire"

source "$root/Tools/daemon.sh"
start_work bench-batch
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
cores=$(nproc)
ticks=$(getconf CLK_TCK)
http_server=""
https_server=""
stop_http() {
    for server in $http_server $https_server; do kill "$server" 2>/dev/null || true; done
    cleanup_work
}
trap stop_http EXIT

source "$root/Tools/batch-repos.sh"
make_batch_repos "$count"

start_daemon r0.git 3600 --max-connections=1024
# The process serving connections: timeout runs `git daemon`, which runs `git-daemon`.
daemon_pid=$daemon
while [ "$(cat "/proc/$daemon_pid/comm")" != git-daemon ]; do
    daemon_pid=$(awk '{ print $1 }' "/proc/$daemon_pid/task/$daemon_pid/children")
done
for i in $(seq 0 $((count - 1))); do echo "git://127.0.0.1:$port/r$i.git"; done >"$work/git.urls"

python3 "$root/Tools/git-http-server.py" --root "$work" --lifetime 3600 --port-file "$work/http.port" 2>/dev/null &
http_server=$!
for _ in $(seq 100); do [ -s "$work/http.port" ] && break; sleep 0.1; done
http_port=$(cat "$work/http.port")
for i in $(seq 0 $((count - 1))); do echo "http://127.0.0.1:$http_port/git/r$i.git"; done >"$work/http.urls"

# The same server over HTTPS, with a throwaway certificate authority that both clients trust.
curve=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes)
openssl req -x509 "${curve[@]}" -keyout "$work/ca.key" -out "$work/ca.pem" -days 2 -subj "/CN=gitwire bench CA" 2>/dev/null
openssl req "${curve[@]}" -keyout "$work/server.key" -out "$work/server.csr" -subj /CN=127.0.0.1 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\n' >"$work/server.ext"
openssl x509 -req -in "$work/server.csr" -CA "$work/ca.pem" -CAkey "$work/ca.key" -CAcreateserial \
    -out "$work/server.pem" -days 2 -extfile "$work/server.ext" 2>/dev/null
python3 "$root/Tools/git-http-server.py" --root "$work" --lifetime 3600 --port-file "$work/https.port" \
    --certificate "$work/server.pem" --key "$work/server.key" 2>/dev/null &
https_server=$!
for _ in $(seq 100); do [ -s "$work/https.port" ] && break; sleep 0.1; done
https_port=$(cat "$work/https.port")
for i in $(seq 0 $((count - 1))); do echo "https://127.0.0.1:$https_port/git/r$i.git"; done >"$work/https.urls"
export GIT_SSL_CAINFO="$work/ca.pem"

# CPU seconds (user + system, reaped children included) of process $1 so far.
cpu_seconds() {
    awk -v t="$ticks" '{ sub(/^.*\) /, ""); print ($12 + $13 + $14 + $15) / t }' "/proc/$1/stat"
}
listen_overflows() {
    awk '/^TcpExt:/ { if (!h) { for (i = 1; i <= NF; i++) if ($i == "ListenOverflows") c = i; h = 1 } else { print $c; exit } }' \
        /proc/net/netstat
}
median() { sort -n | awk '{ value[NR] = $1 } END { print value[int((NR + 1) / 2)] }'; }

# Every URL of list $1, one `git ls-remote` after the other, as batch blocks; extra git options in $2.
git_sequential() {
    while read -r url; do
        echo "# $url"
        git $2 ls-remote "$url"
        echo
    done <"$1"
}

# Runs mode $1 (a label) with server pid $2: the command is the rest. Appends wall seconds,
# server CPU seconds and listen overflows to $work/<label>.{wall,cpu,drops}.
measure() {
    local label=$1 server=$2
    shift 2
    local cpu0 drops0 start
    cpu0=$(cpu_seconds "$server")
    drops0=$(listen_overflows)
    start=$(date +%s%N)
    "$@" >"$work/$label.out"
    echo "$((($(date +%s%N) - start) / 1000000))" | awk '{ print $1 / 1000 }' >>"$work/$label.wall"
    awk -v a="$cpu0" -v b="$(cpu_seconds "$server")" 'BEGIN { print b - a }' >>"$work/$label.cpu"
    echo $(($(listen_overflows) - drops0)) >>"$work/$label.drops"
}

report() {
    local label=$1 title=$2
    printf '%-52s %9.2f %12.2f %10d\n' "$title" "$(median <"$work/$label.wall")" \
        "$(median <"$work/$label.cpu")" "$(median <"$work/$label.drops")"
}

# gitwire must print what git prints, block for block.
git_sequential "$work/git.urls" "" >"$work/expected"
"$gitwire" ls-remote --batch "$work/git.urls" | cmp - "$work/expected" || { echo "git:// outputs differ" >&2; exit 1; }
git_sequential "$work/http.urls" "" >"$work/expected.http"
"$gitwire" ls-remote --batch "$work/http.urls" | cmp - "$work/expected.http" ||
    { echo "http:// outputs differ" >&2; exit 1; }
git_sequential "$work/https.urls" "" >"$work/expected.https"
"$gitwire" ls-remote --batch "$work/https.urls" | cmp - "$work/expected.https" ||
    { echo "https:// outputs differ" >&2; exit 1; }

echo "$count repositories, $runs alternating runs per mode (medians), $cores cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
for _ in $(seq "$runs"); do
    measure git-v2 "$daemon_pid" git_sequential "$work/git.urls" ""
    measure gitwire-v2 "$daemon_pid" "$gitwire" ls-remote --batch "$work/git.urls"
    measure git-v0 "$daemon_pid" git_sequential "$work/git.urls" "-c protocol.version=0"
    measure gitwire-v0 "$daemon_pid" "$gitwire" ls-remote --protocol-version=0 --batch "$work/git.urls"
    measure gitwire-64 "$daemon_pid" "$gitwire" ls-remote --jobs-per-host=64 --batch "$work/git.urls"
    measure bound-seq "$daemon_pid" sh -c "for i in \$(seq 0 $((count - 1))); do git upload-pack --advertise-refs $work/r\$i.git; done"
    measure bound-par "$daemon_pid" sh -c "seq 0 $((count - 1)) | xargs -P $cores -I{} git upload-pack --advertise-refs $work/r{}.git"
done
printf '\n%-52s %9s %12s %10s\n' "git:// (one git daemon)" "wall (s)" "server CPU" "overflows"
report git-v2 "git ls-remote x$count, one after another (v2)"
report git-v0 "git -c protocol.version=0 ls-remote x$count (v0)"
report gitwire-v2 "gitwire ls-remote --batch (v2, 64 jobs, 6 per host)"
report gitwire-v0 "gitwire ls-remote --batch --protocol-version=0"
report gitwire-64 "gitwire ls-remote --batch --jobs-per-host=64"
report bound-seq "git upload-pack --advertise-refs x$count, in turn"
report bound-par "the same, $cores at a time"
g2=$(median <"$work/git-v2.wall")
g0=$(median <"$work/git-v0.wall")
w2=$(median <"$work/gitwire-v2.wall")
w0=$(median <"$work/gitwire-v0.wall")
bp=$(median <"$work/bound-par.wall")
server=$(median <"$work/gitwire-v2.cpu")
awk -v g2="$g2" -v g0="$g0" -v w2="$w2" -v w0="$w0" -v bp="$bp" -v s="$server" -v c="$cores" 'BEGIN {
    printf "speed-up: %.1fx over sequential git (default protocol), %.1fx over sequential git v0 (gitwire v0: %.1fx)\n", g2 / w2, g0 / w2, g0 / w0
    printf "bound: the daemon used %.2f s of CPU for the batch, %.2f s spread over %d cores; gitwire took %.2fx that, %.2fx the parallel upload-pack runs\n", s, s / c, c, w2 / (s / c), w2 / bp
}'

# One HTTP mode: label prefix $1 (http or https), server pid $2, heading $3.
http_mode() {
    local mode=$1 server=$2 heading=$3
    for _ in $(seq "$runs"); do
        measure "$mode-git-v2" "$server" git_sequential "$work/$mode.urls" ""
        measure "$mode-gitwire" "$server" "$gitwire" ls-remote --batch "$work/$mode.urls"
        measure "$mode-git-v0" "$server" git_sequential "$work/$mode.urls" "-c protocol.version=0"
    done
    printf '\n%-52s %9s %12s %10s\n' "$heading" "wall (s)" "server CPU" "overflows"
    report "$mode-git-v2" "git ls-remote x$count, one after another (v2)"
    report "$mode-git-v0" "git -c protocol.version=0 ls-remote x$count (v0)"
    report "$mode-gitwire" "gitwire ls-remote --batch (v2)"
    awk -v g2="$(median <"$work/$mode-git-v2.wall")" -v g0="$(median <"$work/$mode-git-v0.wall")" \
        -v w="$(median <"$work/$mode-gitwire.wall")" -v s="$(median <"$work/$mode-gitwire.cpu")" -v c="$cores" 'BEGIN {
        printf "speed-up: %.1fx over sequential git (default protocol), %.1fx over sequential git v0; server CPU %.2f s (%.2f s over %d cores)\n", g2 / w, g0 / w, s, s / c, c
    }'
}
http_mode http "$http_server" "http:// (Tools/git-http-server.py)"
http_mode https "$https_server" "https:// (the same server with TLS)"

rss() { /usr/bin/time -v "$@" 2>&1 >/dev/null | awk -F': ' '/Maximum resident/ { printf "%.1f MiB", $2 / 1024 }'; }
for _ in $(seq 10); do cat "$work/git.urls"; done >"$work/git10.urls"
echo
echo "peak memory: gitwire --batch over git:// $(rss "$gitwire" ls-remote --batch "$work/git.urls") ($count URLs)," \
    "$(rss "$gitwire" ls-remote --batch "$work/git10.urls") ($((count * 10)) URLs: the list ten times)," \
    "over http:// $(rss "$gitwire" ls-remote --batch "$work/http.urls");" \
    "one git ls-remote $(rss git ls-remote "$(head -1 "$work/git.urls")") (git://)," \
    "$(rss git ls-remote "$(head -1 "$work/http.urls")") (http://)"
