# Sourced by the scripts in Tools/: one place for what they share.
#
#   $root                          the package's top folder
#   build_gitwire [product]        the README's release build of gitwire (or of another product);
#                                  sets $gitwire to the binary (GITWIRE=<path> skips the build
#                                  and measures that binary instead)
#   release_build_flags            the `swift build` arguments of that build, in $release_flags
#   setup_machine                  Tools/setup.sh: installs the Debian packages that are missing
#   start_work <name>              a throwaway folder $work under /tmp, removed on exit
#   at_exit <command>              runs <command> on exit (servers stop, folders go), last first
#   start_daemon <repository> <lifetime> [<git daemon option>...]
#                                  `git daemon` on 127.0.0.1 serving $work; waits until
#                                  <repository> answers; sets $port and $daemon
#   start_http_server <root> <lifetime> [<option>...]
#                                  `git http-backend` behind Tools/git-http-server.py on
#                                  127.0.0.1; sets $http_port and $http_server
#   make_many_refs <git dir> <refs>
#                                  a bare repository of 50 commits and about <refs> refs
#   bench_out <name>               sets $out to the folder a benchmark writes its results to:
#                                  ${BENCH_OUT:-.build/bench}/<name>
#   hyperfine_run <json> <hyperfine arguments...>
#                                  hyperfine with its JSON written to <json>
#   bench_table <json> [<memory file>] [<bytes>]
#                                  a table of medians, ratios gitwire/git and peak memory (and
#                                  throughput and mean CPU time when each run handles <bytes>)
#   linked_modules <binary>        Swift modules in the binary that cost start-up time
#                                  (_StringProcessing, _RegexParser, Foundation), if any
#   median                         the median of the numbers on standard input, one a line (the
#                                  mean of the middle two for an even count), for what hyperfine
#                                  does not time
#   peak_rss <memory file> <label> <command...>
#                                  runs the command once under /usr/bin/time -f %M and appends
#                                  "<label>\t<KiB>" to the file
#
# Commands are named "git <what>" and "gitwire <what>" in hyperfine (-n): bench_table pairs them
# by <what> and prints the ratio gitwire/git of the medians; "<other> <what>" (another build) gets
# a row of its own with its ratio to git.

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# Benchmarks and demos do not read the user's or the system's git configuration.
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null

setup_machine() { bash "$root/Tools/setup.sh"; }

# The README's build: the Swift runtime and libstdc++, libgcc, zlib and libdeflate linked into the
# binary, which then loads only libc and libm at start; the binary's symbols not exported (the
# Swift toolchain exports them all by default, which costs every start symbol-table work), no
# $ORIGIN run path (every library lookup first tried ten folders beside the binary).
# Every function in a section of its own (the Swift standard library's and runtime's archives
# already are), linked by lld (the toolchain's), which lays them out in the order
# Tools/function-order.sh lists (build_gitwire) and packs the relative relocations (RELR: 6 KB
# where gold's .rela.dyn was 764 KB, all read at start; needs glibc 2.36).
# GITWIRE_PIE=0 links a position-dependent executable: about 0.2 ms faster to start here
# (no relocation of 30,000 pointers, 100 fewer page faults), but without address-space
# randomisation of the executable's own code and data.
release_build_flags() {
    local static="$root/.build/static-libs"
    static_archives "$static" libstdc++.a libz.a libdeflate.a
    release_flags=(-c release --static-swift-stdlib --disable-local-rpath
        -Xlinker --no-export-dynamic
        -Xswiftc "-L$static" -Xswiftc -Xclang-linker -Xswiftc -static-libgcc
        -Xswiftc -Xfrontend -Xswiftc -function-sections -Xcc -ffunction-sections
        -Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs)
    if [ "${GITWIRE_PIE:-1}" = 0 ]; then release_flags+=(-Xswiftc -Xclang-linker -Xswiftc -no-pie); fi
}

# static_archives <folder> <archive>...: a folder of links to the static archives only. Given to
# the linker with -L, it is searched before the system's folders, so that `-lstdc++`, `-lz` and
# `-ldeflate` find the archives there. An archive the machine lacks leaves the shared library.
static_archives() {
    local folder=$1 library path
    shift
    rm -rf "$folder"
    mkdir -p "$folder"
    for library in "$@"; do
        path=$(${CC:-cc} -print-file-name="$library" 2>/dev/null || true)
        if [ "${path#/}" != "$path" ] && [ -f "$path" ]; then
            ln -s "$path" "$folder/$library"
        else
            echo "warning: no $library on this machine; its shared library is linked instead" >&2
        fi
    done
}

