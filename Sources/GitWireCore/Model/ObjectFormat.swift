/// The hash function a repository names its objects with (git's `extensions.objectFormat`, the
/// `object-format` capability): SHA-1, 20-byte names, or SHA-256, 32-byte names. Everything
/// that reads an object name (ref advertisements, `ls-refs`, acknowledgments, `shallow` lines,
/// `packed-refs`, reference-delta bases, pack indexes, trees, commits and tags) takes its width
/// from the format of the repository or of the connection, never from a constant.
public enum ObjectFormat: UInt8, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// SHA-1: 20-byte names, 40 hex digits; git's default.
    case sha1
    /// SHA-256: 32-byte names, 64 hex digits (`git init --object-format=sha256`).
    case sha256

    /// The format of the name git gives it: `sha1` or `sha256`; nil for any other text.
    public init?<Text: Collection<UInt8>>(name: Text) {
        if name.elementsEqual("sha1".utf8) {
            self = .sha1
        } else if name.elementsEqual("sha256".utf8) {
            self = .sha256
        } else {
            return nil
        }
    }

    /// The format git calls `name`; nil for names it does not know.
    public init?(_ name: String) { self.init(name: name.utf8) }

    /// git's name for it: `sha1` or `sha256`.
    public var name: String {
        switch self {
        case .sha1: return "sha1"
        case .sha256: return "sha256"
        }
    }

    /// The number of bytes in a name: 20 or 32.
    @inlinable
    public var byteCount: Int { self == .sha1 ? 20 : 32 }

    /// The number of hex digits in a name: 40 or 64.
    @inlinable
    public var hexCount: Int { self == .sha1 ? 40 : 64 }

    /// The all-zero name git uses for "no object" in this format.
    @inlinable
    public var zeroID: ObjectID { ObjectID(words: 0, 0, 0, 0, format: self) }

    /// The text shown to users and in logs: the name.
    public var description: String { name }
}

extension ObjectFormat {
    /// Whether a v0/v1 server with `capabilities` serves repositories of this format, as git's
    /// `server_supports_hash` decides: one of its `object-format` values names it, or it names
    /// none and this is SHA-1.
    ///
    /// A v0/v1 fetch into a repository of another format fails with git's `Server does not
    /// support this repository's object format` (``FetchExchange``); a push from one fails with
    /// git's `the receiving end does not support this repository's hash algorithm`
    /// (``PushExchange``), which otherwise adds ` object-format=<name>` to its command
    /// capabilities when the receiving end names any format.
    public func isServed(by capabilities: Capabilities) -> Bool {
        let offered = capabilities.values(of: "object-format")
        return offered.isEmpty ? self == .sha1 : offered.contains(name)
    }
}
