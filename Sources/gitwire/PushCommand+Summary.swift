import GitWire

/// What `gitwire push` prints after a push: git's ref lines (`--porcelain`'s too) and hints.
extension PushCommand {
    /// The ref lines git prints: updated refs first, then the rest, each in the results' order.
    static func summary(_ result: PushResult, url: String, porcelain: Bool, verbose: Bool = false) -> String {
        var text = ""
        let shown =
            result.refs.filter { (porcelain || verbose) && $0.status == .upToDate }
            + result.refs.filter { $0.status == .ok }
            + result.refs.filter { $0.status != .ok && $0.status != .upToDate }
        guard !shown.isEmpty else { return "" }
        text += "To \(url)\n"
        for ref in shown {
            // report-status-v2 `option` lines (a proc-receive hook's): one line for each thing the
            // server says it did instead, as git's print_one_push_report shows them.
            guard ref.status == .ok, let rewrites = result.report?.ref(ref.destination)?.rewrites, !rewrites.isEmpty
            else {
                text += line(ref, porcelain: porcelain)
                continue
            }
            for rewrite in rewrites {
                var shownRef = ref
                shownRef.destination = rewrite.refName ?? ref.destination
                shownRef.old = rewrite.old ?? ref.old
                shownRef.new = rewrite.new ?? ref.new
                shownRef.forced = ref.forced || rewrite.forcedUpdate
                text += line(shownRef, porcelain: porcelain)
            }
        }
        return text
    }

    static func line(_ ref: PushRefResult, porcelain: Bool) -> String {
        let (flag, summary, message, describedSource) = describe(ref)
        var showsSource = describedSource
        var ref = ref
        // git shows a refused deletion as coming from "(delete)".
        if ref.source == nil && ref.new == nil && showsSource {
            switch ref.status {
            case .rejected, .atomicPushFailed: ref.source = "(delete)"
            default: showsSource = false
            }
        }
        if porcelain {
            let destination = maskedForTerminal(ref.destination)
            let names =
                showsSource && ref.source != nil
                ? "\(maskedForTerminal(ref.source!)):\(destination)" : ":\(destination)"
            return "\(flag)\t\(names)\t\(summary)\(message.map { " (\($0))" } ?? "")\n"
        }
        var text = " \(flag) \(summary.padding(toLength: 17)) "
        if showsSource, let source = ref.source {
            text += "\(pretty(source)) -> \(pretty(ref.destination))"
        } else {
            text += pretty(ref.destination)
        }
        if let message { text += " (\(message))" }
        return text + "\n"
    }

    static func describe(_ ref: PushRefResult) -> (Character, String, String?, Bool) {
        switch ref.status {
        case .upToDate: return ("=", "[up to date]", nil, true)
        case .rejected(let why): return ("!", "[rejected]", why.rawValue, true)
        case .remoteRejected(let why): return ("!", "[remote rejected]", why, ref.new != nil)
        case .remoteFailure: return ("!", "[remote failure]", "remote failed to report status", ref.new != nil)
        case .atomicPushFailed: return ("!", "[rejected]", "atomic push failed", true)
        case .deletionNotSupported: return ("!", "[rejected]", "remote does not support deleting refs", false)
        case .ok:
            guard let new = ref.new else { return ("-", "[deleted]", nil, false) }
            guard let old = ref.old else {
                let kind =
                    ref.destination.hasPrefix("refs/tags/")
                    ? "[new tag]" : ref.destination.hasPrefix("refs/heads/") ? "[new branch]" : "[new reference]"
                return ("*", kind, nil, true)
            }
            let range = "\(old.hex.prefix(7))\(ref.forced ? "..." : "..")\(new.hex.prefix(7))"
            return (ref.forced ? "+" : " ", range, ref.forced ? "forced update" : nil, true)
        }
    }

    /// A ref name as git's `prettify_refname` shows it, control characters masked (a remote's
    /// well-formed names may still hold C1 controls, U+0080–U+009F).
    static func pretty(_ name: String) -> String {
        for prefix in ["refs/heads/", "refs/tags/", "refs/remotes/"] where name.hasPrefix(prefix) {
            return maskedForTerminal(String(name.dropFirst(prefix.count)))
        }
        return maskedForTerminal(name)
    }

    /// git's advice after a rejection, the first reason that applies in git's order.
    static func hint(_ result: PushResult, head: HeadState?) -> String? {
        var headName: String?
        if case .symbolic(let target) = head { headName = target }
        let rejections = result.refs.compactMap { ref -> (PushRefResult.Rejection, String)? in
            if case .rejected(let why) = ref.status { (why, ref.destination) } else { nil }
        }
        let nonFastForward = rejections.filter { $0.0 == .nonFastForward }
        if nonFastForward.contains(where: { $0.1 == headName }) {
            return """
                Updates were rejected because the tip of your current branch is behind
                its remote counterpart. Integrate the remote changes (e.g.
                'git pull ...') before pushing again.
                See the 'Note about fast-forwards' in 'git push --help' for details.
                """
        }
        if !nonFastForward.isEmpty {
            return """
                Updates were rejected because a pushed branch tip is behind its remote
                counterpart. Check out this branch and integrate the remote changes
                (e.g. 'git pull ...') before pushing again.
                See the 'Note about fast-forwards' in 'git push --help' for details.
                """
        }
        if rejections.contains(where: { $0.0 == .alreadyExists }) {
            return "Updates were rejected because the tag already exists in the remote."
        }
        if rejections.contains(where: { $0.0 == .fetchFirst }) {
            return """
                Updates were rejected because the remote contains work that you do
                not have locally. This is usually caused by another repository pushing
                to the same ref. You may want to first integrate the remote changes
                (e.g., 'git pull ...') before pushing again.
                See the 'Note about fast-forwards' in 'git push --help' for details.
                """
        }
        if rejections.contains(where: { $0.0 == .needsForce }) {
            return """
                You cannot update a remote ref that points at a non-commit object,
                or update a remote ref to make it point at a non-commit object,
                without using the '--force' option.
                """
        }
        return nil
    }
}
