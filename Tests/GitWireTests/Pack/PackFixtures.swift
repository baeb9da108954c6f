import Foundation
import GitWire
import GitWireTestSupport

/// A bare repository made with `git fast-import`: 300 commits of evolving text (one file grows a
/// line per commit, so delta chains get deep), a binary file, an empty blob, a 1.5 MiB blob changed
/// once, nested trees and an annotated tag every ten commits. Built once and shared by all tests.
final class FixtureRepository: Sendable {
    static let shared: FixtureRepository = try! FixtureRepository()

    let directory: TemporaryDirectory
    /// The bare repository's path.
    let path: String

    private init() throws {
        directory = try TemporaryDirectory(prefix: "gitwire-pack-fixture")
        path = directory.appending("repo.git")
        try git(["init", "-q", "--bare", "-b", "main", path])
        try git(["fast-import", "--quiet"], in: path, input: Self.fastImportStream())
    }

    /// The pack `git pack-objects --revs` writes with `arguments` for the objects reachable from
    /// `revisions` (all references when nil), as bytes.
    func pack(_ arguments: [String], revisions: [String]? = nil) throws -> [UInt8] {
        let input = revisions.map { Array(($0.joined(separator: "\n") + "\n").utf8) } ?? []
        let all = revisions == nil ? ["--all"] : []
        return try git(["pack-objects", "--revs", "--stdout", "-q"] + all + arguments, in: path, input: input)
            .standardOutput
    }

    private static func fastImportStream() -> [UInt8] {
        var stream: [UInt8] = []
        var mark = 0
        func blob(_ data: [UInt8]) -> Int {
            mark += 1
            stream += Array("blob\nmark :\(mark)\ndata \(data.count)\n".utf8) + data + [10]
            return mark
        }
        var random = SeededRandom(seed: 42)
        let bigBase = random.bytes(1_572_864)
        var binary = random.bytes(65_536)
        var growing = ""
        var texts = (0..<6).map { file in (0..<120).map { "file \(file) line \($0)\n" }.joined() }
        var previous: Int?
        for number in 1...300 {
            growing += "commit \(number): \(String(repeating: "x", count: number % 17))\n"
            var files: [(String, Int)] = [("log.txt", blob(Array(growing.utf8)))]
            if number % 3 == 0 {
                let file = number % texts.count
                texts[file] = texts[file].replacingOccurrences(
                    of: "line \(number % 120)\n", with: "line \(number % 120) edited in \(number)\n")
            }
            if number % 10 == 1 || number == 300 {
                for (index, text) in texts.enumerated() {
                    files.append(("src/deep/dir\(index % 2)/file\(index).txt", blob(Array(text.utf8))))
                }
            }
            if number % 25 == 0 {
                for _ in 0..<64 {
                    binary[Int(random.next() % UInt64(binary.count))] = UInt8(truncatingIfNeeded: random.next())
                }
                files.append(("bin/data.bin", blob(binary)))
            }
            if number == 1 {
                files.append(("empty", blob([])))
                files.append(("big/blob.bin", blob(bigBase)))
            }
            if number == 150 {
                var changed = bigBase
                for index in stride(from: 1000, to: changed.count, by: 100_003) { changed[index] ^= 0xff }
                files.append(("big/blob.bin", blob(changed)))
            }
            mark += 1
            let message = Array("commit \(number)\n".utf8)
            stream += Array("commit refs/heads/main\nmark :\(mark)\n".utf8)
            stream += Array("committer C O Mitter <committer@example.com> \(1_700_000_000 + number) +0000\n".utf8)
            stream += Array("data \(message.count)\n".utf8) + message
            if let previous { stream += Array("from :\(previous)\n".utf8) }
            for (file, blobMark) in files { stream += Array("M 100644 :\(blobMark) \(file)\n".utf8) }
            stream += [10]
            previous = mark
            if number % 10 == 0 {
                let tagMessage = Array("release \(number)\n".utf8)
                stream += Array("tag v\(number)\nfrom :\(mark)\n".utf8)
                stream += Array("tagger T Agger <tagger@example.com> \(1_700_000_000 + number) +0000\n".utf8)
                stream += Array("data \(tagMessage.count)\n".utf8) + tagMessage + [10]
            }
        }
        return stream
    }
}

/// A small deterministic pseudo-random generator (SplitMix64).
struct SeededRandom {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var value = state
        value = (value ^ (value >> 30)) &* 0xbf58_476d_1ce4_e5b9
        value = (value ^ (value >> 27)) &* 0x94d0_49bb_1331_11eb
        return value ^ (value >> 31)
    }

    mutating func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8(truncatingIfNeeded: next()) } }
}

/// Writes `bytes` to `path`.
func writeFile(_ path: String, _ bytes: [UInt8]) throws {
    try Data(bytes).write(to: URL(fileURLWithPath: path))
}

/// Reads the file at `path`.
func readFile(_ path: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }

/// The `.idx` git writes for `pack` (`git index-pack` on a copy in `directory`), and the copy's path.
func gitIndex(of pack: [UInt8], in directory: TemporaryDirectory, name: String = "git", arguments: [String] = [])
    throws -> [UInt8]
{
    let path = directory.appending("\(name).pack")
    try writeFile(path, pack)
    try git(["index-pack"] + arguments + [path], in: directory.path)
    return try readFile(directory.appending("\(name).idx"))
}

/// Replaces the pack's trailing checksum with the SHA-1 of everything before it.
func rehashed(_ pack: [UInt8]) -> [UInt8] {
    var body = Array(pack.dropLast(20))
    UncheckedSHA1.hash(body[...]).append(to: &body)
    return body
}

/// The names of the files in `directory`, sorted.
func fileNames(in directory: TemporaryDirectory) throws -> [String] { try fileNames(inDirectory: directory.path) }

/// The names of the files in the directory at `path`, sorted.
func fileNames(inDirectory path: String) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: path).sorted()
}
