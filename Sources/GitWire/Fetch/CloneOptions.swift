/// How to clone or fetch into a local repository.
public struct RepositoryFetchOptions: Sendable {
    /// The negotiation's options: protocol version, depth, filter, progress, ...
    public var fetch: FetchOptions
    /// Which remote refs to fetch and where they go; empty for the defaults
    /// (`+refs/heads/*:refs/heads/*` and `+refs/tags/*:refs/tags/*`; for a mirror clone
    /// `+refs/*:refs/*`).
    public var refspecs: [Refspec]
    /// A mirror clone (`git clone --mirror`): every ref, and the configuration that says so.
    public var mirror: Bool
    /// Removes local refs the refspecs cover that the remote no longer has (`--prune`).
    public var prune: Bool
    /// Updates the local refs all or nothing (`git fetch --atomic`): if one cannot be updated,
    /// the fetch fails with its ``RefUpdateError`` and no ref changes. Without it (git's
    /// default), a ref that cannot be updated is reported in its ``RefChange/error`` and the
    /// others are updated.
    public var atomic: Bool
    /// How `remote.origin.url` is written into a new repository's configuration (by default the
    /// remote's URL as given).
    public var configuredURL: String?
    /// Options of the indexer that stores the pack.
    public var index: PackIndexOptions

    /// Options for a fetch with `fetch`'s negotiation and `refspecs`.
    public init(
        fetch: FetchOptions = FetchOptions(), refspecs: [Refspec] = [], mirror: Bool = false, prune: Bool = false,
        configuredURL: String? = nil, index: PackIndexOptions = PackIndexOptions(), atomic: Bool = false
    ) {
        self.atomic = atomic
        self.fetch = fetch
        self.refspecs = refspecs
        self.mirror = mirror
        self.prune = prune
        self.configuredURL = configuredURL
        self.index = index
    }

    /// The refspecs in force.
    var effectiveRefspecs: [Refspec] {
        if !refspecs.isEmpty { return refspecs }
        if mirror { return [try! Refspec("+refs/*:refs/*")] }
        return [try! Refspec("+refs/heads/*:refs/heads/*"), try! Refspec("+refs/tags/*:refs/tags/*")]
    }
}
