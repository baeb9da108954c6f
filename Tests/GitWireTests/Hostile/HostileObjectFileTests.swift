import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// Files planted among a repository's objects, or a reference repository's, that are not what
/// their names say: a named pipe where a pack is (git's `add_packed_git` takes only regular
/// files, so git never opens it; gitwire waited for ever for a writer), and, in a `clone
/// --reference <hostile> --dissociate`, loose "objects" that are a symbolic link to a private
/// file or a named pipe (git's repack copies only the objects it needs, read as objects; gitwire
/// copied every file of the reference's object folders into the clone, read-only for everyone,
/// a private key included, and hung on the pipe). Each gitwire run is bounded by `timeout`.
@Suite struct HostileObjectFileTests {
    /// A repository `src` of three commits, a bare clone `ref.git` of it, then a fourth commit
    /// in `src` (so a clone borrowing from `ref.git` fetches something).
    static func repositories(_ directory: TemporaryDirectory) throws -> (source: String, reference: String) {
        let source = directory.appending("src")
        let reference = directory.appending("ref.git")
        try git(["init", "--quiet", "--initial-branch=main", source])
        func commit(_ index: Int) throws {
            try "file \(index)\n".write(toFile: "\(source)/f\(index)", atomically: true, encoding: .utf8)
            try git(["add", "."], in: source)
            try git(
                ["commit", "--quiet", "-m", "c\(index)"], in: source,
                environment: ["GIT_COMMITTER_DATE": "\(1_700_000_000 + index) +0000"])
        }
        for index in 1...3 { try commit(index) }
        try git(["clone", "--quiet", "--bare", source, reference])
        try commit(4)
        return (source, reference)
    }

    /// Every file under `directory` whose bytes hold `needle`.
    static func files(under directory: String, holding needle: String) -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: directory)
        var found: [String] = []
        while let name = enumerator?.nextObject() as? String {
            if let data = FileManager.default.contents(atPath: "\(directory)/\(name)"),
                String(decoding: data, as: UTF8.self).contains(needle)
            {
                found.append(name)
            }
        }
        return found
    }

    @Test("clone --reference --dissociate copies no planted link or pipe from the reference's objects")
    func dissociateCopiesOnlyObjects() throws {
        let directory = try TemporaryDirectory(prefix: "gitwire-hostile-objfile")
        let (source, reference) = try Self.repositories(directory)
        let secret = directory.appending("id_rsa")
        try "PRIVATE-KEY-MATERIAL\n".write(toFile: secret, atomically: true, encoding: .utf8)
        let folder = "\(reference)/objects/ab"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: "\(folder)/cdef0123456789abcdef0123456789abcdef01", withDestinationPath: secret)
        try FileManager.default.createSymbolicLink(atPath: "\(folder)/not-an-object", withDestinationPath: secret)
        #expect(mkfifo("\(folder)/0000000000000000000000000000000000000f", 0o644) == 0)
        try FileManager.default.createDirectory(atPath: "\(reference)/objects/cd", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(
            atPath: "\(reference)/objects/cd/0123456789abcdef0123456789abcdef012345", withIntermediateDirectories: true)

        for (name, command) in [("git", ["git"]), ("ours", ["timeout", "60", gitwireExecutable])] {
            let clone = directory.appending(name)
            let output = try run(
                command + ["clone", "-q", "--reference", reference, "--dissociate", "file://\(source)", clone],
                check: false)
            #expect(output.status == 0, "\(name): \(output.status) \(output.errorText)")
            // A clone cut short keeps its alternates: git's fsck would then open the pipe.
            guard !FileManager.default.fileExists(atPath: "\(clone)/.git/objects/info/alternates") else {
                Issue.record("\(name): the clone still borrows from the reference")
                continue
            }
            #expect(Self.files(under: "\(clone)/.git", holding: "PRIVATE-KEY").isEmpty, "\(name)")
            #expect(!FileManager.default.fileExists(atPath: "\(clone)/.git/objects/ab"), "\(name)")
            try git(["fsck", "--full", "--strict"], in: clone)
            #expect(try gitText(["rev-list", "--count", "HEAD"], in: clone) == "4", "\(name)")
        }
    }

    @Test("a named pipe in place of a pack, the repository's or an alternate's, is ignored as git ignores it")
    func pipeInPlaceOfPackIgnored() throws {
        let directory = try TemporaryDirectory(prefix: "gitwire-hostile-objfile")
        let (source, reference) = try Self.repositories(directory)
        try git(["repack", "-adq"], in: reference)
        let referencePacks = "\(reference)/objects/pack"
        let index = try FileManager.default.contentsOfDirectory(atPath: referencePacks).first { $0.hasSuffix(".idx") }!
        let planted = "pack-" + String(repeating: "1", count: 40)
        // In an alternate of `borrower` (which has no objects of its own), and in `source`.
        let borrower = directory.appending("borrower.git")
        try git(["init", "--quiet", "--bare", borrower])
        try "\(reference)/objects\n".write(
            toFile: "\(borrower)/objects/info/alternates", atomically: true, encoding: .utf8)
        try git(["repack", "-adq"], in: source)
        for packs in [referencePacks, "\(source)/.git/objects/pack"] {
            try FileManager.default.copyItem(atPath: "\(referencePacks)/\(index)", toPath: "\(packs)/\(planted).idx")
            #expect(mkfifo("\(packs)/\(planted).pack", 0o644) == 0)
        }
        try git(["update-ref", "refs/heads/main", try gitText(["rev-parse", "main"], in: reference)], in: borrower)

        for (name, command) in [("git", ["git"]), ("ours", ["timeout", "60", gitwireExecutable])] {
            let served = directory.appending("served-\(name).git")
            try git(["init", "--quiet", "--bare", served])
            let pushed = try run(command + ["push", "-q", served, "main"], in: source, check: false)
            #expect(pushed.status == 0, "\(name): \(pushed.status) \(pushed.errorText)")
            #expect(try gitText(["rev-list", "--count", "main"], in: served) == "4", "\(name)")
            let borrowed = directory.appending("borrowed-\(name).git")
            try git(["init", "--quiet", "--bare", borrowed])
            let fromAlternate = try run(
                command + ["push", "-q", borrowed, "main"], in: borrower, check: false)
            #expect(fromAlternate.status == 0, "\(name): \(fromAlternate.status) \(fromAlternate.errorText)")
            try git(["fsck", "--full", "--strict"], in: borrowed)
        }
    }
}
