extension CommitSummary {
    /// Reads a commit object's header: its `parent` lines (object ids of `format`) and the time of
    /// its `committer` line. Nil when the content is not a well-formed commit header.
    public init?(commitData data: [UInt8], format: ObjectFormat) {
        var parents: [ObjectID] = []
        var committerTime: Int64?
        var lineStart = 0
        while lineStart < data.count {
            guard let lineEnd = data[lineStart...].firstIndex(of: UInt8(ascii: "\n")) else { return nil }
            let line = data[lineStart..<lineEnd]
            if line.isEmpty { break }  // the end of the header; the message follows
            if line.starts(with: Self.parentPrefix) {
                guard let parent = ObjectID(hex: line.dropFirst(Self.parentPrefix.count), format: format) else {
                    return nil
                }
                parents.append(parent)
            } else if line.starts(with: Self.committerPrefix) {
                committerTime = Self.time(ofIdentityLine: line)
                guard committerTime != nil else { return nil }
            }
            lineStart = lineEnd + 1
        }
        guard let committerTime else { return nil }
        self.init(parents: parents, committerTime: committerTime)
    }

    private static let parentPrefix = Array("parent ".utf8)
    private static let committerPrefix = Array("committer ".utf8)

    /// The time in `Name <email> 1700000000 +0000`: the number after the last `>`.
    private static func time(ofIdentityLine line: ArraySlice<UInt8>) -> Int64? {
        guard let close = line.lastIndex(of: UInt8(ascii: ">")) else { return nil }
        let digits = line[(close + 1)...].drop { $0 == UInt8(ascii: " ") }.prefix { $0 >= 48 && $0 <= 57 }
        guard !digits.isEmpty, digits.count <= 18 else { return nil }
        return digits.reduce(Int64(0)) { $0 * 10 + Int64($1 - 48) }
    }
}
