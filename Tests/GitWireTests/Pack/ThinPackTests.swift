import GitWire
import GitWireTestSupport
import Testing

/// Thin packs are completed from a repository's objects exactly as `git index-pack --fix-thin` does.
@Suite struct ThinPackTests {
    /// A thin pack of what `v300` adds to `v200`, with deltas against objects only `v200` has.
    static func thinPack(referenceDeltas: Bool) throws -> [UInt8] {
        try FixtureRepository.shared.pack(
            ["--thin"] + (referenceDeltas ? [] : ["--delta-base-offset"]), revisions: ["v300", "^v200"])
    }

    @Test(arguments: [false, true])
    func completionMatchesGitFixThin(referenceDeltas: Bool) throws {
        let fixture = FixtureRepository.shared
        let directory = try TemporaryDirectory()
        let thin = try Self.thinPack(referenceDeltas: referenceDeltas)
        let gitPack = directory.appending("git.pack")
        let output = try git(["index-pack", "--stdin", "--fix-thin", gitPack], in: fixture.path, input: thin)
        let indexer = try PackIndexer(destination: .file(directory.appending("ours.pack")))
        for start in stride(from: 0, to: thin.count, by: 4096) {
            try indexer.append(thin[start..<min(start + 4096, thin.count)])
        }
        let result = try indexer.finish(externalBases: ObjectDatabase(gitDirectory: fixture.path))
        #expect(result.objectsAdded > 0)
        #expect(output.text == "pack\t\(result.packChecksum)\n")
        #expect(try readFile(result.packPath) == readFile(gitPack))
        #expect(try readFile(result.indexPath) == readFile(directory.appending("git.idx")))
        #expect(try gitText(["verify-pack", result.packPath]).isEmpty)
    }

    @Test func thinPackWithoutBasesIsRejected() throws {
        let directory = try TemporaryDirectory()
        let thin = try Self.thinPack(referenceDeltas: false)
        let indexer = try PackIndexer(destination: .file(directory.appending("ours.pack")))
        try indexer.append(thin)
        let error = #expect(throws: PackError.self) { try indexer.finish() }
        guard case .deltaBaseMissing(.id(let base)) = error?.reason else {
            Issue.record("unexpected \(String(describing: error))")
            return
        }
        let type = try gitText(["cat-file", "-t", base.hex], in: FixtureRepository.shared.path)
        #expect(!type.isEmpty)
        #expect(try fileNames(in: directory).isEmpty)
    }

    @Test func thinPackWithBasesFromAnEmptyRepositoryIsRejected() throws {
        let directory = try TemporaryDirectory()
        let empty = directory.appending("empty.git")
        try git(["init", "-q", "--bare", empty])
        let indexer = try PackIndexer(destination: .file(directory.appending("ours.pack")))
        try indexer.append(Self.thinPack(referenceDeltas: true))
        #expect(throws: PackError.self) { try indexer.finish(externalBases: ObjectDatabase(gitDirectory: empty)) }
        #expect(try fileNames(in: directory) == ["empty.git"])
    }
}
