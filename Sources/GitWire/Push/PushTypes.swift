/// One push refspec, `[+]<src>[:<dst>]`, `:<dst>` (delete), `[+]:` (matching), a glob
/// `[+]<src-prefix>*<src-suffix>[:<dst-prefix>*<dst-suffix>]` or a negative `^<ref-or-glob>`, as
/// `git push` reads it.
public struct PushRefspec: Hashable, Sendable, CustomStringConvertible {
    /// The local side: a ref name (full or short, as git finds it), `HEAD`, an object id, or a
    /// pattern with one `*` (``isPattern``); nil deletes ``destination``.
    public var source: String?
    /// The remote side; nil means the same ref as the source.
    public var destination: String?
    /// Whether a non-fast-forward update is allowed (the leading `+`).
    public var force: Bool
    /// The refspec `:` (or `+:`): every local branch the remote has a branch of the same name for.
    public var isMatching = false
    /// A negative refspec `^<source>`: the remote refs it names (or, as a pattern, matches) are
    /// left out of what the other refspecs would update, as git 2.39's push leaves them out.
    public var isNegative = false

    /// Whether the source (and the destination, if any) is a pattern with one `*`: every local
    /// ref the source matches is pushed to the destination with the `*` replaced by what it
    /// matched.
    public var isPattern: Bool { !isMatching && (source ?? destination ?? "").contains("*") }

    /// A refspec from its parts.
    public init(source: String?, destination: String? = nil, force: Bool = false) {
        self.source = source
        self.destination = destination
        self.force = force
    }

    /// The matching refspec `:` (`+:` when `force`).
    public init(matching force: Bool) {
        self.init(source: nil, destination: nil, force: force)
        isMatching = true
    }

    /// Parses `text` as git's `parse_refspec` does for a push: `+` forces, `^` negates, `:`
    /// alone matches, `:<dst>` deletes, `<src>` pushes to the same name, and a `*` on the
    /// source must have one on the destination (if given) and the other way round. A negative
    /// refspec may not be an object id of `objectFormat` (the repository's: git refuses `^` and
    /// 40 hex digits in a SHA-1 repository, 64 in a SHA-256 one, and takes the other width for a
    /// ref name).
    public init(_ text: String, objectFormat: ObjectFormat = .sha1) throws {
        let invalid = PushRefspecError("invalid refspec '\(text)'", failsPush: false)
        var rest = Substring(text)
        force = rest.hasPrefix("+")
        isNegative = !force && rest.hasPrefix("^")
        if force || isNegative { rest = rest.dropFirst() }
        // git splits at the last colon.
        let colon = rest.lastIndex(of: ":")
        if isNegative && colon != nil { throw invalid }
        if colon == rest.startIndex && rest.count == 1 {
            isMatching = true
            source = nil
            destination = nil
            return
        }
        let left = colon.map { rest[..<$0] } ?? rest
        let right = colon.map { rest[rest.index(after: $0)...] }
        var isGlob = right.map { !$0.isEmpty && $0.contains("*") } ?? false
        if !left.isEmpty && left.contains("*") {
            if right != nil && !isGlob { throw invalid }
            isGlob = true
        } else if right != nil && isGlob {
            throw invalid
        }
        source = left.isEmpty ? nil : String(left)
        destination = right.flatMap { $0.isEmpty ? nil : String($0) }
        func isValidName(_ name: Substring) -> Bool {
            Self.isValidName(name, pattern: isGlob)
        }
        if isNegative {
            // git: not empty, not an object id, and a well-formed name (or pattern).
            guard !left.isEmpty, !Self.isObjectID(left, format: objectFormat), isValidName(left) else {
                throw invalid
            }
            return
        }
        if source == nil && destination == nil { throw invalid }
        // A pattern source must be a well-formed pattern; a plain source anything (a revision).
        if isGlob && !left.isEmpty && !isValidName(left) { throw invalid }
        // The destination (or, without one, the source) must be a well-formed ref name; an
        // empty destination after a source is refused; git reads `@` alone as `HEAD`.
        if let right {
            guard !right.isEmpty, isValidName(right) else { throw invalid }
        } else if left != "@" && !isValidName(left) {
            throw invalid
        }
    }

