/// What a clone or fetch did.
public struct FetchResult: Sendable {
    /// The git directory fetched into.
    public var gitDirectory: String
    /// The exchange's outcome: the remote's refs, wants, negotiation figures.
    public var outcome: FetchOutcome
    /// The pack written into `objects/pack`, if one came.
    public var pack: PackIndexResult?
    /// Each local ref the fetch considered, with what happened to it, in the order git reports
    /// them: deletions, then refs to commits, then the others, each in the remote's order.
    public var changes: [RefChange]
    /// Remote refs left out because their local names are ones git refuses (git's
    /// `Ignoring funny ref '…' locally`) or are not UTF-8: the local names, as sent.
    public var ignoredRefs: [[UInt8]] = []
    /// Where `HEAD` points after a clone.
    public var head: HeadState?
}
