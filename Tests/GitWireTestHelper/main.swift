// A helper the tests run as a process of its own, for what no test can check inside the test
// process: whether a write kills the process with SIGPIPE, what a signal leaves behind. (The test process ignores SIGPIPE as
// soon as any test runs a child or writes to a pipe; after that a missing MSG_NOSIGNAL could no
// longer kill it, and the test could not fail.) Each mode prints what it saw, one fact a line,
// and exits 0; a SIGPIPE ends it with status 128 + 13 before it says anything more.
import GitWire
import GitWirePOSIX
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
    case "signal-between-create-and-register":
        // A worker thread creates a file and registers it for removal on a signal, staying in
        // between until `<path>.signalled` appears (the test sends its signal first, which this
        // thread has blocked, so the main thread takes it); the file must not be left behind.
        let path = CommandLine.arguments.dropFirst(2).first ?? ""
        // The test process may ignore or block the signal, and a child inherits both.
        signal(SIGINT, SIG_DFL)
        var interrupt = sigset_t()
        sigemptyset(&interrupt)
        sigaddset(&interrupt, SIGINT)
        pthread_sigmask(SIG_UNBLOCK, &interrupt, nil)
        try SignalCleanup.install()
        let thread = try startThread {
            SignalCleanup.deferringSignals {
                try? File.create(path).close()
                for _ in 0..<6000 where access(path + ".signalled", F_OK) != 0 { usleep(10_000) }
                SignalCleanup.removeFileOnSignal(path)
            }
        }
        pthread_join(thread, nil)
        say("not signalled")
    default:
        say("unknown mode '\(mode)'")
        exit(2)
    }
} catch {
    say("failed: \(error)")
    exit(1)
}
say("SIGPIPE after: \(brokenPipeDisposition())")
