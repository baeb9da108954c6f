/// What receive-pack said about a push (`report-status` or `report-status-v2`,
/// `man gitprotocol-pack`): whether the pack was unpacked, then one line per ref.
public struct PushReport: Hashable, Sendable {
    /// nil when the server said `unpack ok`; otherwise what it said instead (`index-pack
    /// abnormal exit`), or git's words for a missing or malformed unpack line.
    public var unpackError: String?
    /// The server's answer for each ref, in the order it sent them.
    public var refs: [PushRefReport]
    /// Problems with the report itself, in git's words (`invalid status line from remote: …`,
    /// `remote reported status on unknown ref: …`), in the order met. Text from the server in
    /// them is escaped for display.
    public var problems: [String]
    /// Warnings, in git's words (`remote reported status on unknown ref: …`).
    public var warnings: [String]

    /// An empty report.
    public init(
        unpackError: String? = nil, refs: [PushRefReport] = [], problems: [String] = [], warnings: [String] = []
    ) {
        self.unpackError = unpackError
        self.refs = refs
        self.problems = problems
        self.warnings = warnings
    }

    /// The answer for the ref `name`, if the server gave one.
    public func ref(_ name: String) -> PushRefReport? { refs.first { $0.name == name } }
}

/// The server's answer for one ref: `ok <ref>` or `ng <ref> <reason>`, with the `option` lines
/// of `report-status-v2` that followed it.
public struct PushRefReport: Hashable, Sendable {
    /// The ref the command named.
    public var name: String
    /// nil for `ok`; the server's reason for `ng` (`failed` when it gave none, as git says),
    /// with control characters masked.
    public var rejection: String?
    /// What `option` lines said: the server updated other refs, or these ids, instead
    /// (`report-status-v2`, from a `proc-receive` hook). Empty for plain updates.
    public var rewrites: [Rewrite]

    /// An answer for `name`.
    public init(name: String, rejection: String? = nil, rewrites: [Rewrite] = []) {
        self.name = name
        self.rejection = rejection
        self.rewrites = rewrites
    }

    /// Whether the server updated the ref.
    public var isOK: Bool { rejection == nil }

    /// One group of `option` lines after an `ok`.
    public struct Rewrite: Hashable, Sendable {
        /// `option refname <name>`.
        public var refName: String?
        /// `option old-oid <id>`.
        public var old: ObjectID?
        /// `option new-oid <id>`.
        public var new: ObjectID?
        /// `option forced-update`.
        public var forcedUpdate: Bool

        /// A rewrite that says nothing yet.
        public init(refName: String? = nil, old: ObjectID? = nil, new: ObjectID? = nil, forcedUpdate: Bool = false) {
            self.refName = refName
            self.old = old
            self.new = new
            self.forcedUpdate = forcedUpdate
        }
    }
}

/// Reads a status report line by line, as git's `receive_status` does. Bounded: at most
/// ``maximumLines`` lines are taken, however many the server sends.
struct PushReportParser: Sendable {
    private(set) var report = PushReport()
    private(set) var isDone = false
    private var sawUnpack = false
    private var lines = 0
    private var lastWasStatus = false
    private var startsNewRewrite = false
    private var warnedOption = false
    private var stopped = false
    private let commandNames: Set<String>
    /// More lines than this is no report git would send: an error.
    let maximumLines: Int

    /// The format of the ids in `option old-oid`/`new-oid` lines: the push's.
    private let format: ObjectFormat

    init(commands: [PushCommand], format: ObjectFormat) {
        commandNames = Set(commands.map(\.name))
        self.format = format
        maximumLines = 64 + commands.count * 8
    }