    /// Whether `text` is an object id of `format` as git's `get_oid_hex` reads one: that many hex
    /// digits, of either case.
    static func isObjectID(_ text: Substring, format: ObjectFormat) -> Bool {
        text.utf8.count == format.hexCount
            && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0 | 0x20) }
    }

    /// Whether this spec is one git refuses in a repository of `format`: a negative refspec that
    /// is an object id of that format (``init(_:objectFormat:)`` refuses it too, when given the
    /// format).
    func isRefused(in format: ObjectFormat) -> Bool {
        isNegative && source.map { Self.isObjectID(Substring($0), format: format) } == true
    }

    /// git's `check_refname_format` with one-level names allowed and, for a pattern, one `*`.
    static func isValidName(_ name: Substring, pattern: Bool) -> Bool {
        var bytes = Array(name.utf8)
        if pattern, let star = bytes.firstIndex(of: UInt8(ascii: "*")) {
            bytes[star] = UInt8(ascii: "a")
        }
        return RefNameFormat.isValid(bytes, allowOneLevel: true)
    }

    /// The spec as written.
    public var description: String {
        if isMatching { return force ? "+:" : ":" }
        if isNegative { return "^\(source ?? "")" }
        return "\(force ? "+" : "")\(source ?? "")\(destination.map { ":\($0)" } ?? "")"
    }

    /// git's `match_name_with_pattern`: what `name` maps to through `key` (a pattern with one
    /// `*`) and `value` (one `*` too), or nil when `key` does not match it.
    static func mapping(_ name: String, key: String, value: String) -> String? {
        guard let star = key.firstIndex(of: "*") else { return nil }
        let prefix = key[..<star]
        let suffix = key[key.index(after: star)...]
        let bytes = Array(name.utf8)
        guard bytes.count >= prefix.utf8.count + suffix.utf8.count, bytes.starts(with: prefix.utf8),
            bytes.suffix(suffix.utf8.count).elementsEqual(suffix.utf8)
        else { return nil }
        let middle = bytes[prefix.utf8.count..<(bytes.count - suffix.utf8.count)]
        guard let valueStar = value.firstIndex(of: "*") else { return nil }
        return String(
            decoding: Array(value[..<valueStar].utf8) + middle + Array(value[value.index(after: valueStar)...].utf8),
            as: UTF8.self)
    }

    /// Whether this negative refspec names `name` (git's `refspec_match`).
    func excludes(_ name: String) -> Bool {
        guard isNegative, let source else { return false }
        return isPattern ? Self.mapping(name, key: source, value: "*") != nil : source == name
    }
}

/// One `--force-with-lease` option: which ref it guards and what value it expects there.
public struct PushLease: Hashable, Sendable {
    /// What the remote's ref is expected to hold.
    public enum Expectation: Hashable, Sendable {
        /// The value of the remote-tracking ref the remote's fetch refspecs map it to
        /// (``RepositoryPushOptions/trackingRefspecs``); with none, the ref must not exist.
        case tracking
        /// This value; nil: the ref must not exist.
        case value(ObjectID?)
    }

    /// The ref guarded, as git matches it against the remote's full names (`main`,
    /// `heads/main`, `refs/heads/main`); nil: every ref no other lease names.
    public var ref: String?
    /// What it is expected to hold.
    public var expectation: Expectation

    /// A lease on `ref` (nil: every ref) expecting `expectation`.
    public init(ref: String?, expectation: Expectation = .tracking) {
        self.ref = ref
        self.expectation = expectation
    }
}

/// How a push is made.
public struct RepositoryPushOptions: Hashable, Sendable {
    /// The protocol version asked for (v2 pushes with v0, as in git).
    public var protocolVersion: ProtocolVersion
    /// `--force`: allow every non-fast-forward update.
    public var force: Bool
    /// `--atomic`: all refs or none.
    public var atomic: Bool
    /// `--dry-run`: decide everything, send nothing.
    public var dryRun: Bool
    /// `--push-option`/`-o` strings for the server's hooks.
    public var pushOptions: [String]
    /// `--all`: every local branch, to the same name.
    public var all: Bool
    /// `--tags`: every local tag too.
    public var tags: Bool
    /// Send a thin pack (deltas against objects the remote has) when the server allows: git's
    /// default for push.
    public var thin: Bool
    /// Whether progress is shown (the server is asked to be `quiet` otherwise).
    public var progress: Bool
    /// `-q`.
    public var quiet: Bool
    /// Fetch refspecs of the remote pushed to (`remote.<name>.fetch`): after the push, the
    /// remote-tracking refs they map the updated refs to are updated as git updates them.
    public var trackingRefspecs: [Refspec]
    /// The `agent=` value.
    public var agent: String
    /// `--force-with-lease`: updates allowed only while the remote's refs have the values
    /// expected (git's order: the first lease naming a ref decides for it, then a lease for
    /// every ref, if given). A ref whose value is not the one expected is rejected as
    /// "stale info"; one that is may be updated even when not a fast-forward.
    public var leases: [PushLease] = []
    /// `--follow-tags`: also push the annotated tags under `refs/tags/` the remote lacks that
    /// point at commits reachable from what is pushed (or what the remote's refs hold).
    public var followTags = false
    /// `--mirror`: every local ref under `refs/` to the same name, forced, and the remote's refs
    /// that the repository lacks deleted.
    public var mirror = false
    /// The push refspecs configured for the remote (`remote.<name>.push`): a refspec without a
    /// colon that names exactly one local ref is pushed where the first of them that matches
    /// that ref maps it (as git's `push` maps `git push origin <branch>`).
    public var configuredRefspecs: [PushRefspec] = []
    /// `push.default=upstream`: each local branch (full name) whose configuration names a remote
    /// and exactly one upstream branch (`branch.<name>.merge`), with that upstream. A refspec
    /// without a colon naming exactly one of them (and not mapped by
    /// ``configuredRefspecs``) is pushed to its upstream, as git pushes `git push <remote>
    /// <branch>` then.
    public var upstreams: [String: String] = [:]
    /// The refspec `:` (`push.default=matching`): every local branch the remote has a branch of
    /// the same name for.
    public var matching = false
    /// `--prune`: the remote refs a pattern refspec (or `:`, which ``all``, ``mirror`` and
    /// ``matching`` mean) maps to a local name that no local ref has are deleted.
    public var prune = false
    /// Run with the updates planned, before anything is sent (git's `pre-push` hook); an error
    /// it throws ends the push with nothing sent, and the push fails with it.
    public var prePush: PrePushCheck?

