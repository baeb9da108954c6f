#!/usr/bin/env bash
# Fuzzes gitwire's parsers with libFuzzer and AddressSanitizer.
#
#   bash Tools/fuzz.sh [--time=<seconds per target>] [--jobs=<n>] [target...]
#   bash Tools/fuzz.sh --replay          # only run every kept input in Fixtures/fuzz/ once
#   bash Tools/fuzz.sh --list            # the targets
#
# Builds gitwire-fuzz (Tests/GitWireFuzz, every library module compiled with
# -sanitize=fuzzer,address) into .build-fuzz, makes seeds from the recorded sessions in Fixtures/
# and from packs written by `git pack-objects` (a small repository made here with fixed dates, and
# this project's own history when it is a git checkout), then runs each target (all by default)
# for --time seconds (default 600), --jobs at a time (default 2). The corpus of each target is
# kept in .build-fuzz/corpus/<target> and grows from run to run.
#
# A crash, a hang (an input taking over 10 s), a leak or an allocation over 2 GiB stops that
# target; the input is copied to Fixtures/fuzz/<target>/ (the one kind of fixture not captured
# from a server), where FuzzRegressionTests replays it in every `swift test` from then on.
# At the end a table gives each target's executions, executions per second, corpus size and
# coverage; the exit status is 1 if any target found something.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

time_per_target=600
jobs=2
replay_only=0
targets=()
all_targets=(pkt-line ls-remote fetch push smart-http pack-entry delta index-pack index-pack-built pack-index
    commit-graph loose-object object-links fixture url gunzip ref-transaction credentials config
    config-edit)
for argument in "$@"; do
    case "$argument" in
        --time=*) time_per_target=${argument#--time=} ;;
        --jobs=*) jobs=${argument#--jobs=} ;;
        --replay) replay_only=1 ;;
        --list) printf '%s\n' "${all_targets[@]}"; exit 0 ;;
        -h | --help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "fuzz.sh: unknown option $argument" >&2; exit 2 ;;
        *) targets+=("$argument") ;;
    esac
