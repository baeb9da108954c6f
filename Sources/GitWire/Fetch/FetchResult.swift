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
    /// Remote refs the refspecs took but the fetch left out, with why.
    public var ignoredRefs: [IgnoredRef] = []
    /// What git would print as `warning:` (`<ref> usually tracks <a>, not <b>`).
    public var warnings: [String] = []
    /// The lines written to `FETCH_HEAD` (none for a clone, a dry run, or without
    /// ``RepositoryFetchOptions/writeFetchHead``).
    public var fetchHead: [String] = []
    /// The remote refs a fetch's refspecs took without a local ref to update (for `FETCH_HEAD`
    /// only), by their remote names, in the ref map's order: what git's `fetch --set-upstream`
    /// makes the current branch's upstream when there is exactly one.
    public var refsWithoutLocalRef: [String] = []
    /// Where `HEAD` points after a clone.
    public var head: HeadState?
    /// Whether an atomic fetch (``RepositoryFetchOptions/atomic``) gave up because a ref was
    /// rejected or could not be updated: then no ref changed (the prunes neither) and
    /// `FETCH_HEAD` was left empty, as git 2.39's `fetch --atomic` leaves it.
    public var atomicAborted = false
}

/// A remote ref a clone or fetch left out.
public struct IgnoredRef: Hashable, Sendable {
    /// Why it was left out.
    public enum Reason: Hashable, Sendable {
        /// Its local name is one git refuses (git: `error: * Ignoring funny ref '…' locally`).
        case badName
        /// Its name is not UTF-8: gitwire's ref names are text, and the name with its bad bytes
        /// replaced would be another ref's (git takes such names as bytes).
        case notUTF8
    }

    /// The local name for ``Reason/badName``, the remote name for ``Reason/notUTF8``, as bytes.
    public var name: [UInt8]
    /// Why it was left out.
    public var reason: Reason

    /// A ref named `name` left out for `reason`.
    public init(name: [UInt8], reason: Reason) {
        self.name = name
        self.reason = reason
    }

    /// The line the command line prints for it (git's words for a bad name).
    public var message: String {
        switch reason {
        case .badName: return "error: * Ignoring funny ref '\(escapedForDisplay(name))' locally"
        case .notUTF8:
            return "error: * Ignoring ref '\(escapedForDisplay(name))' locally: its name is not UTF-8"
        }
    }
}
