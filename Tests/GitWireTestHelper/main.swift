// A helper the tests run as a process of its own, for what no test can check inside the test
// process: whether a write kills the process with SIGPIPE. (The test process ignores SIGPIPE as
// soon as any test runs a child or writes to a pipe; after that a missing MSG_NOSIGNAL could no
// longer kill it, and the test could not fail.) Each mode prints what it saw, one fact a line,
// and exits 0; a SIGPIPE ends it with status 128 + 13 before it says anything more.
import GitWire
import Glibc

/// What SIGPIPE does to this process now: `default` (it kills), `ignored`, or `handled`.
func brokenPipeDisposition() -> String {
    var action = sigaction()
    sigaction(SIGPIPE, nil, &action)
    switch unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self) {
    case unsafeBitCast(SIG_DFL, to: Int.self): return "default"
    case unsafeBitCast(SIG_IGN, to: Int.self): return "ignored"
    default: return "handled"
    }
}

/// Prints `line` at once (a SIGPIPE must not swallow what was printed before it).
func say(_ line: String) {
    print(line)
    fflush(nil)
}

/// Writes to `stream` until the write fails; says how it failed.
func writeUntilItFails(_ stream: ByteOutputStream) {
    do {
        for _ in 0..<1000 { try stream.writeFully([UInt8](repeating: 0, count: 65536)) }
        say("write: no error")
    } catch let error as SystemCallError {
        say("write: \(error.errno == .brokenPipe ? "EPIPE" : "\(error)")")
    } catch {
        say("write: \(error)")
    }
}

let mode = CommandLine.arguments.dropFirst().first ?? ""
say("SIGPIPE before: \(brokenPipeDisposition())")
do {
    switch mode {
    case "write-to-closed-socket":
        // A socket whose peer is gone: gitwire writes sockets with MSG_NOSIGNAL.
        let (ours, theirs) = try ByteStreamPair.socketPair()
        theirs.close()
        writeUntilItFails(ours.output)
        ours.close()
    case "write-to-exited-child":
        // A pipe to a child that has exited: gitwire ignores SIGPIPE once it runs a child.
        let (pair, process, _) = try ByteStreamPair.spawning(["true"])
        try pair.open()
        try process.wait()
        writeUntilItFails(pair.output)
        pair.close()
    default:
        say("unknown mode '\(mode)'")
        exit(2)
    }
} catch {
    say("failed: \(error)")
    exit(1)
}
say("SIGPIPE after: \(brokenPipeDisposition())")
