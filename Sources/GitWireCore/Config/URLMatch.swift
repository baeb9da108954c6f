/// git's URL matching for `<section>.<url>.<key>` variables (`http.<url>.sslVerify`,
/// `http.<url>.extraHeader`, ...), as `urlmatch.c` does it: both URLs normalized (scheme and host
/// lowercased, default ports dropped, `%XX` escapes normalized, `.` and `..` path segments
/// resolved); then the scheme must be equal, the host equal label by label (a `*` label in the
/// configured URL matches any one label), the port equal, the configured path a prefix of the
/// URL's path ending on a `/` boundary, and a user name in the configured URL equal to the URL's.
/// Of the entries that match, the most specific wins (longer host, then longer path, then one
/// with a user name); between equally specific ones, the last. Entries with no URL
/// (`http.sslVerify`) match every URL, least specifically. Pure.
public enum URLMatch {
    /// A URL in git's normal form, with the offsets of its parts.
    public struct NormalizedURL: Hashable, Sendable {
        /// The normalized URL.
        public let url: [UInt8]
        let schemeLength: Int
        /// Offset of the user name (nil: none given).
        let userOffset: Int?
        let userLength: Int
        /// Offset of the host (nil: none, a `file:` URL).
        let hostOffset: Int?
        let hostLength: Int
        let portOffset: Int?
        let portLength: Int
        let pathOffset: Int

        /// The normalized URL as text.
        public var text: String { String(decoding: url, as: UTF8.self) }
    }

    /// How specifically a configured URL matched: host length, then path length, then a user.
    struct Specificity: Comparable {
        var host = 0
        var path = 0
        var user = false

        static func < (a: Specificity, b: Specificity) -> Bool {
            if a.host != b.host { return a.host < b.host }
            if a.path != b.path { return a.path < b.path }
            return !a.user && b.user
        }
    }

    /// `url` normalized as git's `url_normalize` does it; `allowGlobs` lets the host hold `*`
    /// (configured URLs may). Throws ``ConfigError/invalidURL(reason:)`` with git's message.
    public static func normalize(_ url: String, allowGlobs: Bool = false) throws(ConfigError) -> NormalizedURL {
        var input = Array(url.utf8)
        if let nul = input.firstIndex(of: 0) { input.removeSubrange(nul...) }
        var normalizer = Normalizer(input, allowGlobs: allowGlobs)
        return try normalizer.run()
    }

    /// The values `entries` give the keys of `section` for `url` (`http` and
    /// `https://example.org/repo.git`, say): for each key, the value of the best matching entry
    /// (nil for one with no `=`), keys in the order git lists them (sorted by bytes). `key`, when
    /// given, limits the answer to that key (lowercase). Entries whose URL does not normalize
    /// match nothing. Throws ``ConfigError/invalidURL(reason:)`` when `url` itself does not
    /// normalize.
    public static func values(
        section: String, key: String? = nil, url: String, entries: some Sequence<ConfigEntry>
    ) throws(ConfigError) -> [(key: String, value: String?)] {
        let target = try normalize(url)
        let section = Array(section.lowercasedASCII.utf8)
        let wanted = key.map { Array($0.lowercasedASCII.utf8) }
        var best: [[UInt8]: (specificity: Specificity, value: String?, key: String)] = [:]
        forEachMatching(section: section, target: target, entries: entries) { entry, entryKey, specificity in
            if let wanted, entryKey != wanted { return }
            if let existing = best[entryKey], specificity < existing.specificity { return }
            best[entryKey] = (specificity, entry.value, String(decoding: entryKey, as: UTF8.self))
        }
        return best.sorted { $0.key.lexicographicallyPrecedes($1.key) }.map { ($0.value.key, $0.value.value) }
    }

