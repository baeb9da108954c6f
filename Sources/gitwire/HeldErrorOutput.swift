import GitWire

/// A push's program output (receive-pack's or ssh's standard error): written through as it
/// comes, and from ``hold()`` on (the exchange has ended, the connection closed) kept until
/// ``release()``, so that what git prints before closing its connection comes first, as in git.
/// At most 64 KiB is kept; past that, everything goes through again.
final class HeldErrorOutput: Sendable {
    private struct State {
        var holding = false
        var held: [UInt8] = []
    }
    private let state = Locked(State())

    /// The output to give the remote's transport.
    var output: ProgramErrorOutput { ProgramErrorOutput { [self] bytes in write(bytes) } }

    private func write(_ bytes: [UInt8]) {
        let passed = state.withLock { state -> [UInt8]? in
            guard state.holding else { return bytes }
            state.held += bytes
            guard state.held.count > 64 << 10 else { return nil }
            defer {
                state.held = []
                state.holding = false
            }
            return state.held
        }
        if let passed { Console.writeError(passed) }
    }

    /// Keeps what comes from now on.
    func hold() { state.withLock { $0.holding = true } }

    /// Writes what was kept, and everything after it as it comes.
    func release() {
        let kept = state.withLock { state in
            defer {
                state.held = []
                state.holding = false
            }
            return state.held
        }
        if !kept.isEmpty { Console.writeError(kept) }
    }
}
