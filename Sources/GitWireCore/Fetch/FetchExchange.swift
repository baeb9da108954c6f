/// Fetches from upload-pack: reads the refs, asks which objects to want, negotiates what the two
/// sides have in common, and receives the pack, as `git fetch-pack` does over protocol v0/v1
/// (`man gitprotocol-pack`) or with the v2 `fetch` command (`man gitprotocol-v2`).
///
/// A pure state machine: refs, progress and pack bytes go out as ``FetchEvent``s while it runs;
/// storing the pack (an indexer) is the caller's business. The local repository is seen only
/// through a ``CommitGraph``. Requests are what git 2.39 writes for the same situation, byte
/// for byte: capabilities in git's order, git's have schedule and its default negotiator.
public struct FetchExchange: Exchange {
    /// Refs, progress, pack bytes and shallow updates, as they arrive.
    public typealias Element = FetchEvent
    /// What was fetched and how the negotiation went.
    public typealias Output = FetchOutcome

    private enum State {
        case listing(LsRemoteExchange)
        /// v0/v1 or v2: acknowledgments and shallow lines until the pack begins.
        case negotiating(any FetchNegotiation)
        /// The pack, in side-band packets or (v0/v1 without side-band) raw; what the negotiation
        /// learned waits for its end.
        case pack(NegotiationRecord, SideBandDemultiplexer)
        case done
    }

    private let options: FetchOptions
    private let localTips: [ObjectID]
    private let graph: any CommitGraph
    private let selectWants: @Sendable (RefListing) -> [ObjectID]
    private var state: State
    private var connectionPersists = true
    private var outcome: FetchOutcome?
    /// Whether the pack comes in side-band packets: always in v2; in v0/v1 when the server offers
    /// side-band (upload-pack servers that do not, such as go-git's, send the raw pack after the
    /// last acknowledgment, and there is no progress).
    private var sideBand = true
    /// A `--filter` the server did not advertise: git warns each time it writes a request
    /// (and in v0 once more on reading the capabilities), sends no `filter` line, yet still
    /// names the v0 capability on its first want.
    private var filterIgnored = false
    private var rawPackByteCount = 0

    /// A fetch with `options`, from a repository whose refs point at `localTips` (commits in
    /// `graph`). `selectWants` sees the remote's refs and returns the object ids to fetch
    /// (typically the ids of the refs a refspec matches); those the local history already has are
    /// dropped, as git does.
    public init(
        options: FetchOptions = FetchOptions(), localTips: [ObjectID], graph: any CommitGraph,
        selectWants: @escaping @Sendable (RefListing) -> [ObjectID]
    ) {
        self.options = options
        self.localTips = localTips
        self.graph = graph
        self.selectWants = selectWants
        state = .listing(
            LsRemoteExchange(
                options: LsRemoteOptions(
                    protocolVersion: options.protocolVersion, refPrefixes: options.refPrefixes,
                    serverOptions: options.serverOptions, agent: options.sanitizedAgent,
                    objectFormat: options.objectFormat ?? .sha1)))
    }

    /// "reading the ref advertisement", "negotiating" or "receiving the pack".
    public var activity: String {
        switch state {
        case .listing: return "reading the ref advertisement"
        case .negotiating: return "negotiating"
        case .pack: return "receiving the pack"
        case .done: return "closing the connection"
        }
    }

    /// Checks the options; the server speaks first, so this sends nothing.
    public mutating func start(_ context: ExchangeContext) throws -> [PktLine] {
        try options.validate()
        connectionPersists = context.connectionPersists
        guard case .listing(var listing) = state else { return [] }
        let packets = try listing.start(context)
        state = .listing(listing)
        return packets
    }

