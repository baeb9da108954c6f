/// Pushes to receive-pack (`man gitprotocol-pack`, "Pushing Data To a Server"): reads the ref
/// advertisement (protocol v0 or v1), asks `plan` which updates to send, sends them as git's
/// `send-pack` writes them (capabilities on the first, push options after their flush), then
/// reads the server's status report (`report-status` or `report-status-v2`), with the server's
/// messages (band 2: its hooks' output) handed out as they come.
///
/// A pure state machine. The pack is not its business: when the commands go out and a pack must
/// follow them, it emits ``PushEvent/sending(_:)`` first, so that the caller streams the pack
/// right after the commands on the same connection (or in the same request, over smart HTTP).
public struct PushExchange: Exchange, Sendable {
    /// Refs, the request being sent, and the server's messages.
    public typealias Element = PushEvent
    /// What was sent and what the server answered.
    public typealias Output = PushOutcome

    private enum State: Sendable {
        case listing(LsRemoteExchange)
        case report(PushReportParser, SideBandDemultiplexer?, PktLineDecoder)
        case awaitingEnd(SideBandDemultiplexer?)
        case done
    }

    private let options: PushOptions
    private let plan: @Sendable (RefListing) throws -> [PushCommand]
    private var state: State
    private var connectionPersists = true
    private var outcome: PushOutcome?
    /// Whether the advertisement was an empty repository's `capabilities^{}` line.
    private var sawPlaceholder = false
    /// Band 2 bytes seen: bounded, like everything the server says.
    private var messageByteCount = 0
    /// The most band 2 bytes taken from a server (its hooks' output).
    public static let maximumMessageBytes = 64 << 20
    /// Band 1 bytes seen after the status report.
    private var trailingBytes = 0
    /// The most band 1 bytes passed over after the status report (what a pipe holds): git's
    /// send-pack fails beyond about this much.
    static let maximumTrailingBytes = 64 << 10

    /// A push with `options`. `plan` sees the remote's refs and returns the updates to send, in
    /// the order they go (git's: the remote's refs in advertisement order, then new ones); an
    /// empty plan sends nothing but a flush. It may throw to stop the push before anything is
    /// sent; ``PushError/atomicRefusedLocally`` ends it without even the flush, as git ends an
    /// atomic push it refused locally.
    ///
    /// `keeping`, when given, says which advertised refs `plan` needs: the others are dropped as
    /// they are read (not held, not in the listing, not emitted), so that a server advertising
    /// millions of refs costs only what the push needs. `keepingHave` says which ids of the
    /// advertisement's `.have` lines go into ``RefListing/haves`` (nil: none): git's send-pack
    /// takes those the repository has as objects the remote has.
    public init(
        options: PushOptions = PushOptions(), keeping: (@Sendable (Ref) -> Bool)? = nil,
        keepingHave: (@Sendable (ObjectID) -> Bool)? = nil,
        plan: @escaping @Sendable (RefListing) throws -> [PushCommand]
    ) {
        self.options = options
        self.plan = plan
        var listing = LsRemoteExchange(
            options: LsRemoteOptions(
                protocolVersion: options.effectiveVersion, agent: options.sanitizedAgent,
                objectFormat: options.objectFormat))
        listing.keeps = keeping
        listing.keepsHave = keepingHave
        state = .listing(listing)
    }

    /// "reading the ref advertisement", "waiting for the remote's status report"…
    public var activity: String {
        switch state {
        case .listing: return "reading the ref advertisement"
        case .report: return "waiting for the remote's status report"
        case .awaitingEnd: return "waiting for the remote to finish"
        case .done: return "closing the connection"
        }
    }

    /// The server speaks first: nothing to send.
    public mutating func start(_ context: ExchangeContext) throws -> [PktLine] {
        connectionPersists = context.connectionPersists
        guard case .listing(var listing) = state else { return [] }
        let packets = try listing.start(context)
        state = .listing(listing)
        return packets
    }

