extension Wildmatch {
    /// Options of git's `wildmatch`.
    public struct Options: OptionSet, Hashable, Sendable {
        /// The raw bits.
        public let rawValue: Int
        /// An option from its bits.
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// `WM_PATHNAME`: `*`, `?` and sets never match `/`; `**` between slashes (or at either
        /// end) matches any number of directories.
        public static let pathname = Options(rawValue: 1)
        /// `WM_CASEFOLD`: ASCII letters match either case.
        public static let caseFold = Options(rawValue: 2)
    }

    /// Whether `text` matches `pattern` as git's `wildmatch(pattern, text, flags)` decides it
    /// (both read up to a NUL byte, as C strings). Used for `includeIf` conditions
    /// (`gitdir:`, `gitdir/i:`, `onbranch:`, `hasconfig:remote.*.url:`).
    ///
    /// Unlike git's, the time taken is bounded: what has been tried at each pattern and text
    /// position is remembered (git's recursion is exponential in the number of stars), and a
    /// pattern that still needs more than a few million steps is given up on, as no match.
    public static func matches(_ pattern: some Collection<UInt8>, _ text: some Collection<UInt8>, options: Options)
        -> Bool
    {
        steps(pattern: Array(pattern), text: Array(text), options: options).matched
    }

    /// The answer and the steps taken to find it (a test hook: the work a pattern causes).
    package static func steps(pattern: [UInt8], text: [UInt8], options: Options, memoizing: Bool = true) -> (
        matched: Bool, steps: Int
    ) {
        var p = pattern
        var t = text
        if let nul = p.firstIndex(of: 0) { p.removeSubrange(nul...) }
        if let nul = t.firstIndex(of: 0) { t.removeSubrange(nul...) }
        p.append(0)
        t.append(0)
        var matcher = PathMatcher(pattern: p, text: t, options: options)
        matcher.memoizing = memoizing
        let matched = matcher.match(0, 0) == .match
        return (matched, PathMatcher.initialBudget - matcher.budget)
    }
}

/// git's `dowild`, over NUL-terminated byte arrays.
private struct PathMatcher {
    enum Outcome { case match, noMatch, abortAll, abortToStarStar }

    let pattern: [UInt8]
    let text: [UInt8]
    let options: Wildmatch.Options
    /// Outcomes already known, by pattern and text position: `**` and `*` retry the rest of the
    /// pattern at every later position, which without them takes time exponential in the stars.
    var known: [Int: Outcome] = [:]
    /// Whether outcomes are remembered (off only to measure git's own algorithm in tests).
    var memoizing = true
    static let initialBudget = 4_000_000
    /// Bounds the work a pattern built to be slow can cause (each step is a call or a byte
    /// looked at); past it the match gives up, as no match.
    var budget = initialBudget

    init(pattern: [UInt8], text: [UInt8], options: Wildmatch.Options) {
        self.pattern = pattern
        self.text = text
        self.options = options
    }

    private var fold: Bool { options.contains(.caseFold) }
    private var pathname: Bool { options.contains(.pathname) }

    private static func isGlobSpecial(_ c: UInt8) -> Bool {
        c == UInt8(ascii: "*") || c == UInt8(ascii: "?") || c == UInt8(ascii: "[") || c == UInt8(ascii: "\\")
    }

    private func folded(_ c: UInt8) -> UInt8 { fold && GitCType.isUpper(c) ? GitCType.lower(c) : c }

    mutating func match(_ startP: Int, _ startT: Int) -> Outcome {
        guard memoizing else { return compute(startP, startT) }
        let key = startP * text.count + startT
        if let outcome = known[key] { return outcome }
        let outcome = compute(startP, startT)
        if budget >= 0 { known[key] = outcome }
        return outcome
    }

