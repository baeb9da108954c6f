/// What ls-remote asks for.
public struct LsRemoteOptions: Hashable, Sendable {
    /// The protocol version to ask for (the server may answer with an older one).
    public var protocolVersion: ProtocolVersion
    /// Protocol v2: list only refs under these prefixes, such as `refs/heads/`; refs a server
    /// sends outside them anyway are not kept (nor emitted). v0 servers send every ref
    /// regardless, and the listing has them all.
    public var refPrefixes: [String]
    /// Protocol v2 `server-option`s; an error with older protocols, as in git.
    public var serverOptions: [String]
    /// The `agent=` value to send.
    public var agent: String
    /// The local repository's object format (SHA-1 outside one): a v0/v1 server's object ids are
    /// read in it when its first line has no capabilities or names a format gitwire does not
    /// know, as git reads them in its repository's.
    public var objectFormat: ObjectFormat

    /// Makes options; the defaults list every ref over protocol v2.
    public init(
        protocolVersion: ProtocolVersion = .v2, refPrefixes: [String] = [], serverOptions: [String] = [],
        agent: String = GitWireInfo.agent, objectFormat: ObjectFormat = .sha1
    ) {
        self.protocolVersion = protocolVersion
        self.refPrefixes = refPrefixes
        self.serverOptions = serverOptions
        self.agent = agent
        self.objectFormat = objectFormat
    }
}

/// A remote's refs and what else came with them.
public struct RefListing: Hashable, Sendable {
    /// The refs in the server's order. An unborn `HEAD` (v2) has no object id.
    public var refs: [Ref]
    /// The server's capabilities (v0: from the first ref line; v2: the capability advertisement).
    public var capabilities: Capabilities
    /// The protocol version the server answered with.
    public var protocolVersion: ProtocolVersion
    /// Commits at which the server's repository is shallow (v0 `shallow` lines).
    public var shallow: [ObjectID]
    /// Warnings for the user, in git's words.
    public var warnings: [String]
    /// The format of the object ids: what the server's capabilities name (`object-format`), SHA-1
    /// when they name none (see ``LsRemoteOptions/objectFormat`` for v0's exceptions).
    public var objectFormat: ObjectFormat
    /// The ids of the v0/v1 `.have` lines that the exchange's `keepsHave` kept (none by default).
    public var haves: [ObjectID] = []
}

/// Lists a remote's refs: reads the v0/v1 ref advertisement, or the v2 capability advertisement
/// followed by an `ls-refs` command. Refs are emitted as they are parsed.
public struct LsRemoteExchange: Exchange, Sendable {
    /// Each ref, as it is parsed.
    public typealias Element = Ref
    /// The whole listing.
    public typealias Output = RefListing

    private enum State: Sendable {
        case discovering
        /// Reading a v0/v1 advertisement with ``LsRemoteExchange/advertisementParser``.
        case advertisement(ProtocolVersion)
        case capabilities(CapabilityAdvertisementParser)
        case lsRefs(Capabilities, ObjectFormat)
        case done
    }

    private let options: LsRemoteOptions
    private var state = State.discovering
    /// The v0/v1 parser, kept out of `state` and changed in place: otherwise it is copied out of
    /// the enum and back for every ref line (a `Ref` in it, with two object ids; the cost is in
    /// Documentation/Performance.md).
    private var advertisementParser = RefAdvertisementParser()
    private var refs: [Ref] = []
    /// Which advertised refs (v0/v1) are kept in the listing and emitted; nil: all. A push keeps
    /// only those it needs, so that an enormous advertisement is not held.
    package var keeps: (@Sendable (Ref) -> Bool)?
    /// Which ids of `.have` lines (v0/v1) are kept in ``RefListing/haves``; nil: none.
    package var keepsHave: (@Sendable (ObjectID) -> Bool)?
    private var sawAnything = false
    /// Whether to say goodbye with a flush: not over stateless RPC, where nothing ends a conversation.
    private var connectionPersists = true

    /// An exchange with `options`.
    public init(options: LsRemoteOptions = LsRemoteOptions()) { self.options = options }

    /// What the exchange is reading now, for timeout and error messages.
    public var activity: String {
        switch state {
        case .discovering, .advertisement: return "reading the ref advertisement"
        case .capabilities: return "reading the capability advertisement"
        case .lsRefs: return "reading the ls-refs response"
        case .done: return "closing the connection"
        }
    }

    /// Nothing to send first: the server speaks first. Notes whether the connection persists.
    public mutating func start(_ context: ExchangeContext) throws -> [PktLine] {
        connectionPersists = context.connectionPersists
        return []
    }

    /// Takes one packet of the advertisement, the capabilities or the ls-refs answer.
    public mutating func receive(_ packet: PktLine, emit: (Ref) -> Void) throws -> ExchangeStep<RefListing> {
        try receive(view: PktLineView(packet), emit: emit)
    }

