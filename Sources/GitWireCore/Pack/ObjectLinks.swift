/// The objects an object names: a commit's tree and parents, a tree's entries (submodule
/// commits left out: they live in another repository), a tag's target. What a connectivity
/// check follows.
public enum ObjectLinks {
    /// An object named by another, with the type the naming object says it has.
    public struct Link: Hashable, Sendable {
        /// The named object.
        public var id: ObjectID
        /// Its type as the link says (a tag's `type` line, a tree entry's mode).
        public var type: ObjectType

        /// A link to `id` of `type`.
        public init(id: ObjectID, type: ObjectType) {
            self.id = id
            self.type = type
        }
    }

    /// The links of an object of `type` with content `data`, in a repository of `format` (the
    /// width of the ids it holds); throws ``ProtocolError`` for an object whose links cannot be
    /// read (a malformed commit, tree or tag).
    public static func links(of type: ObjectType, data: [UInt8], format: ObjectFormat) throws -> [Link] {
        switch type {
        case .blob: return []
        case .commit: return try commitLinks(data, format)
        case .tree: return try treeLinks(data, format)
        case .tag: return try tagLinks(data, format)
        }
    }

    private static func commitLinks(_ data: [UInt8], _ format: ObjectFormat) throws -> [Link] {
        var links: [Link] = []
        var start = 0
        while start < data.count, let end = data[start...].firstIndex(of: 0x0a), end > start {
            let line = data[start..<end]
            if line.starts(with: "tree ".utf8), let id = ObjectID(hex: line.dropFirst(5), format: format) {
                links.append(Link(id: id, type: .tree))
            } else if line.starts(with: "parent ".utf8), let id = ObjectID(hex: line.dropFirst(7), format: format) {
                links.append(Link(id: id, type: .commit))
            } else if !line.starts(with: "tree ".utf8) && !line.starts(with: "parent ".utf8) {
                break
            } else {
                throw ProtocolError("malformed commit header", line: Array(line))
            }
            start = end + 1
        }
        guard links.first?.type == .tree else { throw ProtocolError("commit without a tree") }
        return links
    }

    private static func treeLinks(_ data: [UInt8], _ format: ObjectFormat) throws -> [Link] {
        var links: [Link] = []
        try forEachTreeEntry(data, format: format) { _, link in links.append(link) }
        return links
    }

    /// Walks a tree's entries in order, gitlinks (submodule commits) left out: each entry's
    /// link and where its name is in `data`. Reads in place, making no slice or array per entry:
    /// a push's walk reads every entry of every tree it sends (millions for a whole history).
    /// Throws ``ProtocolError`` for a malformed tree.
    /// `treesOnly` leaves out every entry that is not a tree (blobs are still read past and
    /// checked the same way, so a malformed tree fails at the same entry either way).
    /// `skipping`: another tree (or nothing); an entry byte for byte the same as one of its
    /// entries (mode, name and id) is left out. The two are read side by side in git's order
    /// (names sorted as git sorts tree entries, a tree's name as if it ended in `/`), so each
    /// entry is compared with the one of `skipping` at its place in that order: a tree out of
    /// that order only leaves out fewer entries, never one that `skipping` does not hold.
    /// The push's walk passes a tree whose entries it has already looked up, so that it looks
    /// up only what changed (a tree and its neighbour in history differ in a few entries).
    package static func forEachTreeEntry(
        _ data: [UInt8], format: ObjectFormat, treesOnly: Bool = false, skipping reference: [UInt8] = [],
        _ body: (_ name: Range<Int>, _ link: Link) throws -> Void
    ) throws {
        var ends: [UInt32] = []
        try forEachTreeEntry(
            data, format: format, treesOnly: treesOnly, skipping: reference, referenceEnds: [], ends: &ends,
            recordingEnds: false, body)
    }

