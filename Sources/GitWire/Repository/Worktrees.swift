/// The work trees of a repository and the branches they have checked out, as git's
/// `get_worktrees` and `branch_checked_out` see them: the main work tree (unless the repository
/// is bare) and every linked one under `<common>/worktrees/`, each with the branch its `HEAD`
/// names and the branches a rebase, a bisection or a rebase's `update-refs` holds there.
package struct Worktrees: Sendable {
    /// Each branch checked out somewhere (`refs/heads/...`), with the work tree's path.
    package var checkedOut: [String: String]

    /// The work trees of the repository at `location`; `bare` is its `core.bare`.
    package init(_ location: RepositoryLocation, bare: Bool?) {
        var checkedOut: [String: String] = [:]
        let common = location.commonDirectory
        // git's is_bare_repository(): core.bare, or no work tree when core.bare is not set.
        let mainIsBare = bare == true || (bare == nil && location.workTree == nil)
        if !mainIsBare {
            var path = ConfigFiles.realPath(common) ?? common
            if path.hasSuffix("/.git") { path.removeLast(5) }
            Self.add(gitDirectory: common, path: path, to: &checkedOut)
        }
        let linked = "\(common)/worktrees"
        for id in ((try? FileSystem.contents(ofDirectory: linked)) ?? []).sorted() {
            guard let bytes = try? ConfigFiles.read("\(linked)/\(id)/gitdir"), !bytes.isEmpty else { continue }
            var path = String(decoding: bytes, as: UTF8.self)
            while let last = path.unicodeScalars.last, last == " " || last == "\n" || last == "\t" || last == "\r" {
                path.unicodeScalars.removeLast()
            }
            if path.hasSuffix("/.git") { path.removeLast(5) }
            Self.add(gitDirectory: "\(linked)/\(id)", path: path, to: &checkedOut)
        }
        self.checkedOut = checkedOut
    }

    private static func add(gitDirectory: String, path: String, to checkedOut: inout [String: String]) {
        if let head = symbolicTarget(readTrimmed("\(gitDirectory)/HEAD")) { checkedOut[head] = path }
        // A rebase in progress holds its branch (rebase-apply without `applying` is a rebase).
        var rebaseHead: String?
        if FileSystem.exists("\(gitDirectory)/rebase-apply") {
            if !FileSystem.exists("\(gitDirectory)/rebase-apply/applying") {
                rebaseHead = readTrimmed("\(gitDirectory)/rebase-apply/head-name")
            }
        } else if FileSystem.exists("\(gitDirectory)/rebase-merge") {
            rebaseHead = readTrimmed("\(gitDirectory)/rebase-merge/head-name")
        }
        if let branch = branchName(rebaseHead) { checkedOut[branch] = path }
        if let branch = branchName(readTrimmed("\(gitDirectory)/BISECT_START")) { checkedOut[branch] = path }
        if let bytes = try? ConfigFiles.read("\(gitDirectory)/rebase-merge/update-refs") {
            let lines = bytes.split(separator: 0x0a, omittingEmptySubsequences: false).map {
                String(decoding: $0, as: UTF8.self)
            }
            var index = 0
            while index + 2 < lines.count {
                if lines[index].hasPrefix("refs/") { checkedOut[lines[index]] = path }
                index += 3
            }
        }
    }

    private static func readTrimmed(_ path: String) -> String? {
        guard let bytes = try? ConfigFiles.read(path, limit: 1 << 16) else { return nil }
        var text = bytes[...]
        while let last = text.last, GitCType.isSpace(last) { text = text.dropLast() }
        return String(decoding: text, as: UTF8.self)
    }

    private static func symbolicTarget(_ content: String?) -> String? {
        guard let content, content.hasPrefix("ref:") else { return nil }
        let target = content.dropFirst(4).drop { $0 == " " || $0 == "\t" }
        return target.hasPrefix("refs/heads/") ? String(target) : nil
    }

    /// A branch as rebase and bisect files name it: a full `refs/heads/` name, or a short one;
    /// nil for a detached state (an object id) or nothing.
    private static func branchName(_ content: String?) -> String? {
        guard let content, !content.isEmpty else { return nil }
        if content.hasPrefix("refs/heads/") { return content }
        if content.hasPrefix("refs/") || content.hasPrefix("detached") { return nil }
        for format in [ObjectFormat.sha1, .sha256] where content.utf8.count == format.hexCount {
            if ObjectID(hex: Array(content.utf8), format: format) != nil { return nil }
        }
        return "refs/heads/" + content
    }

    /// The work tree that has `branch` checked out, if one does.
    package func checkedOut(_ branch: String) -> String? { checkedOut[branch] }
}
