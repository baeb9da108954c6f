/// For the push's walk: the last tree walked at each path, to compare the next tree walked at
/// that path with. Once the walk has read a tree, every object its entries name is in the walk's
/// set of objects seen, so an entry byte for byte the same as one of that tree's needs no lookup
/// (``ObjectLinks/forEachTreeEntry(_:format:treesOnly:skipping:_:)``): a tree new in one commit
/// differs from the one at its path in the commit walked before it in a few entries, and each
/// lookup in a set of a whole history's objects is a cache miss (about 11 million lookups for
/// curl's history before this, 105,359 trees). Which tree is kept changes only how many lookups
/// are skipped, never which objects the walk finds: any tree read before serves, so `Path` may
/// be a hash of the path (as the tree reader keeps it) as well as the path.
struct TreeReferences<Path: Hashable> {
    private var trees: [Path: [UInt8]] = [:]
    private var bytes = 0
    /// The most bytes of trees kept (beyond it, paths not yet held get no tree to compare with).
    static var budget: Int { 32 << 20 }

    /// The tree kept for `path` (empty: none), keeping `tree` in its place. Call it when the
    /// walk is about to read `tree`'s entries (at `path`), so that every object they name is in
    /// the walk's set before the next call for the same path.
    mutating func swap(_ tree: [UInt8], at path: Path) -> [UInt8] {
        if let index = trees.index(forKey: path) {
            let old = trees.values[index]
            guard bytes - old.count + tree.count <= Self.budget else {
                trees.remove(at: index)
                bytes -= old.count
                return old
            }
            trees.values[index] = tree
            bytes += tree.count - old.count
            return old
        }
        guard bytes + tree.count <= Self.budget else { return [] }
        trees[path] = tree
        bytes += tree.count
        return []
    }
}
