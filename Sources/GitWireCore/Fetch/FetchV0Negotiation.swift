/// The protocol v0/v1 negotiation of upload-pack (`man gitprotocol-pack`), as git's
/// `find_common` in fetch-pack.c runs it: batches of `have`s (16 first, then growing), one batch
/// ahead of the answers on a persistent connection, `multi_ack_detailed` acknowledgments, giving
/// up after 256 haves without a new common commit, then `done`. On a stateless connection every
/// request repeats the wants and the commits found common so far.
struct FetchV0Negotiation: FetchNegotiation {
    /// What the next packet from the server should be.
    enum Reading: Sendable, Equatable {
        /// `shallow`/`unshallow` lines up to a flush, after a request that deepens.
        case shallowList(then: AfterShallowList)
        /// Acknowledgments of one batch of haves, up to `NAK` (or a final `ACK`).
        case acks
        /// Acknowledgments after `done`.
        case finalAcks
        /// The pack follows.
        case pack
    }

    /// Where a shallow list leads.
    enum AfterShallowList: Sendable, Equatable {
        case negotiate, acks, finalAcks
    }

    private enum Ack {
        case nak, ack, common, ready, `continue`
    }

    /// How the server acknowledges haves: the `multi_ack` capabilities the request names (git's
    /// `multi_ack` 0, 1 and 2).
    enum AckMode: Sendable, Equatable {
        /// One `ACK` for the first common commit, which ends the negotiation; else `NAK`s.
        case single
        /// `multi_ack`: `ACK <id> continue` for each common commit. After `done` the mode only
        /// says that more acknowledgments may come before the final `ACK`.
        case multiAck
        /// `multi_ack_detailed`: `ACK <id> common`, `ACK <id> ready`, and `NAK` after each batch.
        case detailed

        /// The mode of the capabilities a server advertised.
        init(_ capabilities: Capabilities) {
            if capabilities.contains("multi_ack_detailed") {
                self = .detailed
            } else if capabilities.contains("multi_ack") {
                self = .multiAck
            } else {
                self = .single
            }
        }

        /// The capability the request names, if any.
        var capability: String? {
            switch self {
            case .single: return nil
            case .multiAck: return "multi_ack"
            case .detailed: return "multi_ack_detailed"
            }
        }
    }

    static let initialFlush = 16
    static let maxInVain = 256

    private var negotiator: DefaultNegotiator
    private let stateless: Bool
    private let deepen: Bool
    private let noDone: Bool
    private var ackMode: AckMode

    private var buffer: [PktLine] = []
    private var stateLength = 0
    private var count = 0
    private var flushAt = initialFlush
    private var flushes = 0
    private var inVain = 0
    private var gotContinue = false
    private var gotReady = false
    /// Whether the server acknowledged any have (git's `retval` of 0).
    private var foundCommon = false
    /// How many more `ACK`/`NAK` lines the requests sent so far can draw: one for each `have`
    /// sent (the repeated ones of a stateless request included) and two for each flush or `done`
    /// (a `ready` and the `NAK`, or the final `ACK`). upload-pack (git's and JGit's) sends no more:
    /// its third line for a flush, the `ACK` of `no-done`, comes only in a stateless request, whose
    /// wants' flush draws nothing. More answer nothing that was asked; git reads them for ever.
    private var answersOwed = 0

    private(set) var reading = Reading.pack {
        didSet { if case .shallowList = reading { shallowInAnswer.reset() } }
    }
    private(set) var record = NegotiationRecord()
    var isReadingPack: Bool { reading == .pack }
    var requestsStandAlone: Bool { false }
    private var shallowSeen: Set<ObjectID> = []
    /// The shallow lines of the current answer (a stateless server repeats the list in every
    /// answer).
    private var shallowInAnswer: ShallowAnswer
    /// The repository's shallow commits: the only ones an `unshallow` line may name.
    private let localShallow: Set<ObjectID>
    /// The format of the object ids in acknowledgments and shallow lines.
    private let format: ObjectFormat

    init(
        negotiator: DefaultNegotiator, stateless: Bool, deepen: Bool, noDone: Bool, ackMode: AckMode,
        localShallow: Set<ObjectID> = [], format: ObjectFormat, wantCount: Int = 1
    ) {
        shallowInAnswer = ShallowAnswer(wantCount: wantCount)
        self.negotiator = negotiator
        self.format = format
        self.localShallow = localShallow
        self.stateless = stateless
        self.deepen = deepen
        self.noDone = noDone
        self.ackMode = ackMode
    }

    static func nextFlush(stateless: Bool, count: Int) -> Int {
        if stateless { return count < 16384 ? count << 1 : count * 11 / 10 }
        return count < 32 ? count << 1 : count + 32
    }

