/// A fetch refspec as git reads one (refspec.c, `parse_refspec` for fetching): `[+]<src>[:<dst>]`
/// or a negative `^<src>`.
///
/// - `<src>` names remote refs: a full name (`refs/heads/main`), a short one that git completes
///   against the remote's refs (`main` matches `refs/heads/main`, see ``matchScore(_:fullName:)``),
///   a pattern with one `*` (`refs/heads/*`), a full object id, or nothing (`:dst`), which means
///   `HEAD`; `@` means `HEAD` too.
/// - `<dst>` is the local ref to update: a full name, `heads/`, `tags/` or `remotes/` and a
///   name (under `refs/`), any other name (under `refs/heads/`); nothing (or no `:`) stores the
///   value only in `FETCH_HEAD`. With a `*` in one side there must be one in the other.
/// - `+` allows updates that are not fast-forwards; `^<src>` leaves the refs it matches out of
///   what the other refspecs take.
public struct Refspec: Hashable, Sendable, CustomStringConvertible {
    /// The remote side, such as `refs/heads/*`; empty for `HEAD` (`:dst`), `HEAD` for `@`.
    public var source: String
    /// The local side, such as `refs/remotes/origin/*`; nil when there is none or it is empty
    /// (the value goes to `FETCH_HEAD` only).
    public var destination: String?
    /// Whether a non-fast-forward update is allowed (the leading `+`).
    public var force: Bool
    /// A negative refspec (`^refs/heads/x`): what it matches is left out.
    public var isNegative: Bool
    /// Whether both sides are patterns (hold a `*`).
    public var isPattern: Bool
    /// Whether the source is a full object id (fetched by id, not by name).
    public var isExactObjectID: Bool
    /// The text as given.
    public let text: String

    /// Parses `text` as git parses a fetch refspec; throws ``RefspecError`` (git: `invalid
    /// refspec '<text>'`) for what git refuses.
    public init(_ text: String) throws {
        self.text = text
        var left = Substring(text)
        force = false
        isNegative = false
        if left.hasPrefix("+") {
            force = true
            left = left.dropFirst()
        } else if left.hasPrefix("^") {
            isNegative = true
            left = left.dropFirst()
        }
        // The last colon separates the sides (git's strrchr).
        let colon = left.lastIndex(of: ":")
        if isNegative && colon != nil { throw RefspecError(text: text) }
        var glob = false
        var right: Substring?
        if let colon {
            let rest = left[left.index(after: colon)...]
            glob = !rest.isEmpty && rest.contains("*")
            right = rest
            left = left[..<colon]
        }
        if left.contains("*") {
            if (right != nil && !glob) || (right == nil && !isNegative) { throw RefspecError(text: text) }
            glob = true
        } else if right != nil && glob {
            throw RefspecError(text: text)
        }
        isPattern = glob
        source = left == "@" ? "HEAD" : String(left)
        destination = right.flatMap { $0.isEmpty ? nil : String($0) }
        isExactObjectID = false
        let sourceBytes = Array(source.utf8)
        if isNegative {
            guard !sourceBytes.isEmpty, !Self.isFullObjectID(sourceBytes),
                Self.isValidName(sourceBytes, pattern: glob)
            else { throw RefspecError(text: text) }
            return
        }
        if sourceBytes.isEmpty {
            // Empty: HEAD.
        } else if Self.isFullObjectID(sourceBytes) {
            isExactObjectID = true
        } else if !Self.isValidName(sourceBytes, pattern: glob) {
            throw RefspecError(text: text)
        }
        if let destination, !Self.isValidName(Array(destination.utf8), pattern: glob) {
            throw RefspecError(text: text)
        }
    }

    /// The spec as written.
    public var description: String { text }

    /// Whether `bytes` is a whole object id in hex, SHA-1 or SHA-256 (git checks the
    /// repository's hash; a refspec is read before the repository is known here).
    private static func isFullObjectID(_ bytes: [UInt8]) -> Bool {
        (bytes.count == 40 && ObjectID(hex: bytes, format: .sha1) != nil)
            || (bytes.count == 64 && ObjectID(hex: bytes, format: .sha256) != nil)
    }

    /// git's `check_refname_format` with `REFNAME_ALLOW_ONELEVEL`, and with
    /// `REFNAME_REFSPEC_PATTERN` (one `*` allowed) for a pattern.
    static func isValidName(_ bytes: [UInt8], pattern: Bool) -> Bool {
        var bytes = bytes
        if pattern, let star = bytes.firstIndex(of: UInt8(ascii: "*")) { bytes[star] = UInt8(ascii: "a") }
        return RefNameFormat.isValid(bytes, allowOneLevel: true)
    }

    // MARK: Matching

    /// The local ref a remote ref named `name` updates through this pattern refspec (git's
    /// `match_name_with_pattern`), or nil when it does not match or there is no destination.
    /// For a refspec that is not a pattern: its destination when `name` is its source exactly.
    public func destination(for name: String) -> String? {
        guard let destination else { return nil }
        guard isPattern else { return name == source ? destination : nil }
        guard let middle = Self.patternMatch(source, name) else { return nil }
        return Self.replacingStar(destination, with: middle)
    }

