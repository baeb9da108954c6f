/// A server's capabilities, in the order it sent them: `name` or `name=value` each.
public struct Capabilities: Hashable, Sendable, CustomStringConvertible {
    /// One capability.
    public struct Entry: Hashable, Sendable {
        /// The name, such as `symref` or `ls-refs`.
        public var name: String
        /// The value after `=`, if any.
        public var value: String?
    }

    /// Every capability, in order (a name may repeat, as `symref` does in protocol v0).
    public private(set) var entries: [Entry] = []

    /// No capabilities.
    public init() {}

    /// Parses v0's space-separated list (the part of the first ref line after the NUL).
    public init<Bytes: Collection<UInt8>>(spaceSeparated bytes: Bytes) {
        for word in bytes.split(separator: 0x20, omittingEmptySubsequences: true) {
            add(String(decoding: word, as: UTF8.self))
        }
    }

    /// Adds one `name` or `name=value` (a v2 capability line, without its newline).
    public mutating func add(_ text: String) {
        if let equals = text.firstIndex(of: "=") {
            entries.append(Entry(name: String(text[..<equals]), value: String(text[text.index(after: equals)...])))
        } else {
            entries.append(Entry(name: text, value: nil))
        }
    }

    /// Whether the server has the capability `name`.
    public func contains(_ name: String) -> Bool { entries.contains { $0.name == name } }

    /// The value of the first `name`, if it has one.
    public func value(of name: String) -> String? { entries.first { $0.name == name }?.value }

    /// The values of every `name`.
    public func values(of name: String) -> [String] { entries.filter { $0.name == name }.compactMap(\.value) }

    /// Whether the v2 capability `name` lists `feature` among its space-separated values
    /// (as in `fetch=shallow wait-for-done`).
    public func supports(_ name: String, feature: String) -> Bool {
        values(of: name).contains { $0.split(separator: " ").contains(Substring(feature)) }
    }

    /// The text shown to users and in logs.
    public var description: String {
        entries.map { entry in entry.value.map { "\(entry.name)=\($0)" } ?? entry.name }.joined(separator: " ")
    }
}
