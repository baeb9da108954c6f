import Foundation
import GitWire
import GitWireReplay
import GitWireTestSupport
import Synchronization
import Testing

/// The ways of calling ls-remote that must agree.
enum LsRemoteAPI: String, CaseIterable, Sendable {
    case blocking, runLoop, async, asyncSequence
}

private let chunkings: [ReplayChunking] = [.whole, .oneByte, .sizes([7]), .sizes([1, 2, 3, 5, 8, 13, 64, 65520])]

/// Every recorded ls-remote session, replayed with no network through every API and several
/// ways of splitting the server's bytes, must give exactly what real git printed when the
/// session was captured, and the client must send exactly the recorded bytes.
@Suite("Replay ls-remote fixtures")
struct ReplayLsRemoteTests {
    @Test func everyCaptureIsHere() {
        #expect(LsRemoteFixture.all.count >= 12)
        let versions = Set(LsRemoteFixture.all.map(\.session.protocolVersion))
        #expect(versions == [.v0, .v1, .v2])
    }

    @Test(.onTestThreads, arguments: LsRemoteFixture.all, LsRemoteAPI.allCases)
    func replayMatchesGit(_ fixture: LsRemoteFixture, api: LsRemoteAPI) async throws {
        for chunking in chunkings {
            let (remote, transport) = try fixture.remote(chunking: chunking)
            let outcome = await Self.listRefs(remote, options: fixture.options, api: api)
            let rendered = fixture.rendered(outcome)
            #expect(rendered.status == fixture.gitStatus, "\(chunking)")
            // Bytes compared whole, and shown as text when they differ: a failing comparison of
            // two byte arrays makes the test library compute their difference element by element,
            // which under ThreadSanitizer kept every thread of the pool busy for minutes.
            #expect(
                rendered.output.elementsEqual(fixture.gitStandardOutput),
                "\(chunking): \(String(decoding: rendered.output, as: UTF8.self))")
            #expect(
                String(decoding: rendered.error, as: UTF8.self)
                    == String(decoding: fixture.gitStandardError, as: UTF8.self),
                "\(chunking)")
            #expect(throws: Never.self, "\(chunking)") { try transport.verify() }
        }
    }

    static func listRefs(_ remote: Remote, options: LsRemoteOptions, api: LsRemoteAPI) async -> Result<[Ref], any Error>
    {
        switch api {
        case .blocking:
            return Result { try remote.lsRemoteBlocking(options).refs }
        case .runLoop:
            return runOnLoop(remote, options: options)
        case .async:
            do {
                return .success(try await remote.lsRemote(options).refs)
            } catch {
                return .failure(error)
            }
        case .asyncSequence:
            var refs: [Ref] = []
            do {
                for try await ref in remote.refs(options) { refs.append(ref) }
                return .success(refs)
            } catch {
                return .failure(error)
            }
        }
    }

    /// Runs the run-loop API on a loop of this thread; refs handed to the callback must be the
    /// listing's refs, in order, all before the completion.
    static func runOnLoop(_ remote: Remote, options: LsRemoteOptions) -> Result<[Ref], any Error> {
        guard let loop = try? EpollRunLoop() else { return .failure(FixtureProblem("no run loop")) }
        var streamed: [Ref] = []
        var result: Result<[Ref], any Error>?
        let onRef: (Ref) -> Void = { ref in
            #expect(result == nil, "a ref arrived after the completion")
            streamed.append(ref)
        }
        remote.lsRemote(options, in: loop, onRef: onRef) { outcome in
            result = outcome.map(\.refs)
            if case .success(let listing) = outcome { #expect(listing.refs == streamed) }
            loop.stop()
        }
        // A bound on the whole listing, not a timing check: one byte per loop turn over a
        // many-refs advertisement takes seconds in a debug build alone and much longer with the
        // suite's other cases sharing two cores (60 s ran out under load).
        loop.run(until: .now + .seconds(300).scaledForSlowRuns)
        return result ?? .failure(FixtureProblem("the run loop ended without a completion"))
    }
}