    /// ``forEachTreeEntry(_:format:treesOnly:skipping:_:)``, knowing where `reference`'s entries
    /// end (`referenceEnds`: the end of each of its entries in order, as this function records
    /// them; empty: not known) and recording where `data`'s end into `ends` (appended, each entry
    /// gitlinks included, when `recordingEnds`). Where a run of bytes equal to `reference`'s covers
    /// whole entries, the walk jumps from entry end to entry end with `referenceEnds` instead of
    /// reading each entry's mode and name for its space and NUL: those bytes are `reference`'s,
    /// read (and found well formed) when it was walked. `referenceEnds` must be those of
    /// `reference` (or empty); a wrong list can leave out entries that are not `reference`'s.
    package static func forEachTreeEntry(
        _ data: [UInt8], format: ObjectFormat, treesOnly: Bool = false, skipping reference: [UInt8],
        referenceEnds: [UInt32], ends: inout [UInt32], recordingEnds: Bool = true,
        _ body: (_ name: Range<Int>, _ link: Link) throws -> Void
    ) throws {
        let count = data.count
        let width = format.byteCount
        var start = 0
        // `data` up to `runEnd` is `reference` shifted by `shift` bytes, from entries starting
        // at the same place in both (each entry ending there is one of `reference`'s); entries
        // from `start + shift` on in `reference` are those not yet compared.
        var usesReference = !reference.isEmpty
        var runEnd = usesReference ? commonPrefixCount(data, 0, reference, 0) : 0
        var shift = 0
        // With `referenceEnds`: the number of `reference`'s entries ending at or before
        // `start + shift` (so the one starting there, while `usesReference`).
        let jumps = usesReference && !referenceEnds.isEmpty
        let referenceEntries = referenceEnds.count
        var referenceIndex = 0
        while start < count {
            if jumps && usesReference {
                // The entries of `reference` the run covers whole are `data`'s from `start` on.
                let limit = runEnd + shift
                var index = referenceIndex
                while index < referenceEntries && Int(referenceEnds[index]) <= limit { index += 1 }
                if index > referenceIndex {
                    if recordingEnds {
                        for covered in referenceIndex..<index {
                            ends.append(UInt32(truncatingIfNeeded: Int(referenceEnds[covered]) - shift))
                        }
                    }
                    start = Int(referenceEnds[index - 1]) - shift
                    referenceIndex = index
                    if start >= count { break }
                }
            }
            var space = start
            while space < count && data[space] != 0x20 { space += 1 }
            var nul = space
            while nul < count && data[nul] != 0 { nul += 1 }
            guard nul < count, width <= count - nul - 1 else {
                throw ProtocolError("malformed tree entry at byte \(start)")
            }
            let next = nul + 1 + width
            if recordingEnds { ends.append(UInt32(truncatingIfNeeded: next)) }
            if usesReference {
                if next <= runEnd {
                    start = next
                    continue
                }
                // The run of equal bytes ends in this entry: it is compared with the entries of
                // `reference` at its place in git's order, then a new run starts after both.
                var referenceAt = start + shift
                let skips = Self.skipsEntry(data, start..<next, space, reference, &referenceAt, width)
                shift = referenceAt - next
                runEnd = next + commonPrefixCount(data, next, reference, referenceAt)
                usesReference = referenceAt < reference.count
                if jumps {
                    while referenceIndex < referenceEntries && Int(referenceEnds[referenceIndex]) <= referenceAt {
                        referenceIndex += 1
                    }
                }
                if skips {
                    start = next
                    continue
                }
            }
            // The mode's file-type bits decide, as git's `canon_mode` does: a directory is a
            // tree (`40000`, and the zero-padded `040000` of old repositories), a regular file
            // or a symbolic link a blob, anything else a gitlink (left out). A mode with other
            // characters than octal digits is read as a blob, as before.
            var mode: UInt32 = 0
            var octal = space > start && space - start <= 8
            if octal {
                for index in start..<space {
                    let digit = data[index] &- 0x30
                    guard digit < 8 else {
                        octal = false
                        break
                    }
                    mode = mode << 3 | UInt32(digit)
                }
            }
            let fileType = mode & 0o170000
            let isTree = octal && fileType == 0o040000
            let isGitlink = octal && !isTree && fileType != 0o100000 && fileType != 0o120000
            let idStart = nul + 1
            start = next
            if isGitlink || (treesOnly && !isTree) { continue }
            @inline(__always) func word(_ from: Int, _ length: Int) -> UInt64 {
                var value: UInt64 = 0
                for i in from..<(from + length) { value = value << 8 | UInt64(data[i]) }
                return value << UInt64(8 * (8 - length))
            }
            let id =
                format == .sha1
                ? ObjectID(words: word(idStart, 8), word(idStart + 8, 8), word(idStart + 16, 4), 0, format: .sha1)
                : ObjectID(
                    words: word(idStart, 8), word(idStart + 8, 8), word(idStart + 16, 8), word(idStart + 24, 8),
                    format: .sha256)
            try body((space + 1)..<nul, Link(id: id, type: isTree ? .tree : .blob))
        }
    }

    /// Whether the entry of `data` at `entry` (its name after `space`) is one of `reference`'s,
    /// byte for byte, moving `referenceAt` past the entries of `reference` that sort before it
    /// (and past the one it matches or that has its name). An entry of `reference` starting at
    /// `referenceAt` with the same bytes is that entry whole: the entry's NUL ends its name there
    /// too, and the id's width is fixed.
    @inline(__always)
    private static func skipsEntry(
        _ data: [UInt8], _ entry: Range<Int>, _ space: Int, _ reference: [UInt8], _ referenceAt: inout Int,
        _ width: Int
    ) -> Bool {
        let length = entry.count
        let referenceCount = reference.count
        while referenceAt < referenceCount {
            let at = referenceAt
            if commonPrefixCount(data, entry.lowerBound, reference, at) >= length {
                referenceAt = at + length
                return true
            }
            var referenceSpace = at
            while referenceSpace < referenceCount && reference[referenceSpace] != 0x20 { referenceSpace += 1 }
            var referenceNul = referenceSpace
            while referenceNul < referenceCount && reference[referenceNul] != 0 { referenceNul += 1 }
            guard referenceNul < referenceCount, width <= referenceCount - referenceNul - 1 else {
                referenceAt = referenceCount
                return false
            }
            let order = gitNameOrder(
                reference, (referenceSpace + 1)..<referenceNul, isTreeMode(reference, at..<referenceSpace),
                data, (space + 1)..<(entry.upperBound - width - 1), isTreeMode(data, entry.lowerBound..<space))
            if order > 0 { return false }
            referenceAt = referenceNul + 1 + width
            if order == 0 { return false }
        }
        return false
    }

