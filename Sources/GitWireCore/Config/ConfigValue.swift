/// How git interprets configuration values: booleans, integers with unit suffixes, and paths.
/// Pure (path expansion is handed the home directories it needs).
public enum ConfigValue {
    /// A boolean as git's `git_parse_maybe_bool` reads it: no value (a key without `=`), `true`,
    /// `yes`, `on` and any non-zero integer are true; the empty string, `false`, `no`, `off` and
    /// zero are false (words in any case); nil for anything else.
    public static func bool(_ value: String?) -> Bool? {
        if let word = boolWord(value) { return word }
        guard let value, case .success(let number) = integer(value, maximum: Int64(Int32.max)) else { return nil }
        return number != 0
    }

    /// A boolean written as a word (`git_parse_maybe_bool_text`): as ``bool(_:)`` without
    /// integers.
    public static func boolWord(_ value: String?) -> Bool? {
        guard let value else { return true }
        switch value.lowercasedASCII {
        case "true", "yes", "on": return true
        case "", "false", "no", "off": return false
        default: return nil
        }
    }

    /// Why a value is not an integer to git.
    public enum IntegerProblem: Error, Hashable, Sendable {
        /// Not a number, or a number followed by something other than `k`, `m` or `g`.
        case invalidUnit
        /// A number beyond the range asked for (`-maximum...maximum`).
        case outOfRange
    }

    /// An integer as git's `git_parse_signed` reads it: C's `strtoimax` with base 0 (leading
    /// whitespace, a sign, `0x` for hexadecimal, a leading `0` for octal), then an optional unit
    /// `k`, `m` or `g` (any case, 1024-based) and nothing else; within `-maximum...maximum`.
    public static func integer(_ value: String, maximum: Int64 = .max) -> Result<Int64, IntegerProblem> {
        let bytes = Array(value.utf8)
        guard !bytes.isEmpty else { return .failure(.invalidUnit) }
        let parsed = strtoimax(bytes)
        guard let parsed else { return .failure(.invalidUnit) }
        guard !parsed.overflow else { return .failure(.outOfRange) }
        guard let factor = unitFactor(bytes[parsed.end...]) else { return .failure(.invalidUnit) }
        let number = parsed.value
        if (number < 0 && -maximum / factor > number) || (number > 0 && maximum / factor < number) {
            return .failure(.outOfRange)
        }
        return .success(number * factor)
    }

    /// An unsigned integer as git's `git_parse_unsigned` reads it (no `-` anywhere), at most
    /// `maximum`.
    public static func unsignedInteger(_ value: String, maximum: UInt64 = .max) -> Result<UInt64, IntegerProblem> {
        let bytes = Array(value.utf8)
        guard !bytes.isEmpty, !bytes.contains(UInt8(ascii: "-")) else { return .failure(.invalidUnit) }
        guard let parsed = strtoumax(bytes) else { return .failure(.invalidUnit) }
        guard !parsed.overflow else { return .failure(.outOfRange) }
        guard let factor = unitFactor(bytes[parsed.end...]) else { return .failure(.invalidUnit) }
        let (product, overflow) = UInt64(factor).multipliedReportingOverflow(by: parsed.value)
        guard !overflow, product <= maximum else { return .failure(.outOfRange) }
        return .success(product)
    }

    /// A path as git's `interpolate_path` expands it: `~/` and `~` from `home` (nil when `HOME` is
    /// unset), `~user/` from `homeOfUser`, `%(prefix)/` from `prefix` (`/usr` for Debian's git);
    /// anything else as it is. Nil when a home directory is not known (git: `failed to expand
    /// user dir in: '<path>'`).
    public static func expandedPath(
        _ path: String, home: String?, homeOfUser: (String) -> String?, prefix: String = "/usr"
    ) -> String? {
        let bytes = Array(path.utf8)
        let prefixMarker = Array("%(prefix)/".utf8)
        if bytes.starts(with: prefixMarker) {
            return prefix + "/" + String(decoding: bytes[prefixMarker.count...], as: UTF8.self)
        }
        guard bytes.first == UInt8(ascii: "~") else { return path }
        let slash = bytes.firstIndex(of: UInt8(ascii: "/")) ?? bytes.endIndex
        let user = bytes[1..<slash]
        let rest = String(decoding: bytes[slash...], as: UTF8.self)
        if user.isEmpty {
            guard let home else { return nil }
            return home + rest
        }
        guard let directory = homeOfUser(String(decoding: user, as: UTF8.self)) else { return nil }
        return directory + rest
    }

