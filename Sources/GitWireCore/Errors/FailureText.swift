/// What the messages servers and their programs print say about the kind of a failure: git
/// daemon's `ERR` lines, `git-upload-pack`'s and ssh's standard error. Only messages that say it
/// plainly are recognised (git's own, OpenSSH's, and the big hosts'); anything else says nothing.
/// Pure.
package enum FailureText {
    /// The kind `line` names, or nil.
    package static func kind(of line: some StringProtocol) -> GitWireErrorKind? {
        let text = line.lowercased()
        func has(_ phrase: String) -> Bool { text.utf8.containsSubsequence(phrase.utf8) }
        if has("does not appear to be a git repository") || has("access denied or repository not exported")
            || has("repository not found") || has("could not be found or you don't have permission")
            || has("no such repository")
            || ((has("upload-pack") || has("receive-pack"))
                && (has(": not found") || has("command not found") || has("no such file or directory")))
        {
            return .notFound
        }
        if has("permission denied (") || has("permission denied, please try again")
            || has("too many authentication failures") || has("authentication failed")
        {
            return .authentication
        }
        if has("connection timed out") || has("operation timed out") { return .timedOut }
        if has("could not resolve hostname") || has("connection refused") || has("no route to host")
            || has("network is unreachable") || has("host key verification failed")
            || has("name or service not known")
        {
            return .connect
        }
        return nil
    }

    /// The kind the last line of `lines` that names one names (the explanation usually comes
    /// last: ssh's warnings come before its error), or nil.
    package static func kind(of lines: some BidirectionalCollection<some StringProtocol>) -> GitWireErrorKind? {
        for line in lines.reversed() {
            if let kind = kind(of: line) { return kind }
        }
        return nil
    }
}
