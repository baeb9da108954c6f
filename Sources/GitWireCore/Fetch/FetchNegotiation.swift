/// What a negotiation learns, the same for protocol v0/v1 and v2: the commits found common, the
/// shallow boundary the server set or lifted, and how many rounds and haves it took. The fetch
/// copies it into its ``FetchOutcome`` when the pack has come.
struct NegotiationRecord: Sendable {
    private(set) var statistics = FetchStatistics()
    /// The commits the server acknowledged, in the order first acknowledged.
    private(set) var common: [ObjectID] = []
    private var commonSet: Set<ObjectID> = []
    /// Commits the server made shallow boundaries, in order.
    private(set) var shallow: [ObjectID] = []
    /// Commits no longer shallow boundaries, in order.
    private(set) var unshallow: [ObjectID] = []

    /// One request (a batch of haves) went out.
    mutating func countRound() { statistics.rounds += 1 }

    /// `count` new haves went out.
    mutating func countHaves(_ count: Int) { statistics.havesSent += count }

    /// The server acknowledged `id`. Returns whether it is new to the record.
    @discardableResult
    mutating func noteCommon(_ id: ObjectID) -> Bool {
        guard commonSet.insert(id).inserted else { return false }
        common.append(id)
        return true
    }

    /// The server named `id` in a `shallow` (or `unshallow`) line: recorded and handed out.
    mutating func noteShallow(_ id: ObjectID, isShallow: Bool, emit: (FetchEvent) -> Void) {
        if isShallow {
            shallow.append(id)
            emit(.shallow(id))
        } else {
            unshallow.append(id)
            emit(.unshallow(id))
        }
    }
}

/// The negotiation of a fetch, after the wants are known and before the pack: one shape for the
/// v0/v1 `find_common` (``FetchV0Negotiation``) and the v2 `fetch` command
/// (``FetchV2Negotiation``). ``FetchExchange`` drives either the same way and, once
/// ``isReadingPack``, keeps only the ``record``.
protocol FetchNegotiation {
    /// What was learned so far.
    var record: NegotiationRecord { get }
    /// Whether the negotiation is over and the pack comes next.
    var isReadingPack: Bool { get }
    /// Whether every request stands alone, repeating all before it (v2), so that git's warnings
    /// about a request are repeated with each.
    var requestsStandAlone: Bool { get }
    /// Handles one packet; returns what to send (possibly nothing).
    mutating func receive(_ packet: PktLine, emit: (FetchEvent) -> Void) throws -> [PktLine]
}

extension FetchOutcome {
    /// Takes what the negotiation learned.
    mutating func record(_ record: NegotiationRecord) {
        commonCommits = record.common
        shallow = record.shallow
        unshallow = record.unshallow
        statistics = record.statistics
    }
}
