import GitWire

/// What `git fetch` prints after the transfer (builtin/fetch.c `prune_refs`,
/// `store_updated_refs`, `format_display`): `From <url>` before the first line, then a line per
/// ref (` * [new branch]      main       -> origin/main`), each part of the fetch aligned on its
/// own, abbreviations as long as git's.
struct FetchReport {
    /// How git abbreviates object ids: `core.abbrev`, else a length from the number of objects,
    /// made longer until unique.
    struct Abbreviation {
        /// The minimum length (git's `default_abbrev` resolved).
        let minimum: Int
        let objects: ObjectDatabase?
        /// The repository's object format (SHA-1 without one).
        var format: ObjectFormat { objects?.format ?? .sha1 }

        init(configuration: GitConfiguration, objects: ObjectDatabase?) {
            self.objects = objects
            let hexCount = objects?.format.hexCount ?? 40
            var configured: Int?
            if let entry = try? configuration.last("core.abbrev"), let value = entry.value {
                if value.lowercased() == "auto" {
                    configured = nil
                } else if ConfigValue.bool(value) == false {
                    configured = hexCount
                } else if let number = try? configuration.int("core.abbrev"), (4...hexCount).contains(number) {
                    configured = number
                }
            }
            if let configured {
                minimum = configured
            } else {
                // git: bits for the number of objects in packs, halved, rounded up; at least 7.
                var count = objects?.packedObjectCount ?? 0
                var highest = 0
                while count > 1 {
                    count >>= 1
                    highest += 1
                }
                minimum = max(7, (highest + 2) / 2)
            }
        }

        /// How many hex digits of `id` git shows.
        func length(_ id: ObjectID?) -> Int {
            objects?.uniqueAbbreviationLength(of: id ?? .zero(format), minimum: minimum) ?? minimum
        }

        /// `id` abbreviated.
        func text(_ id: ObjectID?) -> String { String((id ?? .zero(format)).hex.prefix(length(id))) }
    }

    let changes: [RefChange]
    let url: String
    let verbose: Bool
    let quiet: Bool
    let dryRun: Bool
    let abbreviation: Abbreviation
    /// `fetch.output=compact`: the part of the local name that repeats the remote one shown as
    /// `*` (`main -> origin/*`).
    var compact = false

    /// The terminal's width as git's `term_columns` guesses it (`COLUMNS`, else 80).
    private var columns: Int {
        Environment.value("COLUMNS").flatMap { Int($0) }.flatMap { $0 > 0 ? $0 : nil } ?? 80
    }

    /// Everything printed, in order.
    var text: String {
        var text = ""
        var shownURL = false
        var referenceWidth = 10
        func emit(_ line: String) {
            if !shownURL {
                text += "From \(Self.shownURL(url))\n"
                shownURL = true
            }
            text += " \(line)\n"
        }
        for phase in [RefChange.Phase.prune, .fetch, .followedTags] {
            let batch = changes.filter { $0.phase == phase }
            guard !batch.isEmpty else { continue }
            var abbreviated = batch.map { max(abbreviation.length($0.remoteID), abbreviation.length(nil)) }.max() ?? 7
            if phase == .prune {
                abbreviated = batch.map { max(abbreviation.length($0.oldID), abbreviation.length(nil)) }.max() ?? 7
            }
            let width = 2 * abbreviated + 3
            if phase != .prune && !quiet {
                // git's adjust_refcol_width: refs shown, whose lines would fit the terminal.
                for change in batch where change.kind != .fetchHeadOnly && change.kind != .rejectedShallow {
                    guard let remote = change.remoteName, remote != "HEAD" else { continue }
                    if !verbose && change.kind == .upToDate { continue }
                    let remoteLength = Self.prettified(remote).utf8.count
                    // Compact lines leave the local name out of the estimate, and allow two
                    // thirds of the terminal.
                    let localLength = compact ? 0 : Self.prettified(change.localName).utf8.count
                    if 21 + remoteLength + 4 + localLength >= (compact ? columns * 2 / 3 : columns) { continue }
                    referenceWidth = max(referenceWidth, remoteLength)
                }
            }
            for change in batch {
                if change.kind == .rejectedShallow {
                    // A warning (shown with -q too); no line of its own.
                    text +=
                        "warning: rejected \(change.localName) because shallow roots are not allowed to be updated\n"
                    continue
                }
                if change.kind != .deleted, let error = change.error { text += "error: \(error)\n" }
                if change.kind == .deleted, let error = change.error { text += "error: \(error)\n" }
                guard !quiet, let line = line(change, width: width, referenceWidth: referenceWidth) else { continue }
                emit(line)
                if change.kind == .deleted {
                    for symbolic in change.danglingSymbolicRefs {
                        text += "   (\(symbolic) \(dryRun ? "will become" : "has become") dangling)\n"
                    }
                }
            }
        }
        return text
    }