    /// Takes one packet as a view of the bytes received: the refs of an advertisement or an
    /// ls-refs answer are read from it without copying the line (only each ref's name is).
    public mutating func receive(view: PktLineView, emit: (Ref) -> Void) throws -> ExchangeStep<RefListing> {
        sawAnything = true
        switch state {
        case .advertisement(let version):
            return try receiveAdvertisement(view, version: version, emit: emit)
        case .lsRefs(let capabilities, let format):
            return try receiveLsRefs(view, capabilities: capabilities, format: format, emit: emit)
        default:
            return try receiveOther(view.line, emit: emit)
        }
    }

    /// Discovery, the v2 capabilities, and packets after the end.
    private mutating func receiveOther(_ packet: PktLine, emit: (Ref) -> Void) throws -> ExchangeStep<RefListing> {
        switch state {
        case .discovering:
            let version = VersionDiscovery.version(of: packet)
            switch version {
            case .v2:
                state = .capabilities(CapabilityAdvertisementParser())
                return .readMore
            case .v1, .v0:
                if !options.serverOptions.isEmpty {
                    throw ProtocolVersionError.serverOptions
                }
                advertisementParser = RefAdvertisementParser(defaultFormat: options.objectFormat)
                advertisementParser.keepsHave = keepsHave
                state = .advertisement(version)
                if version == .v1 { return .readMore }
                return try receiveAdvertisement(PktLineView(packet), version: version, emit: emit)
            }
        case .capabilities(var parser):
            state = .done
            guard try parser.receive(packet) else {
                state = .capabilities(parser)
                return .readMore
            }
            let capabilities = parser.capabilities
            guard capabilities.contains("ls-refs") else { throw ProtocolError("server doesn't support 'ls-refs'") }
            state = .lsRefs(capabilities, try LsRefsCommand.objectFormat(of: capabilities) ?? .sha1)
            let command = LsRefsCommand(
                refPrefixes: options.refPrefixes, serverOptions: options.serverOptions, agent: options.agent)
            return .send(try command.request(for: capabilities))
        case .advertisement(let version):
            return try receiveAdvertisement(PktLineView(packet), version: version, emit: emit)
        case .lsRefs(let capabilities, let format):
            return try receiveLsRefs(PktLineView(packet), capabilities: capabilities, format: format, emit: emit)
        case .done:
            throw ProtocolError("unexpected packet after the end of the exchange", line: packet.encoded)
        }
    }

    /// A packet of a v0/v1 ref advertisement.
    private mutating func receiveAdvertisement(
        _ packet: PktLineView, version: ProtocolVersion, emit: (Ref) -> Void
    ) throws -> ExchangeStep<RefListing> {
        try advertisementParser.receive(view: packet) { ref in
            guard keeps?(ref) ?? true else { return }
            refs.append(ref)
            emit(ref)
        }
        guard advertisementParser.isDone else { return .readMore }
        state = .done
        let found = advertisementParser.advertisement
        return .finish(
            RefListing(
                refs: refs, capabilities: found.capabilities, protocolVersion: version, shallow: found.shallow,
                warnings: found.warnings, objectFormat: found.objectFormat, haves: found.haves),
            farewell: connectionPersists ? [.flush] : [])
    }

    /// A packet of a v2 ls-refs answer.
    private mutating func receiveLsRefs(
        _ packet: PktLineView, capabilities: Capabilities, format: ObjectFormat, emit: (Ref) -> Void
    ) throws -> ExchangeStep<RefListing> {
        switch packet {
        case .data(let line):
            let ref = try LsRefsCommand.parseRef(line, format: format)
            // What was not asked for is not held, whatever the server sends.
            guard
                options.refPrefixes.isEmpty
                    || options.refPrefixes.contains(where: { ref.nameBytes.starts(with: $0.utf8) })
            else { return .readMore }
            refs.append(ref)
            emit(ref)
            return .readMore
        case .flush:
            state = .done
            return .finish(
                RefListing(
                    refs: refs, capabilities: capabilities, protocolVersion: .v2, shallow: [], warnings: [],
                    objectFormat: format),
                farewell: connectionPersists ? [.flush] : [])
        case .delimiter, .responseEnd:
            throw ProtocolError("expected flush after ref listing", prefixed: false)
        }
    }

    /// The server hung up: an error, since a listing ends with a flush.
    public mutating func receiveEnd(emit: (Ref) -> Void) throws -> RefListing {
        switch state {
        case .capabilities: throw ProtocolError("expected flush after capabilities", prefixed: false)
        case .lsRefs: throw ProtocolError("expected flush after ref listing", prefixed: false)
        case .discovering, .advertisement, .done: throw UnexpectedEndError(afterInitialContact: sawAnything)
        }
    }
}
