#!/usr/bin/env bash
# Builds gitwire as the README and every benchmark build it (Tools/lib.sh: release_build_flags)
# and prints the binary's path. GITWIRE_PIE=0 links a position-dependent executable (faster to
# start, without address-space randomisation of the executable).
# Usage: Tools/build-release.sh [product=gitwire]
set -euo pipefail
source "$(dirname "$0")/lib.sh"
build_gitwire "${1:-gitwire}"
echo "$gitwire"
