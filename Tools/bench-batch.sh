#!/usr/bin/env bash
# Benchmarks `gitwire ls-remote --batch` against sequential `git ls-remote` runs with hyperfine:
# <count> small repositories served by one local `git daemon` (--max-connections raised), then by
# Tools/git-http-server.py (git http-backend per request), over HTTP and over HTTPS (a throwaway
# certificate authority made here with openssl, trusted through GIT_SSL_CAINFO). All servers are
# on 127.0.0.1, started and stopped by this script.
#
# Reported for each mode: the median wall time (hyperfine, <runs> runs), the server's CPU time per
# run (the daemon or the HTTP server with every child it reaped, from /proc/<pid>/stat, over the
# mode's runs), and how many connection requests the kernel dropped because a listener's accept
# queue was full (ListenOverflows, per run: counted for the whole machine, so other work on it can
# add some). Then the bound: the same number of `git upload-pack --advertise-refs` runs without
# any network, one after the other and as many at once as there are cores, and the server's CPU
# time divided by the cores. Peak memory (maximum RSS, /usr/bin/time) of one gitwire batch and of
# one git ls-remote. Writes hyperfine's JSON and the tables to .build/bench/batch/.
#
# Usage: Tools/bench-batch.sh [count=200] [runs=3]
set -euo pipefail
source "$(dirname "$0")/lib.sh"
count=${1:-200}
runs=${2:-3}
setup_machine
build_gitwire
bench_out batch
start_work bench-batch
cores=$(nproc)
ticks=$(getconf CLK_TCK)

source "$root/Tools/batch-repos.sh"
make_batch_repos "$count"

start_daemon r0.git 3600 --max-connections=1024
# The process serving connections: timeout runs `git daemon`, which runs `git-daemon`.
daemon_pid=$daemon
while [ "$(cat "/proc/$daemon_pid/comm")" != git-daemon ]; do
    daemon_pid=$(awk '{ print $1 }' "/proc/$daemon_pid/task/$daemon_pid/children")
done
for i in $(seq 0 $((count - 1))); do echo "git://127.0.0.1:$port/r$i.git"; done >"$work/git.urls"

start_http_server "$work" 3600
for i in $(seq 0 $((count - 1))); do echo "http://127.0.0.1:$http_port/git/r$i.git"; done >"$work/http.urls"

# The same server over HTTPS, with a throwaway certificate authority that both clients trust.
curve=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes)
openssl req -x509 "${curve[@]}" -keyout "$work/ca.key" -out "$work/ca.pem" -days 2 -subj "/CN=gitwire bench CA" 2>/dev/null
openssl req "${curve[@]}" -keyout "$work/server.key" -out "$work/server.csr" -subj /CN=127.0.0.1 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\n' >"$work/server.ext"
openssl x509 -req -in "$work/server.csr" -CA "$work/ca.pem" -CAkey "$work/ca.key" -CAcreateserial \
    -out "$work/server.pem" -days 2 -extfile "$work/server.ext" 2>/dev/null
plain_server=$http_server
start_http_server "$work" 3600 --certificate "$work/server.pem" --key "$work/server.key"
https_server=$http_server https_port=$http_port http_server=$plain_server
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
# Every URL of list $1, one `git ls-remote` after the other, as batch blocks; extra git options
# after it. A script of its own, so that hyperfine can run it.
cat >"$work/git-sequential.sh" <<'SH'
#!/usr/bin/env bash
list=$1
shift
while read -r url; do
    echo "# $url"
    git "$@" ls-remote "$url"
    echo
done <"$list"
SH
git_sequential=(bash "$work/git-sequential.sh")

# Runs hyperfine on one mode: name $1 ("git <what>" or "gitwire <what>", see Tools/lib.sh), server
# pid $2, the command after. Appends the server's CPU seconds and the listen overflows per run to
# $work/extra ("<name>\t<cpu>\t<overflows>") and the results to $work/results.list.
mode_index=0
measure() {
    local name=$1 server=$2 cpu0 drops0
    shift 2
    mode_index=$((mode_index + 1))
    cpu0=$(cpu_seconds "$server")
    drops0=$(listen_overflows)
    hyperfine_run "$work/mode-$mode_index.json" -N --runs "$runs" --output "$work/mode.out" -n "$name" "$*"
    awk -v n="$name" -v a="$cpu0" -v b="$(cpu_seconds "$server")" -v d0="$drops0" -v d1="$(listen_overflows)" -v r="$runs" \
        'BEGIN { printf "%s\t%.3f\t%.1f\n", n, (b - a) / r, (d1 - d0) / r }' >>"$work/extra"
    echo "$work/mode-$mode_index.json" >>"$work/results.list"
}
: >"$work/extra"
: >"$work/results.list"

