import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// One block of `gitwire ls-remote --batch`'s text output.
struct BatchBlock: Equatable, CustomStringConvertible {
    var url: String
    var body: String

    var description: String { "# \(url)\n\(body)" }

    /// Splits the output into blocks: `# <url>` line, lines up to an empty one.
    static func parse(_ text: String) -> [BatchBlock]? {
        var blocks: [BatchBlock] = []
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)[...]
        guard lines.last == "" else { return nil }
        lines.removeLast()
        while let header = lines.first {
            guard header.hasPrefix("# ") else { return nil }
            lines.removeFirst()
            var body = ""
            while let line = lines.first, !line.isEmpty {
                body += line + "\n"
                lines.removeFirst()
            }
            guard lines.first == "" else { return nil }
            lines.removeFirst()
            blocks.append(BatchBlock(url: String(header.dropFirst(2)), body: body))
        }
        return blocks
    }
}

/// A loopback port that accepts connections and resets each at once (`SO_LINGER` 0), counting
/// them.
final class ResettingServer: @unchecked Sendable {
    let port: Int
    private let accepted = Locked(0)
    private let listener: ListeningSocket

    init(lifetime: Duration = .seconds(300)) throws {
        listener = try ListeningSocket(host: "127.0.0.1")
        port = listener.address.port
        let deadline = ContinuousClock.now + lifetime
        Thread { [self] in
            while ContinuousClock.now < deadline {
                guard let pair = try? listener.accept(timeout: .milliseconds(200)) else { continue }
                accepted.withLock { $0 += 1 }
                pair.abort()
            }
        }.start()
    }

    /// Connections accepted so far.
    var connections: Int { accepted.withLock { $0 } }

    func url(_ path: String) -> String { "git://127.0.0.1:\(port)/\(path)" }
}

@Suite("ls-remote --batch")
struct BatchLsRemoteTests {
    static let repositories = BatchRepositories.shared

    /// URLs that fail, each its own way: nobody listening, a repository the daemon does not
    /// have, one the HTTP server does not have, an address gitwire cannot parse, a missing local
    /// repository.
    static let failing: [String] = {
        // Port 1 (tcpmux) has no listener on loopback: the connection is refused.
        let port = 1
        return [
            "git://127.0.0.1:\(port)/refused.git", repositories.daemon.url("no-such.git"),
            repositories.http.url("/git/no-such.git"), "foo://example.com/x.git",
            "file://\(repositories.basePath)/no-such.git",
        ]
    }()

    /// Every repository, with the failing URLs spread among them.
    static let mixed: [String] = {
        var urls = (0..<BatchRepositories.count).map(repositories.url)
        for (offset, url) in failing.enumerated() { urls.insert(url, at: 3 + offset * 29) }
        return urls
    }()

    /// The list file for `urls`, with comments, blank lines and surrounding blanks git users write.
    static func listFile(_ urls: [String], in directory: TemporaryDirectory, name: String = "urls") throws -> String {
        var text = "# repositories to watch\n\n"
        for (index, url) in urls.enumerated() {
            text += index % 10 == 4 ? "  \(url)\t\r\n" : "\(url)\n"
            if index % 17 == 0 { text += "   # a comment\n\n" }
        }
        let path = directory.appending(name)
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        return path
    }

    /// What each block should say: git's output for the URLs git can list; for the others (git
    /// fails on them too), what plain `gitwire ls-remote` says on standard error, its `fatal: `
    /// line as `error: `.
    static func expectedBlocks(_ urls: [String], options: [String] = [], patterns: [String] = [], version: Int = 2)
        throws -> [BatchBlock]
    {
        let outputs = try repositories.gitOutputs(
            urls.map { ["-c", "protocol.version=\(version)", "ls-remote"] + options + [$0] + patterns })
        return try zip(urls, outputs).map { url, output in
            if output.status == 0 { return BatchBlock(url: url, body: output.text) }
            let single = try gitwire(["ls-remote", "--protocol-version=\(version)"] + options + [url] + patterns)
            #expect(single.status == 128, "\(url)")
            // A local remote's git-upload-pack writes its own complaint first: in a batch it is
            // that remote's error, before gitwire's message (what follows the last `fatal: `, over
            // one or several lines).
            let lines = single.errorText.split(separator: "\n", omittingEmptySubsequences: false)
            let fatal = try #require(lines.lastIndex { $0.hasPrefix("fatal: ") }, "\(single.errorText)")
            var body = ""
            var program: [Substring] = []
            for line in lines[..<fatal] {
                if line.hasPrefix("remote: ") {
                    if !line.dropFirst("remote:".count).allSatisfy(\.isWhitespace) { body += line + "\n" }
                } else if !line.isEmpty {
                    program.append(line)
                }
            }
            let gitwireLines: [Substring] = [lines[fatal].dropFirst("fatal: ".count)] + lines[(fatal + 1)...]
            let message = Substring((program + gitwireLines).joined(separator: " "))
            body += "error: \(message.hasSuffix(" ") ? message.dropLast() : message)\n"
            return BatchBlock(url: url, body: body)
        }
    }

