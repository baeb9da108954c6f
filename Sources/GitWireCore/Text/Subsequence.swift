extension Collection where Element: Equatable {
    /// Whether `other` occurs in the collection as adjacent elements (C's `strstr`); true for an
    /// empty `other`.
    ///
    /// The standard library's `String.contains(_:)` and `split(separator:)` with a string
    /// separator live in `_StringProcessing`, which brings its regex parser into every static
    /// binary: about 50 KiB of metadata that the loader relocates at each start of the command.
    package func containsSubsequence<Other: Collection<Element>>(_ other: Other) -> Bool {
        guard let first = other.first else { return true }
        var index = startIndex
        while let found = self[index...].firstIndex(of: first) {
            if self[found...].starts(with: other) { return true }
            index = self.index(after: found)
        }
        return false
    }
}
