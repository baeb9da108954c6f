/// What a clone or fetch did.
public struct FetchResult: Sendable {
    /// The git directory fetched into.
    public var gitDirectory: String
    /// The exchange's outcome: the remote's refs, wants, negotiation figures.
    public var outcome: FetchOutcome
    /// The pack written into `objects/pack`, if one came.
    public var pack: PackIndexResult?
    /// Each local ref the fetch considered, in name order, with what happened to it.
    public var changes: [RefChange]
    /// Where `HEAD` points after a clone.
    public var head: HeadState?
}