    /// Runs `gitwire ls-remote` with `arguments`, the list of URLs on standard input if given.
    static func lsRemote(_ arguments: [String], input: String? = nil) throws -> ProcessOutput {
        try run(
            [gitwireExecutable, "ls-remote"] + arguments, input: Array((input ?? "").utf8), check: false)
    }

    /// git's `ls-remote --symref` output as the refs `--json` should list: name, oid, peeled, symref.
    static func refsFromGit(_ text: String) -> [[String: String?]] {
        var refs: [[String: String?]] = []
        var symrefs: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: "\t", maxSplits: 1).map(String.init)
            if fields[0].hasPrefix("ref: ") {
                symrefs[fields[1]] = String(fields[0].dropFirst(5))
            } else if fields[1].hasSuffix("^{}") {
                refs[refs.count - 1]["peeled"] = fields[0]
            } else {
                refs.append(["name": fields[1], "oid": fields[0], "peeled": nil, "symref": symrefs[fields[1]]])
            }
        }
        return refs
    }

    /// A `--json` ref as the same dictionary (JSON null as nil).
    static func refFromJSON(_ object: Any) -> [String: String?] {
        let dictionary = object as? [String: Any] ?? [:]
        var ref: [String: String?] = [:]
        for key in ["name", "oid", "peeled", "symref"] { ref[key] = .some(dictionary[key] as? String) }
        return ref
    }

    // MARK: Command line

    @Test(arguments: [0, 2])
    func eachBlockIsWhatGitPrintsForThatRemote(version: Int) throws {
        let directory = try TemporaryDirectory()
        let list = try Self.listFile(Self.mixed, in: directory)
        let result = try Self.lsRemote(["--batch", list, "--protocol-version=\(version)"])
        #expect(result.status == 1)
        // What the missing local repository's git-upload-pack says is in that remote's block:
        // nothing appears on standard error unattributed.
        #expect(result.errorText == "")
        let blocks = try #require(BatchBlock.parse(result.text))
        let expected = try Self.expectedBlocks(Self.mixed, version: version)
        #expect(blocks.count == expected.count)
        for (block, wanted) in zip(blocks, expected) { #expect(block == wanted) }
        #expect(blocks.filter { $0.body.hasPrefix("error: ") }.count == Self.failing.count)
    }

    @Test(arguments: [
        (["--symref"], [String]()), (["--heads"], []), (["--tags", "--refs"], []),
        (["--symref", "--refs"], ["main", "v1*"]),
        ([], ["topic-*", "annotated"]),
    ])
    func optionsAndPatternsApplyToEachRemote(options: [String], patterns: [String]) throws {
        let urls = Array(Self.mixed.prefix(40))
        let directory = try TemporaryDirectory()
        let list = try Self.listFile(urls, in: directory)
        let result = try Self.lsRemote(options + ["--batch", list] + patterns)
        #expect(result.status == 1)
        let blocks = try #require(BatchBlock.parse(result.text))
        #expect(blocks == (try Self.expectedBlocks(urls, options: options, patterns: patterns)))
    }

    @Test func jsonLinesParseAndMatchGit() throws {
        let directory = try TemporaryDirectory()
        let list = try Self.listFile(Self.mixed, in: directory)
        let result = try Self.lsRemote(["--json", "--batch", list])
        #expect(result.status == 1)
        let lines = result.text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.last == "")
        let objects = try lines.dropLast().map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        #expect(objects.count == Self.mixed.count)
        let texts = try Self.expectedBlocks(Self.mixed)
        let gits = try Self.repositories.gitOutputs(Self.mixed.map { ["ls-remote", "--symref", $0] })
        for (index, object) in objects.enumerated() {
            let url = Self.mixed[index]
            #expect(object["url"] as? String == url)
            if gits[index].status == 0 {
                #expect(object["error"] == nil)
                let refs = (object["refs"] as? [Any] ?? []).map(Self.refFromJSON)
                #expect(refs == Self.refsFromGit(gits[index].text), "\(url)")
            } else {
                #expect(object["refs"] == nil)
                let error = object["error"] as? [String: Any] ?? [:]
                let kind = error["kind"] as? String
                #expect(kind.map { kind in GitWireErrorKind.allCases.contains { "\($0)" == kind } } == true, "\(url)")
                // The text form puts the message on one line.
                let message = (error["message"] as? String ?? "").replacingOccurrences(of: "\n", with: " ")
                #expect("error: \(message)" == texts[index].body.split(separator: "\n").last.map(String.init))
            }
        }
        let kinds = objects.compactMap { ($0["error"] as? [String: Any])?["kind"] as? String }
        // Refused, not exported by git daemon, HTTP 404, an unknown scheme, no such local path.
        #expect(kinds == ["connect", "notFound", "notFound", "usage", "notFound"])
    }

    @Test func jobsAndOrderChangeNothingButTheOrder() throws {
        let directory = try TemporaryDirectory()
        let list = try Self.listFile(Self.mixed, in: directory)
        let reference = try Self.lsRemote(["--batch", list])
        for arguments in [
            ["--jobs", "1"], ["--jobs=64"], ["--jobs-per-host=1"], ["-j", "7", "--jobs-per-host", "64"],
        ] {
            let result = try Self.lsRemote(arguments + ["--batch", list])
            #expect(result.status == 1)
            #expect(result.text == reference.text, "\(arguments)")
        }
        let unordered = try Self.lsRemote(["--completion-order", "--jobs=16", "--batch", list])
        #expect(unordered.status == 1)
        let blocks = try #require(BatchBlock.parse(unordered.text))
        let sorted = { (blocks: [BatchBlock]) in blocks.sorted { $0.description < $1.description } }
        #expect(sorted(blocks) == sorted(try #require(BatchBlock.parse(reference.text))))
    }

    @Test func readsTheListFromStandardInput() throws {
        let directory = try TemporaryDirectory()
        let list = try Self.listFile(Self.mixed, in: directory)
        let fromFile = try Self.lsRemote(["--batch", list, "--json"])
        let fromInput = try Self.lsRemote(
            ["--json", "--batch", "-"], input: try String(contentsOfFile: list, encoding: .utf8))
        #expect(fromInput.status == 1)
        #expect(fromInput.text == fromFile.text)
        #expect(!fromInput.text.isEmpty)
    }

    /// A list much longer than one read of it (64 KiB), lines split across reads: every URL is
    /// listed once, in order.
    @Test func aLongListStreamsThroughInOrder() throws {
        var urls: [String] = []
        for index in 0..<4000 {
            urls.append(
                index % 250 == 7
                    ? Self.repositories.url(index % BatchRepositories.count)
                    : "foo://host-\(index).example.com/some/longer/path/to/make/the/line/longer-\(index).git")
        }
        let result = try Self.lsRemote(["--batch", "-"], input: urls.joined(separator: "\n") + "\n")
        #expect(result.status == 1)
        let blocks = try #require(BatchBlock.parse(result.text))
        #expect(blocks.map(\.url) == urls)
        let listed = urls.enumerated().filter { $0.offset % 250 == 7 }.map(\.element)
        #expect(blocks.filter { !$0.url.hasPrefix("foo:") } == (try Self.expectedBlocks(listed)))
        for block in blocks where block.url.hasPrefix("foo:") {
            #expect(block.body == "error: unsupported URL scheme 'foo': \(block.url)\n")
        }
    }

    @Test func exitsZeroWhenEveryRemoteWasListed() throws {
        let urls = Self.mixed.filter { !Self.failing.contains($0) }.prefix(30)
        let result = try Self.lsRemote(["--batch", "-"], input: urls.joined(separator: "\n"))
        #expect(result.status == 0)
        #expect(try #require(BatchBlock.parse(result.text)) == (try Self.expectedBlocks(Array(urls))))
        let empty = try Self.lsRemote(["--batch", "-"], input: "# nothing yet\n\n   \n")
        #expect(empty.status == 0)
        #expect(empty.standardOutput.isEmpty && empty.standardError.isEmpty)
    }

    @Test(arguments: [
        (["--batch", "-", "--jobs", "0"], "fatal: --jobs takes a whole number from 1 to 1024, not '0'\n"),
        (["--batch", "-", "--jobs=1025"], "fatal: --jobs takes a whole number from 1 to 1024, not '1025'\n"),
        (["--batch", "-", "-j", "many"], "fatal: --jobs takes a whole number from 1 to 1024, not 'many'\n"),
        (
            ["--batch", "-", "--jobs-per-host=-1"],
            "fatal: --jobs-per-host takes a whole number from 1 to 1024, not '-1'\n"
        ),
        (["--batch", "-", "--exit-code"], "fatal: --exit-code cannot be used with --batch\n"),
        (["--batch", "-", "--get-url"], "fatal: --get-url cannot be used with --batch\n"),
        (["--batch", "-", "--record=x"], "fatal: --record cannot be used with --batch\n"),
        (["--json", "git://127.0.0.1/x.git"], "fatal: --json needs --batch\n"),
        (["--jobs=4", "git://127.0.0.1/x.git"], "fatal: --jobs needs --batch\n"),
        (["--batch", "/nonexistent/urls"], "fatal: could not read '/nonexistent/urls': No such file or directory\n"),
        (["--batch", "/"], "fatal: could not read '/': Is a directory\n"),
    ])
    func badOptionsAndUnreadableListsAreFatal(arguments: [String], message: String) throws {
        let result = try Self.lsRemote(arguments, input: Self.repositories.url(0) + "\n")
        #expect(result.status == 128)
        #expect(result.errorText == message)
        #expect(result.standardOutput.isEmpty)
    }

    @Test func aStallingRemoteTimesOutAloneAndTheOthersAreListed() throws {
        let stalling = try FakeGitServer([], connections: 1, lifetime: .seconds(300))
        let urls = [Self.repositories.url(1), stalling.url(), Self.repositories.url(2), Self.repositories.url(3)]
        // The timeout applies to every remote: long enough that a busy machine's git daemon answers
        // the others in time.
        let result = try Self.lsRemote(["--timeout=5", "--batch", "-"], input: urls.joined(separator: "\n") + "\n")
        #expect(result.status == 1)
        var expected = try Self.expectedBlocks(urls.filter { $0 != stalling.url() })
        expected.insert(
            BatchBlock(url: stalling.url(), body: "error: timed out after 5 s reading the ref advertisement\n"), at: 1)
        #expect(BatchBlock.parse(result.text) == expected)
        #expect(stalling.finish().first?.clientClosed == true)
    }

    @Test func resetConnectionsAreEachRemotesOwnErrorAndAreNotRetried() throws {
        let server = try ResettingServer()
        var urls: [String] = []
        for index in 0..<6 { urls += [server.url("reset-\(index).git"), Self.repositories.url(20 + index)] }
        let result = try Self.lsRemote(["--json", "--batch", "-"], input: urls.joined(separator: "\n"))
        #expect(result.status == 1)
        let objects = try result.text.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(objects.map { $0["url"] as? String } == urls)
        for (index, object) in objects.enumerated() {
            let error = object["error"] as? [String: Any]
            if index % 2 == 0 {
                // Reset while connecting or just after: either way this remote's own error.
                #expect(["connect", "connectionLost"].contains(error?["kind"] as? String), "\(object)")
                #expect((error?["message"] as? String)?.hasSuffix("Connection reset by peer") == true, "\(object)")
            } else {
                #expect(error == nil)
            }
        }
        #expect(server.connections == 6)
    }

    // MARK: Library

    /// The batch's default deadline, scaled for slow runs: under ThreadSanitizer on a loaded
    /// machine, listing one of the test repositories can take longer than 60 s.
    static let deadline = LsRemoteBatchOptions.defaultDeadline.scaledForSlowRuns

    @Test(.onTestThreads) func theAsyncSequenceHandsOutEveryRemoteInInputOrder() async throws {
        let urls = Array(Self.mixed.prefix(40))
        let expected = try Self.expectedBlocks(urls)
        var index = 0
        for await listing in Remote.lsRemoteBatch(urls, options: LsRemoteBatchOptions(jobs: 8, deadline: Self.deadline))
        {
            #expect(listing.index == index)
            #expect(listing.url == urls[index])
            switch listing.result {
            case .success(let refs):
                #expect(String(decoding: LsRemoteOutput.format(refs.refs), as: UTF8.self) == expected[index].body)
            case .failure(let error):
                #expect(error.base is any GitWireError)
                #expect(expected[index].body.hasSuffix("error: \(error)\n"))
            }
            index += 1
        }
        #expect(index == urls.count)
    }

    @Test(.onTestThreads) func cancellingTheConsumerClosesTheConnections() async throws {
        let stalling = try FakeGitServer([], connections: 2, lifetime: .seconds(300))
        let urls = [stalling.url(), stalling.url()]
        let task = Task(executorPreference: TestThreads.shared) {
            var count = 0
            // No deadline: only the cancellation ends the stalled listings (under ThreadSanitizer
            // the default one could run out before the request arrives).
            for await _ in Remote.lsRemoteBatch(urls, options: LsRemoteBatchOptions(deadline: nil)) { count += 1 }
            return count
        }
        #expect(await stalling.requestArrives())
        task.cancel()
        #expect(await task.value == 0)
        #expect(stalling.finish().allSatisfy { $0.clientClosed })

        // Leaving the loop early stops the rest.
        var seen = 0
        for await listing in Remote.lsRemoteBatch(
            Array(Self.mixed.prefix(30)), options: LsRemoteBatchOptions(jobs: 2, deadline: Self.deadline))
        {
            #expect(listing.index == seen)
            seen += 1
            if seen == 3 { break }
        }
        #expect(seen == 3)
    }

    @Test(arguments: [LsRemoteBatchOrdering.input, .completion])
    func theRunLoopFormReadsLazilyAndHoldsAtMostTheWindow(ordering: LsRemoteBatchOrdering) throws {
        let loop = try EpollRunLoop()
        let count = 40
        var pulled = 0
        var delivered: [Int] = []
        var completions = 0
        let urls = (0..<count).lazy.map { index in
            pulled += 1
            return Self.repositories.daemon.url("r\(index).git")
        }
        let options = LsRemoteBatchOptions(
            jobs: 4, jobsPerHost: 2, ordering: ordering, deadline: Self.deadline, window: 6)
        var batch: LsRemoteBatch?
        batch = LsRemoteBatch(options, in: loop) { listing in
            #expect((try? listing.result.get()) != nil)
            #expect(batch!.runningCount <= 2)
            #expect(pulled - delivered.count <= 6)
            delivered.append(listing.index)
        } completion: {
            completions += 1
            loop.stop()
        }
        batch!.start(urls)
        loop.run()
        #expect(completions == 1)
        #expect(pulled == count)
        if ordering == .input {
            #expect(delivered == Array(0..<count))
        } else {
            #expect(delivered.sorted() == Array(0..<count))
        }
    }

    /// Local remotes are each a `git-upload-pack` process on this machine: they share one
    /// server's jobs, however many jobs the batch has.
    @Test func localRemotesShareTheJobsOfOneServer() throws {
        let loop = try EpollRunLoop()
        let urls = (0..<12).map { "file://\(Self.repositories.basePath)/r\($0).git" }
        var mostRunning = 0
        var listed = 0
        var batch: LsRemoteBatch?
        batch = LsRemoteBatch(LsRemoteBatchOptions(jobs: 8, jobsPerHost: 2, deadline: Self.deadline), in: loop) {
            listing in
            #expect((try? listing.result.get()) != nil)
            listed += 1
        } completion: {
            loop.stop()
        }
        batch!.onNeedsInput = nil
        for url in urls {
            batch!.add(url)
            mostRunning = max(mostRunning, batch!.runningCount)
        }
        batch!.finishInput()
        loop.run()
        #expect(listed == urls.count)
        #expect(mostRunning == 2)
    }

    @Test func inCompletionOrderASlowRemoteComesLast() throws {
        let stalling = try FakeGitServer([], connections: 1, lifetime: .seconds(300))
        let loop = try EpollRunLoop()
        let urls = [stalling.url()] + (0..<5).map { Self.repositories.daemon.url("r\($0).git") }
        var order: [Int] = []
        let batch = LsRemoteBatch(
            LsRemoteBatchOptions(
                ordering: .completion, timeout: .seconds(5).scaledForSlowRuns, deadline: Self.deadline), in: loop
        ) {
            order.append($0.index)
        } completion: {
            loop.stop()
        }
        batch.start(urls)
        loop.run()
        #expect(order.count == 6)
        #expect(order.last == 0)
        #expect(stalling.finish().first?.clientClosed == true)
    }
}