    /// Handles one packet: the advertisement, then the report and the server's messages.
    public mutating func receive(_ packet: PktLine, emit: (PushEvent) -> Void) throws -> ExchangeStep<PushOutcome> {
        switch state {
        case .listing(var listing):
            state = .done
            if case .data(let line) = packet, Self.isPlaceholder(line) { sawPlaceholder = true }
            switch try listing.receive(packet, emit: { emit(.ref($0)) }) {
            case .readMore:
                state = .listing(listing)
                return .readMore
            case .send(let packets):
                state = .listing(listing)
                return .send(packets)
            case .finish(let refs, _):
                return try sendCommands(refs, emit: emit)
            }
        case .report(var parser, var demultiplexer, var inner):
            state = .done
            if var sideBand = demultiplexer {
                try Self.checkBand(packet)
                switch try sideBand.receive(packet) {
                case .data(let bytes) where parser.isDone:
                    // Band 1 after the report: git's demultiplexer fails writing it to the report's
                    // closed pipe once that pipe is full. Not kept; past a pipe's worth, the push
                    // fails as git's does.
                    trailingBytes += bytes.count
                    if trailingBytes > Self.maximumTrailingBytes {
                        var report = parser.report
                        report.problems.append("error in sideband demultiplexer")
                        return finish(report)
                    }
                case .data(let bytes):
                    inner.append(bytes)
                    while !parser.isDone, let line = try inner.next() { try parser.receive(line) }
                case .progress(let bytes): try message(bytes, emit: emit)
                case .keepAlive: break
                case .end:
                    // The side-band ended before the report did: git's send-pack meets the end
                    // of the report's pipe there, a hang-up.
                    guard parser.isDone else { throw PushError.sideBandEndedBeforeReport }
                    return finish(parser.report)
                }
                demultiplexer = sideBand
            } else {
                try parser.receive(packet)
                if parser.isDone { return finish(parser.report) }
            }
            state = .report(parser, demultiplexer, inner)
            return .readMore
        case .awaitingEnd(var demultiplexer):
            state = .done
            if var sideBand = demultiplexer {
                try Self.checkBand(packet)
                if case .progress(let bytes) = try sideBand.receive(packet) { try message(bytes, emit: emit) }
                demultiplexer = sideBand
            }
            state = .awaitingEnd(demultiplexer)
            return .readMore
        case .done:
            throw ProtocolError("unexpected packet after the end of the exchange", line: packet.encoded)
        }
    }

    /// The server closed the connection: the end of a push to a server that sends no report;
    /// otherwise an error, as in git.
    public mutating func receiveEnd(emit: (PushEvent) -> Void) throws -> PushOutcome {
        switch state {
        case .listing(var listing):
            _ = try listing.receiveEnd { emit(.ref($0)) }
            throw UnexpectedEndError(afterInitialContact: true)
        case .awaitingEnd:
            state = .done
            guard let outcome else { throw UnexpectedEndError(afterInitialContact: true) }
            return outcome
        case .report:
            throw PushError(.connectionLost, "the remote end hung up unexpectedly while \(activity)")
        case .done:
            guard let outcome else { throw UnexpectedEndError(afterInitialContact: true) }
            return outcome
        }
    }

    /// Throws ``PushError/badBand(_:)`` for a side-band packet of a band git does not know, as
    /// git's send-pack names it.
    private static func checkBand(_ packet: PktLine) throws {
        if case .data(let payload) = packet, let band = payload.first, band == 0 || band > 3 {
            throw PushError.badBand(band)
        }
    }

    private mutating func message(_ bytes: ArraySlice<UInt8>, emit: (PushEvent) -> Void) throws {
        messageByteCount += bytes.count
        guard messageByteCount <= Self.maximumMessageBytes else {
            throw ProtocolError("the remote sent more than \(Self.maximumMessageBytes >> 20) MiB of messages")
        }
        emit(.remoteMessage(Array(bytes)))
    }

    private mutating func finish(_ report: PushReport) -> ExchangeStep<PushOutcome> {
        state = .done
        outcome?.report = report
        return .finish(outcome!, farewell: [])
    }

    // MARK: Commands