    /// How many bytes of `a` from `aStart` and of `b` from `bStart` are the same before the
    /// first that differs (or either ends), compared eight at a time.
    @inline(__always)
    static func commonPrefixCount(_ a: [UInt8], _ aStart: Int, _ b: [UInt8], _ bStart: Int) -> Int {
        precondition(aStart >= 0 && aStart <= a.count && bStart >= 0 && bStart <= b.count)
        let limit = min(a.count - aStart, b.count - bStart)
        return a.withUnsafeBytes { a in
            b.withUnsafeBytes { b in
                var offset = 0
                while limit - offset >= 8 {
                    let difference =
                        UInt64(littleEndian: a.loadUnaligned(fromByteOffset: aStart + offset, as: UInt64.self))
                        ^ UInt64(littleEndian: b.loadUnaligned(fromByteOffset: bStart + offset, as: UInt64.self))
                    if difference != 0 { return offset + difference.trailingZeroBitCount / 8 }
                    offset += 8
                }
                while offset < limit && a[aStart + offset] == b[bStart + offset] { offset += 1 }
                return offset
            }
        }
    }

    /// Whether the mode at `mode` reads `40000` or `040000` (a tree, as far as the order of
    /// entries goes).
    @inline(__always)
    private static func isTreeMode(_ data: [UInt8], _ mode: Range<Int>) -> Bool {
        (mode.count == 5 && data[mode.lowerBound] == 0x34)
            || (mode.count == 6 && data[mode.lowerBound] == 0x30 && data[mode.lowerBound + 1] == 0x34)
    }

    /// git's `base_name_compare`: the sign of the order of two entry names, a tree's name
    /// compared as if it ended in `/`.
    private static func gitNameOrder(
        _ a: [UInt8], _ aName: Range<Int>, _ aTree: Bool, _ b: [UInt8], _ bName: Range<Int>, _ bTree: Bool
    ) -> Int {
        let common = min(aName.count, bName.count)
        for offset in 0..<common where a[aName.lowerBound + offset] != b[bName.lowerBound + offset] {
            return Int(a[aName.lowerBound + offset]) - Int(b[bName.lowerBound + offset])
        }
        let aNext = aName.count > common ? Int(a[aName.lowerBound + common]) : (aTree ? 0x2f : 0)
        let bNext = bName.count > common ? Int(b[bName.lowerBound + common]) : (bTree ? 0x2f : 0)
        return aNext - bNext
    }

    /// A tree's entries with their names, in the tree's order; gitlinks (submodule commits)
    /// left out. Throws ``ProtocolError`` for a malformed tree.
    public static func namedTreeLinks(_ data: [UInt8], format: ObjectFormat = .sha1) throws -> [(
        name: ArraySlice<UInt8>, link: Link
    )] {
        var links: [(name: ArraySlice<UInt8>, link: Link)] = []
        try forEachTreeEntry(data, format: format) { name, link in links.append((data[name], link)) }
        return links
    }

    /// The hash git sorts delta candidates by (`pack_name_hash`): the last sixteen characters
    /// of a path that are not white space, the last ones weighing most, so that files with the
    /// same name or ending sort together. 0 for no name.
    /// Inlinable so that callers in other modules get it specialized for their byte sequence (the
    /// push's walk hashes the path of every object it sends; through the generic entry points each
    /// byte cost several calls).
    @inlinable
    public static func nameHash<Bytes: Sequence<UInt8>>(_ path: Bytes) -> UInt32 {
        var hash: UInt32 = 0
        for byte in path where !(byte == 0x20 || (0x09...0x0d).contains(byte)) {
            hash = (hash >> 2) &+ (UInt32(byte) << 24)
        }
        return hash
    }

    private static func tagLinks(_ data: [UInt8], _ format: ObjectFormat) throws -> [Link] {
        var id: ObjectID?
        var type: ObjectType?
        var start = 0
        while start < data.count, let end = data[start...].firstIndex(of: 0x0a), end > start {
            let line = data[start..<end]
            if line.starts(with: "object ".utf8) { id = ObjectID(hex: line.dropFirst(7), format: format) }
            if line.starts(with: "type ".utf8) { type = ObjectType(name: line.dropFirst(5)) }
            start = end + 1
        }
        guard let id, let type else { throw ProtocolError("malformed tag header") }
        return [Link(id: id, type: type)]
    }
}
