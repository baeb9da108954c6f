import GitWire

/// What receive-pack says to a push, through ``PushExchange``: the ref advertisement (v0/v1),
/// then the status report (`report-status` or `report-status-v2`), plain or inside side-band
/// with band 2 messages, whole and in pieces, which must give the same refs, request, messages
/// and outcome.
enum FuzzPush {
    static func run(_ data: [UInt8]) {
        var input = FuzzInput(data)
        let flags = input.byte()
        let plan = input.byte()
        let size = fuzzChunkSize(input.byte())
        let options = PushOptions(
            protocolVersion: flags & 0x01 == 0 ? .v0 : .v1, atomic: flags & 0x02 != 0,
            pushOptions: flags & 0x04 != 0 ? ["ci.skip", "note=two words"] : [], quiet: flags & 0x08 != 0,
            progress: flags & 0x10 != 0, dryRun: flags & 0x20 != 0, agent: "git/2.39.5")
        let context = ExchangeContext(connectionPersists: flags & 0x40 == 0)
        // Keep only some refs (as a push to a large remote does) when the high bit is set.
        var keeping: (@Sendable (Ref) -> Bool)?
        if flags & 0x80 != 0 { keeping = { ref in ref.name.hasPrefix("refs/heads/") } }
        let exchange = PushExchange(options: options, keeping: keeping) { listing in
            Self.commands(plan, listing)
        }
        let stream = input.rest()
        let whole = FuzzExchanges.drive(exchange, [stream], context: context) { "\($0)" }
        let pieces = FuzzExchanges.drive(exchange, fuzzChunks(stream, size: size), context: context) { "\($0)" }
        fuzzInvariant(whole == pieces, "push differs in pieces of \(size):\n\(whole)\n---\n\(pieces)")
    }

    /// The updates a push sends, steered by `plan`: bits 0-2 how many advertised refs are moved
    /// to a new commit (bit 3: deleted instead), bit 4 a new branch, bit 5 a new tag, bit 6 the
    /// first advertised ref sent again, so that the report names a ref twice.
    static func commands(_ plan: UInt8, _ listing: RefListing) -> [PushCommand] {
        let format = listing.objectFormat
        let new = ObjectID(bytes: [UInt8](repeating: 0xab, count: format.byteCount), format: format)!
        var commands: [PushCommand] = []
        for ref in listing.refs.prefix(Int(plan & 0x07)) {
            guard let id = ref.objectID, !ref.name.hasSuffix("^{}") else { continue }
            commands.append(PushCommand(name: ref.name, old: id, new: plan & 0x08 != 0 ? .zero(format) : new))
        }
        if plan & 0x10 != 0 { commands.append(PushCommand(name: "refs/heads/fuzz", old: .zero(format), new: new)) }
        if plan & 0x20 != 0 { commands.append(PushCommand(name: "refs/tags/fuzz", old: .zero(format), new: new)) }
        if plan & 0x40 != 0, let first = commands.first { commands.append(first) }
        return commands
    }
}
