/// A protocol v0/v1 ref advertisement, parsed.
public struct RefAdvertisement: Hashable, Sendable {
    /// The refs in the server's order; peeled tags are folded into their tag's ``Ref/peeled``.
    public var refs: [Ref] = []
    /// The capabilities from the first line.
    public var capabilities = Capabilities()
    /// `shallow` lines: the server's repository is shallow at these commits.
    public var shallow: [ObjectID] = []
    /// The ids of the `.have` lines (objects the server has through its alternates, which git's
    /// `send-pack` takes as the remote's) that ``RefAdvertisementParser/keepsHave`` kept; none
    /// without it.
    public var haves: [ObjectID] = []
    /// The format of the object ids: the first line's `object-format` capability, SHA-1 when
    /// the capabilities name none, the parser's default when there are none or the name is
    /// unknown (as git's `process_capabilities` decides).
    public var objectFormat = ObjectFormat.sha1
    /// Warnings to show the user, in git's words: at most ``warningLimit`` of them.
    public var warnings: [String] = []

    /// The most warnings an advertisement keeps (git prints one per offending line, however many).
    public static let warningLimit = 100
}

/// Parses a protocol v0/v1 ref advertisement one packet at a time, as git's `get_remote_heads`
/// does: refs, then `shallow` lines, then a flush. Pure: no I/O.
///
/// Refs are emitted as soon as they are complete: a tag is held back one line, so that its
/// `^{}` line can be folded in.
public struct RefAdvertisementParser: Sendable {
    private enum State: Sendable {
        case firstRef, refs, shallow, done
    }

    private var state = State.firstRef
    private var pending: Ref?
    /// What has been parsed so far (its ``RefAdvertisement/refs`` are filled by the caller from
    /// the emitted refs, so they are not kept twice).
    public private(set) var advertisement = RefAdvertisement()
    /// The symrefs from the `symref=` capabilities: name to target.
    private var symrefs: [[UInt8]: String] = [:]
    /// Which `.have` ids are kept in ``RefAdvertisement/haves``; nil keeps none. A push keeps
    /// those the local repository has (git's send-pack passes only those to pack-objects), so
    /// that a server cannot make it hold more ids than the repository has objects.
    public var keepsHave: (@Sendable (ObjectID) -> Bool)?

    /// A parser at the start of an advertisement (after any `version 1` line). Object ids are
    /// read in `defaultFormat` (the local repository's, SHA-1 outside one) unless the first
    /// line's capabilities say otherwise: as git, a first line with capabilities but no
    /// `object-format` means SHA-1, and a format gitwire does not know leaves the default.
    public init(defaultFormat: ObjectFormat = .sha1) { advertisement.objectFormat = defaultFormat }

    /// The format the object ids are read in.
    public var objectFormat: ObjectFormat { advertisement.objectFormat }

    /// Whether the closing flush was seen.
    public var isDone: Bool { state == .done }

    /// Handles one packet; complete refs go to `emit`. Throws ``ProtocolError`` for malformed lines.
    public mutating func receive(_ packet: PktLine, emit: (Ref) -> Void) throws {
        try receive(view: PktLineView(packet), emit: emit)
    }

    /// Handles one packet whose payload is a view of the bytes received (nothing is copied but
    /// each ref's name); complete refs go to `emit`. Throws ``ProtocolError`` for malformed lines.
    public mutating func receive(view packet: PktLineView, emit: (Ref) -> Void) throws {
        switch packet {
        case .flush:
            flushPending(emit)
            state = .done
            return
        case .delimiter, .responseEnd:
            throw ProtocolError("invalid packet \(packet == .delimiter ? "0001" : "0002") in the ref advertisement")
        case .data(var line):
            guard state != .done else {
                throw ProtocolError("unexpected packet after the ref advertisement", line: Array(line))
            }
            if line.last == 0x0a { line.removeLast() }
            try receive(line: line, emit: emit)
        }
    }

    private static let haveName = Array(".have".utf8)
    private static let placeholderName = Array("capabilities^{}".utf8)

