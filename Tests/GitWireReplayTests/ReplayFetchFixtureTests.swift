import Foundation
import GitWire
import GitWireReplay
import GitWireTestSupport
import Testing

/// The clone and fetch sessions recorded from real git through the proxy: well-formed pkt-lines
/// both ways, valid side-band frames, and a pack that indexes (completed from the clone's objects
/// where it is thin) with as many objects as the server said.
@Suite("Replay fetch fixtures")
struct ReplayFetchFixtureTests {
    @Test func theRecordedSessionsAreAllHere() {
        let names = sessionFixtures(in: "fetch").map { URL(fileURLWithPath: $0).lastPathComponent }
        for version in ["v0", "v2"] {
            for kind in ["clone", "shallow-clone", "incremental-fetch"] {
                #expect(names.contains("\(version)-\(kind).session"))
            }
        }
    }

    @Test(arguments: sessionFixtures(in: "fetch"))
    func decodesIntoPacketsAndSideBandFramesAndAValidPack(path: String) throws {
        let session = try Session(contentsOfFile: path)
        let name = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        let fetch = try DecodedFetch(session)

        let request = try #require(fetch.clientPackets.first?.payload)
        #expect(request.starts(with: Array("git-upload-pack /history.git\0host=127.0.0.1\0".utf8)))
        #expect(!fetch.clientLines(startingWith: "want ").isEmpty)
        if name.contains("incremental") { #expect(!fetch.clientLines(startingWith: "have ").isEmpty) }
        if name.contains("shallow") { #expect(fetch.clientLines(startingWith: "deepen 1") == ["deepen 1"]) }
        if session.protocolVersion == .v2 {
            #expect(fetch.clientLines(startingWith: "command=") == ["command=ls-refs", "command=fetch"])
            #expect(fetch.serverPackets.contains(.text("packfile")))
        }
        if name.hasSuffix("-clone") && !name.contains("shallow") {
            #expect(String(decoding: fetch.progress, as: UTF8.self).contains("Enumerating objects"))
        }

        let directory = try TemporaryDirectory()
        let bases = try Self.cloneObjects(version: session.protocolVersion, into: directory)
        try FileManager.default.createDirectory(
            atPath: directory.appending("incoming"), withIntermediateDirectories: true)
        let indexer = try PackIndexer(
            destination: .directory(directory.appending("incoming")), options: PackIndexOptions(threads: 1))
        try indexer.append(fetch.pack)
        let result = try indexer.finish(externalBases: name.contains("incremental") ? bases : nil)
        let header = try #require(try PackHeader.parse(fetch.pack[...]))
        #expect(result.objectCount == Int(header.objectCount) + result.objectsAdded)
        if let total = fetch.totalFromProgress { #expect(total == Int(header.objectCount)) }
    }

    /// A git directory holding the objects of the full clone recorded for `version`.
    static func cloneObjects(version: ProtocolVersion, into directory: TemporaryDirectory) throws -> ObjectDatabase {
        let session = try Session(contentsOfFile: "\(fixturesDirectory)/fetch/v\(version.rawValue)-clone.session")
        let gitDirectory = directory.appending("clone.git")
        try FileManager.default.createDirectory(
            atPath: "\(gitDirectory)/objects/pack", withIntermediateDirectories: true)
        let indexer = try PackIndexer(
            destination: .directory("\(gitDirectory)/objects/pack"), options: PackIndexOptions(threads: 1))
        try indexer.append(try DecodedFetch(session).pack)
        _ = try indexer.finish()
        return try ObjectDatabase(gitDirectory: gitDirectory)
    }
}
