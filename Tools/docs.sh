#!/usr/bin/env bash
# Builds the DocC documentation of the GitWire library (the catalog Sources/GitWire/GitWire.docc
# and the doc comments of GitWire, GitWireCore and GitWirePOSIX) with the toolchain's docc, and
# fails on any warning: unresolved symbol links, malformed markup, warnings of the build itself.
#
#   bash Tools/docs.sh            # writes .build-docs/GitWire.doccarchive
#
# No docc plugin is needed: the script builds the GitWire target, extracts its symbol graph with
# swift-symbolgraph-extract, and converts the catalog with that graph.
#
# One graph documents all three layers: GitWire re-exports GitWireCore and GitWirePOSIX
# (@_exported import), and the extractor, allowed to, puts the re-exported modules' symbols into
# GitWire's graph. Passing the lower modules' own graphs as well would make docc document them a
# second time as separate modules. GitWireReplay is a separate module and is not included.
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

echo "== docs: building GitWire" >&2
swift build --scratch-path "$scratch" --target GitWire 2>&1 | tee "$log"
if grep -q "warning:" "$log"; then
    echo "docs: the build has warnings" >&2
    exit 1
fi
bin=$(swift build --scratch-path "$scratch" --show-bin-path)
triple=$(basename "$(dirname "$bin")")

echo "== docs: extracting the symbol graph" >&2
rm -rf "$graphs" "$output"
mkdir -p "$graphs"
"$extract" -module-name GitWire -target "$triple" -I "$bin/Modules" \
    -Xcc -fmodule-map-file="$bin/CGitWire.build/module.modulemap" \
    -minimum-access-level public \
    -experimental-allowed-reexported-modules=GitWireCore,GitWirePOSIX \
    -output-dir "$graphs" 2>&1 | tee "$log"
if grep -qE "(warning|error):" "$log" || [ ! -s "$graphs/GitWire.symbols.json" ]; then
    echo "docs: symbol graph extraction failed" >&2
    exit 1
fi
# The whole library must be in GitWire's graph: a toolchain that left the re-exported modules
# out would silently drop two layers from the documentation.
for symbol in EpollRunLoop PktLine Remote; do
    grep -q "\"names\":{\"title\":\"$symbol\"" "$graphs/GitWire.symbols.json" || {
        echo "docs: GitWire's symbol graph has no $symbol; the re-exported modules are missing" >&2
        exit 1
    }
done

echo "== docs: converting with $docc" >&2
hosting=()
if [ -n "${DOCS_HOSTING_BASE_PATH:-}" ]; then hosting=(--hosting-base-path "$DOCS_HOSTING_BASE_PATH"); fi
status=0
"$docc" convert Sources/GitWire/GitWire.docc \
    --additional-symbol-graph-dir "$graphs" \
    --output-path "$output" \
    --fallback-display-name GitWire \
    --fallback-bundle-identifier org.gitwire.GitWire \
    --fallback-default-module-kind Library \
    --warnings-as-errors \
    "${hosting[@]}" 2>&1 | tee "$log" || status=$?
if [ "$status" -ne 0 ] || grep -qE "(warning|error):" "$log"; then
    echo "docs: docc reported problems (exit status $status)" >&2
    exit 1
fi
echo "docs: wrote $output" >&2
