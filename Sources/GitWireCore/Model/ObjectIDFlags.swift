/// Object names with a byte of flags each, held as compactly as ``ObjectIDSet`` holds names (one
/// byte more a name): for the connectivity check, which notes for each object a fetched pack
/// names what type it was named as, and, for those the pack holds, what type it is.
package struct ObjectIDFlags: Sequence, Sendable {
    @usableFromInline var narrow: [ObjectIDSet.NarrowID: UInt8] = [:]
    @usableFromInline var wide: [ObjectID: UInt8] = [:]

    /// An empty table.
    package init() {}

    /// The number of names.
    package var count: Int { narrow.count + wide.count }

    /// The flags of `id` (0 when it is not in the table).
    @inlinable
    package func flags(of id: ObjectID) -> UInt8 {
        id.format == .sha1 ? narrow[ObjectIDSet.NarrowID(id)] ?? 0 : wide[id] ?? 0
    }

    /// Adds `flags` to those of `id`, adding `id` if it is not there.
    @inlinable
    package mutating func insert(_ id: ObjectID, flags: UInt8) {
        if id.format == .sha1 {
            narrow[ObjectIDSet.NarrowID(id), default: 0] |= flags
        } else {
            wide[id, default: 0] |= flags
        }
    }

    /// Adds `flags[i]` to the flags of `ids[i]`, for each `i`.
    @inlinable
    package mutating func insert(_ ids: [ObjectID], flags: [UInt8]) {
        for index in ids.indices { insert(ids[index], flags: flags[index]) }
    }

    /// Every name with its flags: the SHA-1 ones, then the SHA-256 ones, each in no particular
    /// order.
    package struct Iterator: IteratorProtocol {
        var narrow: [ObjectIDSet.NarrowID: UInt8].Iterator
        var wide: [ObjectID: UInt8].Iterator

        /// The next name and its flags, or nil at the end.
        package mutating func next() -> (id: ObjectID, flags: UInt8)? {
            if let (id, flags) = narrow.next() {
                return (ObjectID(words: id.w0, id.w1, id.w2, 0, format: .sha1), flags)
            }
            return wide.next().map { (id: $0.key, flags: $0.value) }
        }
    }

    /// Iterates over every name and its flags.
    package func makeIterator() -> Iterator { Iterator(narrow: narrow.makeIterator(), wide: wide.makeIterator()) }
}
