#!/usr/bin/env bash
# How long `gitwire ls-remote --batch --deadline=N` takes when every remote answers 401 and the
# credential helper never answers (it sleeps HELPER_SLEEP seconds): the deadline must end each
# `git credential fill` (gitwire used to wait for every helper, one after the other: with 3
# remotes and a 90 s helper, 272 s; now about the deadline). Prints wall time, CPU time
# (user+sys) and peak memory of the run, the load average, and the helpers left running (the
# helper git started; git leaves it too when `git credential` ends). The helpers are killed by
# their pids afterwards. GITWIRE=<path> measures that binary; otherwise the release build.
# Usage: Tools/bench-credential-abandon.sh [remotes=3] [deadline=2]
set -euo pipefail
source "$(dirname "$0")/lib.sh"
remotes=${1:-3}
deadline=${2:-2}
helper_sleep=${HELPER_SLEEP:-90}
build_gitwire gitwire
start_work credential-abandon
git init -q --bare "$work/r.git"
GIT_AUTHOR_NAME=a GIT_AUTHOR_EMAIL=a@example.com GIT_COMMITTER_NAME=a GIT_COMMITTER_EMAIL=a@example.com \
    git -C "$work/r.git" commit-tree -m x "$(git -C "$work/r.git" mktree </dev/null)" >"$work/commit"
git -C "$work/r.git" update-ref refs/heads/main "$(cat "$work/commit")"
start_http_server "$work" 600 --user alice:not-a-real-pw
cat >"$work/helper.sh" <<HELPER
#!/bin/sh
cat >/dev/null
echo "\$\$" >>'$work/helpers'
exec sleep $helper_sleep
HELPER
chmod +x "$work/helper.sh"
printf '[credential]\n\thelper = %s\n' "$work/helper.sh" >"$work/gitconfig"
at_exit 'for pid in $(cat "$work/helpers" 2>/dev/null); do kill -9 "$pid" 2>/dev/null || true; done'
for i in $(seq "$remotes"); do echo "http://127.0.0.1:$http_port/auth/r.git?$i"; done >"$work/urls"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
start=$(date +%s.%N)
HOME=$work GIT_CONFIG_GLOBAL=$work/gitconfig GIT_TERMINAL_PROMPT=0 /usr/bin/time -f '%U %S %M' -o "$work/time" \
    "$gitwire" ls-remote --batch "$work/urls" --deadline="$deadline" >"$work/out" || true
end=$(date +%s.%N)
read -r user sys peak < <(tail -n 1 "$work/time")
printf 'remotes %s, --deadline=%s, helper sleeps %s s\n' "$remotes" "$deadline" "$helper_sleep"
printf 'wall %.2f s, cpu (user+sys) %.2f s, peak %d KiB\n' "$(echo "$end - $start" | bc)" "$(echo "$user + $sys" | bc)" "$peak"
printf 'errors: %s of %s remotes (deadline)\n' "$(grep -c '(deadline)' "$work/out")" "$remotes"
started=$(wc -l <"$work/helpers" 2>/dev/null || echo 0)
running=0
for pid in $(cat "$work/helpers" 2>/dev/null); do kill -0 "$pid" 2>/dev/null && running=$((running + 1)); done
printf 'helpers started: %s, still running when gitwire returned: %s\n' "$started" "$running"
