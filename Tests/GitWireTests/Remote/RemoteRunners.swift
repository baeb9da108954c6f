import GitWire
import GitWireTestSupport
import Testing

/// What a run-loop ls-remote delivered: the refs as they came, and how many had come when the
/// completion was called.
final class LoopListing {
    var refs: [Ref] = []
    var refsAtCompletion: Int?
    var result: Result<RefListing, any Error>?
    var completions = 0
}

/// Runs `Remote.lsRemote(in:onRef:completion:)` on a loop of its own until the loop has nothing
/// left to do (at most `limit`).
func loopLsRemote(
    _ remote: Remote, _ options: LsRemoteOptions = LsRemoteOptions(), limit: Duration = .seconds(60)
) throws -> LoopListing {
    let loop = try EpollRunLoop()
    let listing = LoopListing()
    remote.lsRemote(
        options, in: loop, onRef: { listing.refs.append($0) },
        completion: { result in
            listing.result = result
            listing.refsAtCompletion = listing.refs.count
            listing.completions += 1
        })
    loop.run(until: .now + limit.scaledForSlowRuns)
    return listing
}

/// Collects `Remote.refs()` to its end.
func streamedRefs(_ remote: Remote, _ options: LsRemoteOptions = LsRemoteOptions()) async throws -> [Ref] {
    var refs: [Ref] = []
    for try await ref in remote.refs(options) { refs.append(ref) }
    return refs
}

/// The errors of the blocking, run-loop, async and stream forms of ls-remote on `remote`, in
/// that order (nil for a form that succeeded); the run-loop form must complete exactly once.
func errorsOfEveryForm(_ remote: Remote, _ options: LsRemoteOptions = LsRemoteOptions()) async -> [(any Error)?] {
    var errors: [(any Error)?] = []
    errors.append(await thrownError { try blockingLsRemote(remote, options) })
    let looped = try? loopLsRemote(remote, options)
    #expect(looped?.completions == 1)
    errors.append(await thrownError { try looped?.result?.get() })
    errors.append(await thrownError { try await remote.lsRemote(options) })
    errors.append(await thrownError { try await streamedRefs(remote, options) })
    return errors
}

/// The error a failing call threw, or nil if it succeeded.
func thrownError<T>(_ body: () async throws -> T) async -> (any Error)? {
    do {
        _ = try await body()
        return nil
    } catch {
        return error
    }
}

/// The blocking `Remote.lsRemote`, callable from async code (where the async overload wins).
func blockingLsRemote(_ remote: Remote, _ options: LsRemoteOptions = LsRemoteOptions()) throws -> RefListing {
    try remote.lsRemoteBlocking(options)
}
