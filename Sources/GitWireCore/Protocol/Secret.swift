/// Text that must never be shown: a password. It prints as `<redacted>` in every form Swift
/// offers (interpolation, `print`, `debugPrint`, `dump`, reflection), so a secret that reaches a
/// message by mistake shows nothing; only the one place that sends it reads its text.
public struct Secret: Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The secret itself: for the code that sends it to the server or a credential helper, and
    /// for nothing else.
    package let revealed: String

    /// Wraps `text`.
    public init(_ text: String) { revealed = text }

    /// `<redacted>`.
    public var description: String { "<redacted>" }

    /// `<redacted>`.
    public var debugDescription: String { "<redacted>" }

    /// A mirror with no children, so `dump` and reflection show nothing of the text.
    public var customMirror: Mirror { Mirror(self, children: [:], displayStyle: .struct) }
}