build_gitwire() {
    local product=${1:-gitwire}
    if [ "$product" = gitwire ] && [ -n "${GITWIRE:-}" ]; then
        gitwire=$GITWIRE
        return
    fi
    release_build_flags
    local binary="$root/.build/release/$product" order="" linked
    # gitwire's functions in the order Tools/function-order.sh lists (GITWIRE_ORDER=0: none): the
    # code a run touches then sits in a few pages instead of all over `.text`.
    if [ "$product" = gitwire ] && [ "${GITWIRE_ORDER:-1}" != 0 ]; then
        order="$root/.build/$product.order"
        [ -f "$order" ] || : >"$order"
        release_flags+=(-Xlinker "--symbol-ordering-file=$order" -Xlinker --no-warn-symbol-ordering)
    fi
    # SwiftPM links again only when its inputs or flags change, not when a library found through
    # -L or the order file changes: a binary linked with other flags is made again.
    if [ -f "$binary.flags" ] && [ "$(cat "$binary.flags")" != "${release_flags[*]}" ]; then
        rm -f "$binary"
    fi
    linked=$(date -r "$binary" +%s%N 2>/dev/null || true)
    link_release "$product"
    echo "${release_flags[*]}" >"$binary.flags"
    gitwire=$binary
    # Linked again (the code changed) or never ordered: list the functions this binary runs (the
    # same whatever order it was linked in) and link again if the list changed. Without the list
    # (no valgrind, or a step failed) the binary is linked in the compiler's order, and this says so.
    if [ -n "$order" ] && { [ "$linked" != "$(date -r "$binary" +%s%N)" ] || [ ! -s "$order" ]; }; then
        if bash "$root/Tools/function-order.sh" "$binary" "$order.new"; then
            if ! cmp -s "$order.new" "$order"; then
                mv "$order.new" "$order"
                rm -f "$binary"
                link_release "$product"
            fi
        else
            echo "warning: $product is linked without a function order (Tools/function-order.sh failed)" >&2
            if [ -s "$order" ]; then
                : >"$order"
                rm -f "$binary"
                link_release "$product"
            fi
        fi
        rm -f "$order.new"
    fi
}

# link_release <product>: swift build with $release_flags.
link_release() {
    (cd "$root" && swift build "${release_flags[@]}" --product "$1" >&2)
}

# linked_modules <binary>: the Swift modules a start pays for beyond the runtime's own, named when
# their symbols are in the binary: _StringProcessing and _RegexParser (pulled in by a single
# String.contains(_:) or split(separator:) with a string separator) and Foundation each add
# metadata the loader relocates at every start of a position-independent executable.
linked_modules() {
    nm "$1" 2>/dev/null | awk '
        /\$s17_StringProcessing/ { found["_StringProcessing"] = 1 }
        /\$s12_RegexParser/ { found["_RegexParser"] = 1 }
        /\$s10Foundation/ { found["Foundation"] = 1 }
        END { for (m in found) printf "%s ", m }'
}

