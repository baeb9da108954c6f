import GitWire

/// What `clone` and `fetch` show on standard error while they run, as git shows it: what the
/// server says on band 2 as `remote: ...` lines (control characters replaced), then "Receiving
/// objects" with the bytes and rate, and "Resolving deltas".
final class FetchDisplay: Sendable {
    private struct State {
        var receivingStart: ContinuousClock.Instant?
        var last: PackProgress?
        var writingStart: ContinuousClock.Instant?
        var packingLine: String?
    }

    private let state = Locked(State())
    private let showsProgress: Bool
    /// What git puts after each `remote:` line to clear what an earlier, longer line left: the
    /// erase-to-end-of-line sequence on a terminal, eight spaces elsewhere.
    private let remoteSuffix: [UInt8]

    /// A display that shows the pack's progress when `showsProgress`, and band 2 always.
    init(showsProgress: Bool) {
        self.showsProgress = showsProgress
        remoteSuffix = Console.errorIsTerminal ? [0x1b, UInt8(ascii: "["), UInt8(ascii: "K")] : Array("        ".utf8)
    }

    /// The handler to give the fetch. What the server says on band 2 (its hooks' output, its
    /// errors) is shown always, as git shows it, even with `-q` and when standard error is not a
    /// terminal (then the request asked for no progress, so that is all it sends); the
    /// "Receiving objects" and "Resolving deltas" lines only when progress is shown.
    var handler: FetchProgressHandler? {
        { [self] progress in
            switch progress {
            case .remote(let line): remote(line)
            case .pack(let pack): if showsProgress { show(pack) }
            case .packing(let packing): if showsProgress { show(packing) }
            }
        }
    }

    /// One line as git's side-band display shows it: `remote: `, the text (control characters
    /// replaced: git 2.39 passes them to the terminal), what clears the rest of the terminal line
    /// (not after an empty line, nor after the server's last, unended text), the line's own
    /// ending (a line feed for that last text).
    private func remote(_ line: RemoteProgressLine) {
        var text = Array("remote: ".utf8) + maskedForTerminal(line.bytes)
        if !line.bytes.isEmpty && line.ending != .none { text += remoteSuffix }
        text.append(line.ending == .carriageReturn ? 0x0d : 0x0a)
        state.withLock { _ in Console.writeError(text) }
    }

    private func show(_ progress: PackProgress) {
        state.withLock { state in
            if let last = state.last, last.phase != progress.phase {
                Console.writeError(Self.line(last, start: state.receivingStart) + ", done.\n")
            }
            if progress.phase == .receiving && state.receivingStart == nil { state.receivingStart = .now }
            state.last = progress
            Console.writeError(Self.line(progress, start: state.receivingStart) + "\r")
        }
    }

    /// A push's packing phases as `git pack-objects` shows them under `git push`: "Enumerating
    /// objects: N, done.", "Counting objects", "Delta compression using up to N threads",
    /// "Compressing objects", "Writing objects" with the size and rate, then the "Total" line.
    private func show(_ packing: PackingProgress) {
        state.withLock { state in
            var text = ""
            switch packing {
            case .enumerated(let objects):
                text = "Enumerating objects: \(objects), done.\n"
            case .counting(let completed, let total):
                text = Self.counter("Counting objects", completed, total) + "\r"
                if completed == total { text += Self.counter("Counting objects", completed, total) + ", done.\n" }
            case .compressing(let completed, let total, let threads):
                if completed == 0 {
                    if threads > 1 { text = "Delta compression using up to \(threads) threads\n" }
                } else {
                    text = Self.counter("Compressing objects", completed, total) + "\r"
                    if completed == total {
                        text += Self.counter("Compressing objects", completed, total) + ", done.\n"
                    }
                }
            case .writing(let completed, let total, let bytes):
                if state.writingStart == nil { state.writingStart = .now }
                var line = Self.counter("Writing objects", completed, total)
                if let start = state.writingStart, ContinuousClock.now - start >= .milliseconds(500) {
                    line += Self.throughput(bytes, since: start)
                }
                text = line + "\r"
                state.packingLine = Self.counter("Writing objects", completed, total)
            case .finished(let statistics):
                if let line = state.packingLine, let start = state.writingStart {
                    text = line + Self.throughput(statistics.bytes, since: start) + ", done.\n"
                }
                state.packingLine = nil
                text +=
                    "Total \(statistics.objects) (delta \(statistics.deltas)), reused \(statistics.reused) (delta \(statistics.reusedDeltas)), pack-reused 0\n"
            }
            Console.writeError(text)
        }
    }

    private static func counter(_ label: String, _ completed: Int, _ total: Int) -> String {
        let percent = total > 0 ? completed * 100 / total : 100
        let padded = String(repeating: " ", count: max(0, 3 - String(percent).count)) + String(percent)
        return "\(label): \(padded)% (\(completed)/\(total))"
    }

    private static func throughput(_ bytes: UInt64, since start: ContinuousClock.Instant) -> String {
        let elapsed = (ContinuousClock.now - start).components
        let seconds = max(0.001, Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18)
        return ", \(humanSize(Double(bytes))) | \(humanSize(Double(bytes) / seconds))/s"
    }

    /// Closes the last progress line.
    func finish() {
        state.withLock { state in
            guard let last = state.last else { return }
            Console.writeError(Self.line(last, start: state.receivingStart) + ", done.\n")
            state.last = nil
        }
    }

    private static func line(_ progress: PackProgress, start: ContinuousClock.Instant?) -> String {
        let label = progress.phase == .receiving ? "Receiving objects" : "Resolving deltas"
        let percent = progress.total > 0 ? progress.completed * 100 / progress.total : 100
        let padded = String(repeating: " ", count: max(0, 3 - String(percent).count)) + String(percent)
        var text = "\(label): \(padded)% (\(progress.completed)/\(progress.total))"
        // Like git, the size and rate show once the transfer has run half a second.
        if progress.phase == .receiving, let start, ContinuousClock.now - start >= .milliseconds(500) {
            let elapsed = (ContinuousClock.now - start).components
            let seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
            text += ", \(humanSize(Double(progress.bytes))) | \(humanSize(Double(progress.bytes) / seconds))/s"
        }
        return text
    }

    /// Sizes as git prints them: bytes, KiB, MiB, GiB with two decimals.
    private static func humanSize(_ bytes: Double) -> String {
        let units = ["bytes", "KiB", "MiB", "GiB"]
        var value = bytes
        var unit = 0
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        if unit == 0 { return "\(Int(value)) bytes" }
        let hundredths = Int((value * 100).rounded())
        let fraction = String(hundredths % 100)
        return "\(hundredths / 100).\(fraction.count == 1 ? "0" + fraction : fraction) \(units[unit])"
    }
}