# gitwire must print what git prints, block for block.
for scheme in git http https; do
    "${git_sequential[@]}" "$work/$scheme.urls" >"$work/expected.$scheme"
    "$gitwire" ls-remote --batch "$work/$scheme.urls" | cmp - "$work/expected.$scheme" ||
        { echo "$scheme:// outputs differ" >&2; exit 1; }
done

seq_script="for i in \$(seq 0 $((count - 1))); do git upload-pack --advertise-refs $work/r\$i.git; done"
par_script="seq 0 $((count - 1)) | xargs -P $cores -I{} git upload-pack --advertise-refs $work/r{}.git"
measure "git git:// v2" "$daemon_pid" "${git_sequential[@]}" "$work/git.urls"
measure "gitwire git:// v2" "$daemon_pid" "$gitwire" ls-remote --batch "$work/git.urls"
measure "git git:// v0" "$daemon_pid" "${git_sequential[@]}" "$work/git.urls" -c protocol.version=0
measure "gitwire git:// v0" "$daemon_pid" "$gitwire" ls-remote --protocol-version=0 --batch "$work/git.urls"
measure "jobs-per-host=64 git:// v2" "$daemon_pid" "$gitwire" ls-remote --jobs-per-host=64 --batch "$work/git.urls"
hyperfine_run "$work/bound.json" --runs "$runs" -n "bound: upload-pack --advertise-refs x$count, in turn" "$seq_script" \
    -n "bound: the same, $cores at a time" "$par_script"
echo "$work/bound.json" >>"$work/results.list"
for scheme in http https; do
    if [ "$scheme" = http ]; then server=$http_server; else server=$https_server; fi
    measure "git $scheme:// v2" "$server" "${git_sequential[@]}" "$work/$scheme.urls"
    measure "gitwire $scheme:// v2" "$server" "$gitwire" ls-remote --batch "$work/$scheme.urls"
    measure "git $scheme:// v0" "$server" "${git_sequential[@]}" "$work/$scheme.urls" -c protocol.version=0
done

: >"$out/batch.memory"
for _ in $(seq 10); do cat "$work/git.urls"; done >"$work/git10.urls"
peak_rss "$out/batch.memory" "gitwire git:// v2" "$gitwire" ls-remote --batch "$work/git.urls"
peak_rss "$out/batch.memory" "gitwire http:// v2" "$gitwire" ls-remote --batch "$work/http.urls"
peak_rss "$out/batch.memory" "gitwire --batch of $((count * 10)) git:// URLs" "$gitwire" ls-remote --batch "$work/git10.urls"
peak_rss "$out/batch.memory" "git ls-remote, one git:// URL" git ls-remote "$(head -1 "$work/git.urls")"
peak_rss "$out/batch.memory" "git ls-remote, one http:// URL" git ls-remote "$(head -1 "$work/http.urls")"

python3 - $(cat "$work/results.list") >"$out/batch.json" <<'PY'
import json, sys
print(json.dumps({"results": sum((json.load(open(f))["results"] for f in sys.argv[1:]), [])}))
PY
{
    echo "ls-remote of $count small repositories: sequential git ls-remote runs (git) against one gitwire" \
        "ls-remote --batch (default jobs: 64, 6 per host); $runs runs of each (hyperfine); $(machine_line)"
    bench_table "$out/batch.json"
    echo
    echo "| mode | server CPU per run | listen overflows per run |"
    echo "| --- | --- | --- |"
    awk -F'\t' '{ printf "| %s | %.2f s | %s |\n", $1, $2, $3 }' "$work/extra"
    echo
    echo "peak memory (one run each):"
    awk -F'\t' '{ printf "  %s: %.1f MiB\n", $1, $2 / 1024 }' "$out/batch.memory"
    python3 - "$out/batch.json" "$work/extra" "$cores" <<'PY'
import json, sys
results = {r["command"] if "command_name" not in r else r["command_name"]: r["median"] for r in json.load(open(sys.argv[1]))["results"]}
extra = {line.split("\t")[0]: float(line.split("\t")[1]) for line in open(sys.argv[2])}
cores = int(sys.argv[3])
w2, g2, g0 = results["gitwire git:// v2"], results["git git:// v2"], results["git git:// v0"]
server = extra["gitwire git:// v2"]
print("speed-up over git://: %.1fx over sequential git (v2), %.1fx over sequential git v0" % (g2 / w2, g0 / w2))
print("bound: the daemon used %.2f s of CPU per batch, %.2f s spread over %d cores; gitwire took %.2fx that"
      % (server, server / cores, cores, w2 / (server / cores)))
for scheme in ("http", "https"):
    w, g2, g0 = results["gitwire %s:// v2" % scheme], results["git %s:// v2" % scheme], results["git %s:// v0" % scheme]
    print("speed-up over %s://: %.1fx over sequential git (v2), %.1fx over sequential git v0" % (scheme, g2 / w, g0 / w))
PY
} | tee "$out/batch.txt"