    /// Options for a plain push.
    public init(
        protocolVersion: ProtocolVersion = .v0, force: Bool = false, atomic: Bool = false, dryRun: Bool = false,
        pushOptions: [String] = [], all: Bool = false, tags: Bool = false, thin: Bool = true, progress: Bool = false,
        quiet: Bool = false, trackingRefspecs: [Refspec] = [], agent: String = GitWireInfo.agent
    ) {
        self.protocolVersion = protocolVersion
        self.force = force
        self.atomic = atomic
        self.dryRun = dryRun
        self.pushOptions = pushOptions
        self.all = all
        self.tags = tags
        self.thin = thin
        self.progress = progress
        self.quiet = quiet
        self.trackingRefspecs = trackingRefspecs
        self.agent = agent
    }
}

/// What happened to one ref of a push.
public struct PushRefResult: Hashable, Sendable {
    /// The outcome.
    public enum Status: Hashable, Sendable {
        /// The remote already had it.
        case upToDate
        /// Updated (or, in a dry run, would be).
        case ok
        /// Refused here before anything was sent.
        case rejected(Rejection)
        /// The server refused it, for this reason (control characters masked).
        case remoteRejected(String)
        /// The server sent no status for it.
        case remoteFailure
        /// Not sent: another ref of an atomic push was refused.
        case atomicPushFailed
        /// A deletion the server does not allow (`delete-refs` not offered).
        case deletionNotSupported
    }

    /// Why a ref was refused before anything was sent, in git's words.
    public enum Rejection: String, Hashable, Sendable {
        /// The remote's ref is not an ancestor of the new value.
        case nonFastForward = "non-fast-forward"
        /// The remote's ref points at an object this repository does not have.
        case fetchFirst = "fetch first"
        /// A tag that exists on the remote.
        case alreadyExists = "already exists"
        /// A ref that does or would point at a non-commit.
        case needsForce = "needs force"
        /// The remote's ref does not have the value a lease expected (`--force-with-lease`).
        case stale = "stale info"
    }

    /// The local ref pushed (full name) or the source as given (an id); nil for a deletion.
    public var source: String?
    /// The remote ref (full name).
    public var destination: String
    /// The remote's value before the push (nil: it did not exist).
    public var old: ObjectID?
    /// The value pushed (nil: deleted).
    public var new: ObjectID?
    /// Whether a non-fast-forward update was forced.
    public var forced: Bool
    /// The outcome.
    public var status: Status

    /// Whether the ref ended as asked (updated, or already so).
    public var succeeded: Bool { status == .ok || status == .upToDate }
}

/// The end of a push.
public struct PushResult: Hashable, Sendable {
    /// Each ref the refspecs named, in git's order (the remote's refs in advertisement order,
    /// then new ones).
    public var refs: [PushRefResult]
    /// The pack sent, if one was.
    public var pack: PackWriter.Statistics?
    /// The server's status report, if it sent one.
    public var report: PushReport?
    /// Whether every ref ended as asked and the server's report was sound: a report git's
    /// send-pack refuses (an unpack failure, a malformed line; see ``errors``) fails the push as
    /// in git, even when each ref said `ok`.
    public var succeeded: Bool { refs.allSatisfy(\.succeeded) && errors.isEmpty }
    /// Problems git reports as `error: …` lines before the ref lines (a failed unpack, a
    /// malformed report).
    public var errors: [String]
    /// Warnings git reports as `warning: …`.
    public var warnings: [String]
    /// The remote-tracking refs that could not be moved to what the server accepted (a name
    /// conflict, a held lock): git's `error: update_ref failed for ref '…': …` lines, after
    /// the ref lines. The push itself is not failed by them, as in git.
    public var trackingErrors: [RefUpdateError] = []
    /// The remote-tracking refs were not moved because `core.sharedRepository` is a value git
    /// refuses and the command line dies of it: after the report, as git's push prints its
    /// report and then dies taking the first remote-tracking ref's lock.
    package var trackingRefusedBySharedRepository = false
}

