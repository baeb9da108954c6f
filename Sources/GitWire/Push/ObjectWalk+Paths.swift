extension ObjectWalk {
    /// The longest path the walk keeps whole (Linux's `PATH_MAX`); a longer one is kept only as
    /// what its hash reads (see ``childPath(_:_:)``).
    static let longestPath = 4096

    /// The path of a tree entry named `name` in the tree at `prefix` (`prefix/name`, or `name`
    /// at the root), as the walk hashes it for delta search. A path longer than ``longestPath``
    /// (or one below such a path) is kept cut: a NUL, which no tree entry name holds, then the
    /// last sixteen bytes of it that are not white space, all that ``ObjectLinks/nameHash(_:)``
    /// reads (the NUL adds nothing to the hash). So a tree nested 100,000 deep costs the walk
    /// time and memory in proportion to its size, not to the square of its depth, and such
    /// paths get no preferred bases.
    @inline(__always)
    static func childPath<Name: Collection<UInt8>>(_ prefix: [UInt8], _ name: Name) -> [UInt8] {
        var path: [UInt8] = []
        path.reserveCapacity(prefix.count + 1 + name.count)
        if !prefix.isEmpty {
            path += prefix
            path.append(0x2f)
        }
        path += name
        guard prefix.first == 0 || path.count > longestPath else { return path }
        return hashedEnd(of: path)
    }

    /// The cut form of `path` (see ``childPath(_:_:)``).
    static func hashedEnd(of path: [UInt8]) -> [UInt8] {
        var kept: [UInt8] = []
        var position = path.endIndex
        while position > path.startIndex && kept.count < 16 {
            position -= 1
            let byte = path[position]
            if !(byte == 0x20 || (0x09...0x0d).contains(byte)) { kept.append(byte) }
        }
        return [0] + kept.reversed()
    }
}
