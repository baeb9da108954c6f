/// Shell-style matching as git's `wildmatch` does it without `WM_PATHNAME`: `*` matches any run
/// of bytes (slashes too), `?` any one byte, `[...]` a set (`!` or `^` negates; ranges; POSIX
/// classes such as `[:digit:]`), and `\` makes the next byte literal. Pure.
public enum Wildmatch {
    /// Whether `text` matches `pattern`.
    public static func matches<P: Collection<UInt8>, T: Collection<UInt8>>(_ pattern: P, _ text: T) -> Bool {
        let pattern = Array(pattern)
        let text = Array(text)
        return match(pattern[...], text[...]) == .match
    }

    private enum Outcome { case match, noMatch, abortAll }

    private static func match(_ pattern: ArraySlice<UInt8>, _ text: ArraySlice<UInt8>) -> Outcome {
        var p = pattern.startIndex
        var t = text.startIndex
        while p < pattern.endIndex {
            let c = pattern[p]
            switch c {
            case UInt8(ascii: "*"):
                while p < pattern.endIndex && pattern[p] == UInt8(ascii: "*") { p += 1 }
                if p == pattern.endIndex { return .match }
                var start = t
                while true {
                    let outcome = match(pattern[p...], text[start...])
                    if outcome != .noMatch { return outcome }
                    if start == text.endIndex { return .abortAll }
                    start += 1
                }
            case UInt8(ascii: "?"):
                if t == text.endIndex { return .abortAll }
                p += 1
                t += 1
            case UInt8(ascii: "["):
                if t == text.endIndex { return .abortAll }
                guard let (matched, next) = matchSet(pattern, from: p + 1, byte: text[t]) else { return .abortAll }
                if !matched { return .noMatch }
                p = next
                t += 1
            default:
                var literal = c
                if c == UInt8(ascii: "\\") {
                    p += 1
                    if p == pattern.endIndex { return .abortAll }
                    literal = pattern[p]
                }
                if t == text.endIndex { return .abortAll }
                if text[t] != literal { return .noMatch }
                p += 1
                t += 1
            }
        }
        return t == text.endIndex ? .match : .noMatch
    }

    /// Matches `byte` against the set starting at `start` (after `[`). Returns whether it matched
    /// and where the pattern goes on, or nil for an unterminated set.
    private static func matchSet(_ pattern: ArraySlice<UInt8>, from start: Int, byte: UInt8) -> (Bool, Int)? {
        var p = start
        guard p < pattern.endIndex else { return nil }
        var negated = false
        if pattern[p] == UInt8(ascii: "!") || pattern[p] == UInt8(ascii: "^") {
            negated = true
            p += 1
        }
        var matched = false
        var previous: UInt8?
        var first = true
        while p < pattern.endIndex {
            var c = pattern[p]
            if c == UInt8(ascii: "]") && !first { return (matched != negated, p + 1) }
            first = false
            if c == UInt8(ascii: "\\") {
                p += 1
                guard p < pattern.endIndex else { return nil }
                c = pattern[p]
                if c == byte { matched = true }
                previous = c
            } else if c == UInt8(ascii: "-"), let low = previous, p + 1 < pattern.endIndex,
                pattern[p + 1] != UInt8(ascii: "]")
            {
                p += 1
                var high = pattern[p]
                if high == UInt8(ascii: "\\") {
                    p += 1
                    guard p < pattern.endIndex else { return nil }
                    high = pattern[p]
                }
                if low <= byte && byte <= high { matched = true }
                previous = nil
            } else if c == UInt8(ascii: "["), p + 1 < pattern.endIndex, pattern[p + 1] == UInt8(ascii: ":") {
                guard let close = findClassEnd(pattern, from: p + 2) else {
                    if byte == c { matched = true }
                    previous = c
                    p += 1
                    continue
                }
                let name = String(decoding: pattern[(p + 2)..<close], as: UTF8.self)
                guard let test = characterClasses[name] else { return nil }
                if test(byte) { matched = true }
                p = close + 1
                previous = nil
            } else {
                if c == byte { matched = true }
                previous = c
            }
            p += 1
        }
        return nil
    }

    private static func findClassEnd(_ pattern: ArraySlice<UInt8>, from start: Int) -> Int? {
        var i = start
        while i + 1 < pattern.endIndex {
            if pattern[i] == UInt8(ascii: ":") && pattern[i + 1] == UInt8(ascii: "]") { return i }
            if pattern[i] == UInt8(ascii: "]") { return nil }
            i += 1
        }
        return nil
    }

    private static let characterClasses: [String: @Sendable (UInt8) -> Bool] = [
        "alnum": { isAlpha($0) || isDigit($0) }, "alpha": isAlpha, "blank": { $0 == 0x20 || $0 == 0x09 },
        "cntrl": { $0 < 0x20 || $0 == 0x7f }, "digit": isDigit, "graph": { $0 > 0x20 && $0 < 0x7f },
        "lower": { $0 >= 0x61 && $0 <= 0x7a }, "print": { $0 >= 0x20 && $0 < 0x7f },
        "punct": { $0 > 0x20 && $0 < 0x7f && !isAlpha($0) && !isDigit($0) },
        "space": { $0 == 0x20 || ($0 >= 0x09 && $0 <= 0x0d) }, "upper": { $0 >= 0x41 && $0 <= 0x5a },
        "xdigit": { isDigit($0) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x66) },
    ]

    private static func isAlpha(_ byte: UInt8) -> Bool { byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7a }
    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
}