done
[ ${#targets[@]} -gt 0 ] || targets=("${all_targets[@]}")
for target in "${targets[@]}"; do
    printf '%s\n' "${all_targets[@]}" | grep -x -- "$target" >/dev/null || { echo "fuzz.sh: no target '$target'" >&2; exit 2; }
done

build=.build-fuzz
export SWIFT_BACKTRACE=enable=no   # let libFuzzer and ASan report crashes, not the Swift runtime
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=0}

mkdir -p "$build"
echo "== building gitwire-fuzz (-sanitize=fuzzer,address) in $build" >&2
# SwiftPM hands swiftc -sanitize=fuzzer and -sanitize=address as two flags, and the second replaces
# the first (the Swift code would get no coverage instrumentation): name both in one flag after them.
if ! nice swift build -c release --product gitwire-fuzz --sanitize=fuzzer --sanitize=address \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -DGITWIRE_FUZZER --scratch-path "$build" >"$build/build.log" 2>&1; then
    grep -v -e "Cannot export local symbol" "$build/build.log" >&2
    echo "fuzz.sh: the build failed (no fuzzing with an old binary)" >&2
    exit 1
fi
fuzzer="$build/release/gitwire-fuzz"

if [ "$replay_only" = 1 ]; then
    status=0
    for target in "${targets[@]}"; do
        [ -d "Fixtures/fuzz/$target" ] || continue
        echo "== $target: $(ls "Fixtures/fuzz/$target" | wc -l) kept inputs" >&2
        GITWIRE_FUZZ_TARGET=$target "$fuzzer" "Fixtures/fuzz/$target"/* >/dev/null 2>"$build/replay-$target.log" ||
            { status=1; tail -n 30 "$build/replay-$target.log" >&2; }
    done
    exit $status
fi

# Seeds: the plain build of the same program writes them (its seed writer reads packs and fixtures).
seeds="$build/seeds"
if [ ! -d "$seeds" ] || [ ! -d "$seeds/credentials" ] || [ ! -d "$seeds/push" ] || [ ! -d "$seeds/commit-graph" ]; then
    echo "== making seeds" >&2
    (source "$root/Tools/lib.sh" && build_gitwire gitwire-fuzz) >"$build/seeds-build.log" 2>&1 ||
        { cat "$build/seeds-build.log" >&2; echo "fuzz.sh: the build failed" >&2; exit 1; }
    work=$(mktemp -d /tmp/gitwire-fuzz-seeds.XXXXXX)
    trap 'rm -rf "$work"' EXIT
    export GIT_AUTHOR_NAME=Fuzz GIT_AUTHOR_EMAIL=fuzz@example.org GIT_COMMITTER_NAME=Fuzz \
        GIT_COMMITTER_EMAIL=fuzz@example.org GIT_AUTHOR_DATE="2020-01-01T00:00:00Z" \
        GIT_COMMITTER_DATE="2020-01-01T00:00:00Z"
    git init -q "$work/repo"
    for i in $(seq 1 24); do
        mkdir -p "$work/repo/dir$((i % 3))"
        seq 1 $((i * 7)) | sed "s/^/line $i /" >"$work/repo/dir$((i % 3))/file.txt"
        seq 1 40 | sed "s/$((i % 40))/changed $i/" >"$work/repo/common.txt"
        git -C "$work/repo" add -A
        git -C "$work/repo" commit -q -m "commit $i"
        [ $((i % 8)) = 0 ] && git -C "$work/repo" tag -a -m "tag $i" "v$i"
    done
    packs=()
    make_pack() { # <git dir> <name> <rev-list arguments...>
        local dir=$1 name=$2
        shift 2
        git -C "$dir" rev-list --objects "$@" | git -C "$dir" pack-objects -q --window=10 --delta-base-offset "$work/$name" >/dev/null
        packs+=("$work/$name"-*.pack)
    }
    make_pack "$work/repo" all --all
    for start in 0 4 8 12 16; do make_pack "$work/repo" range$start "HEAD~$start" "^HEAD~$((start + 4))"; done
    make_pack "$work/repo" first HEAD~20
    git -C "$work/repo" rev-list --objects HEAD~2..HEAD | git -C "$work/repo" pack-objects -q "$work/refdelta" >/dev/null
    packs+=("$work"/refdelta-*.pack)
    if git rev-parse --git-dir >/dev/null 2>&1; then
        make_pack . recent HEAD "^HEAD~3"
    fi
    # The same history in a SHA-256 repository: seeds of 32-byte names (the seed writer tells the
    # format from each pack's index).
    git init -q --bare --object-format=sha256 "$work/sha256.git"
    git -C "$work/repo" fast-export --all | git -C "$work/sha256.git" fast-import --quiet
    make_pack "$work/sha256.git" sha256-all --all
    make_pack "$work/sha256.git" sha256-range HEAD~4 "^HEAD~8"
    git -C "$work/sha256.git" rev-list --objects HEAD~2..HEAD | git -C "$work/sha256.git" pack-objects -q "$work/sha256-refdelta" >/dev/null
    packs+=("$work"/sha256-refdelta-*.pack)
    # Commit-graph files: one file (with generation data, git's default), a split chain of
    # two layers (one with extra edges: an octopus merge), and a SHA-256 one.
    git -C "$work/repo" commit-graph write --reachable --no-progress
    git clone -q --bare "$work/repo" "$work/split.git"
    git -C "$work/split.git" commit-graph write --reachable --split --no-progress
    git -C "$work/split.git" commit-tree -p HEAD -p HEAD~1 -p HEAD~2 -m octopus "HEAD^{tree}" >"$work/octopus"
    git -C "$work/split.git" update-ref refs/heads/octopus "$(cat "$work/octopus")"
    git -C "$work/split.git" commit-graph write --reachable --split=no-merge --no-progress
    git -C "$work/sha256.git" commit-graph write --reachable --no-progress
    graphs=("$work/repo/.git/objects/info/commit-graph" "$work/split.git/objects/info/commit-graphs/"*.graph
        "$work/sha256.git/objects/info/commit-graph")
    ./.build/release/gitwire-fuzz seeds "$seeds" $(find Fixtures \( -name '*.session' -o -name '*.server' \) | sort) \
        "${packs[@]}" "${graphs[@]}"
    # gzip bodies and URLs (the fixtures give http:// and ssh:// ones; these add the other forms).
    mkdir -p "$seeds/gunzip" "$seeds/url"
    for file in Fixtures/http/*.session; do
        { printf '\xff\xff'; gzip -c "$file"; } >"$seeds/gunzip/$(basename "$file").gz"
    done
    n=0
    for url in "https://user:secret@example.org:8443/a/b.git" "git@example.org:group/repo.git" \
        "file:///srv/repo.git" "/srv/repo.git" "ssh://[::1]:2222/~user/repo" "http://[fe80::1%25eth0]/r" \
        "+refs/heads/*:refs/remotes/origin/*"; do
        printf '\x00%s' "$url" >"$seeds/url/typed-$n"
        n=$((n + 1))
    done
fi

# Configuration files (a block of its own, so a seeds folder made before this target existed gets
# them too): a config written by `git init` and typed ones with git's tricky syntax.
if [ ! -d "$seeds/config" ]; then
    mkdir -p "$seeds/config"
    config_work=$(mktemp -d /tmp/gitwire-fuzz-config.XXXXXX)
    git init -q "$config_work/repo" && cp "$config_work/repo/.git/config" "$seeds/config/git-init"
    rm -rf "$config_work"
    n=0
    for text in '[core]\n\tbare = false\n[remote "origin"]\n\turl = https://example.org/x.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n' \
        '[Section.Sub]\nKey\nv = "a;b#c" ; comment\nw = one \\\ntwo\r\n[s "q\\"u\\\\o"]k=\\t\\n\\b\\"\n' \
        '\xef\xbb\xbf[url "git@example.org:"]\n\tinsteadOf = gh:\n[http "https://*.example.org/repo"]\n\tsslVerify = false\n' \
        '[includeIf "gitdir/i:~/work/"]\n\tpath = ../x\n[a]k=   x   "  y  "  z\t\n' '[a]\nk = "unterminated\n'; do
        printf "$text" >"$seeds/config/typed-$n"
        n=$((n + 1))
    done
    printf '**/work/**\n/home/me/work/repo/.git' >"$seeds/config/typed-wildmatch"
    printf "'a.b'='c' 'd.e'= 'old.style=x'" >"$seeds/config/typed-parameters"
fi

# ConfigEditor: a key, a value and a configuration text, one line each before the text.
if [ ! -d "$seeds/config-edit" ]; then
    mkdir -p "$seeds/config-edit"
    n=0
    for text in 'branch.main.remote\norigin\n[core]\n\tbare = false\n[branch "main"]\n\tremote = x\n\tmerge = refs/heads/main\n' \
        'branch.main.merge\nrefs/heads/a\n# c\n[branch "main"] ; c\n  merge=a # b\n\tmerge = b\n[branch.Main]\n\tremote = y' \
        'a.b\n v;#"\\\t \n[a] b = v\n[a "s"]\n\tb\n' 'Sec.Sub"x.Key\nvalue\n\xef\xbb\xbf'; do
        printf "$text" >"$seeds/config-edit/typed-$n"
        n=$((n + 1))
    done
fi

mkdir -p "$build/corpus" "$build/artifacts" "$build/logs"
for target in "${targets[@]}"; do mkdir -p "$seeds/$target"; done
run_target() {
    local target=$1
    local corpus="$build/corpus/$target" artifacts="$build/artifacts/$target/"
    mkdir -p "$corpus" "$artifacts"
    local max_len=4096
    case "$target" in
        index-pack | pack-index | fetch | push | ls-remote | smart-http | pkt-line | fixture) max_len=65536 ;;
        delta | commit-graph) max_len=16384 ;;
        ref-transaction) max_len=64 ;;
    esac
    GITWIRE_FUZZ_TARGET=$target nice "$fuzzer" "$corpus" "$seeds/$target" -max_total_time="$time_per_target" \
        -timeout=10 -rss_limit_mb=2048 -max_len="$max_len" -print_final_stats=1 -artifact_prefix="$artifacts" \
        >"$build/logs/$target.log" 2>&1 || true
}

echo "== fuzzing ${#targets[@]} targets, $time_per_target s each, $jobs at a time" >&2
running=0
for target in "${targets[@]}"; do
    run_target "$target" &
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then
        wait -n || true
        running=$((running - 1))
    fi
done
wait

found=0
printf '%-18s %12s %8s %8s %8s %10s  %s\n' target executions exec/s corpus cov features result
for target in "${targets[@]}"; do
    log="$build/logs/$target.log"
    field() { grep -m1 "stat::$1:" "$log" | awk '{print $2}'; }
    executions=$(field number_of_executed_units)
    per_second=$(field average_exec_per_sec)
    corpus=$(ls "$build/corpus/$target" | wc -l)
    coverage=$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -n 1)
    result=clean
    artifacts=$(find "$build/artifacts/$target" -type f 2>/dev/null)
    if [ -n "$artifacts" ]; then
        found=1
        result="FOUND: $(echo "$artifacts" | xargs -n1 basename | tr '\n' ' ')"
        mkdir -p "Fixtures/fuzz/$target"
        for file in $artifacts; do mv "$file" "Fixtures/fuzz/$target/"; done
    elif [ -z "$executions" ]; then
        found=1
        result="did not finish: see $log"
    fi
    printf '%-18s %12s %8s %8s %8s %10s  %s\n' "$target" "${executions:-?}" "${per_second:-?}" "$corpus" \
        "$(echo "$coverage" | awk '{print $2}')" "$(echo "$coverage" | awk '{print $4}')" "$result"
done
if [ "$found" = 1 ]; then
    echo "inputs that crashed, hung or leaked are now in Fixtures/fuzz/<target>/ (logs: $build/logs/)" >&2
    exit 1
fi
