#!/usr/bin/env bash
# Builds the DocC documentation of the library with the toolchain's docc, and fails on any warning:
# unresolved symbol links, malformed markup, warnings of the build itself. One archive holds two
# modules: GitWire (the catalog Sources/GitWire/GitWire.docc and the doc comments of GitWire,
# GitWireCore and GitWirePOSIX) and GitWireReplay (Sources/GitWireReplay/GitWireReplay.docc and its
# doc comments), under a landing page that lists both.
#
#   bash Tools/docs.sh            # writes .build-docs/GitWire.doccarchive
#
# To read it, serve the archive's folder over HTTP on loopback and open the module pages in a
# browser (the archive is built for static hosting; opening its files directly does not work):
#
#   python3 -m http.server 8000 --bind 127.0.0.1 --directory .build-docs/GitWire.doccarchive
#   # then http://127.0.0.1:8000/documentation/ (the landing page: both modules), or
#   # .../documentation/gitwire and .../documentation/gitwirereplay
#
# or let docc serve the catalog itself (it rebuilds on every change of an article):
#   docc preview Sources/GitWire/GitWire.docc --additional-symbol-graph-dir .build-docs/symbol-graphs/GitWire
#
# No docc plugin is needed: the script builds the GitWireReplay target (and so GitWire), extracts
# the symbol graphs with swift-symbolgraph-extract, converts each catalog with its graph, and
# merges the two archives (docc merge).
#
# One graph documents all three layers: GitWire re-exports GitWireCore and GitWirePOSIX
# (@_exported import), and the extractor, allowed to, puts the re-exported modules' symbols into
# GitWire's graph. Passing the lower modules' own graphs as well would make docc document them a
# second time as separate modules. GitWireReplay is converted on its own catalog; its doc comments
# name GitWire's symbols as code (`Transport`), not as links, which docc cannot resolve across
# archives here.
# (The graphs the compiler emits during a build, -emit-symbol-graph, hold the same symbols but go
# stale: when only a doc comment of a lower module changes, GitWire is not recompiled and its
# graph keeps the old comment. The extractor reads the freshly built modules every time.)
#
# Environment: DOCC (the docc binary; default: next to swift, else on PATH),
# DOCS_HOSTING_BASE_PATH (passed to docc as --hosting-base-path when set).
set -euo pipefail
cd "$(dirname "$0")/.."

scratch=.build-docs
graphs="$scratch/symbol-graphs"
output="$scratch/GitWire.doccarchive"
parts="$scratch/parts"
log="$scratch/docs.log"

tool_next_to_swift() {
    local swift_path
    swift_path=$(command -v swift || true)
    if [ -n "$swift_path" ] && [ -x "$(dirname "$(readlink -f "$swift_path")")/$1" ]; then
        echo "$(dirname "$(readlink -f "$swift_path")")/$1"
    else
        command -v "$1" || true
    fi
}
docc=${DOCC:-$(tool_next_to_swift docc)}
extract=$(tool_next_to_swift swift-symbolgraph-extract)
for tool in "$docc" "$extract"; do
    if [ -z "$tool" ] || [ ! -x "$tool" ]; then
        echo "docs: docc or swift-symbolgraph-extract not found next to swift or on PATH (set DOCC)" >&2
        exit 1
    fi
done
mkdir -p "$scratch"

echo "== docs: building GitWire and GitWireReplay" >&2
swift build --scratch-path "$scratch" --target GitWireReplay 2>&1 | tee "$log"
if grep -q "warning:" "$log"; then
    echo "docs: the build has warnings" >&2
    exit 1
fi
bin=$(swift build --scratch-path "$scratch" --show-bin-path)
triple=$(basename "$(dirname "$bin")")

echo "== docs: extracting the symbol graphs" >&2
rm -rf "$graphs" "$output" "$parts"
mkdir -p "$graphs/GitWire" "$graphs/GitWireReplay" "$parts"
extract_graph() {
    local module=$1
    shift
    "$extract" -module-name "$module" -target "$triple" -I "$bin/Modules" \
        -Xcc -fmodule-map-file="$bin/CGitWire.build/module.modulemap" \
        -minimum-access-level public "$@" -output-dir "$graphs/$module" 2>&1 | tee "$log"
    if grep -qE "(warning|error):" "$log" || [ ! -s "$graphs/$module/$module.symbols.json" ]; then
        echo "docs: symbol graph extraction of $module failed" >&2
        exit 1
    fi
}
extract_graph GitWire -experimental-allowed-reexported-modules=GitWireCore,GitWirePOSIX
extract_graph GitWireReplay
# The whole library must be in GitWire's graph: a toolchain that left the re-exported modules
# out would silently drop two layers from the documentation.
for symbol in EpollRunLoop PktLine Remote; do
    grep -q "\"names\":{\"title\":\"$symbol\"" "$graphs/GitWire/GitWire.symbols.json" || {
        echo "docs: GitWire's symbol graph has no $symbol; the re-exported modules are missing" >&2
        exit 1
    }
done

hosting=()
if [ -n "${DOCS_HOSTING_BASE_PATH:-}" ]; then hosting=(--hosting-base-path "$DOCS_HOSTING_BASE_PATH"); fi
# convert MODULE CATALOG [docc options...]: one module's archive in $parts, warnings fail.
convert() {
    local module=$1 catalog=$2
    shift 2
    echo "== docs: converting $module with $docc" >&2
    local status=0
    "$docc" convert "$catalog" \
        --additional-symbol-graph-dir "$graphs/$module" \
        --output-path "$parts/$module.doccarchive" \
        --fallback-display-name "$module" \
        --fallback-bundle-identifier "org.gitwire.$module" \
        --fallback-default-module-kind Library \
        --warnings-as-errors \
        "$@" "${hosting[@]}" 2>&1 | tee "$log" || status=$?
    if [ "$status" -ne 0 ] || grep -qE "(warning|error):" "$log"; then
        echo "docs: docc reported problems in $module (exit status $status)" >&2
        exit 1
    fi
}
convert GitWire Sources/GitWire/GitWire.docc
convert GitWireReplay Sources/GitWireReplay/GitWireReplay.docc

echo "== docs: merging the archives" >&2
status=0
"$docc" merge "$parts/GitWire.doccarchive" "$parts/GitWireReplay.doccarchive" \
    --synthesized-landing-page-name gitwire --output-path "$output" 2>&1 | tee "$log" || status=$?
if [ "$status" -ne 0 ] || grep -qE "(warning|error):" "$log"; then
    echo "docs: docc merge reported problems (exit status $status)" >&2
    exit 1
fi
for module in gitwire gitwirereplay; do
    [ -d "$output/data/documentation/$module" ] || {
        echo "docs: the merged archive has no $module module" >&2
        exit 1
    }
done
echo "docs: wrote $output" >&2
