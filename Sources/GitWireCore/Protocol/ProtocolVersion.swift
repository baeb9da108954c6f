/// The git wire protocol versions (`man gitprotocol-v2`).
public enum ProtocolVersion: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The original protocol: the ref advertisement comes first.
    case v0 = 0
    /// v0 with a `version 1` line in front.
    case v1 = 1
    /// Commands (`ls-refs`, `fetch`) after a capability advertisement.
    case v2 = 2

    /// The text shown to users and in logs.
    public var description: String { "\(rawValue)" }
}
