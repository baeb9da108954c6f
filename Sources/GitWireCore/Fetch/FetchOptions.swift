/// What a fetch asks the server for, beyond the objects wanted (`man git-fetch`).
public struct FetchOptions: Hashable, Sendable {
    /// The protocol version to ask for (the server may answer with an older one).
    public var protocolVersion: ProtocolVersion
    /// `--depth`: history cut to this many commits from each wanted tip (`deepen <n>`).
    public var depth: Int?
    /// `--shallow-since`: history cut at this committer time, in seconds since the epoch.
    public var shallowSince: Int64?
    /// `--shallow-exclude`: history cut where it reaches these refs.
    public var shallowExclude: [String]
    /// `--deepen`: ``depth`` counts from the current shallow boundary, not from the tips.
    public var deepenRelative: Bool
    /// `--unshallow`: fetch all the history a shallow repository lacks.
    public var unshallow: Bool
    /// `--filter`: a partial-clone filter spec such as `blob:none`. The server must support
    /// filtering, or the fetch fails.
    public var filter: String?
    /// Ask for annotated tags that point into the fetched history (`include-tag`).
    public var includeTag: Bool
    /// Whether the server should send progress (false sends `no-progress`).
    public var progress: Bool
    /// Accept a thin pack (deltas against objects the server knows we have).
    public var thinPack: Bool
    /// The `agent=` value to send; git's rule applies (unprintable bytes and spaces become `.`).
    public var agent: String
    /// Protocol v2 `server-option`s; an error with older protocols, as in git.
    public var serverOptions: [String]
    /// Protocol v2: list only refs under these prefixes (`ref-prefix` of `ls-refs`).
    public var refPrefixes: [String]
    /// The repository's current shallow commits (`.git/shallow`), sent as `shallow` lines.
    public var localShallow: [ObjectID]
    /// The local repository's object format; nil for a clone, which takes the server's. A server
    /// of another format fails the fetch before anything is asked for, with git's message
    /// (v0/v1: `Server does not support this repository's object format`; v2: `mismatched
    /// algorithms: client <ours>; server <theirs>`).
    public var objectFormat: ObjectFormat?

    /// Makes options; the defaults fetch the whole history over protocol v2, with tags that point
    /// into it, without progress, accepting a thin pack.
    public init(
        protocolVersion: ProtocolVersion = .v2, depth: Int? = nil, shallowSince: Int64? = nil,
        shallowExclude: [String] = [], deepenRelative: Bool = false, unshallow: Bool = false,
        filter: String? = nil, includeTag: Bool = true, progress: Bool = false, thinPack: Bool = true,
        agent: String = GitWireInfo.agent, serverOptions: [String] = [], refPrefixes: [String] = [],
        localShallow: [ObjectID] = [], objectFormat: ObjectFormat? = nil
    ) {
        self.protocolVersion = protocolVersion
        self.depth = depth
        self.shallowSince = shallowSince
        self.shallowExclude = shallowExclude
        self.deepenRelative = deepenRelative
        self.unshallow = unshallow
        self.filter = filter
        self.includeTag = includeTag
        self.progress = progress
        self.thinPack = thinPack
        self.agent = agent
        self.serverOptions = serverOptions
        self.refPrefixes = refPrefixes
        self.localShallow = localShallow
        self.objectFormat = objectFormat
    }

    /// git's `INFINITE_DEPTH`, the depth `--unshallow` asks for.
    static let infiniteDepth = 0x7fff_ffff

    /// The `deepen <n>` value to send, if any.
    var effectiveDepth: Int? { unshallow ? Self.infiniteDepth : depth }

    /// Whether the request changes the shallow boundary (git's `args->deepen`).
    package var deepens: Bool { effectiveDepth != nil || shallowSince != nil || !shallowExclude.isEmpty }

    /// ``agent`` as git sends it: bytes outside printable ASCII, and spaces, become `.`.
    var sanitizedAgent: String { GitWireInfo.sanitizedAgent(agent) }

    /// Throws ``FetchError`` for combinations git refuses before it connects.
    func validate() throws {
        if let depth, depth <= 0 { throw FetchError(.usage, "depth \(depth) is not a positive number") }
        if unshallow {
            if depth != nil { throw FetchError(.usage, "options '--deepen' and '--unshallow' cannot be used together") }
            if localShallow.isEmpty {
                throw FetchError(.usage, "--unshallow on a complete repository does not make sense")
            }
        }
        if deepenRelative && depth == nil { throw FetchError(.usage, "deepen-relative needs a depth") }
    }
}
