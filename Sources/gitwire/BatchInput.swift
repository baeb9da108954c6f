import Dispatch
import GitWire

/// Reads `ls-remote --batch`'s list of URLs on a thread of its own, so a slow producer on a pipe
/// never stalls the run loop, and hands them to the loop a chunk at a time, only when asked: at
/// most one chunk (64 KiB of input) is ever held, however long the list.
///
/// One URL per line; surrounding blanks and a trailing CR are dropped; empty lines and lines
/// whose first non-blank character is `#` are skipped.
///
/// `@unchecked Sendable`: `file` is read only by the reading thread once it starts.
final class BatchInput: @unchecked Sendable {
    private let file: File
    private let handle: RunLoopHandle
    private let demand = DispatchSemaphore(value: 0)
    private let deliver: @Sendable (Chunk) -> Void

    /// What one read gave.
    enum Chunk: Sendable {
        /// These URLs (maybe none), and more may come.
        case urls([String])
        /// These URLs, and the end of the input.
        case end([String])
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
        var pending: [UInt8] = []
        while true {
            let bytes: [UInt8]
            do {
                bytes = try file.read(upTo: 64 * 1024)
            } catch {
                post(.failed(error))
                return
            }
            if bytes.isEmpty {
                let last = Self.url(in: pending[...]).map { [$0] } ?? []
                post(.end(last))
                return
            }
            pending += bytes
            guard let lastNewline = pending.lastIndex(of: 0x0a) else { continue }
            let urls = pending[...lastNewline].split(separator: 0x0a).compactMap { Self.url(in: $0) }
            pending.removeFirst(lastNewline + 1)
            guard !urls.isEmpty else { continue }
            post(.urls(urls))
            demand.wait()
        }
    }

    private func post(_ chunk: Chunk) {
        let deliver = self.deliver
        handle.post { deliver(chunk) }
    }

    /// The URL on `line`, or nil for a blank or comment line.
    static func url(in line: ArraySlice<UInt8>) -> String? {
        func isBlank(_ byte: UInt8) -> Bool {
            byte == 0x20 || byte == 0x09 || byte == 0x0d || byte == 0x0b || byte == 0x0c
        }
        guard let first = line.firstIndex(where: { !isBlank($0) }),
            let last = line.lastIndex(where: { !isBlank($0) }), line[first] != UInt8(ascii: "#")
        else { return nil }
        return String(decoding: line[first...last], as: UTF8.self)
    }
}