    /// Handles one packet: refs, then acknowledgments, then the pack.
    public mutating func receive(_ packet: PktLine, emit: (FetchEvent) -> Void) throws -> ExchangeStep<FetchOutcome> {
        switch state {
        case .listing(var listing):
            state = .done
            let step = try listing.receive(packet) { emit(.ref($0)) }
            switch step {
            case .readMore:
                state = .listing(listing)
                return .readMore
            case .send(let packets):
                state = .listing(listing)
                return .send(packets)
            case .finish(let refs, _):
                return try beginNegotiation(refs, emit: emit)
            }
        case .negotiating(var negotiation):
            state = .done
            let packets = try negotiation.receive(packet, emit: emit)
            state =
                negotiation.isReadingPack
                ? .pack(negotiation.record, SideBandDemultiplexer()) : .negotiating(negotiation)
            // Every v2 request is a new one, with git's warning for the filter it leaves out.
            if filterIgnored && negotiation.requestsStandAlone && !packets.isEmpty {
                emit(.warning("filtering not recognized by server, ignoring"))
            }
            return packets.isEmpty ? .readMore : .send(packets)
        case .pack:
            return try receive(view: PktLineView(packet), emit: emit)
        case .done:
            throw ProtocolError("unexpected packet after the end of the exchange", line: packet.encoded)
        }
    }

    /// Handles one packet as the decoder hands it out: pack data goes on as a view of it.
    public mutating func receive(view packet: PktLineView, emit: (FetchEvent) -> Void) throws
        -> ExchangeStep<FetchOutcome>
    {
        guard case .pack(let record, var demultiplexer) = state else { return try receive(packet.line, emit: emit) }
        state = .done
        switch try demultiplexer.receive(view: packet) {
        case .data(let bytes): emit(.packData(bytes))
        case .progress(let bytes): emit(.progress(Array(bytes)))
        case .keepAlive: break
        case .end:
            guard var result = outcome else { throw ProtocolError("no ref listing") }
            result.record(record)
            result.packByteCount = demultiplexer.dataByteCount
            result.receivedPack = demultiplexer.dataByteCount > 0
            outcome = result
            return .finish(result, farewell: [])
        }
        state = .pack(record, demultiplexer)
        return .readMore
    }

    /// Whether the raw pack (no side-band) is being read.
    public var readsRawBytes: Bool {
        guard !sideBand, case .pack = state else { return false }
        return true
    }

    /// The next bytes of a pack sent without side-band: it ends with the connection.
    public mutating func receive(raw bytes: ArraySlice<UInt8>, emit: (FetchEvent) -> Void) throws
        -> ExchangeStep<FetchOutcome>
    {
        guard readsRawBytes else { throw ProtocolError("unexpected bytes that are not pkt-lines") }
        rawPackByteCount += bytes.count
        emit(.packData(bytes))
        return .readMore
    }

    /// The server closed the connection: an error unless the exchange had finished (or was
    /// reading a pack sent without side-band, which ends there).
    public mutating func receiveEnd(emit: (FetchEvent) -> Void) throws -> FetchOutcome {
        if readsRawBytes, case .pack(let record, _) = state, var result = outcome {
            result.record(record)
            result.packByteCount = rawPackByteCount
            result.receivedPack = rawPackByteCount > 0
            outcome = result
            state = .done
            return result
        }
        switch state {
        case .listing(var listing):
            return FetchOutcome(listing: try listing.receiveEnd { emit(.ref($0)) })
        case .negotiating, .pack:
            throw FetchError(.remote, "the remote end hung up unexpectedly while \(activity)")
        case .done:
            guard let outcome else { throw UnexpectedEndError(afterInitialContact: true) }
            return outcome
        }
    }

    // MARK: Wants

