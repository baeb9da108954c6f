import GitWire
import GitWireTestSupport
import Testing

/// Every form of ls-remote fails the same way against a server that stalls, a port nobody
/// listens on, or a caller that gives up.
@Suite("Remote failures")
struct RemoteFailureTests {
    /// How long each fake server waits for its clients. The async forms start on the concurrency
    /// pool, which on a 2-core machine the suite's blocking tests (clones, git runs) can hold for
    /// a minute or more: the servers must outlast that, or a late client finds nobody listening.
    static let serverLifetime: Duration = .seconds(300)

    /// The timeout of the tests that wait for one: short enough to keep them quick, long enough
    /// (scaled by `testSlowness`) for a busy machine to connect, and for a fake server's first
    /// bytes to arrive, before it fires: the error must name what was being read.
    static let timeout = Duration.seconds(2).scaledForSlowRuns

    func expectTimeouts(_ errors: [(any Error)?], after timeout: Duration, activity: String) {
        let seconds = timeout.secondsText
        #expect(errors.count == 4)
        for (form, error) in zip(["blocking", "run loop", "async", "refs()"], errors) {
            let timeout = error as? StreamTimeoutError
            #expect(timeout != nil, "\(form): \(String(describing: error))")
            #expect(timeout?.description == "timed out after \(seconds) s \(activity)", "\(form)")
        }
    }

    @Test(.onTestThreads, arguments: [ProtocolVersion.v0, .v2])
    func aServerThatNeverWritesTimesOutReadingTheAdvertisement(version: ProtocolVersion) async throws {
        let server = try FakeGitServer([], connections: 4, lifetime: Self.serverLifetime)
        let remote = try Remote(server.url(), timeout: Self.timeout)
        expectTimeouts(
            await errorsOfEveryForm(remote, LsRemoteOptions(protocolVersion: version)), after: Self.timeout,
            activity: "reading the ref advertisement")
        let connections = server.finish()
        #expect(connections.count == 4)
        #expect(connections.allSatisfy { $0.clientClosed })
    }

    @Test(.onTestThreads) func halfACapabilityAdvertisementTimesOutReadingIt() async throws {
        let capabilities = packets(of: try ServerCaptures.v2Capabilities("small.git"))
        let server = try FakeGitServer(
            [.send(bytes(of: Array(capabilities.prefix(3))))], connections: 4, lifetime: Self.serverLifetime)
        let remote = try Remote(server.url(), timeout: Self.timeout)
        expectTimeouts(
            await errorsOfEveryForm(remote), after: Self.timeout,
            activity: "reading the capability advertisement")
        #expect(server.finish().allSatisfy { $0.clientClosed })
    }

    @Test(.onTestThreads) func anUnansweredLsRefsTimesOutReadingTheResponse() async throws {
        let capabilities = try ServerCaptures.v2Capabilities("small.git")
        let server = try FakeGitServer(
            [.send(capabilities), .receiveCommand], connections: 4, lifetime: Self.serverLifetime)
        let remote = try Remote(server.url(), timeout: Self.timeout)
        expectTimeouts(
            await errorsOfEveryForm(remote), after: Self.timeout,
            activity: "reading the ls-refs response")
        let connections = server.finish()
        #expect(connections.count == 4)
        #expect(connections.allSatisfy { $0.commands.first == .text("command=ls-refs") && $0.clientClosed })
    }

    /// `gitwire ls-remote --timeout` gives up with a fatal error, status 128.
    @Test func theCommandLineReportsTheTimeout() throws {
        let server = try FakeGitServer([], connections: 1, lifetime: Self.serverLifetime)
        let seconds = Self.timeout.secondsText
        let result = try gitwire(["ls-remote", "--timeout=\(seconds)", server.url()])
        #expect(result.status == 128)
        #expect(result.errorText == "fatal: timed out after \(seconds) s reading the ref advertisement\n")
        #expect(result.standardOutput.isEmpty)
        #expect(server.finish().first?.clientClosed == true)
    }

    @Test(.onTestThreads) func aRefusedConnectionIsAConnectError() async throws {
        let reserved = try ListeningPort.refusing()
        let port = reserved.port
        let remote = try Remote(host: "127.0.0.1", port: port, path: "/repo.git", timeout: .seconds(10))
        let errors = await errorsOfEveryForm(remote)
        withExtendedLifetime(reserved) {}
        #expect(errors.count == 4)
        for error in errors {
            let refused = error as? ConnectError
            #expect(refused?.isRefused == true, "\(String(describing: error))")
            #expect(refused?.port == port)
        }
    }