    /// The line for one change (without its leading space), or nil when git shows none.
    private func line(_ change: RefChange, width: Int, referenceWidth: Int) -> String? {
        let (kind, what) = Self.describe(change.remoteName ?? "")
        let local = Self.prettified(change.localName)
        var code: Character
        var summary: String
        var note: String?
        var remote = what
        switch change.kind {
        case .deleted:
            (code, summary, remote) = ("-", "[deleted]", "(none)")
        case .fetchHeadOnly:
            (code, summary) = ("*", kind.isEmpty ? "branch" : kind)
            if remote.isEmpty { remote = "HEAD" }
        case .upToDate:
            guard verbose else { return nil }
            (code, summary) = ("=", "[up to date]")
        case .created:
            let name = change.remoteName ?? ""
            code = "*"
            summary =
                name.hasPrefix("refs/tags/")
                ? "[new tag]" : name.hasPrefix("refs/heads/") ? "[new branch]" : "[new ref]"
        case .fastForward:
            (code, summary) = (" ", "\(abbreviation.text(change.oldID))..\(abbreviation.text(change.newID))")
        case .forced:
            (code, summary, note) = (
                "+", "\(abbreviation.text(change.oldID))...\(abbreviation.text(change.newID))", "forced update"
            )
        case .tagUpdate:
            (code, summary) = ("t", "[tag update]")
        case .rejected:
            code = "!"
            summary = "[rejected]"
            note =
                change.localName.hasPrefix("refs/tags/") && change.oldID != nil
                ? "would clobber existing tag" : "non-fast-forward"
        case .rejectedShallow:
            return nil
        }
        if change.error != nil && change.kind != .deleted {
            code = "!"
            note = "unable to update local ref"
        }
        var shownLocal = change.kind == .fetchHeadOnly ? "FETCH_HEAD" : local
        var line = "\(code) \(Self.padded(summary, to: width)) "
        if compact && remote == shownLocal {
            line += "\(Self.padded(remote, to: referenceWidth)) -> *"
        } else {
            if compact, let replaced = Self.replacing(shownLocal, in: remote) {
                remote = replaced
            } else if compact, let replaced = Self.replacing(remote, in: shownLocal) {
                shownLocal = replaced
            }
            line += "\(Self.padded(remote, to: referenceWidth)) -> \(shownLocal)"
        }
        if let note { line += "  (\(note))" }
        return line
    }

    /// git's `find_and_replace`: `haystack` with `needle` (at its end, else where it first
    /// occurs) replaced by `*`, when it stands between slashes or the ends; nil otherwise.
    static func replacing(_ needle: String, in haystack: String) -> String? {
        let text = Array(haystack.utf8)
        let sought = Array(needle.utf8)
        guard !sought.isEmpty, sought.count <= text.count else { return nil }
        var start: Int?
        if text.suffix(sought.count).elementsEqual(sought) {
            start = text.count - sought.count
        } else {
            start = (0...(text.count - sought.count)).first { text[$0..<($0 + sought.count)].elementsEqual(sought) }
        }
        guard let start else { return nil }
        if start > 0 && text[start - 1] != UInt8(ascii: "/") { return nil }
        let end = start + sought.count
        if end < text.count && text[end] != UInt8(ascii: "/") { return nil }
        return String(decoding: text[..<start] + Array("*".utf8) + text[end...], as: UTF8.self)
    }

    private static func padded(_ text: String, to width: Int) -> String {
        // In bytes, as git's printf("%-*s") pads (and its strlen measures the column).
        let length = text.utf8.count
        return length >= width ? text : text + String(repeating: " ", count: width - length)
    }

    /// git's description of a remote ref: its kind and short name (none for `HEAD`).
    static func describe(_ name: String) -> (kind: String, what: String) {
        if name == "HEAD" { return ("", "") }
        for (prefix, kind) in [
            ("refs/heads/", "branch"), ("refs/tags/", "tag"), ("refs/remotes/", "remote-tracking branch"),
        ] where name.hasPrefix(prefix) {
            return (kind, String(name.dropFirst(prefix.count)))
        }
        return ("", name)
    }

    /// git's `prettify_refname`.
    static func prettified(_ name: String) -> String {
        for prefix in ["refs/heads/", "refs/tags/", "refs/remotes/"] where name.hasPrefix(prefix) {
            return String(name.dropFirst(prefix.count))
        }
        return name
    }

    /// The URL as git's `From` line shows it: without user information (as git anonymises it),
    /// trailing slashes and a final `.git` dropped.
    static func shownURL(_ url: String) -> String {
        var bytes = Array(RemoteURL.withoutCredentials(url).utf8)
        var last = bytes.count - 1
        while last >= 0 && bytes[last] == UInt8(ascii: "/") { last -= 1 }
        var length = last + 1
        if last > 4 && bytes[(last - 3)...last].elementsEqual(".git".utf8) { length = last - 3 }
        bytes.removeSubrange(length...)
        return String(decoding: bytes, as: UTF8.self)
    }
}
