/// What a fetch did, or would have done, to one local ref: the lines git prints after
/// `From <url>`.
public struct RefChange: Hashable, Sendable {
    /// How the ref changed.
    public enum Kind: Hashable, Sendable {
        /// A ref that did not exist.
        case created
        /// The new commit descends from the old one.
        case fastForward
        /// Anything else, allowed by a `+` refspec.
        case forced
        /// A tag that moved (allowed by a `+` refspec).
        case tagUpdate
        /// Removed by `--prune`: the remote no longer has it.
        case deleted
        /// Already the remote's value.
        case upToDate
        /// Refused: not a fast-forward and the refspec has no `+`.
        case rejected
        /// Refused: its new history reaches a commit at which the server's repository is
        /// shallow, which would make this one shallow too (git: "rejected <ref> because shallow
        /// roots are not allowed to be updated").
        case rejectedShallow
        /// Fetched into `FETCH_HEAD` only: no local ref takes it (git: ` * branch main ->
        /// FETCH_HEAD`). ``RefChange/localName`` is `FETCH_HEAD`.
        case fetchHeadOnly
    }

    /// When in the fetch the change was made; git reports each part with its own alignment.
    public enum Phase: Hashable, Sendable {
        /// Pruned before the transfer (`--prune`).
        case prune
        /// The refs the refspecs (and the tags already known to follow) take.
        case fetch
        /// Tags that followed the history fetched, stored after it (git's tag backfill).
        case followedTags
    }

    /// The remote ref (nil for a pruned ref).
    public var remoteName: String?
    /// The local ref.
    public var localName: String
    /// The local value before, if there was one.
    public var oldID: ObjectID?
    /// The local value after (nil when deleted or rejected).
    public var newID: ObjectID?
    /// How it changed.
    public var kind: Kind
    /// The remote ref's value (nil for a pruned ref).
    public var remoteID: ObjectID?
    /// When in the fetch the change was made.
    public var phase: Phase = .fetch
    /// For a pruned ref: the local symbolic refs that pointed to it and now point nowhere (git:
    /// `(refs/remotes/origin/HEAD has become dangling)`).
    public var danglingSymbolicRefs: [String] = []
    /// Why the ref could not be updated, when it could not (it then keeps its old value; `git
    /// fetch` shows it with `!` and `unable to update local ref`).
    public var error: RefUpdateError?

    /// A change of `localName` (from `remoteName`) of `kind`.
    public init(
        remoteName: String?, localName: String, oldID: ObjectID?, newID: ObjectID?, kind: Kind,
        error: RefUpdateError? = nil
    ) {
        self.error = error
        self.remoteName = remoteName
        self.localName = localName
        self.oldID = oldID
        self.newID = newID
        self.kind = kind
        remoteID = kind == .deleted ? nil : newID
    }
}