    /// Sends `request` (wants, shallow and deepen lines, flush) and whatever can follow it before
    /// an answer is needed.
    mutating func start(request: [PktLine]) -> [PktLine] {
        var out: [PktLine] = []
        buffer = request
        stateLength = buffer.count
        if deepen {
            out += buffer
            reading = .shallowList(then: .negotiate)
        } else if !stateless {
            out += buffer
        }
        if deepen || !stateless { owe(buffer) }
        if !stateless {
            buffer.removeAll()
            stateLength = 0
        }
        if !deepen { negotiate(into: &out) }
        return out
    }

    /// Handles one packet; returns what to send (possibly nothing).
    mutating func receive(_ packet: PktLine, emit: (FetchEvent) -> Void) throws -> [PktLine] {
        var out: [PktLine] = []
        switch reading {
        case .shallowList(let then):
            guard case .data = packet else {
                guard packet == .flush else { throw ProtocolError("expected shallow/unshallow, got a special packet") }
                switch then {
                case .negotiate: negotiate(into: &out)
                case .acks: reading = .acks
                case .finalAcks: enterFinalAcks()
                }
                return out
            }
            guard try receiveShallowLine(packet, emit: emit) else {
                throw ProtocolError("expected shallow/unshallow", line: packet.payload ?? [])
            }
        case .acks:
            if deepen, try receiveShallowLine(packet, emit: emit) { return [] }
            let (ack, id) = try Self.parseAck(packet, format: format)
            try drawAnswer(packet)
            switch ack {
            case .nak:
                flushes -= 1
                if gotContinue && Self.maxInVain < inVain {
                    finish(into: &out)
                } else if gotReady {
                    finish(into: &out)
                } else {
                    negotiate(into: &out)
                }
            case .ack:
                record.noteCommon(id)
                flushes = 0
                ackMode = .single
                foundCommon = true
                finish(into: &out)
            case .common, .ready, .continue:
                record.noteCommon(id)
                let wasCommon = negotiator.acknowledge(id)
                if stateless && ack == .common && !wasCommon {
                    // The next request must tell the stateless server this commit is common.
                    buffer.append(Self.have(id))
                    stateLength = buffer.count
                    inVain = 0
                } else if !stateless || ack != .common {
                    inVain = 0
                }
                foundCommon = true
                gotContinue = true
                if ack == .ready { gotReady = true }
            }
        case .finalAcks:
            if deepen, try receiveShallowLine(packet, emit: emit) { return [] }
            let (ack, id) = try Self.parseAck(packet, format: format)
            try drawAnswer(packet)
            switch ack {
            case .nak:
                flushes -= 1
            case .ack:
                record.noteCommon(id)
                reading = .pack
                return []
            case .common, .ready, .continue:
                record.noteCommon(id)
                ackMode = .multiAck
            }
            if flushes == 0 && ackMode == .single { reading = .pack }
        case .pack:
            throw ProtocolError("the negotiation is over")
        }
        return out
    }

    /// Offers haves until a batch is complete and its answer is needed, or until there is
    /// nothing left to offer (then `done`).
    private mutating func negotiate(into out: inout [PktLine]) {
        while let id = negotiator.next() {
            buffer.append(Self.have(id))
            record.countHaves(1)
            inVain += 1
            count += 1
            guard flushAt <= count else { continue }
            record.countRound()
            buffer.append(.flush)
            out += buffer
            owe(buffer)
            buffer.removeSubrange(stateLength...)
            flushes += 1
            flushAt = Self.nextFlush(stateless: stateless, count: count)
            // One batch ahead of the server on a persistent connection: the first answer is
            // read only after the second batch is out.
            if !stateless && count == Self.initialFlush { continue }
            reading = stateless && deepen ? .shallowList(then: .acks) : .acks
            return
        }
        finish(into: &out)
    }

    private mutating func finish(into out: inout [PktLine]) {
        let sendDone = !gotReady || !noDone
        if sendDone {
            buffer.append(.text("done"))
            out += buffer
            owe(buffer)
        }
        if !foundCommon {
            ackMode = .single
            flushes += 1
        }
        if sendDone && stateless && deepen {
            reading = .shallowList(then: .finalAcks)
        } else {
            enterFinalAcks()
        }
    }

    /// Counts what `sent` can draw as answers (see ``answersOwed``).
    private mutating func owe(_ sent: [PktLine]) {
        for line in sent {
            if line == .flush || line.payload?.starts(with: "done".utf8) == true {
                answersOwed += 2
            } else if line.payload?.starts(with: "have ".utf8) == true {
                answersOwed += 1
            }
        }
    }

    /// One `ACK` or `NAK` line arrived: an error if nothing sent asked for it.
    private mutating func drawAnswer(_ packet: PktLine) throws {
        answersOwed -= 1
        if answersOwed < 0 {
            var line = packet.payload ?? []
            if line.last == 0x0a { line.removeLast() }
            throw ProtocolError("more acknowledgments than haves were sent", line: line)
        }
    }

