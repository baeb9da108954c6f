/// What a ``FetchExchange`` hands out while it runs.
public enum FetchEvent: Hashable, Sendable {
    /// A ref of the remote, as soon as it is parsed.
    case ref(Ref)
    /// Progress text from the server (side-band 2), raw: `\r` and `\n` as sent.
    case progress([UInt8])
    /// The next bytes of the pack, side-band framing removed: feed them to an indexer in order.
    /// A view of the bytes received (not a copy): keep it only as long as needed.
    case packData(ArraySlice<UInt8>)
    /// The server made this commit a shallow boundary of the local repository.
    case shallow(ObjectID)
    /// This commit is no longer a shallow boundary: its parents are in the pack.
    case unshallow(ObjectID)
    /// What git would print as `warning: <text>` (a `--filter` the server does not support,
    /// which is then left out and the whole history fetched).
    case warning(String)
}

/// How the negotiation went.
public struct FetchStatistics: Hashable, Sendable {
    /// `have` lines sent, each commit counted once (stateless connections repeat some).
    public var havesSent = 0
    /// Negotiation rounds: batches of `have`s the server answered (v0/v1), or `fetch` requests
    /// (v2).
    public var rounds = 0

    /// No haves, no rounds.
    public init() {}
}

/// How a fetch ended.
public struct FetchOutcome: Hashable, Sendable {
    /// The remote's refs and capabilities.
    public var listing: RefListing
    /// The object ids asked for with `want`, in order (empty when everything was already here).
    public var wants: [ObjectID] = []
    /// Commits the server acknowledged as common, in the order it did, each once.
    public var commonCommits: [ObjectID] = []
    /// New shallow boundaries the server reported.
    public var shallow: [ObjectID] = []
    /// Former shallow boundaries the server filled in.
    public var unshallow: [ObjectID] = []
    /// Whether the server sent a pack (at least one byte of one).
    public var receivedPack = false
    /// The pack's size in bytes.
    public var packByteCount = 0
    /// How the negotiation went.
    public var statistics = FetchStatistics()

    /// An outcome for `listing` with nothing fetched yet.
    public init(listing: RefListing) { self.listing = listing }
}