    /// Takes one packet of the report; `isDone` after its flush.
    mutating func receive(_ packet: PktLine) throws {
        guard !isDone else { throw ProtocolError("unexpected packet after the status report", line: packet.encoded) }
        guard case .data(var line) = packet else {
            if packet == .flush {
                if !sawUnpack {
                    report.unpackError = "unexpected flush packet while reading remote unpack status"
                    report.problems.append(report.unpackError!)
                }
                isDone = true
                return
            }
            throw ProtocolError("unexpected \(packet == .delimiter ? "0001" : "0002") in the status report")
        }
        lines += 1
        guard lines <= maximumLines else {
            throw ProtocolError("the remote's status report has more than \(maximumLines) lines")
        }
        if line.last == 0x0a { line.removeLast() }
        guard !stopped else { return }
        guard sawUnpack else {
            sawUnpack = true
            guard line.starts(with: "unpack ".utf8) else {
                let text = "unable to parse remote unpack status: \(shown(line[...]))"
                report.unpackError = text
                report.problems.append(text)
                return
            }
            let status = line.dropFirst(7)
            if !status.elementsEqual("ok".utf8) {
                report.unpackError = shown(status)
                report.problems.append("remote unpack failed: \(shown(status))")
            }
            return
        }
        guard let space = line.firstIndex(of: 0x20) else {
            report.problems.append("invalid status line from remote: \(shown(line[...]))")
            stopped = true
            return
        }
        let head = line[..<space]
        let rest = line[(space + 1)...]
        if head.elementsEqual("option".utf8) {
            try option(rest)
            return
        }
        lastWasStatus = false
        let isOK = head.elementsEqual("ok".utf8)
        guard isOK || head.elementsEqual("ng".utf8) else {
            report.problems.append("invalid ref status from remote: \(shown(head))")
            stopped = true
            return
        }
        let nameEnd = rest.firstIndex(of: 0x20) ?? rest.endIndex
        let name = String(decoding: rest[..<nameEnd], as: UTF8.self)
        guard commandNames.contains(name), !rest[..<nameEnd].contains(where: { $0 < 0x20 || $0 == 0x7f }) else {
            report.warnings.append("remote reported status on unknown ref: \(shown(rest[..<nameEnd]))")
            return
        }
        var reason: String?
        if !isOK {
            reason = nameEnd < rest.endIndex ? shown(rest[(nameEnd + 1)...]) : "failed"
        }
        if let index = report.refs.firstIndex(where: { $0.name == name }) {
            // A second line for the same ref: the last one counts, as in git.
            report.refs[index].rejection = reason
        } else {
            report.refs.append(PushRefReport(name: name, rejection: reason))
        }
        // `option` lines may follow an `ok` only.
        lastWasStatus = isOK
        startsNewRewrite = true
        currentRef = name
    }

    private var currentRef: String?

    private mutating func option(_ rest: ArraySlice<UInt8>) throws {
        guard let currentRef, lastWasStatus, let index = report.refs.firstIndex(where: { $0.name == currentRef }) else {
            if !warnedOption {
                warnedOption = true
                report.problems.append("'option' without a matching 'ok/ng' directive")
            }
            return
        }
        if startsNewRewrite {
            report.refs[index].rewrites.append(PushRefReport.Rewrite())
            startsNewRewrite = false
        }
        let keyEnd = rest.firstIndex(of: 0x20) ?? rest.endIndex
        let key = rest[..<keyEnd]
        let value = keyEnd < rest.endIndex ? rest[(keyEnd + 1)...] : nil
        let last = report.refs[index].rewrites.count - 1
        if key.elementsEqual("refname".utf8), let value {
            report.refs[index].rewrites[last].refName = String(decoding: value, as: UTF8.self)
        } else if key.elementsEqual("old-oid".utf8), let value,
            let id = ObjectID(hex: value.prefix(format.hexCount), format: format)
        {
            report.refs[index].rewrites[last].old = id
        } else if key.elementsEqual("new-oid".utf8), let value,
            let id = ObjectID(hex: value.prefix(format.hexCount), format: format)
        {
            report.refs[index].rewrites[last].new = id
        } else if key.elementsEqual("forced-update".utf8) {
            report.refs[index].rewrites[last].forcedUpdate = true
        }
    }

    /// Server text as it may be shown: control characters masked.
    private func shown(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: maskedForTerminal(Array(bytes)), as: UTF8.self)
    }
}
