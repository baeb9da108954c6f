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
        /// The length of the counters last shown (git pads a shorter line to cover it).
        var lastCountersLength = 0
        /// git's throughput state: when and at how many bytes it was last measured, its
        /// average over the last eight measures, and its text.
        var throughputStart: ContinuousClock.Instant?
        var throughputBytes: UInt64 = 0
        var averageBytes: UInt32 = 0
        var averageMisecs: UInt32 = 0
        var lastBytes = [UInt32](repeating: 0, count: 8)
        var lastMisecs = [UInt32](repeating: 0, count: 8)
        var throughputIndex = 0
        var throughputText = ""
        /// Whether git would unpack this pack (`Unpacking objects`, no `Resolving deltas`).
        var unpacks = false
    }

    private let state = Locked(State())
    private let showsProgress: Bool
    private let reading: PackReading
    /// What git puts after each `remote:` line to clear what an earlier, longer line left: the
    /// erase-to-end-of-line sequence on a terminal, eight spaces elsewhere.
    private let remoteSuffix: [UInt8]

    /// A display that shows the pack's progress when `showsProgress` (with the words of the
    /// git command that `reading` says would read it), and band 2 always.
    init(showsProgress: Bool, reading: PackReading = PackReading()) {
        self.showsProgress = showsProgress
        self.reading = reading
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
            case .warning(let text): Console.writeError("warning: \(maskedForTerminal(text))\n")
            case .error(let text): Console.writeError("error: \(maskedForTerminal(text))\n")
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
            if progress.phase == .receiving && state.receivingStart == nil {
                state.receivingStart = .now
                state.unpacks = reading.unpacks(count: UInt32(clamping: progress.total))
            }
            // unpack-objects has no second phase, and shows nothing unless standard error is a
            // terminal (git's fetch-pack asks for progress, and it decides for itself).
            if state.unpacks && (progress.phase == .resolving || !Console.errorIsTerminal) { return }
            if let last = state.last, last.phase == progress.phase, last.completed == progress.completed {
                // The same count with more bytes (the whole pack, at the end): nothing to redraw,
                // as git redraws only when the percentage changes.
                state.last = progress
                return
            }
            if let last = state.last, last.phase != progress.phase {
                Self.write(last, done: true, into: &state)
                state.lastCountersLength = 0
            }
            state.last = progress
            Self.write(progress, done: false, into: &state)
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
        return ", \(humanised(bytes, rate: false)) | \(humanised(UInt64(Double(bytes) / seconds), rate: true))"
    }

    /// Closes the last progress line.
    func finish() {
        state.withLock { state in
            guard let last = state.last else { return }
            Self.write(last, done: true, into: &state)
            state.last = nil
            state.lastCountersLength = 0
        }
    }

    /// Writes a progress line as git's progress.c `display` does: `<title>: <counters>`, spaces
    /// over what a longer line before left, then `\r` (or `, done.` and a newline).
    private static func write(_ progress: PackProgress, done: Bool, into state: inout State) {
        let label =
            progress.phase == .resolving
            ? "Resolving deltas" : state.unpacks ? "Unpacking objects" : "Receiving objects"
        let percent = progress.total > 0 ? progress.completed * 100 / progress.total : 100
        let padded = String(repeating: " ", count: max(0, 3 - String(percent).count)) + String(percent)
        var counters = "\(padded)% (\(progress.completed)/\(progress.total))"
        if progress.phase == .receiving, let start = state.receivingStart {
            counters += throughput(progress.bytes, since: start, done: done, state: &state)
        }
        let clear =
            counters.utf8.count < state.lastCountersLength ? state.lastCountersLength - counters.utf8.count + 1 : 0
        state.lastCountersLength = counters.utf8.count
        let end = done ? ", done.\n" : "\r"
        Console.writeError("\(label): \(counters)" + String(repeating: " ", count: clear) + end)
    }

    /// git's throughput (progress.c), measured where git measures it. index-pack measures on
    /// each read of its 4 KiB buffer after the first, so a pack that fits in that first read has
    /// none; unpack-objects measures as it takes each object, up to the pack's checksum. The
    /// size and rate appear once half a second has passed, the rate over the last stretch; the
    /// last line has the whole transfer's.
    private static func throughput(
        _ packBytes: UInt64, since start: ContinuousClock.Instant, done: Bool, state: inout State
    )
        -> String
    {
        func misecs(_ duration: Duration) -> UInt64 {
            // 1024ths of a second, as git counts them: (nanoseconds * 4398) >> 32.
            let components = duration.components
            let nanoseconds =
                UInt64(max(0, components.seconds)) * 1_000_000_000 + UInt64(components.attoseconds / 1_000_000_000)
            let product = nanoseconds.multipliedFullWidth(by: 4398)
            return product.high << 32 | product.low >> 32
        }
        // What git has counted: the whole pack for index-pack; without the 20-byte checksum
        // for unpack-objects, which stops its progress before reading it.
        let bytes: UInt64
        if state.unpacks {
            bytes = done && packBytes >= 20 ? packBytes - 20 : packBytes
        } else {
            guard packBytes > 4096 else { return state.throughputText }
            bytes = packBytes
        }
        let now = ContinuousClock.now
        guard let previous = state.throughputStart else {
            // git's first measure only starts the clock.
            state.throughputStart = now
            state.throughputBytes = bytes
            if done { return finalThroughput(bytes, since: start, state: &state) }
            return state.throughputText
        }
        if done { return finalThroughput(bytes, since: start, state: &state) }
        if now - previous > .milliseconds(500) {
            let elapsed = UInt32(truncatingIfNeeded: misecs(now - previous))
            let count = UInt32(truncatingIfNeeded: bytes &- state.throughputBytes)
            state.throughputStart = now
            state.throughputBytes = bytes
            state.averageBytes &+= count
            state.averageMisecs &+= elapsed
            let rate = state.averageMisecs > 0 ? state.averageBytes / state.averageMisecs : 0
            state.averageBytes &-= state.lastBytes[state.throughputIndex]
            state.averageMisecs &-= state.lastMisecs[state.throughputIndex]
            state.lastBytes[state.throughputIndex] = count
            state.lastMisecs[state.throughputIndex] = elapsed
            state.throughputIndex = (state.throughputIndex + 1) % state.lastBytes.count
            state.throughputText = text(bytes, rate: rate)
        }
        return state.throughputText
    }

    /// The last line's throughput: the rate since the progress started.
    private static func finalThroughput(_ bytes: UInt64, since start: ContinuousClock.Instant, state: inout State)
        -> String
    {
        let components = (ContinuousClock.now - start).components
        let nanoseconds =
            UInt64(max(0, components.seconds)) * 1_000_000_000 + UInt64(components.attoseconds / 1_000_000_000)
        let product = nanoseconds.multipliedFullWidth(by: 4398)
        let misecs = UInt32(truncatingIfNeeded: product.high << 32 | product.low >> 32)
        state.throughputText = text(bytes, rate: UInt32(truncatingIfNeeded: bytes / UInt64(max(misecs, 1))))
        return state.throughputText
    }

    /// `, <size> | <rate>`, the rate in KiB/s given as git multiplies it (in 32 bits).
    private static func text(_ bytes: UInt64, rate: UInt32) -> String {
        ", \(humanised(bytes, rate: false)) | \(humanised(UInt64(rate &* 1024), rate: true))"
    }

    /// git's `strbuf_humanise`: bytes, KiB, MiB, GiB with two decimals as git rounds them.
    static func humanised(_ bytes: UInt64, rate: Bool) -> String {
        func two(_ value: UInt64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let suffix = rate ? "/s" : ""
        if bytes > 1 << 30 {
            return "\(bytes >> 30).\(two((bytes & ((1 << 30) - 1)) / 10_737_419)) GiB\(suffix)"
        } else if bytes > 1 << 20 {
            let x = UInt32(truncatingIfNeeded: bytes + 5243)
            return "\(x >> 20).\(two(UInt64(((x & ((1 << 20) - 1)) * 100) >> 20))) MiB\(suffix)"
        } else if bytes > 1 << 10 {
            let x = UInt32(truncatingIfNeeded: bytes + 5)
            return "\(x >> 10).\(two(UInt64(((x & ((1 << 10) - 1)) * 100) >> 10))) KiB\(suffix)"
        }
        return "\(bytes) \(bytes == 1 ? "byte" : "bytes")\(suffix)"
    }
}