    /// Whether the remote ref `name` is matched by the source side (a pattern, or the exact
    /// name), as a negative refspec matches.
    public func sourceMatches(_ name: String) -> Bool {
        isPattern ? Self.patternMatch(source, name) != nil : name == source
    }

    /// Whether a local ref named `name` lies in this spec's destination (for pruning).
    public func destinationMatches(_ name: String) -> Bool {
        guard let destination else { return false }
        return isPattern ? Self.patternMatch(destination, name) != nil : name == destination
    }

    /// The remote ref a local ref named `name` comes from (the refspec read backwards, as git's
    /// `query_refspecs` reads it for pruning), or nil.
    public func source(forDestination name: String) -> String? {
        guard let destination, !isNegative else { return nil }
        guard isPattern else { return name == destination ? source : nil }
        guard let middle = Self.patternMatch(destination, name) else { return nil }
        return Self.replacingStar(source, with: middle)
    }

    /// What the `*` of `pattern` stands for in `name`, or nil if `name` does not match.
    static func patternMatch(_ pattern: String, _ name: String) -> Substring? {
        let key = Array(pattern.utf8)
        let bytes = Array(name.utf8)
        guard let star = key.firstIndex(of: UInt8(ascii: "*")) else { return nil }
        let prefix = key[..<star]
        let suffix = key[(star + 1)...]
        guard bytes.count >= prefix.count + suffix.count, bytes.starts(with: prefix),
            bytes.suffix(suffix.count).elementsEqual(suffix)
        else { return nil }
        let start = name.utf8.index(name.utf8.startIndex, offsetBy: prefix.count)
        let end = name.utf8.index(name.utf8.endIndex, offsetBy: -suffix.count)
        return Substring(name.utf8[start..<end])
    }

    private static func replacingStar(_ text: String, with middle: Substring) -> String {
        let bytes = Array(text.utf8)
        guard let star = bytes.firstIndex(of: UInt8(ascii: "*")) else { return text }
        return String(decoding: bytes[..<star] + Array(middle.utf8) + bytes[(star + 1)...], as: UTF8.self)
    }

    // MARK: git's name rules

    /// git's `ref_rev_parse_rules`, in order: how a short name is completed.
    public static let revParseRules = [
        "%s", "refs/%s", "refs/tags/%s", "refs/heads/%s", "refs/remotes/%s", "refs/remotes/%s/HEAD",
    ]

    /// git's `refname_match`: how well the short name `abbreviation` names `fullName` (0: not at
    /// all; higher is better: the full name itself scores 6, `refs/<name>` 5, a tag 4, a branch
    /// 3, a remote-tracking branch 2, a remote's `HEAD` 1).
    public static func matchScore(_ abbreviation: String, fullName: String) -> Int {
        for (index, rule) in revParseRules.enumerated()
        where rule.replacingFirstPlaceholder(with: abbreviation) == fullName {
            return revParseRules.count - index
        }
        return 0
    }

    /// git's `expand_ref_prefix`: `name` completed by every rule, the `ref-prefix` arguments a
    /// fetch of a short name sends.
    public static func expandedPrefixes(_ name: String) -> [String] {
        revParseRules.map { $0.replacingFirstPlaceholder(with: name) }
    }

    /// git's `get_local_ref`: the local ref a destination names (`refs/...` as it is, `heads/`,
    /// `tags/` and `remotes/` under `refs/`, anything else under `refs/heads/`); nil for none.
    public static func localRefName(_ destination: String?) -> String? {
        guard let destination, !destination.isEmpty else { return nil }
        if destination.hasPrefix("refs/") { return destination }
        if destination.hasPrefix("heads/") || destination.hasPrefix("tags/") || destination.hasPrefix("remotes/") {
            return "refs/" + destination
        }
        return "refs/heads/" + destination
    }

    /// The `ref-prefix` arguments git sends for these refspecs (`refspec_ref_prefixes`): a
    /// pattern's source up to its `*`, a name completed by every rule; object ids and negative
    /// refspecs add none.
    public static func refPrefixes(_ refspecs: [Refspec]) -> [String] {
        var prefixes: [String] = []
        for spec in refspecs where !spec.isExactObjectID && !spec.isNegative {
            if spec.isPattern {
                let bytes = Array(spec.source.utf8)
                let star = bytes.firstIndex(of: UInt8(ascii: "*")) ?? bytes.count
                prefixes.append(String(decoding: bytes[..<star], as: UTF8.self))
            } else {
                prefixes += expandedPrefixes(spec.source)
            }
        }
        return prefixes
    }
}

extension String {
    /// The rule with its `%s` replaced by `text` (every rule holds exactly one).
    fileprivate func replacingFirstPlaceholder(with text: String) -> String {
        // Found in the bytes: a string separator for split(separator:) is _StringProcessing's.
        let bytes = Array(utf8)
        guard
            let at = bytes.indices.dropLast().first(where: {
                bytes[$0] == UInt8(ascii: "%") && bytes[$0 + 1] == UInt8(ascii: "s")
            })
        else { return self }
        return String(decoding: bytes[..<at], as: UTF8.self) + text
            + String(decoding: bytes[(at + 2)...], as: UTF8.self)
    }
}
