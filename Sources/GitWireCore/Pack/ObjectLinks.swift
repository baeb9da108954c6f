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
        try forEachTreeEntry(data, format) { _, link in links.append(link) }
        return links
    }

    /// Walks a tree's entries in order, gitlinks (submodule commits) left out: each entry's name
    /// and link. Throws ``ProtocolError`` for a malformed tree.
    @inline(__always)
    private static func forEachTreeEntry(
        _ data: [UInt8], _ format: ObjectFormat, _ body: (ArraySlice<UInt8>, Link) -> Void
    ) throws {
        var index = 0
        let entryEnd = 1 + format.byteCount
        while index < data.count {
            guard let space = data[index...].firstIndex(of: 0x20),
                let nul = data[space...].firstIndex(of: 0), nul + entryEnd <= data.count
            else { throw ProtocolError("malformed tree entry at byte \(index)") }
            let mode = data[index..<space]
            let id = ObjectID(bytes: data[(nul + 1)..<(nul + entryEnd)], format: format)!
            if mode.elementsEqual("40000".utf8) {
                body(data[(space + 1)..<nul], Link(id: id, type: .tree))
            } else if !mode.elementsEqual("160000".utf8) {
                body(data[(space + 1)..<nul], Link(id: id, type: .blob))
            }
            index = nul + entryEnd
        }
    }

    /// A tree's entries with their names, in the tree's order; gitlinks (submodule commits)
    /// left out. Throws ``ProtocolError`` for a malformed tree.
    public static func namedTreeLinks(_ data: [UInt8], format: ObjectFormat = .sha1) throws -> [(
        name: ArraySlice<UInt8>, link: Link
    )] {
        var links: [(name: ArraySlice<UInt8>, link: Link)] = []
        try forEachTreeEntry(data, format) { name, link in links.append((name, link)) }
        return links
    }

    /// The hash git sorts delta candidates by (`pack_name_hash`): the last sixteen characters
    /// of a path that are not white space, the last ones weighing most, so that files with the
    /// same name or ending sort together. 0 for no name.
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
