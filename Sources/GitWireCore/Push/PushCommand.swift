/// One ref update sent to receive-pack, `<old-id> <new-id> <name>`: a new ref has the zero id as
/// its old id, a deletion the zero id as its new id.
public struct PushCommand: Hashable, Sendable {
    /// The full name of the ref on the remote, such as `refs/heads/main`.
    public var name: String
    /// What the ref points at on the remote now (zero: it does not exist).
    public var old: ObjectID
    /// What it is to point at (zero: delete it).
    public var new: ObjectID

    /// An update of `name` from `old` to `new`.
    public init(name: String, old: ObjectID, new: ObjectID) {
        self.name = name
        self.old = old
        self.new = new
    }

    /// Whether the command deletes the ref.
    public var isDeletion: Bool { new.isZero }

    /// The command's line, `<old> <new> <name>`, without a newline (git writes none).
    public var line: [UInt8] {
        var bytes: [UInt8] = []
        old.appendHex(to: &bytes)
        bytes.append(0x20)
        new.appendHex(to: &bytes)
        bytes.append(0x20)
        bytes += name.utf8
        return bytes
    }
}

/// What a push asks of receive-pack.
public struct PushOptions: Hashable, Sendable {
    /// The protocol version to ask for: v0 or v1. Git pushes with v0 when v2 is configured
    /// (receive-pack has no v2), and so does this exchange.
    public var protocolVersion: ProtocolVersion
    /// All or nothing (`--atomic`): the server must offer `atomic`.
    public var atomic: Bool
    /// `--push-option`/`-o` strings for the server's hooks: the server must offer `push-options`.
    public var pushOptions: [String]
    /// Whether the user asked for silence (`-q`).
    public var quiet: Bool
    /// Whether progress is shown; without it the server is asked to be `quiet` too.
    public var progress: Bool
    /// `--dry-run`: read the advertisement, decide, send nothing.
    public var dryRun: Bool
    /// The `agent=` value to send; bytes outside printable ASCII, and spaces, become `.`.
    public var agent: String
    /// The format of the repository pushed from: the receiving end must serve it (its
    /// `object-format`; SHA-1 when it names none), or the push fails before anything is sent.
    public var objectFormat: ObjectFormat

    /// Options for a plain push over protocol v0.
    public init(
        protocolVersion: ProtocolVersion = .v0, atomic: Bool = false, pushOptions: [String] = [], quiet: Bool = false,
        progress: Bool = false, dryRun: Bool = false, agent: String = GitWireInfo.agent,
        objectFormat: ObjectFormat = .sha1
    ) {
        self.protocolVersion = protocolVersion
        self.atomic = atomic
        self.pushOptions = pushOptions
        self.quiet = quiet
        self.progress = progress
        self.dryRun = dryRun
        self.agent = agent
        self.objectFormat = objectFormat
    }

    /// The version asked for: v2 falls back to v0, as in git.
    var effectiveVersion: ProtocolVersion { protocolVersion == .v2 ? .v0 : protocolVersion }

    var sanitizedAgent: String { GitWireInfo.sanitizedAgent(agent) }
}

/// A push that cannot go ahead: the server lacks a feature the push needs, the push options do
/// not fit, or the server broke the protocol in a way git names.
public struct PushError: GitWireError, Hashable, Sendable {
    /// What kind of failure this is.
    public let kind: GitWireErrorKind
    /// What went wrong, in git's words where git has them.
    public let message: String

    /// An error of `kind` saying `message`.
    public init(_ kind: GitWireErrorKind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// The text shown to users and in logs.
    public var description: String { message }

    /// The receiving end does not serve the format of the repository pushed from (git's
    /// words); nothing was sent.
    public static let unsupportedObjectFormat = PushError(
        .usage, "the receiving end does not support this repository's hash algorithm")

    /// `--atomic` asked of a receiving end that does not offer `atomic` (git's words); nothing
    /// was sent.
    public static let atomicUnsupported = PushError(.usage, "the receiving end does not support --atomic push")

    /// Push options asked of a receiving end that does not offer `push-options` (git's words);
    /// nothing was sent.
    public static let pushOptionsUnsupported = PushError(.usage, "the receiving end does not support push options")

    /// The side-band ended (its flush) before the status report did: git's send-pack then meets
    /// the end of the report's pipe, a hang-up without its demultiplexer's complaint.
    public static let sideBandEndedBeforeReport = PushError(
        .connectionLost, "the remote's side-band ended before its status report was complete")

    /// A side-band packet of a band other than 1, 2 or 3 where the status report was to come:
    /// git's send-pack demultiplexer says so (`protocol error: bad band #<n>`) and stops, and
    /// send-pack then finds the report cut short, a hang-up.
    public static func badBand(_ band: UInt8) -> PushError {
        PushError(.connectionLost, "\(badBandPrefix)\(band)")
    }

    private static let badBandPrefix = "protocol error: bad band #"

    /// Whether this is a ``badBand(_:)`` error.
    public var isBadBand: Bool { kind == .connectionLost && message.hasPrefix(Self.badBandPrefix) }

    /// Whether git's send-pack dies with this before sending anything (the push's refs decided,
    /// none sent): over smart HTTP it dies under git's remote helper, and the push goes on to
    /// report the refs it refused itself.
    public var stopsSendPack: Bool {
        self == .unsupportedObjectFormat || self == .atomicUnsupported || self == .pushOptionsUnsupported
    }

    /// Thrown by a ``PushExchange``'s plan to stop as git's send-pack stops an `--atomic` push
    /// with a ref refused locally: nothing is sent, not even the flush that says "no updates",
    /// and the exchange ends without a request (the results say why). Not an error the exchange
    /// passes on.
    public static let atomicRefusedLocally = PushError(.usage, "atomic push failed")
}