    private mutating func beginNegotiation(_ listing: RefListing, emit: (FetchEvent) -> Void) throws
        -> ExchangeStep<FetchOutcome>
    {
        var result = FetchOutcome(listing: listing)
        let capabilities = listing.capabilities
        // git's v0 fetch-pack says this before it knows whether anything is wanted.
        if listing.protocolVersion != .v2 && options.filter != nil && !capabilities.contains("filter") {
            emit(.warning("filtering not recognized by server, ignoring"))
            filterIgnored = true
        }
        // A clone takes the server's format; a fetch has its repository's.
        let format = options.objectFormat ?? listing.objectFormat

        var negotiator = DefaultNegotiator(graph: graph)
        if !options.deepens { negotiator.markComplete(localTips: localTips, remoteRefs: listing.refs) }
        let wants = selectWants(listing).filter { !negotiator.isComplete($0) }
        for tip in localTips { negotiator.addTip(tip) }
        result.wants = wants
        outcome = result
        guard !wants.isEmpty else {
            // Everything is here already: v0 says so with a flush, v2 just stops.
            state = .done
            let farewell: [PktLine] = listing.protocolVersion != .v2 && connectionPersists ? [.flush] : []
            return .finish(result, farewell: farewell)
        }
        // As git, what the server can do matters only once there is something to fetch (an
        // empty repository may advertise nothing at all).
        if listing.protocolVersion == .v2 {
            guard capabilities.contains("fetch") else { throw FetchError(.usage, "server doesn't support 'fetch'") }
        } else {
            try checkV0Capabilities(capabilities, format: format)
        }

        if listing.protocolVersion == .v2 {
            if options.filter != nil && !capabilities.supports("fetch", feature: "filter") {
                filterIgnored = true
                emit(.warning("filtering not recognized by server, ignoring"))
            }
            var negotiation = FetchV2Negotiation(
                negotiator: negotiator, head: try v2RequestHead(capabilities, format: format), wants: wants,
                stateless: !connectionPersists, localShallow: Set(options.localShallow), format: format)
            let packets = negotiation.start()
            state = .negotiating(negotiation)
            return .send(packets)
        }
        let ackMode = FetchV0Negotiation.AckMode(capabilities)
        if !connectionPersists && ackMode == .multiAck {
            throw FetchError(.usage, "the option '--stateless-rpc' requires 'multi_ack_detailed'")
        }
        let noDone = ackMode == .detailed && !connectionPersists && capabilities.contains("no-done")
        if filterIgnored { emit(.warning("filtering not recognized by server, ignoring")) }
        var negotiation = FetchV0Negotiation(
            negotiator: negotiator, stateless: !connectionPersists, deepen: options.deepens, noDone: noDone,
            ackMode: ackMode, localShallow: Set(options.localShallow), format: format, wantCount: wants.count)
        let packets = negotiation.start(
            request: v0Request(wants: wants, capabilities: capabilities, ackMode: ackMode, noDone: noDone))
        state =
            negotiation.isReadingPack ? .pack(negotiation.record, SideBandDemultiplexer()) : .negotiating(negotiation)
        return .send(packets)
    }

    private mutating func checkV0Capabilities(_ capabilities: Capabilities, format: ObjectFormat) throws {
        if !capabilities.contains("shallow") && (options.effectiveDepth != nil || !options.localShallow.isEmpty) {
            throw FetchError(.usage, "Server does not support shallow clients")
        }
        if options.shallowSince != nil && !capabilities.contains("deepen-since") {
            throw FetchError(.usage, "Server does not support --shallow-since")
        }
        if !options.shallowExclude.isEmpty && !capabilities.contains("deepen-not") {
            throw FetchError(.usage, "Server does not support --shallow-exclude")
        }
        if options.deepenRelative && !capabilities.contains("deepen-relative") {
            throw FetchError(.usage, "Server does not support --deepen")
        }
        // git's server_supports_hash: one of the `object-format` values is ours (none means SHA-1).
        guard format.isServed(by: capabilities) else {
            throw FetchError(.usage, "Server does not support this repository's object format")
        }
        // Without side-band the pack is raw bytes after the last acknowledgment (git reads it
        // so too, with no progress).
        sideBand = capabilities.contains("side-band-64k") || capabilities.contains("side-band")
    }