    /// Cancelling the task ends the async call with `CancelledError` (the remote's timeout is far
    /// away) and closes the connection: the server reads its end.
    @Test(.onTestThreads) func cancellingTheAsyncCallClosesTheConnection() async throws {
        let server = try FakeGitServer([], connections: 1, lifetime: Self.serverLifetime)
        let remote = try Remote(server.url(), timeout: Duration.seconds(60).scaledForSlowRuns)
        let task = Task(executorPreference: TestThreads.shared) { try await remote.lsRemote() }
        #expect(await server.requestArrives(within: .seconds(280)))
        task.cancel()
        let result = await task.result
        #expect(throws: CancelledError.self) { try result.get() }
        let connections = server.finish()
        #expect(connections.count == 1)
        #expect(connections.first?.clientClosed == true)
    }

    @Test(.onTestThreads) func cancellingTheRefsConsumerClosesTheConnection() async throws {
        let server = try FakeGitServer([], connections: 1, lifetime: Self.serverLifetime)
        let remote = try Remote(server.url(), timeout: Duration.seconds(60).scaledForSlowRuns)
        let task = Task(executorPreference: TestThreads.shared) {
            var count = 0
            for try await _ in remote.refs() { count += 1 }
            return count
        }
        #expect(await server.requestArrives(within: .seconds(280)))
        task.cancel()
        // The loop throws: ending normally would claim an empty listing was complete.
        await #expect(throws: CancelledError.self) { try await task.value }
        #expect(server.finish().first?.clientClosed == true)
    }

    /// A consumer cancelled after some refs arrived (the server holds back the rest) gets
    /// `CancelledError` from the loop, not a normal end that would pass the refs so far for the
    /// whole listing.
    @Test(.onTestThreads) func cancellingTheRefsConsumerMidListingThrows() async throws {
        let advertisement = packets(of: try ServerCaptures.v0Advertisement("small.git"))
        try #require(advertisement.count > 3)
        let server = try FakeGitServer(
            [.send(bytes(of: Array(advertisement.dropLast())))], connections: 1, lifetime: Self.serverLifetime)
        let remote = try Remote(server.url(), timeout: Duration.seconds(60).scaledForSlowRuns)
        let task = Task(executorPreference: TestThreads.shared) {
            var names: [String] = []
            do {
                for try await ref in remote.refs(LsRemoteOptions(protocolVersion: .v0)) {
                    names.append(ref.name)
                    if names.count == 2 { withUnsafeCurrentTask { $0?.cancel() } }
                }
                return (names, nil as (any Error)?)
            } catch {
                return (names, error)
            }
        }
        let (names, error) = await task.value
        #expect(error is CancelledError, "\(String(describing: error))")
        // The refs that arrived before the cancellation may still be handed out; never the end.
        #expect(names.count >= 2, "\(names)")
        #expect(server.finish().first?.clientClosed == true)
    }

    /// A listing that arrived whole ends the loop normally, with every ref.
    @Test(.onTestThreads) func aCompleteRefsListingEndsNormally() async throws {
        let remote = try Remote(
            TestRepositories.shared.daemon.url("small.git"), timeout: .seconds(60).scaledForSlowRuns)
        let expected = try await remote.lsRemote().refs
        #expect(!expected.isEmpty)
        #expect(try await streamedRefs(remote) == expected)
    }

    @Test func cancellingARunLoopOperationClosesTheConnection() throws {
        let server = try FakeGitServer([], connections: 1, lifetime: Self.serverLifetime)
        let remote = try Remote(server.url(), timeout: Duration.seconds(60).scaledForSlowRuns)
        let loop = try EpollRunLoop()
        let listing = LoopListing()
        let operation = remote.lsRemote(
            in: loop, onRef: { listing.refs.append($0) },
            completion: { result in
                listing.result = result
                listing.completions += 1
            })
        loop.addTimer(after: .milliseconds(5), repeating: .milliseconds(5)) { timer in
            guard server.waitForRequest(timeout: .zero) else { return }
            timer.invalidate()
            operation.cancel()
            operation.cancel()
        }
        loop.run(until: .now + Duration.seconds(20).scaledForSlowRuns)
        #expect(listing.completions == 1)
        #expect(throws: CancelledError.self) { try listing.result?.get() }
        #expect(server.finish().first?.clientClosed == true)
        #expect(loop.scheduledSourceCount == 0)
    }

    @Test func cancellingAfterTheCompletionDoesNothing() throws {
        let remote = try Remote(
            TestRepositories.shared.daemon.url("small.git"), timeout: .seconds(30).scaledForSlowRuns)
        let loop = try EpollRunLoop()
        let listing = LoopListing()
        var operation: RunningExchange?
        operation = remote.lsRemote(
            in: loop,
            completion: { result in
                listing.result = result
                listing.completions += 1
                loop.addTimer(after: .zero) { _ in operation?.cancel() }
            })
        loop.run(until: .now + Duration.seconds(30).scaledForSlowRuns)
        #expect(listing.completions == 1)
        #expect(try listing.result?.get().refs.isEmpty == false)
    }
}
