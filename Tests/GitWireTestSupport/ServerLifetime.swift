import Foundation

/// The command line that runs the server `arguments` for at most `lifetime` seconds (under
/// `timeout`), passes a `SIGTERM` on to it, and stops it within about a second of the test process
/// ending, however that ends: a crash or a sanitizer abort skips the exit handler that stops the
/// servers, and a server left running would hold the test runner's output pipe open (so
/// `swift test` would wait for it) until its lifetime ran out. A small `sh` watches whether its
/// parent is still the test process.
func boundedServerCommand(_ arguments: [String], lifetime: Int) -> [String] {
    let script = """
        test_process=$1
        shift
        "$@" &
        server=$!
        trap 'kill -TERM "$server" 2>/dev/null; wait "$server" 2>/dev/null; exit 143' TERM INT
        while kill -0 "$server" 2>/dev/null; do
            if [ "$(cut -d ' ' -f 4 /proc/$$/stat)" != "$test_process" ]; then
                kill -TERM "$server" 2>/dev/null
                break
            fi
            sleep 1
        done
        wait "$server" 2>/dev/null
        """
    return ["sh", "-c", script, "gitwire-test-server", String(getpid()), "timeout", "--signal=TERM", String(lifetime)]
        + arguments
}