    private mutating func enterFinalAcks() {
        reading = flushes != 0 || ackMode != .single ? .finalAcks : .pack
    }

    /// Takes a `shallow <id>` or `unshallow <id>` line; false if `packet` is neither.
    private mutating func receiveShallowLine(_ packet: PktLine, emit: (FetchEvent) -> Void) throws -> Bool {
        guard let line = packet.payload else { return false }
        let (id, isShallow) = try parseShallowLine(line, localShallow: localShallow, format: format)
        guard let id else { return false }
        guard try shallowInAnswer.isNew(id, line: line) else { return true }
        // Stateless servers repeat the list in every answer: report each commit once.
        guard shallowSeen.insert(id).inserted else { return true }
        record.noteShallow(id, isShallow: isShallow, emit: emit)
        return true
    }

    static func have(_ id: ObjectID) -> PktLine {
        var payload = Array("have ".utf8)
        id.appendHex(to: &payload)
        payload.append(0x0a)
        return .data(payload)
    }

    /// git's `get_ack`: `NAK`, or `ACK <id>` with an optional status word.
    private static func parseAck(_ packet: PktLine, format: ObjectFormat) throws -> (Ack, ObjectID) {
        guard var line = packet.payload else {
            throw ProtocolError("expected ACK/NAK, got a \(packet == .flush ? "flush" : "special") packet")
        }
        if line.last == 0x0a { line.removeLast() }
        if line.elementsEqual("NAK".utf8) { return (.nak, format.zeroID) }
        let end = 4 + format.hexCount
        if line.starts(with: "ACK ".utf8), line.count >= end, let id = ObjectID(hex: line[4..<end], format: format) {
            let rest = line[end...]
            if rest.isEmpty { return (.ack, id) }
            if rest.containsSubsequence("continue".utf8) { return (.continue, id) }
            if rest.containsSubsequence("common".utf8) { return (.common, id) }
            if rest.containsSubsequence("ready".utf8) { return (.ready, id) }
            return (.ack, id)
        }
        throw ProtocolError("expected ACK/NAK", line: line)
    }
}

/// The `shallow`/`unshallow` lines of one answer, each commit kept once. upload-pack repeats a
/// commit when several wanted objects lead to it (git 2.39's v2 clone of a shallow repository
/// names its shallow commit once from the branch and once from a tag on it), so a repeat is
/// allowed; but only ``repeatAllowance`` of them beyond one per want, or a server repeating one
/// line would be read for ever (git 2.39 does: in constant memory in v0, keeping every repeat
/// in v2).
struct ShallowAnswer: Sendable {
    /// Repeated lines one answer may hold beyond one for each want.
    static let repeatAllowance = 65_536

    private let wantCount: Int
    private var named: Set<ObjectID> = []
    private var repeats = 0

    init(wantCount: Int) { self.wantCount = wantCount }

    /// Whether `id` is new to this answer; false for a repeat; throws for one repeat too many.
    mutating func isNew(_ id: ObjectID, line: [UInt8]) throws -> Bool {
        if named.insert(id).inserted { return true }
        repeats += 1
        guard repeats <= Self.repeatAllowance + wantCount else {
            throw ProtocolError(
                "too many repeated shallow lines", line: Array(line.last == 0x0a ? line.dropLast() : line[...]))
        }
        return false
    }

    /// Starts the next answer.
    mutating func reset() {
        named.removeAll()
        repeats = 0
    }
}

/// Parses `shallow <id>` or `unshallow <id>` (newline optional), the id of `format`: the id (nil
/// if the line is neither) and whether it is `shallow`. Throws for a malformed id, and (as git)
/// for an `unshallow` of a commit that is not one of the repository's shallow commits.
func parseShallowLine(_ line: [UInt8], localShallow: Set<ObjectID>, format: ObjectFormat) throws -> (ObjectID?, Bool) {
    var body = line[...]
    if body.last == 0x0a { body = body.dropLast() }
    let isShallow: Bool
    if body.starts(with: "shallow ".utf8) {
        isShallow = true
        body = body.dropFirst(8)
    } else if body.starts(with: "unshallow ".utf8) {
        isShallow = false
        body = body.dropFirst(10)
    } else {
        return (nil, false)
    }
    guard let id = ObjectID(hex: body, format: format) else {
        throw ProtocolError("invalid \(isShallow ? "shallow" : "unshallow") line", line: line)
    }
    if !isShallow && !localShallow.contains(id) {
        throw ProtocolError("no shallow found", line: Array(line.last == 0x0a ? line.dropLast() : line[...]))
    }
    return (id, isShallow)
}
