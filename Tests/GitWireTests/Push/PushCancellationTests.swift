import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// `Remote.push` on a run loop, cancelled: before the commands are sent, and while the pack goes
/// out. Either way the completion comes once with `CancelledError`, the server's refs are what
/// they were (receive-pack updates nothing without the whole pack), `git fsck` passes there, and
/// no remote-tracking ref moves.
@Suite(.serialized) struct PushCancellationTests {
    final class Outcome: @unchecked Sendable {
        var result: Result<PushResult, any Error>?
        var completions = 0
        var writtenWhenCancelled: UInt64 = 0
        var operation: RunningExchange?
    }

    static func scenario() throws -> (PushScenario, GitDaemon) {
        let scenario = try PushScenario()
        // 6 MiB of incompressible data, so that the pack is still going out when cancelled.
        let random = try #require(FileHandle(forReadingAtPath: "/dev/urandom"))
        defer { try? random.close() }
        for index in 0..<6 {
            try random.readData(ofLength: 1 << 20).write(to: URL(fileURLWithPath: "\(scenario.local)/blob\(index).bin"))
        }
        try git(["add", "."], in: scenario.local)
        try git(["commit", "--quiet", "-m", "6 MiB of blobs"], in: scenario.local)
        try git(["remote", "add", "origin", scenario.served], in: scenario.local)
        let daemon = try GitDaemon(basePath: scenario.root, extraArguments: ["--enable=receive-pack"])
        return (scenario, daemon)
    }

    /// A receive-pack that reads its input through a slow pipe (bounded: 60 s).
    static func slowReceivePack(_ scenario: PushScenario) throws -> String {
        let path = scenario.directory.appending("slow-receive-pack")
        try """
        #!/usr/bin/env python3
        import os, signal, subprocess, sys, time
        signal.alarm(60)
        child = subprocess.Popen(["git-receive-pack"] + sys.argv[1:], stdin=subprocess.PIPE)
        try:
            while True:
                data = os.read(0, 65536)
                if not data:
                    break
                child.stdin.write(data)
                child.stdin.flush()
                time.sleep(0.05)
        except BrokenPipeError:
            pass
        try:
            child.stdin.close()
        except BrokenPipeError:
            pass
        sys.exit(child.wait())
        """.write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
        return path
    }

    @Test(
        "cancelled before the commands, and while the pack goes out: nothing changes anywhere",
        arguments: [false, true])
    func cancelled(whileWriting: Bool) throws {
        let (scenario, daemon) = try Self.scenario()
        // While writing: over file://, through a receive-pack that takes its input slowly (64 KiB
        // every 50 ms), so that the pack is still going out when the first written bytes are
        // reported (over a fast loopback socket the kernel's buffers could take it whole).
        let urls =
            whileWriting
            ? ["file://\(scenario.served)"] : ["file://\(scenario.served)", daemon.url("served.git")]
        for url in urls {
            try scenario.reset()
            try scenario.trackOrigin()
            let tracking = try scenario.localTracking()
            let before = try scenario.serverState().refs
            var remote = try Remote(url, timeout: Duration.seconds(120).scaledForSlowRuns)
            if whileWriting, var local = remote.transport as? LocalTransport {
                local.receivePack = try Self.slowReceivePack(scenario)
                remote.transport = local
            }
            let loop = try EpollRunLoop()
            let outcome = Outcome()
            var options = RepositoryPushOptions(
                trackingRefspecs: [try Refspec("+refs/heads/*:refs/remotes/origin/*")])
            // Progress on: the writing phase is what the second case waits for.
            options.progress = true
            outcome.operation = remote.push(
                from: "\(scenario.local)/.git", updates: [try PushRefspec("main"), try PushRefspec("feature:old")],
                options: options, in: loop,
                progress: { event in
                    guard whileWriting, outcome.writtenWhenCancelled == 0,
                        case .packing(.writing(_, _, let bytes)) = event, bytes > 0
                    else { return }
                    outcome.writtenWhenCancelled = bytes
                    outcome.operation?.cancel()
                },
                completion: { result in
                    outcome.result = result
                    outcome.completions += 1
                })
            if !whileWriting { outcome.operation?.cancel() }
            loop.run(until: .now + Duration.seconds(120).scaledForSlowRuns)
            #expect(outcome.completions == 1, "\(url)")
            #expect(throws: CancelledError.self) { try outcome.result?.get() }
            if whileWriting { #expect(outcome.writtenWhenCancelled > 0, "\(url)") }
            #expect(try scenario.serverState().refs == before, "\(url)")
            #expect(try scenario.serverState().fsck == 0, "\(url)")
            #expect(try scenario.localTracking() == tracking, "\(url)")
            // Nothing left behind: the same push afterwards goes through.
            let again = try remote.pushBlocking(
                from: "\(scenario.local)/.git", updates: [try PushRefspec("main")], options: options)
            #expect(again.succeeded, "\(url)")
            #expect(
                try gitText(["rev-parse", "main"], in: scenario.served)
                    == gitText(["rev-parse", "main"], in: scenario.local))
        }
    }
}
