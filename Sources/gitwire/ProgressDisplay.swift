import GitWire

/// Git-style progress lines on standard error ("Receiving objects:  45% (450/1000)"), redrawn in
/// place with a carriage return, ending with ", done.".
final class ProgressDisplay: Sendable {
    private struct State {
        var phase: PackProgress.Phase?
        var last: PackProgress?
    }

    private let receivingLabel: String
    private let state = Locked(State())

    init(receivingLabel: String) { self.receivingLabel = receivingLabel }

    /// Shows a progress report, closing the previous phase's line when the phase changes.
    func show(_ progress: PackProgress) {
        state.withLock { state in
            // The same count again (the whole pack's size, at the end): nothing new to draw.
            if state.last?.phase == progress.phase && state.last?.completed == progress.completed { return }
            if let phase = state.phase, phase != progress.phase, let last = state.last {
                Console.writeError(line(last) + ", done.\n")
            }
            state.phase = progress.phase
            state.last = progress
            Console.writeError(line(progress) + "\r")
        }
    }

    /// Closes the last line.
    func finish(objectsAdded: Int) {
        state.withLock { state in
            guard let last = state.last else { return }
            let suffix =
                objectsAdded > 0
                ? ", completed with \(objectsAdded) local object\(objectsAdded == 1 ? "" : "s")." : ", done."
            Console.writeError(line(last) + suffix + "\n")
            state.last = nil
        }
    }

    private func line(_ progress: PackProgress) -> String {
        let label = progress.phase == .receiving ? receivingLabel : "Resolving deltas"
        let percent = progress.total > 0 ? progress.completed * 100 / progress.total : 100
        let padded = String(repeating: " ", count: max(0, 3 - String(percent).count)) + String(percent)
        return "\(label): \(padded)% (\(progress.completed)/\(progress.total))"
    }
}
