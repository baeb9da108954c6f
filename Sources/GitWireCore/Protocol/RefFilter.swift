/// Which refs `git ls-remote` shows, by its rules: `--heads`, `--tags`, `--refs`, and patterns
/// that match the end of a ref name (`main` matches `refs/heads/main` and `refs/tags/main`).
public struct RefFilter: Hashable, Sendable {
    /// Show branches (`refs/heads/`).
    public var heads: Bool
    /// Show tags (`refs/tags/`).
    public var tags: Bool
    /// Leave out peeled tags (`^{}`) and refs outside `refs/`, such as `HEAD`.
    public var refsOnly: Bool
    /// Patterns; a ref is shown if one matches the end of its name (all are shown when empty).
    public var patterns: [String]

    /// Makes a filter; the defaults show everything.
    public init(heads: Bool = false, tags: Bool = false, refsOnly: Bool = false, patterns: [String] = []) {
        self.heads = heads
        self.tags = tags
        self.refsOnly = refsOnly
        self.patterns = patterns
    }

    /// The `ref-prefix`es git sends for this filter over protocol v2 (patterns add none: they
    /// match name endings, which no prefix can express).
    public var refPrefixes: [String] {
        (tags ? ["refs/tags/"] : []) + (heads ? ["refs/heads/"] : [])
    }

    /// Whether a line for `name` (a ref name, or one ending in `^{}`) is shown.
    public func includes(_ name: [UInt8]) -> Bool {
        passesTypeCheck(name) && matchesPatterns(name)
    }

    private func passesTypeCheck(_ name: [UInt8]) -> Bool {
        guard heads || tags || refsOnly else { return true }
        let refsPrefix = Array("refs/".utf8)
        guard name.starts(with: refsPrefix) else { return false }
        let rest = name.dropFirst(refsPrefix.count)
        if refsOnly && !RefNameFormat.isValid(rest, allowOneLevel: false) { return false }
        if heads && rest.starts(with: "heads/".utf8) { return true }
        if tags && rest.starts(with: "tags/".utf8) { return true }
        return !heads && !tags
    }

    private func matchesPatterns(_ name: [UInt8]) -> Bool {
        guard !patterns.isEmpty else { return true }
        let path = [UInt8(ascii: "/")] + name
        return patterns.contains { Wildmatch.matches(Array("*/\($0)".utf8), path) }
    }
}

/// git's rules for a well-formed ref name (`git check-ref-format`).
public enum RefNameFormat {
    /// Whether `name` is a valid ref name. One-level names (no `/`) are valid only when allowed.
    public static func isValid<Name: Collection<UInt8>>(_ name: Name, allowOneLevel: Bool) -> Bool {
        let bytes = Array(name)
        if bytes.isEmpty || bytes == [UInt8(ascii: "@")] { return false }
        if bytes.last == UInt8(ascii: "/") || bytes.last == UInt8(ascii: ".") { return false }
        let components = bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        if components.count < 2 && !allowOneLevel { return false }
        for component in components {
            if component.isEmpty || component.first == UInt8(ascii: ".") { return false }
            if component.count >= 5 && component.suffix(5).elementsEqual(".lock".utf8) { return false }
        }
        var previous: UInt8 = 0
        for byte in bytes {
            if byte < 0x20 || byte == 0x7f { return false }
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "~"), UInt8(ascii: "^"), UInt8(ascii: ":"), UInt8(ascii: "?"),
                UInt8(ascii: "*"), UInt8(ascii: "["), UInt8(ascii: "\\"):
                return false
            case UInt8(ascii: "."):
                if previous == UInt8(ascii: ".") { return false }
            case UInt8(ascii: "{"):
                if previous == UInt8(ascii: "@") { return false }
            default:
                break
            }
            previous = byte
        }
        return true
    }
}