    /// The entries of `section` that apply to `url`, in configuration order, as git's
    /// `urlmatch_config_entry` hands them to a reader (git's `http_options`): an entry is handed
    /// on when its URL matches at least as specifically as the best one seen so far for its key
    /// (entries with no URL match everything, least specifically); each comes with the name
    /// `section.key`. Reading them in order and letting each override the last gives the value
    /// ``values(section:key:url:entries:)`` chooses, and a multi-valued key (`http.extraHeader`)
    /// gathers its values as git does. Throws ``ConfigError/invalidURL(reason:)`` when `url` does
    /// not normalize.
    public static func collected(
        section: String, url: String, entries: some Sequence<ConfigEntry>
    ) throws(ConfigError) -> [ConfigEntry] {
        let target = try normalize(url)
        let sectionName = section.lowercasedASCII
        let section = Array(sectionName.utf8)
        var best: [[UInt8]: Specificity] = [:]
        var collected: [ConfigEntry] = []
        forEachMatching(section: section, target: target, entries: entries) { entry, key, specificity in
            if let existing = best[key], specificity < existing { return }
            best[key] = specificity
            var handed = entry
            handed.name = sectionName + "." + String(decoding: key, as: UTF8.self)
            collected.append(handed)
        }
        return collected
    }

    /// Walks the entries of `section` whose URL part (if any) matches `target`: each with its
    /// key (the name's last part) and how specifically it matched (entries with no URL: least).
    private static func forEachMatching(
        section: [UInt8], target: NormalizedURL, entries: some Sequence<ConfigEntry>,
        _ body: (ConfigEntry, [UInt8], Specificity) -> Void
    ) {
        for entry in entries {
            let name = Array(entry.name.utf8)
            guard name.count > section.count, name.starts(with: section), name[section.count] == UInt8(ascii: ".")
            else { continue }
            var rest = name[(section.count + 1)...]
            var specificity = Specificity()
            if let dot = rest.lastIndex(of: UInt8(ascii: ".")) {
                let configured = String(decoding: rest[..<dot], as: UTF8.self)
                guard let pattern = try? normalize(configured, allowGlobs: true),
                    let matched = match(target, pattern)
                else { continue }
                specificity = matched
                rest = rest[(dot + 1)...]
            }
            body(entry, Array(rest), specificity)
        }
    }

    /// Whether `pattern` (a configured URL) matches `url`, and how specifically.
    static func match(_ url: NormalizedURL, _ pattern: NormalizedURL) -> Specificity? {
        guard pattern.schemeLength == url.schemeLength,
            url.url[..<url.schemeLength].elementsEqual(pattern.url[..<pattern.schemeLength])
        else { return nil }
        var user = false
        if let patternUser = pattern.userOffset {
            guard let urlUser = url.userOffset, url.userLength == pattern.userLength,
                url.url[urlUser..<(urlUser + url.userLength)].elementsEqual(
                    pattern.url[patternUser..<(patternUser + pattern.userLength)])
            else { return nil }
            user = true
        }
        guard matchHost(url, pattern) else { return nil }
        guard pattern.portLength == url.portLength,
            url.url[(url.portOffset ?? 0)..<((url.portOffset ?? 0) + url.portLength)].elementsEqual(
                pattern.url[(pattern.portOffset ?? 0)..<((pattern.portOffset ?? 0) + pattern.portLength)])
        else { return nil }
        let path = matchPathPrefix(url.url[url.pathOffset...], pattern.url[pattern.pathOffset...])
        guard path > 0 else { return nil }
        return Specificity(host: pattern.hostLength, path: path, user: user)
    }

    /// Hosts compared label by label; a `*` label of the pattern matches any one label.
    private static func matchHost(_ url: NormalizedURL, _ pattern: NormalizedURL) -> Bool {
        let host = url.hostOffset.map { url.url[$0..<($0 + url.hostLength)] } ?? []
        let patternHost = pattern.hostOffset.map { pattern.url[$0..<($0 + pattern.hostLength)] } ?? []
        var u = host
        var p = patternHost
        while !u.isEmpty && !p.isEmpty {
            let uEnd = u.firstIndex(of: UInt8(ascii: ".")) ?? u.endIndex
            let pEnd = p.firstIndex(of: UInt8(ascii: ".")) ?? p.endIndex
            let uLabel = u[..<uEnd]
            let pLabel = p[..<pEnd]
            guard pLabel.elementsEqual([UInt8(ascii: "*")]) || uLabel.elementsEqual(pLabel) else { return false }
            u = u[(uEnd < u.endIndex ? uEnd + 1 : uEnd)...]
            p = p[(pEnd < p.endIndex ? pEnd + 1 : pEnd)...]
        }
        return u.isEmpty && p.isEmpty
    }

