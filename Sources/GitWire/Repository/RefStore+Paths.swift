/// The directories ref names lie in, and the checks on names before they become paths.
extension RefStore {
    /// Calls `body` with each directory a ref name lies in (`refs/heads` and `refs/heads/x` for
    /// `refs/heads/x/y`; `refs` itself left out), shallowest first, and the
    /// ``HashedNames/hash(_:)`` of that prefix. One pass over the name, nothing copied: a name of
    /// thousands of levels (a server can send one of 32,000 in a pkt-line) costs its length, where
    /// a string for each of its directories would cost the square of it.
    static func forEachDirectory(
        of name: String, _ body: (Substring, Int) throws -> Void
    ) rethrows {
        var hasher = Hasher()
        var first = true
        let utf8 = name.utf8
        for index in utf8.indices {
            let byte = utf8[index]
            if byte == UInt8(ascii: "/") {
                if !first { try body(name[..<index], hasher.copiedFinal()) }
                first = false
            }
            hasher.combine(byte)
        }
    }

    static func removeEmptyDirectories(_ path: String) {
        guard FileSystem.isDirectory(path), let names = try? FileSystem.contents(ofDirectory: path) else { return }
        for name in names { removeEmptyDirectories("\(path)/\(name)") }
        FileSystem.removeDirectoryIfEmpty(path)
    }

    func removeEmptyParents(of name: String) {
        var parts = name.split(separator: "/").dropLast()
        while parts.count > 1 {
            FileSystem.removeDirectoryIfEmpty("\(commonDirectory)/\(parts.joined(separator: "/"))")
            parts = parts.dropLast()
        }
    }

    /// Refuses names git would refuse (`..`, control characters, `.lock` components, ...), so a
    /// server's ref name can never reach outside `refs/`.
    static func checkName(_ name: String) throws {
        guard name.hasPrefix("refs/"), RefNameFormat.isValid(Array(name.utf8), allowOneLevel: false) else {
            throw RepositoryError.badRefName(name)
        }
    }
}
