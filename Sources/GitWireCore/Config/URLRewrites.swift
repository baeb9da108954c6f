/// git's URL rewriting: `url.<base>.insteadOf = <prefix>` makes a URL that starts with `<prefix>`
/// start with `<base>` instead, and `url.<base>.pushInsteadOf` does the same for pushes. As git's
/// `remote.c` does it: the longest matching prefix wins; between prefixes of one length, the
/// base configured first (then the prefix listed first) wins; an empty prefix matches every URL.
/// Pure.
public struct URLRewrites: Hashable, Sendable {
    private struct Rewrite: Hashable, Sendable {
        var base: String
        var prefixes: [String]
    }

    private var fetch: [Rewrite] = []
    private var push: [Rewrite] = []

    /// No rewriting.
    public init() {}

    /// The rewrites configured by `entries`, in configuration order. Throws
    /// ``ConfigError/badVariable(name:origin:line:reason:)`` for an `insteadOf` or
    /// `pushInsteadOf` with no value, as git does when it reads remotes.
    public init(_ entries: some Sequence<ConfigEntry>) throws(ConfigError) {
        for entry in entries {
            guard entry.section == "url", let base = entry.subsection else { continue }
            let key = entry.key
            guard key == "insteadof" || key == "pushinsteadof" else { continue }
            guard let prefix = entry.value else {
                throw .badVariable(
                    name: entry.name, origin: entry.origin, line: entry.line,
                    reason: "missing value for '\(entry.name)'")
            }
            if key == "insteadof" {
                Self.add(&fetch, base: String(base), prefix: prefix)
            } else {
                Self.add(&push, base: String(base), prefix: prefix)
            }
        }
    }

    /// Whether no rewrite is configured.
    public var isEmpty: Bool { fetch.isEmpty && push.isEmpty }

    private static func add(_ rewrites: inout [Rewrite], base: String, prefix: String) {
        if let index = rewrites.firstIndex(where: { $0.base.utf8.elementsEqual(base.utf8) }) {
            rewrites[index].prefixes.append(prefix)
        } else {
            rewrites.append(Rewrite(base: base, prefixes: [prefix]))
        }
    }

    private static func rewrite(_ url: String, _ rewrites: [Rewrite]) -> String? {
        var best: (base: String, length: Int)?
        for rewrite in rewrites {
            for prefix in rewrite.prefixes where url.utf8.starts(with: prefix.utf8) {
                let length = prefix.utf8.count
                if best == nil || best!.length < length { best = (rewrite.base, length) }
            }
        }
        guard let best else { return nil }
        return best.base + String(decoding: url.utf8.dropFirst(best.length), as: UTF8.self)
    }

    /// `url` after `insteadOf` rewriting (the URL fetches use).
    public func rewritten(_ url: String) -> String { Self.rewrite(url, fetch) ?? url }

    /// `url` after `pushInsteadOf` rewriting, or nil when no `pushInsteadOf` prefix matches.
    public func rewrittenForPush(_ url: String) -> String? { Self.rewrite(url, push) }

    /// A remote's fetch and push URLs as git derives them from its `remote.<name>.url` and
    /// `remote.<name>.pushurl` values: fetch URLs rewritten by `insteadOf`; push URLs are the
    /// `pushurl`s rewritten by `insteadOf` when there are any, else each `url` rewritten by
    /// `pushInsteadOf` where one matches; a remote with neither pushes to its fetch URLs.
    public func remoteURLs(urls: [String], pushURLs: [String]) -> (urls: [String], pushURLs: [String]) {
        let fetchURLs = urls.map(rewritten)
        var push = pushURLs.map(rewritten)
        if pushURLs.isEmpty { push = urls.compactMap(rewrittenForPush) }
        return (fetchURLs, push.isEmpty ? fetchURLs : push)
    }
}
