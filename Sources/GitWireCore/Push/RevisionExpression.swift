/// A revision as `git push` takes it for a refspec's source (`man gitrevisions`, the forms that
/// name one object): a base — a ref name as git finds it, `HEAD`, `@`, or a full or abbreviated
/// object id — followed by any of `~<n>`, `^<n>`, `^{}`, `^{commit}`, `^{tree}`, `^{tag}` and
/// `^{blob}`. Reflog forms (`@{…}`) and paths (`:<path>`) are not among them.
public struct RevisionExpression: Hashable, Sendable {
    /// One step from an object to another.
    public enum Step: Hashable, Sendable {
        /// `~<n>`: the commit's first parent, `n` times.
        case ancestor(Int)
        /// `^<n>`: the commit's `n`th parent; `^0` is the commit itself.
        case parent(Int)
        /// `^{}` (nil: peel tags to whatever they name) or `^{<type>}`.
        case peel(ObjectType?)
    }

    /// What the steps start from: a ref name, `HEAD`, `@` or hexadecimal digits.
    public var base: String
    /// The steps, in order.
    public var steps: [Step]

    /// Reads `text`; nil when it is not of a form push takes.
    public init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard let first = bytes.firstIndex(where: { $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "^") }) else {
            guard !bytes.isEmpty, !Self.hasReflogOrPath(bytes[...]) else { return nil }
            base = text
            steps = []
            return
        }
        guard first > 0 else { return nil }
        base = String(decoding: bytes[..<first], as: UTF8.self)
        guard !Self.hasReflogOrPath(bytes[..<first]) else { return nil }
        var steps: [Step] = []
        var index = first
        func number() -> Int? {
            var value: Int?
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
                let digit = Int(bytes[index] - UInt8(ascii: "0"))
                let (times, overflow) = (value ?? 0).multipliedReportingOverflow(by: 10)
                guard !overflow, times <= Int(Int32.max) - digit else { return -1 }
                value = times + digit
                index += 1
            }
            return value
        }
        while index < bytes.count {
            let mark = bytes[index]
            index += 1
            if mark == UInt8(ascii: "~") {
                let count = number() ?? 1
                guard count >= 0 else { return nil }
                steps.append(.ancestor(count))
            } else if mark == UInt8(ascii: "^") {
                if index < bytes.count, bytes[index] == UInt8(ascii: "{") {
                    guard let close = bytes[index...].firstIndex(of: UInt8(ascii: "}")) else { return nil }
                    let name = String(decoding: bytes[(index + 1)..<close], as: UTF8.self)
                    index = close + 1
                    switch name {
                    case "": steps.append(.peel(nil))
                    case "commit": steps.append(.peel(.commit))
                    case "tree": steps.append(.peel(.tree))
                    case "tag": steps.append(.peel(.tag))
                    case "blob": steps.append(.peel(.blob))
                    default: return nil
                    }
                } else {
                    let count = number() ?? 1
                    guard count >= 0 else { return nil }
                    steps.append(.parent(count))
                }
            } else {
                return nil
            }
        }
        self.steps = steps
    }

    /// Whether `base` could be an abbreviated object id (4 to 40 hexadecimal digits).
    public var baseIsHex: Bool {
        (4...40).contains(base.utf8.count)
            && base.utf8.allSatisfy {
                (0x30...0x39).contains($0) || (0x61...0x66).contains($0) || (0x41...0x46).contains($0)
            }
    }

    /// Whether `bytes` hold `@{` (a reflog entry) or `:` (a path in a tree), which push does not
    /// take. Checked in the bytes: `String.contains(_:)` with a string is _StringProcessing's,
    /// which would bring its regex parser into the binary (Subsequence.swift).
    private static func hasReflogOrPath(_ bytes: ArraySlice<UInt8>) -> Bool {
        bytes.contains(UInt8(ascii: ":")) || bytes.containsSubsequence("@{".utf8)
    }
}
