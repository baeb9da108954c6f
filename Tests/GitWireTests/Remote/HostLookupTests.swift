import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// A resolver that holds every lookup until the test opens its gate, then answers with loopback.
final class GatedResolver: HostResolver {
    private let gate = DispatchSemaphore(value: 0)
    private let state = Locked((asked: [String](), answered: 0))

    /// The hosts asked for so far.
    var asked: [String] { state.withLock { $0.asked } }
    /// How many lookups have returned.
    var answered: Int { state.withLock { $0.answered } }

    func resolve(host: String, port: Int) throws -> [SocketAddress] {
        state.withLock { $0.asked.append(host) }
        gate.wait()
        gate.signal()  // once open, the gate stays open for every later lookup
        defer { state.withLock { $0.answered += 1 } }
        return try SocketAddress.resolve(host: "127.0.0.1", port: port, numericOnly: true)
    }

    /// Lets every held and later lookup through.
    func open() { gate.signal() }
}

/// Host names are looked up off the run loop's thread: a slow answer stalls neither the other
/// exchanges on the loop nor the connect timeout.
@Suite("Host lookups off the loop")
struct HostLookupTests {
    let daemon = TestRepositories.shared.daemon

    func remote(_ resolver: any HostResolver, host: String, timeout: Duration? = .seconds(30).scaledForSlowRuns) throws
        -> Remote
    {
        let transport = GitDaemonTransport(host: host, port: daemon.port, resolver: resolver)
        return Remote(url: try RemoteURL(daemon.url("small.git")), transport: transport, timeout: timeout)
    }

    @Test func aSlowLookupDoesNotStallOtherExchangesOnTheLoop() throws {
        let resolver = GatedResolver()
        defer { resolver.open() }
        let slow = try remote(resolver, host: "slow.test")
        let fast = try Remote(daemon.url("small.git"), timeout: .seconds(30).scaledForSlowRuns)
        let loop = try EpollRunLoop()
        var slowResult: Result<RefListing, any Error>?
        var fastResult: Result<RefListing, any Error>?
        slow.lsRemote(in: loop) { result in
            slowResult = result
            loop.stop()
        }
        fast.lsRemote(in: loop) { result in
            fastResult = result
            loop.stop()
        }
        loop.run(until: .now + .seconds(30).scaledForSlowRuns)
        // The loop came back for the exchange whose host needed no lookup, while the other
        // lookup is still held.
        let fastListing = try #require(try fastResult?.get())
        #expect(slowResult == nil)
        #expect(resolver.asked == ["slow.test"])
        #expect(resolver.answered == 0)

        resolver.open()
        loop.run(until: .now + .seconds(30).scaledForSlowRuns)
        let slowListing = try #require(try slowResult?.get())
        #expect(slowListing.refs == fastListing.refs)
    }

    @Test func theConnectTimeoutFiresDuringASlowLookup() throws {
        let resolver = GatedResolver()
        defer { resolver.open() }
        let remote = try remote(resolver, host: "slow.test", timeout: .milliseconds(500))
        let loop = try EpollRunLoop()
        var result: Result<RefListing, any Error>?
        remote.lsRemote(in: loop) { outcome in
            result = outcome
            loop.stop()
        }
        loop.run(until: .now + .seconds(30).scaledForSlowRuns)
        let failure = try #require(
            result.map { outcome -> (any Error)? in
                if case .failure(let error) = outcome { return error }
                return nil
            } ?? nil)
        let timeout = try #require(failure as? StreamTimeoutError)
        #expect(timeout.description == "timed out after 0.5 s connecting to slow.test port \(daemon.port)")
        #expect((failure as? any GitWireError)?.kind == .timedOut)
        #expect(resolver.answered == 0)
    }

    @Test func theBlockingFormTimesOutDuringASlowLookupToo() throws {
        let resolver = GatedResolver()
        defer { resolver.open() }
        let remote = try remote(resolver, host: "slow.test", timeout: .milliseconds(500))
        let error = try #require(throws: StreamTimeoutError.self) { try remote.lsRemoteBlocking() }
        #expect(error.activity == "connecting to slow.test port \(daemon.port)")
        #expect(resolver.answered == 0)
    }

    @Test func aNameThatDoesNotResolveIsAConnectError() throws {
        let remote = try remote(SystemResolver(), host: "does-not-exist.invalid", timeout: .seconds(30))
        let error = try #require(throws: ResolveError.self) { try remote.lsRemoteBlocking() }
        #expect(error.kind == .connect)
        #expect(error.description.hasPrefix("unable to look up does-not-exist.invalid"))
    }

    @Test func numericAddressesAreAnsweredWithoutALookup() {
        #expect(
            SystemResolver().immediateAddresses(host: "127.0.0.1", port: 9418)?.first?.description == "127.0.0.1:9418")
        #expect(SystemResolver().immediateAddresses(host: "::1", port: 9418)?.first?.description == "[::1]:9418")
        #expect(SystemResolver().immediateAddresses(host: "localhost", port: 9418) == nil)
    }
}