    /// `url_match_prefix`: the length of the match (counting an implicit final `/`), 0 for none.
    private static func matchPathPrefix(_ url: ArraySlice<UInt8>, _ prefix: ArraySlice<UInt8>) -> Int {
        var prefix = prefix
        if prefix.isEmpty || prefix.elementsEqual([UInt8(ascii: "/")]) {
            return url.isEmpty || url.first == UInt8(ascii: "/") ? 1 : 0
        }
        if prefix.last == UInt8(ascii: "/") { prefix = prefix.dropLast() }
        guard url.starts(with: prefix) else { return 0 }
        let end = url.startIndex + prefix.count
        if end == url.endIndex || url[end] == UInt8(ascii: "/") { return prefix.count + 1 }
        return 0
    }
}

/// `url_normalize_1`.
private struct Normalizer {
    let input: [UInt8]
    let allowGlobs: Bool
    var output: [UInt8] = []

    init(_ input: [UInt8], allowGlobs: Bool) {
        self.input = input
        self.allowGlobs = allowGlobs
    }

    static let alpha = Set(Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8))
    static let digits = Set(Array("0123456789".utf8))
    static let schemeChars = alpha.union(digits).union("+.-".utf8)
    static let hostChars = alpha.union(digits).union(".-_[:]".utf8)
    static let unsafe = Set(Array(" <>\"%{}|\\^`".utf8))
    static let reserved = Set(Array(":/?#[]@!$&'()*+,;=".utf8))

    private func fail(_ reason: String) -> ConfigError { .invalidURL(reason: reason) }

    /// Appends `bytes` with `%XX` escapes normalized: unsafe bytes escaped, escaped bytes that
    /// need no escape unescaped (reserved ones stay escaped), hex in capitals. False for a `%`
    /// not followed by two hex digits.
    private mutating func appendNormalizingEscapes(_ bytes: ArraySlice<UInt8>) -> Bool {
        var i = bytes.startIndex
        while i < bytes.endIndex {
            var c = bytes[i]
            i += 1
            var wasEscaped = false
            if c == UInt8(ascii: "%") {
                guard bytes.endIndex - i >= 2, let high = hexValue(bytes[i]), let low = hexValue(bytes[i + 1]) else {
                    return false
                }
                c = high << 4 | low
                i += 2
                wasEscaped = true
            }
            if c <= 0x1f || c >= 0x7f || Self.unsafe.contains(c) || (wasEscaped && Self.reserved.contains(c)) {
                output.append(UInt8(ascii: "%"))
                output.append(contentsOf: hexDigits(c))
            } else {
                output.append(c)
            }
        }
        return true
    }

    private func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    private func hexDigits(_ c: UInt8) -> [UInt8] {
        let digits = Array("0123456789ABCDEF".utf8)
        return [digits[Int(c >> 4)], digits[Int(c & 0xf)]]
    }

    private func span(_ from: Int, _ set: Set<UInt8>) -> Int {
        var i = from
        while i < input.count && set.contains(input[i]) { i += 1 }
        return i - from
    }

    mutating func run() throws(ConfigError) -> URLMatch.NormalizedURL {
        // The scheme: letters, digits, `+`, `.`, `-`, starting with a letter, then `://`.
        let schemeLength = span(0, Self.schemeChars)
        guard schemeLength > 0, Self.alpha.contains(input[0]), schemeLength + 3 <= input.count,
            input[schemeLength] == UInt8(ascii: ":"), input[schemeLength + 1] == UInt8(ascii: "/"),
            input[schemeLength + 2] == UInt8(ascii: "/")
        else { throw fail("invalid URL scheme name or missing '://' suffix") }
        output = input[..<(schemeLength + 3)].map(GitCType.lower)
        var url = schemeLength + 3
        let end = input.count

        // The user name and password, if any, escapes normalized.
        let slash =
            input[url...].firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
            ?? end
        var userOffset: Int?
        var userLength = 0
        if let at = input[url...].firstIndex(of: UInt8(ascii: "@")), at < slash {
            userOffset = output.count
            if at > url {
                guard appendNormalizingEscapes(input[url..<at]) else { throw fail("invalid %XX escape sequence") }
                if let colon = output[(schemeLength + 3)...].firstIndex(of: UInt8(ascii: ":")) {
                    userLength = colon - (schemeLength + 3)
                } else {
                    userLength = output.count - (schemeLength + 3)
                }
            }
            output.append(UInt8(ascii: "@"))
            url = at + 1
        }

        // The host, lowercased, no escapes; none only for `file:`.
        var hostOffset: Int?
        if url == end
            || [UInt8(ascii: ":"), UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#")].contains(input[url])
        {
            guard output.starts(with: Array("file:".utf8)) else { throw fail("missing host and scheme is not 'file:'") }
        } else {
            hostOffset = output.count
        }
        var colon = slash - 1
        while colon > url && input[colon] != UInt8(ascii: ":") && input[colon] != UInt8(ascii: "]") { colon -= 1 }
        if colon < 0 || colon >= end || input[colon] != UInt8(ascii: ":") {
            colon = slash
        } else if hostOffset == nil && colon < slash && colon + 1 != slash {
            throw fail("a 'file:' URL may not have a port number")
        }
        let hostSpan = span(url, allowGlobs ? Self.hostChars.union([UInt8(ascii: "*")]) : Self.hostChars)
        if hostSpan < colon - url { throw fail("invalid characters in host name") }
        while url < colon {
            output.append(GitCType.lower(input[url]))
            url += 1
        }

        // The port, without leading zeros, dropped when it is the scheme's default.
        var portOffset: Int?
        var portLength = 0
        if colon < slash {
            url += 1
            while url < slash && input[url] == UInt8(ascii: "0") { url += 1 }
            if url == slash && input[url - 1] == UInt8(ascii: "0") { url -= 1 }
            let port = input[url..<slash]
            if url == slash {
                // `:` with no number: the default port.
            } else if port.elementsEqual("80".utf8) && output.starts(with: Array("http:".utf8)) {
            } else if port.elementsEqual("443".utf8) && output.starts(with: Array("https:".utf8)) {
            } else {
                guard port.allSatisfy({ Self.digits.contains($0) }) else { throw fail("invalid port number") }
                var number = 0
                if port.count <= 5 { number = port.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) } }
                guard number > 0 && number <= 65535 else { throw fail("invalid port number") }
                output.append(UInt8(ascii: ":"))
                portOffset = output.count
                output.append(contentsOf: port)
                portLength = port.count
            }
            url = slash
        }
        let hostLength = hostOffset.map { output.count - $0 - (portLength > 0 ? portLength + 1 : 0) } ?? 0

        // The path: `/` added if missing, `.` and `..` segments resolved, escapes normalized.
        let pathOffset = output.count
        output.append(UInt8(ascii: "/"))
        if url < end && input[url] == UInt8(ascii: "/") { url += 1 }
        while true {
            let segmentStart = output.count
            let next =
                input[url...].firstIndex {
                    $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#")
                }
                ?? end
            var skipSlash = false
            guard appendNormalizingEscapes(input[url..<next]) else { throw fail("invalid %XX escape sequence") }
            let segment = output[segmentStart...]
            if segment.elementsEqual([UInt8(ascii: ".")]) {
                if segmentStart == pathOffset + 1 {
                    output.removeLast(1)
                    skipSlash = true
                } else {
                    output.removeLast(2)
                }
            } else if segment.elementsEqual([UInt8(ascii: "."), UInt8(ascii: ".")]) {
                var previous = output.count - 3
                guard previous != pathOffset else { throw fail("invalid '..' path segment") }
                previous -= 1
                while output[previous] != UInt8(ascii: "/") { previous -= 1 }
                if previous == pathOffset {
                    output.removeSubrange((previous + 1)...)
                    skipSlash = true
                } else {
                    output.removeSubrange(previous...)
                }
            }
            url = next
            guard url < end, input[url] == UInt8(ascii: "/") else { break }
            url += 1
            if !skipSlash { output.append(UInt8(ascii: "/")) }
        }

        // The query and fragment, escapes normalized.
        if url < end {
            guard appendNormalizingEscapes(input[url..<end]) else { throw fail("invalid %XX escape sequence") }
        }
        return URLMatch.NormalizedURL(
            url: output, schemeLength: schemeLength, userOffset: userOffset, userLength: userLength,
            hostOffset: hostOffset, hostLength: hostLength, portOffset: portOffset, portLength: portLength,
            pathOffset: pathOffset)
    }
}