    private mutating func sendCommands(_ listing: RefListing, emit: (PushEvent) -> Void) throws -> ExchangeStep<
        PushOutcome
    > {
        let capabilities = listing.capabilities
        // A receive-pack that answered in protocol v2 (asked for or not): git 2.39 reads its refs
        // and stops, as pushing over v2 does not exist; going on would send v0 commands into a v2
        // session that offers no report-status, and trust its exit.
        guard listing.protocolVersion != .v2 else {
            throw PushError(.protocol, "support for protocol v2 not implemented yet")
        }
        // git's send-pack: one of the receiving end's `object-format` values must be the
        // repository's (none means SHA-1). An empty SHA-1 repository's `capabilities^{}` line
        // fails earlier in a SHA-256 git: its 40-digit zero id is not the 64-digit one git 2.39
        // compares it with, so the line is taken for a ref and refused by that name.
        if !options.objectFormat.isServed(by: capabilities) {
            if sawPlaceholder && listing.objectFormat.byteCount < options.objectFormat.byteCount {
                throw ProtocolError("unexpected capabilities^{}")
            }
            // Over stateless RPC git decides each ref before its helper's send-pack stops here,
            // and reports the refs it refused itself: `plan` sees the listing all the same.
            if !connectionPersists { _ = try plan(listing) }
            throw PushError.unsupportedObjectFormat
        }
        let commands: [PushCommand]
        do {
            // Over stateless RPC git decides each ref before its helper's send-pack runs: an
            // atomic push with a ref refused here stops there, and a send-pack that dies below
            // (a capability the server lacks) leaves the refs refused here to report.
            // With nothing to update, the helper's send-pack never runs at all.
            let planned = connectionPersists ? nil : try plan(listing)
            if planned?.isEmpty != true {
                if options.atomic && !capabilities.contains("atomic") { throw PushError.atomicUnsupported }
                if !options.pushOptions.isEmpty && !capabilities.contains("push-options") {
                    throw PushError.pushOptionsUnsupported
                }
                for option in options.pushOptions where option.utf8.contains(where: { $0 == 0x0a || $0 == 0 }) {
                    throw PushError(.usage, "push options must not have new line characters")
                }
            }
            commands = try planned ?? plan(listing)
        } catch let error as PushError where error == .atomicRefusedLocally {
            // git's send-pack returns before its commands and closes the connection unflushed
            // (receive-pack then says the remote end hung up).
            state = .done
            outcome = PushOutcome(listing: listing, request: nil, report: nil)
            return .finish(outcome!, farewell: [])
        }
        let statusReport =
            capabilities.contains("report-status-v2") ? 2 : capabilities.contains("report-status") ? 1 : 0
        let sideBand = capabilities.contains("side-band-64k")
        let request = PushRequest(
            commands: commands, sendsPack: commands.contains { !$0.isDeletion },
            ofsDelta: capabilities.contains("ofs-delta"), thinPack: !capabilities.contains("no-thin"),
            statusReport: statusReport, sideBand: sideBand)
        var result = PushOutcome(listing: listing, request: nil, report: nil)
        guard !commands.isEmpty, !options.dryRun else {
            // Nothing to update: v0 says so with a flush; over stateless RPC nothing is sent.
            state = .done
            if options.dryRun { result.request = request }
            outcome = result
            return .finish(result, farewell: connectionPersists ? [.flush] : [])
        }
        result.request = request
        outcome = result

        var words: [String] = []
        if statusReport == 1 { words.append("report-status") }
        if statusReport == 2 { words.append("report-status-v2") }
        if sideBand { words.append("side-band-64k") }
        if capabilities.contains("quiet") && (options.quiet || !options.progress) { words.append("quiet") }
        if options.atomic { words.append("atomic") }
        if !options.pushOptions.isEmpty { words.append("push-options") }
        if capabilities.contains("object-format") { words.append("object-format=\(options.objectFormat.name)") }
        if capabilities.contains("agent") { words.append("agent=\(options.sanitizedAgent)") }

        var packets: [PktLine] = []
        for (index, command) in commands.enumerated() {
            var payload = command.line
            if index == 0 {
                payload.append(0)
                for word in words { payload += Array(" \(word)".utf8) }
            }
            guard payload.count <= PktLine.maxPayload else {
                throw PushError(.usage, "ref name too long to push: \(escapedForDisplay(command.name.utf8.prefix(80)))")
            }
            packets.append(.data(payload))
        }
        packets.append(.flush)
        if !options.pushOptions.isEmpty {
            packets += options.pushOptions.map { .data(Array($0.utf8)) }
            packets.append(.flush)
        }
        emit(.sending(request))
        if statusReport > 0 {
            state = .report(
                PushReportParser(commands: commands, format: options.objectFormat),
                sideBand ? SideBandDemultiplexer() : nil, PktLineDecoder())
        } else {
            state = .awaitingEnd(sideBand ? SideBandDemultiplexer() : nil)
        }
        return .send(packets)
    }

    /// Whether an advertisement line is an empty repository's `<zero id> capabilities^{}`
    /// (of either width).
    private static func isPlaceholder(_ line: [UInt8]) -> Bool {
        var text = line[...]
        if let nul = text.firstIndex(of: 0) { text = text[..<nul] }
        if text.last == 0x0a { text = text.dropLast() }
        let suffix = " capabilities^{}".utf8
        guard
            text.count == ObjectFormat.sha1.hexCount + suffix.count
                || text.count == ObjectFormat.sha256.hexCount + suffix.count
        else { return false }
        return text.reversed().starts(with: suffix.reversed()) && text.dropLast(suffix.count).allSatisfy { $0 == 0x30 }
    }
}

/// What a push sends: its commands and what the server allows for the pack that follows them.
public struct PushRequest: Hashable, Sendable {
    /// The updates, in the order sent.
    public var commands: [PushCommand]
    /// Whether a pack follows the commands (some command is not a deletion).
    public var sendsPack: Bool
    /// Whether the pack may use offset deltas (`ofs-delta`).
    public var ofsDelta: Bool
    /// Whether the pack may be thin (deltas against objects the remote has): unless `no-thin`.
    public var thinPack: Bool
    /// Which status report was asked for: 0 none, 1 `report-status`, 2 `report-status-v2`.
    public var statusReport: Int
    /// Whether the server's answers come in side-band (`side-band-64k`).
    public var sideBand: Bool
}

/// What a ``PushExchange`` hands out while it runs.
public enum PushEvent: Hashable, Sendable {
    /// One ref of the advertisement.
    case ref(Ref)
    /// The commands are about to be sent: if the request sends a pack, it must follow them at
    /// once on the same connection.
    case sending(PushRequest)
    /// Bytes of the server's messages (band 2: its hooks' output), as sent: not yet made safe to
    /// show: control characters must be masked before they reach a terminal.
    case remoteMessage([UInt8])
}

/// The end of a push exchange.
public struct PushOutcome: Hashable, Sendable {
    /// The remote's refs and capabilities.
    public var listing: RefListing
    /// What was sent; nil when there was nothing to update. Set for a dry run, which sends
    /// nothing.
    public var request: PushRequest?
    /// What the server reported; nil when nothing was sent or the server offers no
    /// `report-status`.
    public var report: PushReport?
}