    private mutating func compute(_ startP: Int, _ startT: Int) -> Outcome {
        budget -= 1
        if budget < 0 { return .abortAll }
        var p = startP
        var t = startT
        let slash = UInt8(ascii: "/")
        while pattern[p] != 0 {
            var pc = pattern[p]
            var tc = text[t]
            if tc == 0 && pc != UInt8(ascii: "*") { return .abortAll }
            tc = folded(tc)
            pc = folded(pc)
            switch pc {
            case UInt8(ascii: "?"):
                if pathname && tc == slash { return .noMatch }
            case UInt8(ascii: "*"):
                var matchSlash: Bool
                p += 1
                if pattern[p] == UInt8(ascii: "*") {
                    let previous = p - 2
                    while pattern[p] == UInt8(ascii: "*") { p += 1 }
                    if !pathname {
                        matchSlash = true
                    } else if (previous < 0 || pattern[previous] == slash)
                        && (pattern[p] == 0 || pattern[p] == slash
                            || (pattern[p] == UInt8(ascii: "\\") && pattern[p + 1] == slash))
                    {
                        if pattern[p] == slash && match(p + 1, t) == .match { return .match }
                        matchSlash = true
                    } else {
                        matchSlash = false
                    }
                } else {
                    matchSlash = !pathname
                }
                budget -= text.count - t
                if pattern[p] == 0 {
                    // A trailing `**` matches everything, a trailing `*` only up to a slash.
                    if !matchSlash && text[t...].contains(slash) { return .noMatch }
                    return .match
                } else if !matchSlash && pattern[p] == slash {
                    // One `*` then a slash matches up to the next directory.
                    guard let next = text[t...].firstIndex(of: slash), text[next] != 0 else { return .noMatch }
                    t = next
                    break
                }
                while true {
                    if tc == 0 { break }
                    budget -= 1
                    if budget < 0 { return .abortAll }
                    if !Self.isGlobSpecial(pattern[p]) {
                        let literal = folded(pattern[p])
                        while true {
                            budget -= 1
                            if budget < 0 { return .abortAll }
                            tc = text[t]
                            if tc == 0 || (!matchSlash && tc == slash) { break }
                            tc = folded(tc)
                            if tc == literal { break }
                            t += 1
                        }
                        if tc != literal { return .noMatch }
                    }
                    let outcome = match(p, t)
                    if outcome != .noMatch {
                        if !matchSlash || outcome != .abortToStarStar { return outcome }
                    } else if !matchSlash && tc == slash {
                        return .abortToStarStar
                    }
                    t += 1
                    tc = text[t]
                }
                return .abortAll
            case UInt8(ascii: "["):
                p += 1
                pc = pattern[p]
                if pc == UInt8(ascii: "^") { pc = UInt8(ascii: "!") }
                let negated = pc == UInt8(ascii: "!")
                if negated {
                    p += 1
                    pc = pattern[p]
                }
                var previous: UInt8 = 0
                var matched = false
                repeat {
                    if pc == 0 { return .abortAll }
                    if pc == UInt8(ascii: "\\") {
                        p += 1
                        pc = pattern[p]
                        if pc == 0 { return .abortAll }
                        if tc == pc { matched = true }
                    } else if pc == UInt8(ascii: "-") && previous != 0 && pattern[p + 1] != 0
                        && pattern[p + 1] != UInt8(ascii: "]")
                    {
                        p += 1
                        pc = pattern[p]
                        if pc == UInt8(ascii: "\\") {
                            p += 1
                            pc = pattern[p]
                            if pc == 0 { return .abortAll }
                        }
                        if tc <= pc && tc >= previous {
                            matched = true
                        } else if fold && GitCType.isLower(tc) {
                            let upper = tc & ~0x20
                            if upper <= pc && upper >= previous { matched = true }
                        }
                        pc = 0
                    } else if pc == UInt8(ascii: "[") && pattern[p + 1] == UInt8(ascii: ":") {
                        p += 2
                        let start = p
                        while pattern[p] != 0 && pattern[p] != UInt8(ascii: "]") { p += 1 }
                        pc = pattern[p]
                        if pc == 0 { return .abortAll }
                        let length = p - start - 1
                        if length < 0 || pattern[p - 1] != UInt8(ascii: ":") {
                            // No `:]`: a plain `[` in the set.
                            p = start - 2
                            pc = UInt8(ascii: "[")
                            if tc == pc { matched = true }
                            previous = pc
                            p += 1
                            pc = pattern[p]
                            continue
                        }
                        let name = String(decoding: pattern[start..<(start + length)], as: UTF8.self)
                        guard let inClass = Self.inClass(name, tc, fold: fold) else { return .abortAll }
                        if inClass { matched = true }
                        pc = 0
                    } else if tc == pc {
                        matched = true
                    }
                    previous = pc
                    p += 1
                    pc = pattern[p]
                } while pc != UInt8(ascii: "]")
                if matched == negated || (pathname && tc == slash) { return .noMatch }
            case UInt8(ascii: "\\"):
                p += 1
                pc = pattern[p]
                if tc != pc { return .noMatch }
            default:
                if tc != pc { return .noMatch }
            }
            p += 1
            t += 1
        }
        return text[t] != 0 ? .noMatch : .match
    }

    /// Whether `c` is in the POSIX class `name` (git's ASCII classes); nil for an unknown class.
    private static func inClass(_ name: String, _ c: UInt8, fold: Bool) -> Bool? {
        switch name {
        case "alnum": return GitCType.isAlnum(c)
        case "alpha": return GitCType.isAlpha(c)
        case "blank": return c == 0x20 || c == 0x09
        case "cntrl": return c < 0x20 || c == 0x7f
        case "digit": return GitCType.isDigit(c)
        case "graph": return c > 0x20 && c < 0x7f
        case "lower": return GitCType.isLower(c)
        case "print": return c >= 0x20 && c <= 0x7e
        case "punct": return c > 0x20 && c < 0x7f && !GitCType.isAlnum(c)
        case "space": return GitCType.isSpace(c)
        case "upper": return GitCType.isUpper(c) || (fold && GitCType.isLower(c))
        case "xdigit": return GitCType.isDigit(c) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x66)
        default: return nil
        }
    }
}