# Clean-up on exit, in reverse order of registration; errexit is off there so that a killed
# server's status does not stop the rest.
exit_actions=()
run_exit_actions() {
    set +e
    local i
    for ((i = ${#exit_actions[@]} - 1; i >= 0; i--)); do eval "${exit_actions[$i]}"; done
}
at_exit() {
    exit_actions+=("$1")
    trap run_exit_actions EXIT
}

work=""
start_work() {
    work=$(mktemp -d "/tmp/gitwire-$1.XXXXXX")
    at_exit 'rm -rf "$work"'
}

# Stops process $1 (a server this script started) and waits for it.
stop_process() {
    if [ -n "$1" ]; then
        kill "$1" 2>/dev/null || true
        wait "$1" 2>/dev/null || true
    fi
}

daemon=""
start_daemon() {
    local repository=$1 lifetime=$2
    shift 2
    for _ in $(seq 10); do
        port=$((20000 + RANDOM % 40000))
        timeout "$lifetime" git daemon --reuseaddr --listen=127.0.0.1 --port="$port" --export-all \
            --base-path="$work" "$@" "$work" 2>/dev/null &
        daemon=$!
        for _ in $(seq 50); do
            if git ls-remote "git://127.0.0.1:$port/$repository" HEAD >/dev/null 2>&1; then
                at_exit "stop_process $daemon"
                return 0
            fi
            kill -0 "$daemon" 2>/dev/null || break
            sleep 0.1
        done
        stop_process "$daemon"
        daemon=""
    done
    echo "could not start git daemon" >&2
    exit 1
}

http_server=""
start_http_server() {
    local served=$1 lifetime=$2 port_file
    shift 2
    port_file=$(mktemp /tmp/gitwire-http-port.XXXXXX)
    rm -f "$port_file"
    # Not under timeout: $http_server is the server's own pid (Tools/bench-batch.sh reads its CPU
    # time); --lifetime stops it by itself.
    python3 "$root/Tools/git-http-server.py" --root "$served" \
        --lifetime "$lifetime" --port-file "$port_file" "$@" 2>/dev/null &
    http_server=$!
    at_exit "stop_process $http_server; rm -f $port_file"
    for _ in $(seq 200); do
        [ -s "$port_file" ] && break
        kill -0 "$http_server" 2>/dev/null || break
        sleep 0.05
    done
    [ -s "$port_file" ] || { echo "could not start Tools/git-http-server.py" >&2; exit 1; }
    http_port=$(cat "$port_file")
}

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

bench_out() {
    out="${BENCH_OUT:-$root/.build/bench}/$1"
    mkdir -p "$out"
}

# Where the machine stands, for the record next to each table.
machine_line() {
    echo "$(nproc) cores, $(uname -r), $(git --version), hyperfine $(hyperfine --version | cut -d' ' -f2);" \
        "load $(cut -d' ' -f1-3 /proc/loadavg)"
}

hyperfine_run() {
    local json=$1
    shift
    hyperfine --style basic --export-json "$json" "$@" >&2
}

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

peak_rss() {
    local file=$1 label=$2 time_file
    shift 2
    time_file=$(mktemp /tmp/gitwire-rss.XXXXXX)
    /usr/bin/time -f %M -o "$time_file" "$@" >/dev/null 2>&1 </dev/null ||
        { echo "failed under /usr/bin/time: $*" >&2; rm -f "$time_file"; exit 1; }
    printf '%s\t%s\n' "$label" "$(tail -n 1 "$time_file")" >>"$file"
    rm -f "$time_file"
}

# Prints a table of the hyperfine results in <json>: each "gitwire <what>" command next to
# "git <what>" with the ratio of the medians; other commands on rows of their own. With a
# memory file (lines "<command name>\t<KiB>" from peak_rss), peak memory too.
bench_table() {
    python3 - "$@" <<'PY'
import json, sys

results = json.load(open(sys.argv[1]))["results"]
memory = {}
size = int(sys.argv[3]) if len(sys.argv) > 3 and sys.argv[3] else 0
if len(sys.argv) > 2 and sys.argv[2]:
    for line in open(sys.argv[2]):
        name, kib = line.rstrip("\n").split("\t")
        memory[name] = int(kib)

def name(result):
    return result.get("command_name") or result["command"]

def duration(seconds):
    return "%.1f s" % seconds if seconds >= 10 else "%.2f s" % seconds if seconds >= 1 else "%.2f ms" % (seconds * 1000)

def cell(result):
    text = "%s (min %s, %d runs)" % (duration(result["median"]), duration(result["min"]), len(result["times"]))
    if size:
        text += ", %.0f MB/s, CPU %s" % (size / 1e6 / result["median"], duration(result["user"] + result["system"]))
    if name(result) in memory:
        text += ", %.1f MiB" % (memory[name(result)] / 1024)
    return text

by_name = {name(r): r for r in results}
print("| benchmark | git | gitwire | ratio (median) |")
print("| --- | --- | --- | --- |")
done = set()
for result in results:
    n = name(result)
    if n in done:
        continue
    done.add(n)
    if n.startswith("gitwire "):
        what, git, ours = n[len("gitwire "):], by_name.get("git " + n[len("gitwire "):]), result
    elif n.startswith("git ") and ("gitwire " + n[len("git "):]) in by_name:
        what, git, ours = n[len("git "):], result, by_name["gitwire " + n[len("git "):]]
    else:
        # Another build ("baseline <what>"): its ratio to git's median.
        label, _, what = n.partition(" ")
        git = by_name.get("git " + what)
        ratio = "%.2f" % (result["median"] / git["median"]) if git else ""
        print("| %s (%s) | | %s | %s |" % (what or n, label, cell(result), ratio))
        continue
    if git is None:
        print("| %s | | %s | |" % (what, cell(ours)))
        continue
    done.update((name(git), name(ours)))
    ratio = "%.2f" % (ours["median"] / git["median"])
    if name(ours) in memory and name(git) in memory:
        ratio += ", memory %.2f" % (memory[name(ours)] / memory[name(git)])
    print("| %s | %s | %s | %s |" % (what, cell(git), cell(ours), ratio))
PY
}
