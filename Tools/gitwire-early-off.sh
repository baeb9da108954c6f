#!/bin/sh
# gitwire with delta resolution while receiving turned off, for BASELINE= of the benchmark scripts
# (e.g. BASELINE=Tools/gitwire-early-off.sh Tools/bench-clone-interleaved.sh): runs $GITWIRE, or
# the README's build in this checkout, with GITWIRE_RESOLVE_WHILE_RECEIVING=0.
GITWIRE_RESOLVE_WHILE_RECEIVING=0 exec "${GITWIRE:-$(dirname "$0")/../.build/release/gitwire}" "$@"
