import Foundation
import GitWire
import GitWireTestSupport

/// Many small bare repositories, each with refs of its own (a `main` branch, a topic branch, a
/// lightweight and an annotated tag, all at different commits), sharing one object store through
/// `objects/info/alternates`; served by one `git daemon` (with `--max-connections` raised) and
/// one `git http-backend` server, and reachable as local paths. Built once per test process.
final class BatchRepositories: @unchecked Sendable {
    /// How many repositories there are: `r0.git` … `r<count-1>.git`.
    static let count = 130
    /// The directory holding them (the servers' root).
    let basePath: String
    let daemon: GitDaemon
    let http: HTTPServer
    private let directory: TemporaryDirectory
    private let expected = Locked<[String: ProcessOutput]>([:])

    static let shared: BatchRepositories = {
        do {
            return try BatchRepositories()
        } catch {
            fatalError("cannot build the batch test repositories: \(error)")
        }
    }()

    private init() throws {
        directory = try TemporaryDirectory(prefix: "gitwire-batch")
        basePath = directory.path
        let seed = directory.appending("seed.git")
        try git(["init", "--quiet", "--bare", "--initial-branch=main", seed])
        var input = ""
        for index in 0...Self.count {
            let content = "content \(index)\n"
            input += "blob\nmark :\(index * 3 + 1)\ndata \(content.utf8.count)\n\(content)\n"
            input += "commit refs/heads/main\nmark :\(index * 3 + 2)\n"
            input += "author A U Thor <author@example.com> \(1_700_000_000 + index) +0000\n"
            input += "committer C O Mitter <committer@example.com> \(1_700_000_000 + index) +0000\n"
            input += "data 9\ncommit \(index % 10)\n"
            if index > 0 { input += "from :\(index * 3 - 1)\n" }
            input += "M 100644 :\(index * 3 + 1) file.txt\n\n"
            input += "tag release-\(index)\nfrom :\(index * 3 + 2)\n"
            input += "tagger C O Mitter <committer@example.com> \(1_700_100_000 + index) +0000\ndata 8\nrelease\n\n"
        }
        let marks = directory.appending("marks")
        try git(["fast-import", "--quiet", "--export-marks=\(marks)"], in: seed, input: Array(input.utf8))
        var commits: [Int: String] = [:]
        for line in try String(contentsOfFile: marks, encoding: .utf8).split(separator: "\n") {
            let fields = line.split(separator: " ")
            if let mark = Int(fields[0].dropFirst()), mark % 3 == 2 { commits[(mark - 2) / 3] = String(fields[1]) }
        }
        var tags: [Int: String] = [:]
        for line in try gitText(["for-each-ref", "--format=%(refname:strip=2) %(objectname)", "refs/tags"], in: seed)
            .split(separator: "\n")
        {
            let fields = line.split(separator: " ")
            if let index = Int(fields[0].dropFirst("release-".count)) { tags[index] = String(fields[1]) }
        }
        let manager = FileManager.default
        for index in 0..<Self.count {
            let path = directory.appending("r\(index).git")
            for folder in ["objects/info", "objects/pack", "refs/heads", "refs/tags"] {
                try manager.createDirectory(atPath: "\(path)/\(folder)", withIntermediateDirectories: true)
            }
            try "ref: refs/heads/main\n".write(toFile: "\(path)/HEAD", atomically: false, encoding: .utf8)
            try "[core]\n\trepositoryformatversion = 0\n\tbare = true\n".write(
                toFile: "\(path)/config", atomically: false, encoding: .utf8)
            try "\(seed)/objects\n".write(toFile: "\(path)/objects/info/alternates", atomically: false, encoding: .utf8)
            var refs = [
                ("refs/heads/main", commits[index]!, nil as String?),
                ("refs/heads/topic-\(index % 7)", commits[index + 1]!, nil),
                ("refs/tags/v\(index)", commits[(index * 7) % Self.count]!, nil),
                ("refs/tags/annotated", tags[index]!, commits[index]!),
            ]
            refs.sort { $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) }
            var packed = "# pack-refs with: peeled fully-peeled sorted \n"
            for (name, id, peeled) in refs {
                packed += "\(id) \(name)\n"
                if let peeled { packed += "^\(peeled)\n" }
            }
            try packed.write(toFile: "\(path)/packed-refs", atomically: false, encoding: .utf8)
        }
        daemon = try GitDaemon(basePath: basePath, extraArguments: ["--max-connections=512"])
        http = try HTTPServer(root: basePath)
    }

    /// `r<index>.git` over git://, file:// and http:// in turn.
    func url(_ index: Int) -> String {
        switch index % 13 {
        case 5: return "file://\(basePath)/r\(index).git"
        case 9: return http.url("/git/r\(index).git")
        case 11: return "\(basePath)/r\(index).git"
        default: return daemon.url("r\(index).git")
        }
    }

    /// What `git <arguments>` prints (run once per argument list, then remembered).
    func gitOutput(_ arguments: [String]) throws -> ProcessOutput {
        let key = arguments.joined(separator: "\u{0}")
        if let known = expected.withLock({ $0[key] }) { return known }
        let output = try git(arguments, check: false)
        expected.withLock { $0[key] = output }
        return output
    }

    /// ``gitOutput(_:)`` for many argument lists, four at a time.
    func gitOutputs(_ argumentLists: [[String]]) throws -> [ProcessOutput] {
        let results = Locked<[Int: Result<ProcessOutput, any Error>]>([:])
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            for index in stride(from: worker, to: argumentLists.count, by: 4) {
                let result = Result { try gitOutput(argumentLists[index]) }
                results.withLock { $0[index] = result }
            }
        }
        return try results.withLock { results in try (0..<argumentLists.count).map { try results[$0]!.get() } }
    }
}
