import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// git's words where git has them, compared byte for byte: a `--filter` a server does not
/// allow (a warning, then the whole history), side-band 3 (`remote: <message>`, a NUL as git
/// writes it), and abbreviations as long as git's in a repository of more than 16,384 objects.
@Suite("fetch and clone messages")
struct FetchMessagesTests {
    /// `git daemon` (by default) does not allow filters: git warns and clones everything.
    @Test(arguments: [0, 2], [true, false])
    func filterTheServerDoesNotAllow(version: Int, bare: Bool) throws {
        let directory = try TemporaryDirectory()
        let source = directory.appending("served/source.git")
        try git(["init", "-q", "--bare", "-b", "main", source])
        let work = directory.appending("work")
        try git(["clone", "-q", source, work])
        try "content\n".write(toFile: "\(work)/file", atomically: true, encoding: .utf8)
        try git(["add", "file"], in: work)
        try git(["commit", "-q", "-m", "one"], in: work)
        try git(["push", "-q", "origin", "main"], in: work)
        let daemon = try GitDaemon(basePath: directory.appending("served"))
        let url = daemon.url("source.git")
        let mode = bare ? ["--bare"] : []
        let theirs = try git(
            ["-c", "protocol.version=\(version)", "clone"] + mode + ["--filter=blob:none", url, "theirs"],
            in: directory.path)
        let ours = try gitwire(
            ["clone", "--protocol-version=\(version)"] + mode + ["--filter=blob:none", url, "ours"],
            in: directory.path, environment: reproducibleGitEnvironment)
        #expect(ours.status == 0, "\(ours.errorText)")
        let theirText = theirs.errorText.replacingOccurrences(of: "theirs", with: "<dir>")
        #expect(ours.errorText.replacingOccurrences(of: "ours", with: "<dir>") == theirText)
        #expect(theirText.contains("warning: filtering not recognized by server, ignoring\n"))
        let suffix = bare ? "" : "/.git"
        #expect(
            try gitText(["config", "--list", "--local"], in: directory.appending("ours\(suffix)"))
                == gitText(["config", "--list", "--local"], in: directory.appending("theirs\(suffix)")))
        #expect(
            try gitText(["for-each-ref"], in: directory.appending("ours\(suffix)"))
                == gitText(["for-each-ref"], in: directory.appending("theirs\(suffix)")))
        // Every object came: the blob is there without a lazy fetch.
        let blob = try gitText(["rev-parse", "main:file"], in: directory.appending("theirs\(suffix)"))
        #expect(
            try git(
                ["-c", "fetch.negotiationAlgorithm=noop", "cat-file", "-e", blob],
                in: directory.appending("ours\(suffix)"), environment: ["GIT_NO_LAZY_FETCH": "1"]
            ).status == 0)
        try git(["fsck", "--no-dangling"], in: directory.appending("ours\(suffix)"))
    }

    /// Where a side-band 3 message cuts the pack short, and how git reads it.
    enum BandThreeCase: String, CaseIterable, CustomTestStringConvertible, Sendable {
        /// Before any pack byte: fetch-pack cannot read the header.
        case fetchBeforePack
        /// Five bytes: still no whole header.
        case fetchInHeader
        /// After the header, a pack under the unpack limit: unpack-objects stops.
        case fetchAfterHeader
        /// `fetch.unpackLimit=1`: index-pack keeps it, and never names it.
        case fetchOverUnpackLimit
        /// `transfer.fsckObjects`: index-pack checks a small pack without keeping it.
        case fetchChecked
        /// `fetch -k`: kept without reading the header first.
        case fetchKeep
        /// A clone keeps the pack: the same words before and after the header.
        case cloneBeforePack
        case cloneAfterHeader

        var testDescription: String { rawValue }
        var packBytes: Int {
            switch self {
            case .fetchBeforePack, .cloneBeforePack: 0
            case .fetchInHeader: 5
            default: 12
            }
        }
        var configuration: [String] {
            switch self {
            case .fetchOverUnpackLimit: ["fetch.unpackLimit", "1"]
            case .fetchChecked: ["transfer.fsckObjects", "true"]
            default: []
            }
        }
        /// git 2.39.5's last line, to know each case meets the reader it means to.
        var gitLastLine: String {
            switch self {
            case .fetchBeforePack, .fetchInHeader: "fatal: protocol error: bad pack header"
            case .fetchAfterHeader: "fatal: unpack-objects failed"
            case .fetchChecked: "fatal: index-pack failed"
            default: "fatal: fetch-pack: invalid index-pack output"
            }
        }
    }

    /// Side-band 3 as git shows it: `remote: <message>` (its NUL written as it came, not as
    /// `?`, and the newline git adds), then git's fatal lines, which depend on where the pack
    /// stopped and which of git's pack readers would have read it; for fetch and clone, v0 and v2.
    @Test(arguments: [0, 2], BandThreeCase.allCases)
    func bandThreeAsGitShowsIt(version: Int, cut: BandThreeCase) throws {
        let directory = try TemporaryDirectory()
        let source = directory.appending("source")
        try git(["init", "-q", "-b", "main", source])
        try git(["commit", "-q", "--allow-empty", "-m", "one"], in: source)
        var rules = UploadPackProxy.Rules()
        rules.cutPack = .init(bytes: cut.packBytes, packets: ["\u{3}upload-pack: out of memory\u{0}"])
        let proxy = try UploadPackProxy(rules, in: directory)
        var outputs: [ProcessOutput] = []
        for side in ["theirs", "ours"] {
            let repository = directory.appending("\(side).git")
            try git(["init", "-q", "--bare", repository])
            if !cut.configuration.isEmpty { try git(["config"] + cut.configuration, in: repository) }
            let arguments: [String]
            if cut.rawValue.hasPrefix("clone") {
                arguments = ["clone", "--bare", "--upload-pack=\(proxy.command)", "file://\(source)", "c"]
            } else {
                arguments =
                    ["fetch"] + (cut == .fetchKeep ? ["-k"] : []) + ["--upload-pack=\(proxy.command)", source, "main"]
            }
            if side == "theirs" {
                outputs.append(
                    try git(["-c", "protocol.version=\(version)"] + arguments, in: repository, check: false))
            } else {
                outputs.append(
                    try gitwire(
                        [arguments[0], "--protocol-version=\(version)"] + arguments.dropFirst(), in: repository))
            }
        }
        let (theirs, ours) = (outputs[0], outputs[1])
        #expect(theirs.status == 128)
        #expect(ours.status == theirs.status)
        #expect(
            Self.withoutProxyNoise(ours.standardError) == Self.withoutProxyNoise(theirs.standardError),
            "\(ours.errorText)")
        #expect(theirs.standardError.contains(0))
        #expect(theirs.errorText.hasSuffix("\(cut.gitLastLine)\n"), "\(theirs.errorText)")
        #expect(!FileManager.default.fileExists(atPath: directory.appending("ours.git/c")))
        #expect(try gitText(["for-each-ref"], in: directory.appending("ours.git")).isEmpty)
    }

    /// The last progress lines as git's progress.c writes them: the size and the rate over the
    /// whole transfer, even when it took less than half a second, sizes humanised as git rounds
    /// them (bytes, KiB, MiB); the rate, which depends on timing, is compared by its form. A
    /// clone's index-pack measures nothing for a pack that fits in its first 4 KiB read; a
    /// fetch of fewer than 100 objects is git's `Unpacking objects` (measured without the
    /// checksum), with no `Resolving deltas`.
    @Test(arguments: [0, 40_000, 1_500_000])
    func lastProgressLinesAsGitShowsThem(contentBytes: Int) throws {
        let directory = try TemporaryDirectory()
        let source = directory.appending("source")
        try git(["init", "-q", "-b", "main", source])
        var state = UInt64(contentBytes) &+ 0x9e37_79b9_7f4a_7c15
        func randomBytes() -> Data {
            var content: [UInt8] = []
            content.reserveCapacity(contentBytes)
            for _ in 0..<contentBytes {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                content.append(UInt8(truncatingIfNeeded: state >> 33))
            }
            return Data(content)
        }
        try randomBytes().write(to: URL(fileURLWithPath: "\(source)/data"))
        // A text that the second commit changes a little: a delta in the clone's pack.
        let lines = (0..<400).map { "line \($0) of a text long enough to be stored as a delta\n" }.joined()
        try lines.write(toFile: "\(source)/text", atomically: true, encoding: .utf8)
        try git(["add", "."], in: source)
        try git(["commit", "-q", "-m", "one"], in: source)
        try (lines + "two\n").write(toFile: "\(source)/text", atomically: true, encoding: .utf8)
        try git(["commit", "-q", "-am", "two"], in: source)
        func finals(_ output: ProcessOutput) -> [String] {
            let lines = (output.errorText + output.text).split { $0 == "\r" || $0 == "\n" || $0 == "\r\n" }
            return lines.map(String.init).filter {
                $0.hasSuffix(", done.") && !$0.hasPrefix("remote: ")
            }.map {
                $0.replacing(/\| \d+(\.\d\d)? (bytes?|KiB|MiB|GiB)\/s,/, with: "| <rate>,")
            }
        }
        let url = "file://\(source)"
        let theirClone = try git(["clone", "--bare", "--progress", url, "theirs"], in: directory.path)
        let ourClone = try gitwire(["clone", "--bare", "--progress", url, "ours"], in: directory.path)
        #expect(ourClone.status == 0, "\(ourClone.errorText)")
        #expect(finals(theirClone).first?.hasPrefix("Receiving objects: 100% (") == true)
        // index-pack shows the resolving phase at zero before its first delta.
        func firstResolving(_ output: ProcessOutput) -> String? {
            output.errorText.split { $0 == "\r" || $0 == "\n" }.first { $0.hasPrefix("Resolving deltas:") }.map(
                String.init)
        }
        #expect(firstResolving(theirClone)?.hasPrefix("Resolving deltas:   0% (0/") == true, "\(theirClone.errorText)")
        #expect(firstResolving(ourClone) == firstResolving(theirClone))
        if contentBytes > 0 {
            #expect(finals(ourClone) == finals(theirClone), "\(ourClone.errorText)")
            #expect(finals(theirClone).first?.contains("| <rate>, done.") == true, "\(theirClone.errorText)")
        } else {
            // A pack within index-pack's first 4 KiB read: git measures it only when it came
            // in two reads, which depends on timing; gitwire never does.
            #expect(
                finals(ourClone)
                    == finals(theirClone).map { $0.replacing(/, \d+(\.\d\d)? (bytes?|KiB) \| <rate>/, with: "") },
                "\(ourClone.errorText)")
            #expect(!ourClone.errorText.contains(" | "))
        }

        func commit(_ message: String) throws {
            try randomBytes().write(to: URL(fileURLWithPath: "\(source)/data"))
            try "\(message)\n".write(toFile: "\(source)/text", atomically: true, encoding: .utf8)
            try git(["commit", "-q", "-am", message], in: source)
        }
        try commit("three")
        // Without a terminal git's unpack-objects shows nothing, --progress or not; on one it
        // shows its line.
        let refspec = "+refs/heads/*:refs/heads/*"
        let theirFetch = try git(["fetch", "--progress", url, refspec], in: directory.appending("theirs"))
        let ourFetch = try gitwire(["fetch", "--progress", url, refspec], in: directory.appending("ours"))
        #expect(ourFetch.status == 0, "\(ourFetch.errorText)")
        #expect(ourFetch.errorText == theirFetch.errorText)
        #expect(!theirFetch.errorText.contains("Unpacking objects"))
        try commit("four")
        func onTerminal(_ command: [String], in path: String) throws -> ProcessOutput {
            let line = command.map { "'\($0)'" }.joined(separator: " ")
            return try run(
                ["script", "-qec", line, "/dev/null"], in: path, environment: reproducibleGitEnvironment, check: false)
        }
        let theirTerminalFetch = try onTerminal(["git", "fetch", url, refspec], in: directory.appending("theirs"))
        let ourTerminalFetch = try onTerminal(
            [gitwireExecutable, "fetch", url, refspec], in: directory.appending("ours"))
        #expect(ourTerminalFetch.status == 0, "\(ourTerminalFetch.text)")
        #expect(finals(ourTerminalFetch) == finals(theirTerminalFetch), "\(ourTerminalFetch.text)")
        #expect(finals(theirTerminalFetch).count == 1, "\(theirTerminalFetch.text)")
        #expect(finals(theirTerminalFetch).first?.hasPrefix("Unpacking objects: 100% (") == true)
        #expect(finals(theirTerminalFetch).first?.contains("| <rate>, done.") == true)
    }

    /// Standard error without what the proxy's Python prints when the client hangs up on it
    /// (its traceback lands anywhere among the lines).
    static func withoutProxyNoise(_ bytes: [UInt8]) -> [UInt8] {
        var kept: [UInt8] = []
        var skipping = false
        for line in bytes.split(separator: 0x0a, omittingEmptySubsequences: false) {
            let text = String(decoding: line, as: UTF8.self)
            if text.hasPrefix("Traceback (most recent call last):") { skipping = true }
            if !skipping { kept += line + [0x0a] }
            if skipping && !text.hasPrefix(" ") && text.contains("Error") { skipping = false }
        }
        return kept
    }

    /// In a repository of more than 2^14 objects git abbreviates to 8 digits and widens the
    /// summary column to fit; the report is the same.
    @Test func abbreviationsGrowWithTheRepository() throws {
        let directory = try TemporaryDirectory()
        let source = directory.appending("source")
        try git(["init", "-q", "-b", "main", source])
        var input = ""
        for index in 0..<17_000 {
            let content = "blob \(index)\n"
            input += "blob\nmark :\(index + 1)\ndata \(content.utf8.count)\n\(content)\n"
        }
        input += "commit refs/heads/main\ncommitter C O Mitter <committer@example.com> 1700000000 +0000\ndata 4\nbig\n"
        for index in 0..<17_000 { input += "M 100644 :\(index + 1) file-\(index)\n" }
        input += "\n"
        try git(["fast-import", "--quiet"], in: source, input: Array(input.utf8))
        try git(["clone", "-q", "--no-local", source, directory.appending("template")])
        try git(["commit", "-q", "--allow-empty", "-m", "next"], in: source)
        try git(["branch", "other"], in: source)
        try git(["tag", "-a", "v1", "-m", "v1"], in: source)
        for side in ["theirs", "ours"] {
            try run(["cp", "-a", directory.appending("template"), directory.appending(side)])
        }
        let theirs = try git(["fetch"], in: directory.appending("theirs"))
        let ours = try gitwire(["fetch"], in: directory.appending("ours"), environment: reproducibleGitEnvironment)
        #expect(ours.status == 0)
        #expect(ours.errorText == theirs.errorText)
        #expect(theirs.errorText.contains(".."))
        let line = theirs.errorText.split(separator: "\n").first { $0.contains("..") }.map(String.init) ?? ""
        #expect(line.split(separator: " ").first { $0.contains("..") }?.count == 8 + 2 + 8, "\(line)")
    }
}
