import GitWire
import GitWireTestSupport
import Testing

/// Many exchanges at once on one run loop.
@Suite("Remote concurrency")
struct RemoteConcurrencyTests {
    /// A hundred ls-remotes against the daemon, all on one loop and thread, protocol versions
    /// mixed: each completes once with what git lists.
    @Test func aHundredLsRemotesOnOneLoop() throws {
        let url = TestRepositories.shared.daemon.url("small.git")
        var expected: [ProtocolVersion: [UInt8]] = [:]
        for version in ProtocolVersion.allCases {
            expected[version] = try git(["-c", "protocol.version=\(version.rawValue)", "ls-remote", url]).standardOutput
        }
        let remote = try Remote(url, timeout: .seconds(60).scaledForSlowRuns)
        let loop = try EpollRunLoop()
        let listings = (0..<100).map { _ in LoopListing() }
        // Started a few milliseconds apart: git daemon listens with a backlog of 5, and a burst of
        // a hundred connects overflows it into SYN retransmissions (seconds each).
        var started = 0
        loop.addTimer(after: .zero, repeating: .milliseconds(3)) { timer in
            let listing = listings[started]
            let version = ProtocolVersion.allCases[started % 3]
            remote.lsRemote(
                LsRemoteOptions(protocolVersion: version), in: loop, onRef: { listing.refs.append($0) },
                completion: { result in
                    listing.result = result
                    listing.refsAtCompletion = listing.refs.count
                    listing.completions += 1
                })
            started += 1
            if started == listings.count { timer.invalidate() }
        }
        loop.run(until: .now + .seconds(120).scaledForSlowRuns)
        for (index, listing) in listings.enumerated() {
            let version = ProtocolVersion.allCases[index % 3]
            #expect(listing.completions == 1, "call \(index)")
            let refs = try #require(try listing.result?.get().refs, "call \(index)")
            #expect(lsRemoteText(refs) == expected[version], "call \(index) v\(version)")
            #expect(listing.refs == refs)
        }
        #expect(loop.scheduledSourceCount == 0)
    }

    /// Concurrent async calls share the background loop.
    @Test(.onTestThreads) func concurrentAsyncCalls() async throws {
        let url = TestRepositories.shared.daemon.url("big.git")
        let expected = try git(["ls-remote", url]).standardOutput
        let remote = try Remote(url, timeout: .seconds(60).scaledForSlowRuns)
        let outputs = try await withThrowingTaskGroup(of: [UInt8].self) { group in
            for _ in 0..<20 { group.addTask { lsRemoteText(try await remote.lsRemote().refs) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outputs.count == 20)
        #expect(outputs.allSatisfy { $0 == expected })
    }
}