/// A push over smart HTTP that stopped after its refs were decided, as git's push stops when
/// its remote helper's send-pack dies (a receiving end of another object format, or without
/// `atomic` or `push-options` when the push asks for them: ``PushError/stopsSendPack``): nothing was
/// sent, and the refs the push refused itself are still reported, as git reports them.
public struct PushHelperError: GitWireError, Hashable, Sendable {
    /// Why the push stopped.
    public let error: PushError
    /// The refs refused before anything was sent (a rejected update: `fetch first`,
    /// non-fast-forward…); the others, never sent, are not in it.
    public let result: PushResult

    /// The kind of `error`.
    public var kind: GitWireErrorKind { error.kind }
    /// The text shown to users and in logs: that of `error`.
    public var description: String { error.description }

    init(error: PushError, refused: [PushRefResult]) {
        self.error = error
        result = PushResult(refs: refused, pack: nil, report: nil, errors: [], warnings: [])
    }
}

/// The receiving end hung up after the push's commands were sent, before its report (a
/// receive-pack that died or quit mid-pack), over a connection that persists: git's send-pack
/// says "the remote end hung up unexpectedly", after its side-band demultiplexer's line when
/// the report was to come side-banded. Nothing local changed.
public struct PushHungUpError: GitWireError, Sendable {
    /// ``GitWireErrorKind/connectionLost``.
    public var kind: GitWireErrorKind { .connectionLost }
    /// Whether git's side-band demultiplexer met the hang-up: the report was to come
    /// side-banded (`side-band-64k`) and the side-band did not end (its flush) first.
    public let sideBand: Bool
    /// What git's side-band demultiplexer said before the hang-up, when it stopped at a packet
    /// it refuses (`protocol error: bad band #5`); nil otherwise.
    public let demultiplexerError: String?
    /// How the loss showed (a broken pipe while sending the pack, the connection's end).
    public let underlying: AnyGitWireError

    /// A hang-up met by the demultiplexer (`sideBand`) or not, after `demultiplexerError` if
    /// any, shown as `underlying`.
    public init(sideBand: Bool, demultiplexerError: String? = nil, underlying: AnyGitWireError) {
        self.sideBand = sideBand
        self.demultiplexerError = demultiplexerError
        self.underlying = underlying
    }

    /// The text shown to users and in logs.
    public var description: String { "the remote end hung up unexpectedly (\(underlying))" }
}

/// Over smart HTTP, the request carrying the push's commands (and pack) failed before the server
/// saw them: no credentials could be had for its `401` (the discovery went through without them,
/// or on another origin before a redirect). git's remote helper dies with `underlying`'s message,
/// its send-pack then finds the report missing (after its side-band demultiplexer's line when
/// the report was to come side-banded) and the push fails. Nothing was updated.
public struct PushRequestFailedError: GitWireError, Sendable {
    /// The kind of `underlying`.
    public var kind: GitWireErrorKind { underlying.kind }
    /// Whether the report was to come side-banded (`side-band-64k`).
    public let sideBand: Bool
    /// Why the request failed.
    public let underlying: HTTPError

    /// The text shown to users and in logs: that of `underlying`.
    public var description: String { underlying.description }
}

/// A push refspec that names nothing usable, in git's words.
public struct PushRefspecError: GitWireError, Hashable, Sendable {
    /// ``GitWireErrorKind/usage``.
    public var kind: GitWireErrorKind { .usage }
    /// git's message.
    public let message: String
    /// Whether git reports it as `error:` and then `failed to push some refs` (exit 1), rather
    /// than as `fatal:` (exit 128).
    public let failsPush: Bool

    /// An error saying `message`.
    public init(_ message: String, failsPush: Bool = true) {
        self.message = message
        self.failsPush = failsPush
    }

    /// The text shown to users and in logs.
    public var description: String { message }
}

/// Refspecs that match nothing usable: git's `error:` lines, then "failed to push some refs".
public struct PushMatchError: GitWireError, Hashable, Sendable {
    /// ``GitWireErrorKind/usage``.
    public var kind: GitWireErrorKind { .usage }
    /// git's messages, one per refspec that failed.
    public let errors: [String]
    /// git's advice (`hint:` lines, `advice.pushUnqualifiedRefName`) after the error of the
    /// same index: a destination that is not a full ref name, with what the source's object
    /// suggests.
    public var hints: [Int: String] = [:]

    /// The text shown to users and in logs.
    public var description: String { errors.joined(separator: "\n") }
}
