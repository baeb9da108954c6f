/// For the push's walk: the last tree walked at each path, to compare the next tree walked at
/// that path with. Once the walk has read a tree, every object its entries name is in the walk's
/// set of objects seen, so an entry byte for byte the same as one of that tree's needs no lookup
/// (``ObjectLinks/forEachTreeEntry(_:format:treesOnly:skipping:_:)``): a tree new in one commit
/// differs from the one at its path in the commit walked before it in a few entries, and each
/// lookup in a set of a whole history's objects is a cache miss (about 11 million lookups for
/// curl's history before this, 105,359 trees). Which tree is kept changes only how many lookups
/// are skipped, never which objects the walk finds: any tree read before serves, so `Path` may
/// be a hash of the path (as the tree reader keeps it) as well as the path.
/// Each tree is kept with where its entries end (as ``ObjectLinks/forEachTreeEntry(_:format:treesOnly:skipping:referenceEnds:ends:recordingEnds:_:)``
/// records them), so that the next tree at its path jumps over the entries the two share
/// without reading their names.
struct TreeReferences<Path: Hashable> {
    /// A tree kept: its bytes and the end of each of its entries (empty: not known).
    struct Tree {
        var bytes: [UInt8] = []
        var ends: [UInt32] = []
    }

    private var trees: [Path: Tree] = [:]
    private var bytes = 0
    /// Where the tree last passed to ``swap(_:at:)`` is kept (nil: it was not kept).
    private var last: Dictionary<Path, Tree>.Index?
    /// The most bytes of trees (and of their entries' ends) kept (beyond it, paths not yet held
    /// get no tree to compare with).
    static var budget: Int { 32 << 20 }

    /// The tree kept for `path` (empty: none), keeping `tree` in its place (its entries' ends
    /// not yet known: ``recordEnds(_:)`` gives them). Call it when the walk is about to read
    /// `tree`'s entries (at `path`), so that every object they name is in the walk's set before
    /// the next call for the same path.
    mutating func swap(_ tree: [UInt8], at path: Path) -> Tree {
        last = nil
        if let index = trees.index(forKey: path) {
            let old = trees.values[index]
            let oldSize = old.bytes.count + 4 * old.ends.count
            guard bytes - oldSize + tree.count <= Self.budget else {
                trees.remove(at: index)
                bytes -= oldSize
                return old
            }
            trees.values[index] = Tree(bytes: tree)
            bytes += tree.count - oldSize
            last = index
            return old
        }
        guard bytes + tree.count <= Self.budget else { return Tree() }
        trees[path] = Tree(bytes: tree)
        bytes += tree.count
        last = trees.index(forKey: path)
        return Tree()
    }

    /// Keeps `ends` (where each entry ends) with the tree last passed to ``swap(_:at:)``, once
    /// all its entries were read.
    mutating func recordEnds(_ ends: [UInt32]) {
        guard let index = last else { return }
        last = nil
        trees.values[index].ends = ends
        bytes += 4 * ends.count
    }
}
