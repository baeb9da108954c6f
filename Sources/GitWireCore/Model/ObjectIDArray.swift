/// Object names of one format, stored compactly for the pack indexer's per-object tables: three
/// words a SHA-1 name (24 bytes, what a name took before ``ObjectID`` carried its format), four a
/// SHA-256 name, where an array of ``ObjectID`` takes 40 bytes a name: the indexer keeps one name
/// per object, so the difference is paid once per object of the pack (Documentation/Performance.md,
/// "Measured choices in the code").
package struct ObjectIDArray: RandomAccessCollection, MutableCollection, Sendable {
    /// The format of every name.
    package let format: ObjectFormat
    /// The words of each name, one after the other.
    @usableFromInline var words: [UInt64] = []

    /// An empty array of names of `format`.
    package init(format: ObjectFormat) { self.format = format }

    /// The words a name takes.
    @inlinable
    var stride: Int { format == .sha1 ? 3 : 4 }

    /// The position of the first name.
    @inlinable
    package var startIndex: Int { 0 }
    /// One past the position of the last name.
    @inlinable
    package var endIndex: Int { words.count / stride }

    /// The name at `position`, which must be of ``format`` when set.
    @inlinable
    package subscript(position: Int) -> ObjectID {
        get {
            if format == .sha1 {
                let base = position &* 3
                return ObjectID(words: words[base], words[base &+ 1], words[base &+ 2], 0, format: .sha1)
            }
            let base = position &* 4
            return ObjectID(
                words: words[base], words[base &+ 1], words[base &+ 2], words[base &+ 3], format: .sha256)
        }
        set {
            precondition(newValue.format == format, "a name of another format")
            let base = position &* stride
            words[base] = newValue.w0
            words[base &+ 1] = newValue.w1
            words[base &+ 2] = newValue.w2
            if format == .sha256 { words[base &+ 3] = newValue.w3 }
        }
    }

    /// Whether the name at `position` orders before the one at `other` (by their bytes).
    @inlinable
    package func precedes(_ position: Int, _ other: Int) -> Bool {
        let stride = stride
        let a = position &* stride
        let b = other &* stride
        for offset in 0..<stride where words[a &+ offset] != words[b &+ offset] {
            return words[a &+ offset] < words[b &+ offset]
        }
        return false
    }

    /// Whether the names at `position` and `other` are the same.
    @inlinable
    package func same(_ position: Int, _ other: Int) -> Bool {
        let stride = stride
        let a = position &* stride
        let b = other &* stride
        for offset in 0..<stride where words[a &+ offset] != words[b &+ offset] { return false }
        return true
    }

    /// Adds `id`, which must be of ``format``.
    @inlinable
    package mutating func append(_ id: ObjectID) {
        precondition(id.format == format, "a name of another format")
        words.append(id.w0)
        words.append(id.w1)
        words.append(id.w2)
        if format == .sha256 { words.append(id.w3) }
    }

    /// Makes room for `count` names in all.
    package mutating func reserveCapacity(_ count: Int) { words.reserveCapacity(count * stride) }

    /// The names the array holds room for.
    package var capacity: Int { words.capacity / stride }
}

/// A set of object names held compactly: SHA-1 names take 24 bytes each in the set's table (what
/// they took before names carried their format), SHA-256 names 40. For the sets as large as a
/// pack, such as the names a fetched pack's objects refer to (the connectivity check's).
package struct ObjectIDSet: Sequence, Sendable {
    /// A SHA-1 name's three words (the third's low half is zero).
    @usableFromInline struct NarrowID: Hashable, Sendable {
        @usableFromInline var w0: UInt64
        @usableFromInline var w1: UInt64
        @usableFromInline var w2: UInt64

        @usableFromInline init(_ id: ObjectID) {
            w0 = id.w0
            w1 = id.w1
            w2 = id.w2
        }
    }

    @usableFromInline var narrow: Set<NarrowID> = []
    @usableFromInline var wide: Set<ObjectID> = []

    /// An empty set.
    package init() {}

    /// The number of names.
    package var count: Int { narrow.count + wide.count }

    /// Whether the set is empty.
    package var isEmpty: Bool { narrow.isEmpty && wide.isEmpty }

    /// Whether `id` is in the set.
    @inlinable
    package func contains(_ id: ObjectID) -> Bool {
        id.format == .sha1 ? narrow.contains(NarrowID(id)) : wide.contains(id)
    }

    /// Adds `id`.
    @inlinable
    package mutating func insert(_ id: ObjectID) {
        if id.format == .sha1 { narrow.insert(NarrowID(id)) } else { wide.insert(id) }
    }

    /// Adds every name of `ids`.
    ///
    /// An array rather than any sequence: the generic version was called unspecialized from the
    /// pack indexer's threads (an iterator through witness tables and allocations for every
    /// batch; its cost is in Documentation/Performance.md).
    @inlinable
    package mutating func formUnion(_ ids: [ObjectID]) {
        for index in ids.indices { insert(ids[index]) }
    }

    /// Every name: the SHA-1 ones, then the SHA-256 ones, each in no particular order.
    package struct Iterator: IteratorProtocol {
        var narrow: Set<NarrowID>.Iterator
        var wide: Set<ObjectID>.Iterator

        /// The next name, or nil at the end.
        package mutating func next() -> ObjectID? {
            if let id = narrow.next() { return ObjectID(words: id.w0, id.w1, id.w2, 0, format: .sha1) }
            return wide.next()
        }
    }

    /// Iterates over every name.
    package func makeIterator() -> Iterator { Iterator(narrow: narrow.makeIterator(), wide: wide.makeIterator()) }
}
