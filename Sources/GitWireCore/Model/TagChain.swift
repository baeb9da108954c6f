/// How far gitwire follows a chain of annotated tags naming tags. git's `deref_tag` has no
/// bound; this one only stops a damaged object database whose chain loops. The fetch
/// negotiator and push's walk, peeling and revision parsing all stop here.
package enum TagChain {
    /// The most tags followed from one name: 2^20.
    package static let longest = 1 << 20
}
