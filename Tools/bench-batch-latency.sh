#!/usr/bin/env bash
# Benchmarks `gitwire ls-remote --batch` with its default settings against `xargs -P64 git
# ls-remote` across real latency: Tools/latency-server.py answers git:// on <hosts> loopback
# addresses (127.0.0.1 ...) after a round trip of <rtt> seconds (two for a connection's first
# answer: the handshake and the request), serving one small repository of <refs> refs under every
# path. <remotes> URLs go round the hosts. Loopback alone shows no latency, and a single `git
# daemon` bounds every client by its own CPU time, so this is where a batch's latency hiding
# shows.
#
# Reported: hyperfine's medians (wall), the mean CPU time of a run (user + system, children
# included, from hyperfine), peak memory (maximum RSS of one run; for git the largest single
# `git ls-remote`), and whether every remote's listing is byte for byte the one git printed.
# Writes hyperfine's JSON and the tables to .build/bench/batch-latency/.
#
# With scheme https, the same over smart HTTP and TLS (a throwaway certificate authority made here
# with openssl, trusted by both clients through GIT_SSL_CAINFO; the server's certificate names
# every address), where handshakes cost round trips and CPU.
#
# Usage: Tools/bench-batch-latency.sh [remotes=1000] [hosts=50] [rtt=0.1] [runs=5] [refs=30] [scheme=git]
set -euo pipefail
source "$(dirname "$0")/lib.sh"
remotes=${1:-1000}
hosts=${2:-50}
rtt=${3:-0.1}
runs=${4:-5}
refs=${5:-30}
scheme=${6:-git}
case "$scheme" in git | https) ;; *) echo "scheme: git or https" >&2; exit 2 ;; esac
setup_machine
build_gitwire
bench_out "batch-latency-$scheme"
start_work bench-batch-latency

make_many_refs "$work/r.git" "$refs"
tls=()
if [ "$scheme" = https ]; then
    curve=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes)
    openssl req -x509 "${curve[@]}" -keyout "$work/ca.key" -out "$work/ca.pem" -days 2 \
        -subj "/CN=gitwire bench CA" 2>/dev/null
    openssl req "${curve[@]}" -keyout "$work/server.key" -out "$work/server.csr" -subj /CN=127.0.0.1 2>/dev/null
    {
        printf 'subjectAltName=IP:127.0.0.1'
        for i in $(seq 2 "$hosts"); do printf ',IP:127.0.0.%d' "$i"; done
        printf '\nbasicConstraints=CA:FALSE\n'
    } >"$work/server.ext"
    openssl x509 -req -in "$work/server.csr" -CA "$work/ca.pem" -CAkey "$work/ca.key" -CAcreateserial \
        -out "$work/server.pem" -days 2 -extfile "$work/server.ext" 2>/dev/null
    export GIT_SSL_CAINFO="$work/ca.pem"
    tls=(--certificate "$work/server.pem" --key "$work/server.key")
fi
port=$((20000 + RANDOM % 40000))
python3 "$root/Tools/latency-server.py" --repository "$work/r.git" --port "$port" --hosts "$hosts" \
    --rtt "$rtt" --lifetime 3600 --ready "$work/ready" "${tls[@]}" &
server=$!
at_exit "stop_process $server"
for _ in $(seq 100); do
    [ -s "$work/ready" ] && break
    kill -0 "$server" 2>/dev/null || { echo "latency server did not start" >&2; exit 1; }
    sleep 0.1
done
for i in $(seq 0 $((remotes - 1))); do
    echo "$scheme://127.0.0.$((i % hosts + 1)):$port/r$i.git"
done >"$work/urls"

# Every listing equal to git's: gitwire's block for each remote against git's output for it.
xargs -P64 -I{} sh -c 'git ls-remote "$1" >"$2/git-$(basename "$1")"' _ {} "$work" <"$work/urls"
"$gitwire" ls-remote --batch "$work/urls" >"$work/gitwire.out"
python3 - "$work" <<'PY'
import os, sys
work = sys.argv[1]
blocks = open(os.path.join(work, "gitwire.out"), "rb").read().split(b"\n\n")
blocks = [b for b in blocks if b]
differ = 0
for block in blocks:
    head, _, body = block.partition(b"\n")
    name = head[2:].decode().rsplit("/", 1)[1]
    if open(os.path.join(work, "git-" + name), "rb").read() != body + b"\n":
        differ += 1
print("listings compared with git's: %d, different: %d" % (len(blocks), differ))
sys.exit(1 if differ or not blocks else 0)
PY

json="$out/batch-latency.json"
hyperfine_run "$json" --warmup 1 --runs "$runs" \
    -n "git ls-remote (xargs -P64)" "xargs -P64 -n1 git ls-remote <$work/urls >/dev/null" \
    -n "gitwire ls-remote --batch" "$gitwire ls-remote --batch $work/urls >/dev/null"
memory="$out/memory"
: >"$memory"
peak_rss "$memory" "gitwire ls-remote --batch" "$gitwire" ls-remote --batch "$work/urls"
peak_rss "$memory" "git ls-remote (one)" git ls-remote "$scheme://127.0.0.1:$port/r0.git"
{
    echo "$scheme: $remotes remotes on $hosts loopback addresses, round trip ${rtt} s, $refs refs each; $(machine_line)"
    python3 - "$json" "$memory" <<'PY'
import json, sys
results = {r["command"] if not r.get("command_name") else r["command_name"]: r
           for r in json.load(open(sys.argv[1]))["results"]}
memory = dict(line.rstrip("\n").split("\t") for line in open(sys.argv[2]))
git = results["git ls-remote (xargs -P64)"]
ours = results["gitwire ls-remote --batch"]
def cpu(r): return r["user"] + r["system"]
print("| | wall (median) | CPU (mean) | peak memory |")
print("| --- | --- | --- | --- |")
print("| `xargs -P64 git ls-remote` | %.2f s | %.2f s | %.1f MiB per git process |" % (
    git["median"], cpu(git), int(memory["git ls-remote (one)"]) / 1024))
print("| `gitwire ls-remote --batch` (defaults) | %.2f s | %.2f s | %.1f MiB |" % (
    ours["median"], cpu(ours), int(memory["gitwire ls-remote --batch"]) / 1024))
print("| ratio gitwire/git | %.2f | %.3f | |" % (ours["median"] / git["median"], cpu(ours) / cpu(git)))
PY
} | tee "$out/table.md"
