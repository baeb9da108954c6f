import Dispatch
import GitWire

/// Reads `ls-remote --batch`'s list of URLs on a thread of its own, so a slow producer on a pipe
/// never stalls the run loop, and hands them to the loop a chunk at a time, only when asked: at
/// most one chunk (64 KiB of input) and one line of at most ``lineLimit`` bytes are ever held,
/// however long the list or its lines, and each byte is looked at once.
///
/// One URL per line; surrounding blanks and a trailing CR are dropped; empty lines and lines
/// whose first non-blank character is `#` are skipped. A line longer than ``lineLimit`` is an
/// error for that line alone (``Entry/tooLong(start:line:length:)``); the rest of it is skipped
/// unread.
///
/// `@unchecked Sendable`: `file` is read only by the reading thread once it starts.
final class BatchInput: @unchecked Sendable {
    /// The longest line taken as a URL: 64 KiB, more than a git:// request could carry in its
    /// one pkt-line (65,516 bytes).
    static let lineLimit = 64 * 1024
    private let file: File
    private let handle: RunLoopHandle
    private let demand = DispatchSemaphore(value: 0)
    private let deliver: @Sendable (Chunk) -> Void

    /// One line of the input that is not blank or a comment.
    enum Entry: Sendable, Equatable {
        /// A URL.
        case url(String)
        /// A line over ``lineLimit``: its start (blanks dropped, at most 64 bytes), its line
        /// number (from 1) and its whole length.
        case tooLong(start: String, line: Int, length: Int)
    }

    /// What one read gave.
    enum Chunk: Sendable {
        /// These entries (maybe none), and more may come.
        case urls([Entry])
        /// These entries, and the end of the input.
        case end([Entry])
        /// Reading failed.
        case failed(any Error)
    }

    /// Reads `file`; each chunk is passed to `deliver` on `handle`'s loop, the next one read only
    /// after ``requestMore()``.
    init(file: File, handle: RunLoopHandle, deliver: @escaping @Sendable (Chunk) -> Void) {
        self.file = file
        self.handle = handle
        self.deliver = deliver
    }

    /// Starts the reading thread; it reads the first chunk at once.
    func start() throws {
        try startDetachedThread { [self] in readAll() }
    }

    /// Asks for the next chunk (call once per chunk delivered, when it is used up).
    func requestMore() { demand.signal() }

    private func readAll() {
        var splitter = Splitter()
        while true {
            let bytes: [UInt8]
            do {
                bytes = try file.read(upTo: 64 * 1024)
            } catch {
                post(.failed(error))
                return
            }
            if bytes.isEmpty {
                post(.end(splitter.finish()))
                return
            }
            let entries = splitter.take(bytes)
            guard !entries.isEmpty else { continue }
            post(.urls(entries))
            demand.wait()
        }
    }

    private func post(_ chunk: Chunk) {
        let deliver = self.deliver
        handle.post { deliver(chunk) }
    }

    /// Cuts input into entries as it comes, in any chunking: each byte is looked at once, and
    /// of a line only its first ``BatchInput/lineLimit`` bytes are kept.
    struct Splitter {
        private var line: [UInt8] = []
        private var length = 0
        private var number = 0

        /// The entries of the lines `bytes` ends.
        mutating func take(_ bytes: [UInt8]) -> [Entry] {
            var entries: [Entry] = []
            var start = 0
            while start < bytes.count {
                guard let newline = bytes[start...].firstIndex(of: 0x0a) else {
                    keep(bytes[start...])
                    break
                }
                keep(bytes[start..<newline])
                if let entry = endLine() { entries.append(entry) }
                start = newline + 1
            }
            return entries
        }

        /// The entry of a last line without a line feed, if any.
        mutating func finish() -> [Entry] {
            guard length > 0 else { return [] }
            return endLine().map { [$0] } ?? []
        }

        private mutating func keep(_ piece: ArraySlice<UInt8>) {
            length += piece.count
            let room = BatchInput.lineLimit + 1 - line.count
            if room > 0 { line += piece.prefix(room) }
        }

        private mutating func endLine() -> Entry? {
            defer {
                line.removeAll(keepingCapacity: line.count <= 4096)
                length = 0
            }
            number += 1
            guard length > BatchInput.lineLimit else { return BatchInput.url(in: line[...]).map { .url($0) } }
            // Too long to be a URL; a comment so long is still a comment.
            guard let first = line.firstIndex(where: { !BatchInput.isBlank($0) }), line[first] != UInt8(ascii: "#")
            else { return nil }
            let start = String(decoding: line[first...].prefix(64), as: UTF8.self)
            return .tooLong(start: start, line: number, length: length)
        }
    }

    static func isBlank(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0d || byte == 0x0b || byte == 0x0c
    }

    /// The URL on `line`, or nil for a blank or comment line.
    static func url(in line: ArraySlice<UInt8>) -> String? {
        guard let first = line.firstIndex(where: { !isBlank($0) }),
            let last = line.lastIndex(where: { !isBlank($0) }), line[first] != UInt8(ascii: "#")
        else { return nil }
        return String(decoding: line[first...last], as: UTF8.self)
    }
}

/// A line of the `--batch` input too long to be a URL: that remote's error.
struct BatchLineTooLongError: GitWireError {
    /// The line's number, from 1.
    let line: Int
    /// Its length in bytes.
    let length: Int

    var kind: GitWireErrorKind { .usage }
    var description: String {
        "line \(line) of the input is \(length) bytes long; a URL may be at most \(BatchInput.lineLimit) bytes long"
    }
}
