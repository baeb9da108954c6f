import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// A local repository to push from and a server repository to push to, restored from one
/// template before each push, so that git's push and gitwire's meet the same server state at
/// the same URL.
final class PushScenario: @unchecked Sendable {
    let directory: TemporaryDirectory
    /// The repository pushed from (a work tree; its objects partly packed, partly loose).
    let local: String
    /// Where the served repositories live (`served.git` in it).
    let root: String
    /// The repository each push's server starts from (copied to `served.git`).
    var template: String
    var served: String { "\(root)/served.git" }

    /// Repositories of `objectFormat` (git's name; nil: git's default, SHA-1).
    init(objectFormat: String? = nil) throws {
        let formatOption = objectFormat.map { ["--object-format=\($0)"] } ?? []
        directory = try TemporaryDirectory(prefix: "gitwire-push")
        local = directory.appending("local")
        root = directory.appending("root")
        template = directory.appending("template.git")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try git(["init", "--quiet", "--initial-branch=main"] + formatOption + [local])
        for index in 1...12 {
            try commit(index)
            if index == 9 { try git(["repack", "-adq"], in: local) }
        }
        try git(["branch", "feature", "main~2"], in: local)
        try git(["tag", "-a", "-m", "one", "v1", "main~5"], in: local)
        try git(["tag", "light", "main~7"], in: local)
        try git(["init", "--quiet", "--bare", "--initial-branch=main"] + formatOption + [template])
        try git(["config", "receive.advertisePushOptions", "true"], in: template)
        try git(["config", "http.receivepack", "true"], in: template)
        try git(
            ["push", "--quiet", template, "main~4:refs/heads/main", "main~6:refs/heads/old", "main~4:refs/heads/gone"],
            in: local)
    }

    /// The local repository's `origin` remote-tracking refs as a fetch from the template sets
    /// them, with `origin/main` moved back (stale) so that leases by default see it out of date.
    func trackOrigin() throws {
        for line in try git(["for-each-ref", "--format=%(refname)", "refs/remotes"], in: local).text.split(
            separator: "\n")
        {
            try git(["update-ref", "-d", String(line)], in: local)
        }
        for line in try git(["for-each-ref", "--format=%(objectname) %(refname)", "refs/heads"], in: template).text
            .split(separator: "\n")
        {
            let parts = line.split(separator: " ")
            let name = "refs/remotes/origin/" + parts[1].dropFirst("refs/heads/".count)
            try git(["update-ref", name, String(parts[0])], in: local)
        }
        try git(["update-ref", "refs/remotes/origin/main", "main~7"], in: local)
    }

    func commit(_ index: Int) throws {
        let text = (0..<(index * 3)).map { "line \($0 % 11) of file \(index % 4)\n" }.joined()
        try text.write(toFile: "\(local)/file\(index % 4).txt", atomically: true, encoding: .utf8)
        try git(["add", "."], in: local)
        try git(
            ["commit", "--quiet", "-m", "commit \(index)"], in: local,
            environment: ["GIT_COMMITTER_DATE": "\(1_700_000_000 + index * 60) +0000"])
    }

    /// Installs `hook` (a shell script body) in the template.
    func hook(_ name: String, _ body: String) throws {
        let path = "\(template)/hooks/\(name)"
        try "#!/bin/sh\n\(body)\n".write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
    }

    func reset() throws {
        try? FileManager.default.removeItem(atPath: served)
        try run(["cp", "-a", template, served])
    }

    /// The served repository's refs, and whether `git fsck --full --strict` passes there.
    func serverState() throws -> (refs: String, fsck: Int32) {
        let refs = try git(["for-each-ref", "--format=%(objectname) %(refname)"], in: served).text
        let fsck = try git(["fsck", "--full", "--strict", "--no-dangling"], in: served, check: false).status
        return (refs, fsck)
    }

    /// Pushes with git, then (on a fresh copy) with gitwire, with `arguments` (options, the URL,
    /// refspecs); expects the same output, exit status and server refs, and a server fsck clean.
    /// `prepare` runs before each push (in the local repository: its remote-tracking refs and
    /// configuration as the case needs them); the local remote-tracking refs after each push are
    /// compared too. `pusher`, when given, is the repository pushed from instead of `local`.
    ///
    /// `gitDies`: git's push dies before its receive-pack has ended, which then writes on the
    /// same standard error after git exited (as a terminal shows it); git's standard error is
    /// then read to its end, not only to git's exit.
    func expectSameAsGit(
        _ arguments: [String], environment: [String: String] = [:], from pusher: String? = nil, gitDies: Bool = false,
        prepare: () throws -> Void = {}, inspect: () throws -> Void = {}
    ) throws {
        let local = pusher ?? self.local
        try reset()
        try prepare()
        let fromGit =
            gitDies
            ? try gitReadToTheEnd(["push"] + arguments, in: local, environment: environment)
            : try git(["push"] + arguments, in: local, environment: environment, check: false)
        let gitState = try serverState()
        let gitTracking = try localTracking(local)
        try inspect()
        try reset()
        try prepare()
        let fromGitwire = try gitwire(
            ["push"] + arguments, in: local, environment: reproducibleGitEnvironment.merging(environment) { $1 })
        let state = try serverState()
        try inspect()
        #expect(try localTracking(local) == gitTracking, "\(arguments)")
        // git 2.39 passes the server's control characters through; gitwire masks them.
        let gitError = String(decoding: maskedControls(fromGit.standardError), as: UTF8.self)
        #expect(fromGitwire.errorText == gitError, "\(arguments)")
        #expect(fromGitwire.text == fromGit.text, "\(arguments)")
        #expect(fromGitwire.status == fromGit.status, "\(arguments)")
        #expect(state.refs == gitState.refs, "\(arguments)")
        #expect(state.fsck == 0, "\(arguments)")
    }

    /// git run through a shell that reads its standard error to the end (a pipe's end: every
    /// process holding it, git's children too, has exited), then exits with git's status.
    func gitReadToTheEnd(
        _ arguments: [String], in directory: String, environment: [String: String]
    ) throws -> ProcessOutput {
        let script = """
            exec 3>&1
            { git "$@" 2>&1 1>&3 3>&-; echo $? >"$GITWIRE_TEST_STATUS"; } | cat >&2
            exit "$(cat "$GITWIRE_TEST_STATUS")"
            """
        let status = self.directory.appending("git-status")
        return try run(
            ["sh", "-c", script, "sh"] + arguments, in: directory,
            environment: reproducibleGitEnvironment.merging(environment) { $1 }.merging(["GITWIRE_TEST_STATUS": status])
            {
                $1
            }, check: false)
    }

    /// The remote-tracking refs of the local repository (or of `repository`).
    func localTracking(_ repository: String? = nil) throws -> String {
        try git(["for-each-ref", "--format=%(objectname) %(refname)", "refs/remotes"], in: repository ?? local).text
    }

    func maskedControls(_ bytes: [UInt8]) -> [UInt8] {
        bytes.map { ($0 < 0x20 && $0 != 0x0a && $0 != 0x09) || $0 == 0x7f ? UInt8(ascii: "?") : $0 }
    }
}