    /// The v0 request: wants (capabilities on the first), shallow and deepen lines, filter, flush.
    private func v0Request(
        wants: [ObjectID], capabilities: Capabilities, ackMode: FetchV0Negotiation.AckMode, noDone: Bool
    ) -> [PktLine] {
        var words: [String] = []
        if let capability = ackMode.capability { words.append(capability) }
        if noDone { words.append("no-done") }
        if capabilities.contains("side-band-64k") {
            words.append("side-band-64k")
        } else if capabilities.contains("side-band") {
            words.append("side-band")
        }
        if options.deepenRelative { words.append("deepen-relative") }
        if options.thinPack && capabilities.contains("thin-pack") { words.append("thin-pack") }
        if !options.progress && capabilities.contains("no-progress") { words.append("no-progress") }
        if options.includeTag && capabilities.contains("include-tag") { words.append("include-tag") }
        if capabilities.contains("ofs-delta") { words.append("ofs-delta") }
        if capabilities.contains("deepen-since") { words.append("deepen-since") }
        if capabilities.contains("deepen-not") { words.append("deepen-not") }
        if capabilities.contains("agent") { words.append("agent=\(options.sanitizedAgent)") }
        if options.filter != nil { words.append("filter") }

        var lines: [PktLine] = []
        for (index, id) in wants.enumerated() {
            var payload = Array("want ".utf8)
            id.appendHex(to: &payload)
            if index == 0 { for word in words { payload += Array(" \(word)".utf8) } }
            payload.append(0x0a)
            lines.append(.data(payload))
        }
        lines += shallowAndDeepenLines(v2: false)
        if let filter = options.filter, !filterIgnored { lines.append(.data(Array("filter \(filter)".utf8))) }
        lines.append(.flush)
        return lines
    }

    /// `shallow` lines for the local shallow commits, then `deepen`, `deepen-since`,
    /// `deepen-not` (and in v2 `deepen-relative`), without newlines where git writes none.
    private func shallowAndDeepenLines(v2: Bool) -> [PktLine] {
        var lines: [PktLine] = []
        for id in options.localShallow {
            var payload = Array("shallow ".utf8)
            id.appendHex(to: &payload)
            lines.append(.data(payload))
        }
        if let depth = options.effectiveDepth { lines.append(.data(Array("deepen \(depth)".utf8))) }
        if let since = options.shallowSince { lines.append(.data(Array("deepen-since \(since)".utf8))) }
        for exclude in options.shallowExclude { lines.append(.data(Array("deepen-not \(exclude)".utf8))) }
        if v2 && options.deepenRelative { lines.append(.text("deepen-relative")) }
        return lines
    }

    /// The part of every v2 `fetch` request before the wants, for a repository of `format`.
    private func v2RequestHead(_ capabilities: Capabilities, format: ObjectFormat) throws -> [PktLine] {
        var lines: [PktLine] = [.data(Array("command=fetch".utf8))]
        if capabilities.contains("agent") { lines.append(.data(Array("agent=\(options.sanitizedAgent)".utf8))) }
        if !options.serverOptions.isEmpty {
            guard capabilities.contains("server-option") else {
                throw FetchError(.usage, "server doesn't support 'server-option'")
            }
            lines += options.serverOptions.map { .data(Array("server-option=\($0)".utf8)) }
        }
        // As git's write_fetch_command_and_capabilities: the server's format must be ours.
        if let server = capabilities.value(of: "object-format") {
            guard server == format.name else {
                throw FetchError(
                    .usage, "mismatched algorithms: client \(format.name); server \(escapedForDisplay(server.utf8))")
            }
            lines.append(.data(Array("object-format=\(format.name)".utf8)))
        } else if format != .sha1 {
            throw FetchError(.usage, "the server does not support algorithm '\(format.name)'")
        }
        lines.append(.delimiter)
        if options.thinPack { lines.append(.data(Array("thin-pack".utf8))) }
        if !options.progress { lines.append(.data(Array("no-progress".utf8))) }
        if options.includeTag { lines.append(.data(Array("include-tag".utf8))) }
        lines.append(.data(Array("ofs-delta".utf8)))
        if capabilities.supports("fetch", feature: "shallow") {
            lines += shallowAndDeepenLines(v2: true)
        } else if options.deepens || !options.localShallow.isEmpty {
            throw FetchError(.usage, "Server does not support shallow requests")
        }
        if let filter = options.filter, capabilities.supports("fetch", feature: "filter") {
            lines.append(.data(Array("filter \(filter)".utf8)))
        }
        return lines
    }
}