    private mutating func receive(line: ArraySlice<UInt8>, emit: (Ref) -> Void) throws {
        var text = line
        let isFirstLine = state == .firstRef
        if !isFirstLine, let nul = line.firstIndex(of: 0) {
            // git quotes the text from the end of the C string, that is from the NUL: always empty.
            // git warns once for each such line; a listing keeps the first few.
            if advertisement.warnings.count < RefAdvertisement.warningLimit {
                advertisement.warnings.append("ignoring capabilities after first line ''")
            }
            text = line[..<nul]
        }
        if isFirstLine {
            if let nul = line.firstIndex(of: 0) {
                advertisement.capabilities = Capabilities(spaceSeparated: line[(nul + 1)...])
                if let name = advertisement.capabilities.value(of: "object-format") {
                    if let format = ObjectFormat(name) { advertisement.objectFormat = format }
                } else {
                    advertisement.objectFormat = .sha1
                }
                for value in advertisement.capabilities.values(of: "symref") {
                    guard let colon = value.firstIndex(of: ":") else { continue }
                    symrefs[Array(value[..<colon].utf8)] = String(value[value.index(after: colon)...])
                }
                text = line[..<nul]
            }
            if isCapabilitiesPlaceholder(text) {
                state = .shallow
                return
            }
            state = .refs
        }
        if state == .refs {
            if let ref = try parseRef(text, line: line) {
                // `.have` lines name objects the server has (from alternates), not refs: git
                // keeps them apart and does not list them.
                if ref.nameBytes != Self.haveName {
                    add(ref, emit: emit)
                } else if let id = ref.objectID, keepsHave?(id) == true {
                    advertisement.haves.append(id)
                }
                return
            }
            state = .shallow
        }
        if text.starts(with: "shallow ".utf8) {
            let hex = text.dropFirst(8).prefix { $0 != 0 }
            guard let id = ObjectID(hex: hex, format: objectFormat) else {
                throw ProtocolError("expected shallow sha-1, got '\(escapedForDisplay(hex))'")
            }
            advertisement.shallow.append(id)
            return
        }
        throw ProtocolError("unexpected line in the ref advertisement", line: Array(line))
    }

    /// A ref from `text` (`<oid> <name>`), nil if the line does not start with an object id.
    private mutating func parseRef(_ text: ArraySlice<UInt8>, line: ArraySlice<UInt8>) throws -> Ref? {
        let width = objectFormat.hexCount
        guard text.count >= width, let id = ObjectID(hex: text.prefix(width), format: objectFormat) else { return nil }
        let rest = text.dropFirst(width)
        guard rest.first == 0x20 else { throw ProtocolError("expected sha/ref, got", line: Array(line)) }
        let name = Array(rest.dropFirst())
        if name == Self.placeholderName { throw ProtocolError("unexpected capabilities^{}") }
        if name.isEmpty { throw ProtocolError("ref line without a name", line: Array(line)) }
        return Ref(name: name, objectID: id, symrefTarget: symrefs.isEmpty ? nil : symrefs[name])
    }

    private mutating func add(_ ref: Ref, emit: (Ref) -> Void) {
        if var tag = pending {
            if tag.peeled == nil, ref.nameBytes.count == tag.nameBytes.count + 3,
                ref.nameBytes.starts(with: tag.nameBytes), ref.nameBytes.suffix(3).elementsEqual("^{}".utf8)
            {
                tag.peeled = ref.objectID
                pending = nil
                emit(tag)
                return
            }
            emit(tag)
        }
        pending = ref
    }

    private mutating func flushPending(_ emit: (Ref) -> Void) {
        if let ref = pending { emit(ref) }
        pending = nil
    }

    private func isCapabilitiesPlaceholder(_ text: ArraySlice<UInt8>) -> Bool {
        let width = objectFormat.hexCount
        return text.count == width + 16 && ObjectID(hex: text.prefix(width), format: objectFormat)?.isZero == true
            && text.dropFirst(width).elementsEqual(" capabilities^{}".utf8)
    }
}
