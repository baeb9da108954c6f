/// A fetch refspec, `[+]<src>:<dst>`, as git reads it: which remote refs to fetch and which local
/// refs they update. A `*` in both sides matches any run of characters (one `*` each side).
public struct Refspec: Hashable, Sendable, CustomStringConvertible {
    /// The remote side, such as `refs/heads/*`.
    public var source: String
    /// The local side, such as `refs/remotes/origin/*`; nil for a refspec without one.
    public var destination: String?
    /// Whether a non-fast-forward update is allowed (the leading `+`).
    public var force: Bool

    /// Parses `text`; throws ``RefspecError`` for what git would refuse.
    public init(_ text: String) throws {
        var rest = Substring(text)
        force = rest.hasPrefix("+")
        if force { rest = rest.dropFirst() }
        if let colon = rest.firstIndex(of: ":") {
            source = String(rest[..<colon])
            let destination = String(rest[rest.index(after: colon)...])
            self.destination = destination.isEmpty ? nil : destination
        } else {
            source = String(rest)
            destination = nil
        }
        let sourceStars = source.filter { $0 == "*" }.count
        let destinationStars = destination?.filter { $0 == "*" }.count ?? sourceStars
        guard !source.isEmpty, sourceStars <= 1, sourceStars == destinationStars else {
            throw RefspecError(text: text)
        }
    }

    /// The spec as written: `+refs/heads/*:refs/heads/*`.
    public var description: String { "\(force ? "+" : "")\(source)\(destination.map { ":\($0)" } ?? "")" }

    /// The local ref a remote ref named `name` updates, or nil if this spec does not match it.
    /// A spec without a `*` matches only its exact source; without a destination, nothing is
    /// updated (nil).
    public func destination(for name: String) -> String? {
        guard let destination else { return nil }
        guard let star = source.firstIndex(of: "*") else { return name == source ? destination : nil }
        let prefix = source[..<star]
        let suffix = source[source.index(after: star)...]
        guard name.count >= prefix.count + suffix.count, name.hasPrefix(prefix), name.hasSuffix(suffix) else {
            return nil
        }
        let middle = name.dropFirst(prefix.count).dropLast(suffix.count)
        return destination.replacingFirstStar(with: middle)
    }

    /// Whether a local ref named `name` lies in this spec's destination pattern (for pruning).
    public func destinationMatches(_ name: String) -> Bool {
        guard let destination else { return false }
        guard let star = destination.firstIndex(of: "*") else { return name == destination }
        let prefix = destination[..<star]
        let suffix = destination[destination.index(after: star)...]
        return name.count >= prefix.count + suffix.count && name.hasPrefix(prefix) && name.hasSuffix(suffix)
    }
}

extension String {
    fileprivate func replacingFirstStar(with text: Substring) -> String {
        guard let star = firstIndex(of: "*") else { return self }
        return String(self[..<star]) + text + String(self[index(after: star)...])
    }
}
