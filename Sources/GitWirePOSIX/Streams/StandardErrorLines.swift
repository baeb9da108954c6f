/// The last lines a program wrote on its standard error, bounded: at most
/// ``maximumLines`` lines of at most ``maximumLineLength`` bytes each (longer ones cut), split at
/// `\n` and `\r`, empty lines left out.
struct StandardErrorLines {
    static let maximumLines = 20
    static let maximumLineLength = 1024

    private var complete: [String] = []
    private var partial: [UInt8] = []

    /// The lines so far, a last one without its line break included.
    var lines: [String] {
        guard !partial.isEmpty else { return complete }
        return Array((complete + [String(decoding: partial, as: UTF8.self)]).suffix(Self.maximumLines))
    }
    private var partialCut = false

    mutating func append(_ bytes: [UInt8]) {
        for byte in bytes {
            if byte == 0x0a || byte == 0x0d {
                endLine()
            } else if partial.count < Self.maximumLineLength {
                partial.append(byte)
            } else {
                partialCut = true
            }
        }
    }

    /// The output ended: a last line without a line break counts too.
    mutating func finish() { endLine() }

    private mutating func endLine() {
        defer {
            partial = []
            partialCut = false
        }
        guard !partial.isEmpty else { return }
        complete.append(String(decoding: partial, as: UTF8.self) + (partialCut ? "..." : ""))
        if complete.count > Self.maximumLines { complete.removeFirst(complete.count - Self.maximumLines) }
    }
}
