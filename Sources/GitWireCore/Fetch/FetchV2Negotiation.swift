/// The protocol v2 `fetch` command (`man gitprotocol-v2`), as git's `do_fetch_pack_v2` runs it:
/// each request repeats the arguments, the wants and every commit found common so far, adds the
/// next batch of haves (16, then doubling), and says `done` when there is nothing left to offer
/// or 256 haves in a row found nothing new. The answer is an `acknowledgments` section, or (after
/// `done` or `ready`) the `shallow-info`, `wanted-refs` and `packfile` sections.
struct FetchV2Negotiation: FetchNegotiation {
    /// What the next packet from the server should be.
    enum Reading: Sendable, Equatable {
        /// The `acknowledgments` header.
        case acknowledgmentsHeader
        /// Lines of the `acknowledgments` section.
        case acknowledgments
        /// A section header after `ready` or `done`: `shallow-info`, `wanted-refs` or `packfile`.
        case sectionHeader
        /// Lines of the `shallow-info` section.
        case shallowInfo
        /// Lines of the `wanted-refs` section.
        case wantedRefs
        /// The pack (side-band) follows.
        case pack
    }

    static let maxInVain = 256

    private var negotiator: DefaultNegotiator
    /// The request up to the wants: command, capabilities, arguments (constant across rounds).
    private let head: [PktLine]
    private let wants: [ObjectID]
    private var havesToSend = FetchV0Negotiation.initialFlush
    private var inVain = 0
    private var seenAck = false
    private var receivedReady = false
    /// How many more lines the `acknowledgments` section of the answer to the last request may
    /// hold: an `ACK` for each `have` it sent, a `NAK` and a `ready` (all upload-pack sends).
    private var acknowledgmentsLeft = 0
    /// Whether a stateless server may end each answer with a response-end packet.
    private let stateless: Bool

    private(set) var reading = Reading.acknowledgmentsHeader
    private(set) var record = NegotiationRecord()
    var isReadingPack: Bool { reading == .pack }
    var requestsStandAlone: Bool { true }
    /// The repository's shallow commits: the only ones an `unshallow` line may name.
    private let localShallow: Set<ObjectID>
    /// The format of the object ids in acknowledgments and shallow lines.
    private let format: ObjectFormat
    /// The lines of the `shallow-info` section, each commit kept once.
    private var shallowNamed: ShallowAnswer
    /// The sections after the acknowledgments that the answer has begun so far, in the order
    /// the protocol fixes (`shallow-info`, `wanted-refs`, `packfile`), each at most once.
    private var sectionsSeen = 0

    init(
        negotiator: DefaultNegotiator, head: [PktLine], wants: [ObjectID], stateless: Bool,
        localShallow: Set<ObjectID> = [], format: ObjectFormat
    ) {
        self.negotiator = negotiator
        self.format = format
        self.localShallow = localShallow
        shallowNamed = ShallowAnswer(wantCount: wants.count)
        self.head = head
        self.wants = wants
        self.stateless = stateless
    }

    /// The first request.
    mutating func start() -> [PktLine] { request() }

    private mutating func request() -> [PktLine] {
        record.countRound()
        var lines = head
        for id in wants {
            var payload = Array("want ".utf8)
            id.appendHex(to: &payload)
            payload.append(0x0a)
            lines.append(.data(payload))
        }
        lines += record.common.map(FetchV0Negotiation.have)
        acknowledgmentsLeft = record.common.count + 2
        var added = 0
        while added < havesToSend, let id = negotiator.next() {
            lines.append(FetchV0Negotiation.have(id))
            added += 1
        }
        acknowledgmentsLeft += added
        record.countHaves(added)
        havesToSend = FetchV0Negotiation.nextFlush(stateless: true, count: havesToSend)
        inVain += added
        if added == 0 || (seenAck && inVain >= Self.maxInVain) {
            lines.append(.text("done"))
            reading = .sectionHeader
        } else {
            reading = .acknowledgmentsHeader
        }
        lines.append(.flush)
        return lines
    }