    private static func unitFactor(_ rest: ArraySlice<UInt8>) -> Int64? {
        if rest.isEmpty { return 1 }
        guard rest.count == 1 else { return nil }
        switch GitCType.lower(rest[rest.startIndex]) {
        case UInt8(ascii: "k"): return 1024
        case UInt8(ascii: "m"): return 1024 * 1024
        case UInt8(ascii: "g"): return 1024 * 1024 * 1024
        default: return nil
        }
    }

    /// C's whitespace for `strtol` in the C locale.
    private static func isCSpace(_ c: UInt8) -> Bool { c == 0x20 || (c >= 0x09 && c <= 0x0d) }

    /// The digits of `strto*` with base 0: where they start, the base, and where the number ends.
    private static func digits(_ bytes: [UInt8]) -> (negative: Bool, start: Int, base: UInt64)? {
        var i = 0
        while i < bytes.count && isCSpace(bytes[i]) { i += 1 }
        var negative = false
        if i < bytes.count && (bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-")) {
            negative = bytes[i] == UInt8(ascii: "-")
            i += 1
        }
        var base: UInt64 = 10
        if i < bytes.count && bytes[i] == UInt8(ascii: "0") {
            if i + 2 < bytes.count && (bytes[i + 1] | 0x20) == UInt8(ascii: "x") && digit(bytes[i + 2], 16) != nil {
                return (negative, i + 2, 16)
            }
            base = 8
        }
        guard i < bytes.count, digit(bytes[i], base) != nil else { return nil }
        return (negative, i, base)
    }

    private static func digit(_ c: UInt8, _ base: UInt64) -> UInt64? {
        let value: UInt64
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): value = UInt64(c - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "z"): value = UInt64(c - UInt8(ascii: "a")) + 10
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = UInt64(c - UInt8(ascii: "A")) + 10
        default: return nil
        }
        return value < base ? value : nil
    }

    /// The magnitude of the digits from `start`, whether it passed `limit`, and where it ends.
    private static func magnitude(_ bytes: [UInt8], from start: Int, base: UInt64, limit: UInt64)
        -> (value: UInt64, overflow: Bool, end: Int)
    {
        var i = start
        var value: UInt64 = 0
        var overflow = false
        while i < bytes.count, let d = digit(bytes[i], base) {
            if !overflow {
                let (product, o1) = value.multipliedReportingOverflow(by: base)
                let (sum, o2) = product.addingReportingOverflow(d)
                if o1 || o2 || sum > limit { overflow = true } else { value = sum }
            }
            i += 1
        }
        return (value, overflow, i)
    }

    /// `strtoimax(text, &end, 0)`: nil when no digits were read (end == text).
    private static func strtoimax(_ bytes: [UInt8]) -> (value: Int64, overflow: Bool, end: Int)? {
        guard let (negative, start, base) = digits(bytes) else { return nil }
        let limit = negative ? UInt64(Int64.max) + 1 : UInt64(Int64.max)
        let (value, overflow, end) = magnitude(bytes, from: start, base: base, limit: limit)
        if overflow { return (0, true, end) }
        let signed = negative ? (value == UInt64(Int64.max) + 1 ? Int64.min : -Int64(value)) : Int64(value)
        return (signed, false, end)
    }

    /// `strtoumax(text, &end, 0)` (callers have refused a `-`).
    private static func strtoumax(_ bytes: [UInt8]) -> (value: UInt64, overflow: Bool, end: Int)? {
        guard let (_, start, base) = digits(bytes) else { return nil }
        return magnitude(bytes, from: start, base: base, limit: .max)
    }
}

extension String {
    /// The string with ASCII capitals made small (git's `tolower`, which leaves other bytes).
    package var lowercasedASCII: String {
        String(decoding: utf8.map(GitCType.lower), as: UTF8.self)
    }
}
