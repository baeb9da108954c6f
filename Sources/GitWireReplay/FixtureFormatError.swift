import GitWire

/// A fixture file could not be read.
public struct FixtureFormatError: GitWireError, Hashable, Sendable {
    /// What kind of failure this is: `GitWireErrorKind.usage`.
    public var kind: GitWireErrorKind { .usage }

    /// The line (from 1).
    public let line: Int
    /// What is wrong.
    public let message: String

    /// The text shown to users and in logs.
    public var description: String { "fixture line \(line): \(message)" }
}
