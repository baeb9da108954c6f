import GitWire

/// `gitwire fetch`: fetches into an existing bare repository, reporting ref updates as git does.
struct FetchCommand: Subcommand {
    static let name = "fetch"
    static let abstract = "Fetch refs and objects into an existing bare repository, as git fetch does."
    static let discussion = """
        Default refspecs: +refs/heads/*:refs/heads/* and +refs/tags/*:refs/tags/*. Prints git's \
        summary (`From <url>`, ` * [new branch] ...`) on standard error. A ref that cannot be \
        updated (a name conflict, a lock held by another process, ...) is reported and the others \
        are updated, unless --atomic. Exit status: 0, 1 when a ref was rejected or could not be \
        updated, 128 on errors (refs and files are then left as they were).
        """

    static var options: [CommandOption<Self>] {
        [
            .flag(
                nil, "prune", \.prune, help: "Remove local refs the refspecs cover that the remote no longer has."),
            .flag(nil, "unshallow", \.unshallow, help: "Fetch the whole history of a shallow repository."),
            .flag(
                nil, "atomic", \.atomic,
                help: "Update the local refs all or nothing: if one cannot be updated, none is."),
        ] + FetchArguments.options(at: \.arguments)
    }

    static var arguments: [CommandArgument<Self>] {
        [
            .required("repository", \.repository, help: "The remote repository: a URL or a path."),
            .required("directory", \.directory, help: "The local bare repository to fetch into."),
            .repeating("refspecs", \.refspecs, help: "Refspecs ([+]<src>:<dst>)."),
        ]
    }

    var prune = false
    var unshallow = false
    var atomic = false
    var arguments = FetchArguments()
    var repository = ""
    var directory = ""
    var refspecs: [String] = []

    func execute() throws -> Int32 {
        if unshallow && arguments.depth != nil {
            throw ValidationError("--depth and --unshallow cannot be used together")
        }
        if unshallow && !FileSystem.exists("\(directory)/shallow") {
            throw UsageError("--unshallow on a complete repository does not make sense")
        }
        let (remote, recording) = try arguments.remote(repository)
        let display = FetchDisplay(showsProgress: arguments.showsProgress)
        let fetchOptions = try arguments.fetchOptions(unshallow: unshallow)
        let options = RepositoryFetchOptions(
            fetch: fetchOptions, refspecs: try refspecs.map { try Refspec($0) }, prune: prune, atomic: atomic)
        let result: FetchResult
        do {
            result = try recording.saving {
                defer { display.finish() }
                return try remote.fetchBlocking(into: directory, options: options, progress: display.handler)
            }
        } catch let error as RefUpdateError where atomic {
            // git's --atomic: `error: <why>`, and no ref changed; git exits with its transaction's
            // code (-1 for a name conflict, -2 otherwise).
            Console.writeError("error: \(error)\n")
            return error.isNameConflict ? 255 : 254
        }
        for ignored in result.ignoredRefs { Console.writeError(ignored.message + "\n") }
        for change in result.changes where change.kind == .rejectedShallow {
            // git warns (even with -q), shows no summary line for the ref and still exits 0.
            Console.writeError(
                "warning: rejected \(change.localName) because shallow roots are not allowed to be updated\n")
        }
        if !arguments.quiet {
            let summary = Self.summary(result.changes, url: repository)
            if !summary.isEmpty { Console.writeError(summary) }
        } else {
            for change in result.changes {
                if let error = change.error { Console.writeError("error: \(error)\n") }
            }
        }
        if result.changes.contains(where: { $0.error?.isNameConflict == true }) {
            Console.writeError(
                "error: some local refs could not be updated; try running\n"
                    + " 'git remote prune \(repository)' to remove any old, conflicting branches\n")
        }
        return result.changes.contains { $0.kind == .rejected || $0.error != nil } ? 1 : 0
    }

    /// git's report: `From <url>` (without user information, as git anonymises it), then a line
    /// for each ref that changed (or was refused); the error of a ref that could not be updated
    /// on the line before its own, as git prints it when it meets it.
    static func summary(_ changes: [RefChange], url: String) -> String {
        let shown = changes.filter { $0.kind != .upToDate && $0.kind != .rejectedShallow }
        guard !shown.isEmpty else { return "" }
        // git's adjust_refcol_width: a line that would not fit the terminal (80 columns unless
        // COLUMNS says) does not widen the column.
        let columns = Environment.value("COLUMNS").flatMap { Int($0) }.flatMap { $0 > 0 ? $0 : nil } ?? 80
        let widths = shown.compactMap { change -> Int? in
            guard change.kind != .deleted else { return nil }
            let remote = shortName(change.remoteName ?? "").count
            return 21 + remote + 4 + shortName(change.localName).count >= columns ? nil : remote
        }
        let width = max(10, widths.max() ?? 0)
        var text = ""
        var printedFrom = false
        // Deletions are made (and fail) before any line is printed.
        for change in shown where change.kind == .deleted {
            if let error = change.error { text += "error: \(error)\n" }
        }
        for change in shown {
            if change.kind != .deleted, let error = change.error { text += "error: \(error)\n" }
            if !printedFrom {
                text += "From \(Self.shownURL(url))\n"
                printedFrom = true
            }
            var (flag, summary, note) = describe(change)
            if change.error != nil && change.kind != .deleted {
                flag = "!"
                note = "  (unable to update local ref)"
            }
            let source = shortName(change.remoteName ?? "(none)")
            let paddedSummary = summary + String(repeating: " ", count: max(0, 17 - summary.count))
            let paddedSource = source + String(repeating: " ", count: max(0, width - source.count))
            text += " \(flag) \(paddedSummary) \(paddedSource) -> \(shortName(change.localName))\(note)\n"
        }
        return text
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

    private static func describe(_ change: RefChange) -> (Character, String, String) {
        let old = change.oldID.map { String($0.hex.prefix(7)) } ?? ""
        let new = change.newID.map { String($0.hex.prefix(7)) } ?? ""
        switch change.kind {
        case .created:
            let what =
                change.localName.hasPrefix("refs/tags/")
                ? "[new tag]" : change.localName.hasPrefix("refs/heads/") ? "[new branch]" : "[new ref]"
            return ("*", what, "")
        case .fastForward: return (" ", "\(old)..\(new)", "")
        case .forced: return ("+", "\(old)...\(new)", "  (forced update)")
        case .tagUpdate: return ("t", "[tag update]", "")
        case .deleted: return ("-", "[deleted]", "")
        case .rejected:
            let reason = change.localName.hasPrefix("refs/tags/") ? "would clobber existing tag" : "non-fast-forward"
            return ("!", "[rejected]", "  (\(reason))")
        case .rejectedShallow: return ("!", "[rejected]", "  (shallow update not allowed)")
        case .upToDate: return ("=", "[up to date]", "")
        }
    }

    /// A ref name as git shortens it in the report.
    static func shortName(_ name: String) -> String {
        for prefix in ["refs/heads/", "refs/tags/", "refs/remotes/"] where name.hasPrefix(prefix) {
            return String(name.dropFirst(prefix.count))
        }
        return name
    }
}
