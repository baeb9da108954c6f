import GitWire

/// Server answers through the exchange codec, as every transport feeds them: whole and in pieces,
/// which must give the same refs, events, replies and outcome.
enum FuzzExchanges {
    static func lsRemote(_ data: [UInt8]) {
        var input = FuzzInput(data)
        let flags = input.byte()
        let size = fuzzChunkSize(input.byte())
        let version = ProtocolVersion(rawValue: Int(flags % 3)) ?? .v2
        // 0x20: as if run in a SHA-256 repository (v0 ids are read so when the server names no format).
        let options = LsRemoteOptions(
            protocolVersion: version, refPrefixes: flags & 0x04 != 0 ? ["refs/heads/", "refs/tags/"] : [],
            serverOptions: flags & 0x08 != 0 && version == .v2 ? ["fuzz"] : [],
            objectFormat: flags & 0x20 != 0 ? .sha256 : .sha1)
        let context = ExchangeContext(connectionPersists: flags & 0x10 == 0)
        let stream = input.rest()
        let exchange = LsRemoteExchange(options: options)
        let whole = drive(exchange, [stream], context: context) { "\($0)" }
        let pieces = drive(exchange, fuzzChunks(stream, size: size), context: context) { "\($0)" }
        fuzzInvariant(whole == pieces, "ls-remote differs in pieces of \(size):\n\(whole)\n---\n\(pieces)")
    }

    static func fetch(_ data: [UInt8]) {
        var input = FuzzInput(data)
        let flags = input.byte()
        let more = input.byte()
        let selector = input.byte()
        let size = fuzzChunkSize(selector)
        let version = ProtocolVersion(rawValue: Int(flags % 3)) ?? .v2
        // The selector's high bit: a fetch into a SHA-256 repository; otherwise a clone, which
        // takes the server's format (with a SHA-1 local history the negotiation still walks).
        let sha256 = selector & 0x80 != 0
        let local = LocalHistory(length: Int(more & 0x0f), format: sha256 ? .sha256 : .sha1)
        let options = FetchOptions(
            protocolVersion: version, depth: flags & 0x04 != 0 ? 1 + Int(more >> 4) : nil,
            shallowSince: flags & 0x08 != 0 ? 1_700_000_000 : nil,
            deepenRelative: flags & 0x04 != 0 && more & 0x10 != 0,
            filter: flags & 0x20 != 0 ? "blob:none" : nil, includeTag: flags & 0x40 == 0,
            progress: flags & 0x80 != 0, localShallow: more & 0x20 != 0 ? [local.tips[0]] : [],
            objectFormat: sha256 ? .sha256 : nil)
        let context = ExchangeContext(connectionPersists: more & 0x40 == 0)
        let wantCount = 1 + Int(more >> 6)
        let exchange = FetchExchange(options: options, localTips: local.tips, graph: local) { listing in
            Array(listing.refs.compactMap(\.objectID).prefix(wantCount))
        }
        let stream = input.rest()
        let whole = drive(exchange, [stream], context: context, describeAll: describe)
        let pieces = drive(exchange, fuzzChunks(stream, size: size), context: context, describeAll: describe)
        fuzzInvariant(whole == pieces, "fetch differs in pieces of \(size):\n\(whole)\n---\n\(pieces)")
    }

    static func smartHTTP(_ data: [UInt8]) {
        var input = FuzzInput(data)
        let flags = input.byte()
        let size = fuzzChunkSize(input.byte())
        let version: ProtocolVersion = flags & 1 == 0 ? .v0 : .v2
        let stream = input.rest()
        var outcomes: [String] = []
        for chunks in [[stream], fuzzChunks(stream, size: size)] {
            var preamble = SmartHTTPPreamble(service: .uploadPack)
            var codec = ExchangeCodec(LsRemoteExchange(options: LsRemoteOptions(protocolVersion: version)))
            var refs: [String] = []
            var outcome: String
            do {
                _ = try codec.opening(greeting: [], context: ExchangeContext(connectionPersists: false))
                for chunk in chunks {
                    _ = try codec.receive(try preamble.take(chunk)) { refs.append($0.name) }
                }
                try preamble.checkAtEnd()
                outcome = "\(try codec.receiveEnd { refs.append($0.name) })"
            } catch {
                outcome = "error: \(error)"
            }
            outcomes.append("\(refs) \(outcome)")
        }
        fuzzInvariant(outcomes[0] == outcomes[1], "smart HTTP differs in pieces of \(size): \(outcomes)")
    }

    /// Pack bytes arrive per packet, but a pack sent without side-band arrives as the pieces of
    /// the input do: consecutive pack bytes are taken together, and a checksum stands for them.
    private static func describe(_ events: [FetchEvent]) -> [String] {
        var described: [String] = []
        var pack: [UInt8]?
        func flushPack() {
            if let bytes = pack { described.append("pack \(bytes.count) \(bytes.reduce(0) { $0 &* 31 &+ Int($1) })") }
            pack = nil
        }
        for event in events {
            if case .packData(let bytes) = event {
                pack = (pack ?? []) + bytes
            } else {
                flushPack()
                described.append("\(event)")
            }
        }
        flushPack()
        return described
    }

    /// Runs `exchange` on server bytes arriving in `chunks`; describes what it emitted, what it
    /// sent and how it ended.
    static func drive<E: Exchange>(
        _ exchange: E, _ chunks: [[UInt8]], context: ExchangeContext, describe: (E.Element) -> String
    ) -> String {
        drive(exchange, chunks, context: context, describeAll: { $0.map(describe) })
    }

    /// ``drive(_:_:context:describe:)`` with every element described at once.
    static func drive<E: Exchange>(
        _ exchange: E, _ chunks: [[UInt8]], context: ExchangeContext, describeAll: ([E.Element]) -> [String]
    ) -> String {
        var codec = ExchangeCodec(exchange)
        var elements: [E.Element] = []
        var sent: [UInt8] = []
        var outcome: String
        do {
            sent += try codec.opening(greeting: [], context: context)
            for chunk in chunks where codec.output == nil {
                sent += try codec.receive(chunk) { elements.append($0) }
            }
            outcome = "\(try codec.receiveEnd { elements.append($0) })"
        } catch {
            outcome = "error: \(error)"
        }
        // A reply made in the same call that then throws is dropped with the call (the exchange has
        // failed; nothing more is sent), so what was sent is compared only when the exchange ended well.
        let sentText = outcome.hasPrefix("error: ") ? "" : String(decoding: sent, as: UTF8.self)
        return describeAll(elements).joined(separator: "\n") + "\nsent: \(sentText)\noutcome: \(outcome)"
    }
}

/// A small local history for the negotiation: a chain of commits, newest first in `tips`.
struct LocalHistory: CommitGraph {
    let commits: [ObjectID: CommitSummary]
    let tips: [ObjectID]

    init(length: Int, format: ObjectFormat) {
        var commits: [ObjectID: CommitSummary] = [:]
        var ids: [ObjectID] = []
        for index in 0...length {
            let id = ObjectID(bytes: [UInt8](repeating: UInt8(index + 1), count: format.byteCount), format: format)!
            commits[id] = CommitSummary(
                parents: ids.last.map { [$0] } ?? [], committerTime: 1_600_000_000 + Int64(index))
            ids.append(id)
        }
        self.commits = commits
        tips = [ids.last!]
    }

    func commit(_ id: ObjectID) -> CommitSummary? { commits[id] }
}