    /// Handles one packet; returns what to send (possibly nothing).
    mutating func receive(_ packet: PktLine, emit: (FetchEvent) -> Void) throws -> [PktLine] {
        let text = packet.payload.map { line -> [UInt8] in line.last == 0x0a ? Array(line.dropLast()) : line }
        switch reading {
        case .acknowledgmentsHeader:
            if stateless && packet == .responseEnd { return [] }
            guard let text, text.elementsEqual("acknowledgments".utf8) else {
                throw ProtocolError("expected 'acknowledgments'", line: packet.encoded)
            }
            reading = .acknowledgments
        case .acknowledgments:
            guard let text else {
                switch (packet, receivedReady) {
                case (.delimiter, true):
                    reading = .sectionHeader
                    return []
                case (.flush, false):
                    return request()
                case (_, true):
                    throw ProtocolError("expected packfile to be sent after 'ready'")
                case (_, false):
                    throw ProtocolError("expected no other sections to be sent after no 'ready'")
                }
            }
            acknowledgmentsLeft -= 1
            if acknowledgmentsLeft < 0 { throw ProtocolError("more acknowledgments than haves were sent", line: text) }
            if text.elementsEqual("NAK".utf8) { return [] }
            if text.elementsEqual("ready".utf8) {
                receivedReady = true
                return []
            }
            guard text.count == 4 + format.hexCount, text.starts(with: "ACK ".utf8),
                let id = ObjectID(hex: text[4...], format: format)
            else {
                throw ProtocolError("unexpected acknowledgment line", line: text)
            }
            _ = negotiator.acknowledge(id)
            inVain = 0
            seenAck = true
            record.noteCommon(id)
        case .sectionHeader:
            if stateless && packet == .responseEnd { return [] }
            guard let text else { throw ProtocolError("expected 'packfile'", line: packet.encoded) }
            // As git's `process_section_header`: each section once, in this order; anything else
            // where `packfile` must come is an error (a repeated section would let a server go on
            // for ever).
            let order: [(String, Reading)] = [
                ("shallow-info", .shallowInfo), ("wanted-refs", .wantedRefs), ("packfile", .pack),
            ]
            guard
                let index = order.indices.first(where: { text.elementsEqual(order[$0].0.utf8) }),
                index >= sectionsSeen
            else { throw ProtocolError("expected 'packfile'", line: text) }
            sectionsSeen = index + 1
            reading = order[index].1
        case .shallowInfo:
            guard let line = packet.payload else {
                guard packet == .delimiter || packet == .flush else {
                    throw ProtocolError("error processing shallow info", line: packet.encoded)
                }
                reading = .sectionHeader
                return []
            }
            let (id, isShallow) = try parseShallowLine(line, localShallow: localShallow, format: format)
            guard let id else { throw ProtocolError("expected shallow/unshallow", line: line) }
            guard try shallowNamed.isNew(id, line: line) else { return [] }
            record.noteShallow(id, isShallow: isShallow, emit: emit)
        case .wantedRefs:
            // gitwire never sends `want-ref`, so no line of this section answers anything it
            // asked (git dies on a line naming a ref it did not seek, `unexpected wanted-ref`,
            // and reads them for ever otherwise).
            guard let text else {
                guard packet == .delimiter else { throw ProtocolError("error processing wanted refs") }
                reading = .sectionHeader
                return []
            }
            let width = format.hexCount
            guard text.count > width + 1, ObjectID(hex: text.prefix(width), format: format) != nil,
                text[width] == 0x20
            else {
                throw ProtocolError("expected wanted-ref", line: text)
            }
            throw ProtocolError("unexpected wanted-ref", line: text)
        case .pack:
            throw ProtocolError("the negotiation is over")
        }
        return []
    }
}
