import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// Every parser that reads an object id takes its width from the format it was given (issue
/// 22), on bytes real git 2.39 writes for SHA-256 repositories: advertisements, `ls-refs`,
/// `packed-refs`, reference-delta bases, trees, commits and tags.
@Suite("SHA-256 parsers")
struct SHA256ParserTests {
    static let repositories = SHA256Repositories.shared

    /// `git upload-pack --advertise-refs` of a SHA-256 repository.
    static func v0Advertisement(_ name: String) throws -> [UInt8] {
        try git(["upload-pack", "--advertise-refs", repositories.path(name)]).standardOutput
    }

    /// The listing gitwire parses from `bytes` (a v0 advertisement), or the error.
    static func parse(_ bytes: [UInt8], defaultFormat: ObjectFormat = .sha1) throws -> RefAdvertisement {
        var parser = RefAdvertisementParser(defaultFormat: defaultFormat)
        var refs: [Ref] = []
        for packet in packets(of: bytes) { try parser.receive(packet) { refs.append($0) } }
        var advertisement = parser.advertisement
        advertisement.refs = refs
        return advertisement
    }

    @Test func objectIDsOfBothFormats() throws {
        var generator = SystemRandomNumberGenerator()
        for format in ObjectFormat.allCases {
            for _ in 0..<500 {
                let bytes = (0..<format.byteCount).map { _ in UInt8.random(in: 0...255, using: &generator) }
                let id = try #require(ObjectID(bytes: bytes, format: format))
                let hex = bytes.map { String(format: "%02x", $0) }.joined()
                #expect(id.hex == hex)
                #expect(id.bytes == bytes)
                #expect(id.format == format)
                #expect(ObjectID(hex) == id)
                #expect(ObjectID(hex: Array(hex.uppercased().utf8), format: format) == id)
                #expect(id.firstByte == bytes[0])
            }
        }
        let sha256 = String(repeating: "ab", count: 32)
        #expect(ObjectID(hex: Array(sha256.utf8), format: .sha1) == nil)
        #expect(ObjectID(hex: Array(sha256.prefix(40).utf8), format: .sha256) == nil)
        #expect(ObjectID(String(sha256.dropLast())) == nil)
        #expect(ObjectID(sha256 + "a") == nil)
        // Names of different formats are different names, even when one is the other's prefix.
        let long = ObjectID(sha256)!
        let short = ObjectID(String(repeating: "ab", count: 20) + String(repeating: "00", count: 0))!
        #expect(long != short)
        #expect(ObjectID.zero(.sha1) != ObjectID.zero(.sha256))
        #expect(Set([long, short, .zero(.sha1), .zero(.sha256)]).count == 4)
        #expect(ObjectID.zero(.sha256).hex == String(repeating: "0", count: 64))
        // Order is the bytes' order.
        let ids = (0..<200).map { _ in ObjectID(bytes: (0..<32).map { _ in UInt8.random(in: 0...3) }, format: .sha256)!
        }
        #expect(ids.sorted().map(\.hex) == ids.map(\.hex).sorted())
    }

    /// The compact tables the pack indexer keeps names in hold what plain arrays and sets hold:
    /// the same names, order, duplicates and lookups, for both formats.
    @Test(arguments: ObjectFormat.allCases)
    func compactTablesAgreeWithPlainOnes(_ format: ObjectFormat) throws {
        var generator = SystemRandomNumberGenerator()
        // Few distinct byte values, so that names share long prefixes and repeat.
        let ids = (0..<3000).map { _ in
            ObjectID(
                bytes: (0..<format.byteCount).map { _ in UInt8.random(in: 0...1, using: &generator) * 0x81 },
                format: format)!
        }
        var array = ObjectIDArray(format: format)
        var links = ReferenceDeltaLinks(format: format)
        var set = ObjectIDSet()
        for (index, id) in ids.enumerated() {
            array.append(id)
            links.append(ReferenceDeltaLink(base: id, delta: Int32(3000 - index)))
            set.insert(id)
        }
        #expect(Array(array) == ids)
        array[7] = ids[8]
        #expect(array[7] == ids[8])
        array[7] = ids[7]
        for _ in 0..<2000 {
            let a = Int.random(in: 0..<ids.count, using: &generator)
            let b = Int.random(in: 0..<ids.count, using: &generator)
            #expect(array.precedes(a, b) == (ids[a] < ids[b]))
            #expect(array.same(a, b) == (ids[a] == ids[b]))
        }
        let sorted = links.sortedByBase()
        let expected = ids.enumerated().map { (base: $0.element, delta: Int32(3000 - $0.offset)) }
            .sorted { ($0.base, $0.delta) < ($1.base, $1.delta) }
        #expect(sorted.map(\.base) == expected.map(\.base))
        #expect(sorted.map(\.delta) == expected.map(\.delta))
        for id in ids.prefix(300) + [format.zeroID, ObjectID.zero(format == .sha1 ? .sha256 : .sha1)] {
            let range = sorted.range(ofBase: id)
            #expect(range.count == ids.filter { $0 == id }.count)
            #expect(sorted[range].allSatisfy { $0.base == id })
        }
        #expect(set.count == Set(ids).count)
        #expect(Set(set) == Set(ids))
        #expect(ids.allSatisfy { set.contains($0) })
        #expect(!set.contains(ObjectID.zero(format == .sha1 ? .sha256 : .sha1)))
    }

    @Test func theFormatsGitNames() {
        #expect(ObjectFormat("sha1") == .sha1)
        #expect(ObjectFormat("sha256") == .sha256)
        #expect(ObjectFormat("SHA256") == nil)
        #expect(ObjectFormat("sha512") == nil)
        #expect(ObjectFormat.sha256.byteCount == 32 && ObjectFormat.sha256.hexCount == 64)
    }

    /// A real v0 advertisement: refs and peeled tags with 64-digit ids, the format from the
    /// `object-format` capability whatever the default.
    @Test(arguments: ["small.git", "many.git", "detached.git", "unborn.git", "shallow.git"])
    func v0AdvertisementOfARealRepository(name: String) throws {
        let bytes = try Self.v0Advertisement(name)
        let advertisement = try Self.parse(bytes)
        #expect(advertisement.objectFormat == .sha256)
        #expect(try Self.parse(bytes, defaultFormat: .sha256) == advertisement)
        #expect(advertisement.capabilities.value(of: "object-format") == "sha256")
        let expected = try gitText(["show-ref", "--head", "-d"], in: Self.repositories.path(name))
        var lines: [String] = []
        for ref in advertisement.refs {
            lines.append("\(ref.objectID!.hex) \(ref.name)")
            if let peeled = ref.peeled { lines.append("\(peeled.hex) \(ref.name)^{}") }
        }
        if name == "unborn.git" {
            #expect(!lines.contains { $0.hasSuffix(" HEAD") })
        }
        #expect(lines.sorted() == expected.split(separator: "\n").map(String.init).sorted())
        #expect(advertisement.refs.allSatisfy { $0.objectID?.format == .sha256 })
        if name == "shallow.git" {
            let shallow = try String(contentsOfFile: Self.repositories.path(name) + "/shallow", encoding: .utf8)
            #expect(advertisement.shallow.map(\.hex) == shallow.split(separator: "\n").map(String.init))
            #expect(!advertisement.shallow.isEmpty)
        }
    }

    /// The empty repository's `capabilities^{}` line (git 2.39 writes it in receive-pack's
    /// advertisement, later upload-packs in theirs) carries a 64-digit zero id: no refs.
    @Test func theCapabilitiesLineOfAnEmptyRepository() throws {
        let bytes = try git(["receive-pack", "--advertise-refs", Self.repositories.path("empty.git")]).standardOutput
        #expect(String(decoding: bytes, as: UTF8.self).contains(String(repeating: "0", count: 64) + " capabilities^{}"))
        let advertisement = try Self.parse(bytes)
        #expect(advertisement.refs.isEmpty)
        #expect(advertisement.objectFormat == .sha256)
        #expect(advertisement.capabilities.contains("report-status"))
        // The SHA-1 repository's line has a 40-digit one; neither is read in the other's width.
        let sha1 = try git(["receive-pack", "--advertise-refs", TestRepositories.shared.path("empty.git")])
            .standardOutput
        #expect(try Self.parse(sha1).objectFormat == .sha1)
        #expect(try Self.parse(sha1, defaultFormat: .sha256).refs.isEmpty)
    }

    /// As git's process_capabilities: no capabilities at all, or a format git does not know,
    /// leave the local format; capabilities without `object-format` mean SHA-1.
    @Test func theFormatOfAV0AdvertisementWithoutItsCapability() throws {
        let sha256 = String(repeating: "1", count: 64)
        let sha1 = String(repeating: "2", count: 40)
        func advertisement(_ first: String) -> [UInt8] {
            bytes(of: [.data(Array(first.utf8) + [0x0a]), .flush])
        }
        #expect(
            try Self.parse(advertisement("\(sha256) HEAD"), defaultFormat: .sha256).refs.first?.objectID?.hex == sha256)
        #expect(throws: ProtocolError.self) { try Self.parse(advertisement("\(sha256) HEAD"), defaultFormat: .sha1) }
        #expect(try Self.parse(advertisement("\(sha1) HEAD\0agent=x")).objectFormat == .sha1)
        #expect(try Self.parse(advertisement("\(sha1) HEAD\0agent=x"), defaultFormat: .sha256).objectFormat == .sha1)
        #expect(throws: ProtocolError.self) {
            try Self.parse(advertisement("\(sha256) HEAD\0agent=x"), defaultFormat: .sha256)
        }
        let unknown = try Self.parse(advertisement("\(sha256) HEAD\0object-format=sha512"), defaultFormat: .sha256)
        #expect(unknown.objectFormat == .sha256)
        #expect(unknown.refs.count == 1)
    }

    /// v2: the capability advertisement names the format; `ls-refs` is asked with it and its
    /// answer (real bytes) read in it. An unknown format is git's error.
    @Test func lsRefsOfARealRepository() throws {
        let path = Self.repositories.path("small.git")
        let capabilities = try git(
            ["upload-pack", "--advertise-refs", path], environment: ["GIT_PROTOCOL": "version=2"]
        )
        .standardOutput
        var parsed = Capabilities()
        for case .data(let line) in packets(of: capabilities).dropFirst() {
            parsed.add(String(decoding: line.last == 0x0a ? line.dropLast() : line[...], as: UTF8.self))
        }
        #expect(try LsRefsCommand.objectFormat(of: parsed) == .sha256)
        let request = try LsRefsCommand().request(for: parsed)
        #expect(request.contains(.data(Array("object-format=sha256".utf8))))
        let answer = try git(
            ["upload-pack", "--stateless-rpc", path], environment: ["GIT_PROTOCOL": "version=2"],
            input: try PktLineEncoder.encode(request)
        ).standardOutput
        var lines: [String] = []
        for packet in packets(of: answer) {
            guard case .data(let line) = packet else { continue }
            let ref = try LsRefsCommand.parseRef(line, format: .sha256)
            lines.append("\(ref.objectID!.hex) \(ref.name)")
            if let peeled = ref.peeled { lines.append("\(peeled.hex) \(ref.name)^{}") }
        }
        let expected = try gitText(["show-ref", "--head", "-d"], in: path)
        #expect(lines.sorted() == expected.split(separator: "\n").map(String.init).sorted())
        #expect(throws: ProtocolError.self) {
            try LsRefsCommand.parseRef(Array("\(String(repeating: "a", count: 40)) HEAD".utf8), format: .sha256)
        }

        var unknown = Capabilities()
        unknown.add("ls-refs")
        unknown.add("object-format=sha512")
        #expect(throws: FetchError(.protocol, "unknown object format 'sha512' specified by server")) {
            try LsRefsCommand().request(for: unknown)
        }
        // A SHA-1 server that does not name its format is sent none (git sends none then).
        var none = Capabilities()
        none.add("ls-refs")
        #expect(try LsRefsCommand.objectFormat(of: none) == nil)
        let sent = try LsRefsCommand().request(for: none).compactMap(\.payload).map {
            String(decoding: $0, as: UTF8.self)
        }
        #expect(!sent.contains { $0.hasPrefix("object-format") })
    }

    /// `packed-refs`, loose refs and `HEAD` as git writes them in a SHA-256 repository.
    @Test func refsOfARealRepository() throws {
        let directory = try TemporaryDirectory()
        let path = directory.appending("refs.git")
        try git(["clone", "-q", "--bare", "--no-local", Self.repositories.path("many.git"), path])
        try git(["update-ref", "refs/heads/loose", "main~3"], in: path)
        let repository = try Repository(gitDirectory: path)
        #expect(repository.objectFormat == .sha256)
        #expect(repository.refs.format == .sha256)
        let records = try repository.refs.all()
        let expected = try gitText(["for-each-ref", "--format=%(objectname) %(refname)"], in: path)
        #expect(records.map { "\($0.id.hex) \($0.name)" } == expected.split(separator: "\n").map(String.init))
        let packed = try repository.refs.packedRefs()
        #expect(packed.contains { $0.peeled != nil })
        for record in packed where record.peeled != nil {
            #expect(record.peeled!.hex == (try gitText(["rev-parse", "\(record.name)^{}"], in: path)))
        }
        #expect(try repository.refs.resolve("refs/heads/loose")?.hex == gitText(["rev-parse", "main~3"], in: path))
        // Read as SHA-1, the same file is corrupt, not misread.
        #expect(throws: RepositoryError.self) { try RefStore(gitDirectory: path, format: .sha1).packedRefs() }
    }

    /// The repository's format as git reads its `config`, with git's messages for what it refuses.
    @Test func theFormatOfARepositoryIsReadFromItsConfig() throws {
        let directory = try TemporaryDirectory()
        let path = directory.appending("format.git")
        try git(["init", "-q", "--bare", "--object-format=sha256", path])
        #expect(try Repository.objectFormat(ofGitDirectory: path) == .sha256)
        #expect(try Repository.objectFormat(ofGitDirectory: TestRepositories.shared.path("small.git")) == .sha1)
        let cases: [(config: String, format: ObjectFormat?)] = [
            ("[core]\n\trepositoryformatversion = 1\n[extensions]\n\tobjectformat = sha256\n", .sha256),
            ("[core]\nrepositoryFormatVersion=1 ; comment\n[Extensions]\n objectFormat = \"sha256\" # x\n", .sha256),
            ("[core]\n\trepositoryformatversion = 1\n[extensions]\n\tobjectformat = sha1\n", .sha1),
            ("[core]\n\trepositoryformatversion = 1\n", .sha1),
            ("[core]\n\trepositoryformatversion = 0\n[extensions]\n\tobjectformat = sha256\n", nil),
            ("[core]\n\trepositoryformatversion = 1\n[extensions]\n\tobjectformat = sha512\n", nil),
            ("[core]\n\trepositoryformatversion = 2\n", nil),
        ]
        for (config, format) in cases {
            try config.write(toFile: "\(path)/config", atomically: true, encoding: .utf8)
            let gits = try git(["rev-parse", "--show-object-format"], in: path, check: false)
            if let format {
                #expect(try Repository.objectFormat(ofGitDirectory: path) == format, "\(config)")
                #expect(gits.text == "\(format.name)\n", "\(config)")
            } else {
                #expect(gits.status != 0, "\(config)")
                do {
                    _ = try Repository.objectFormat(ofGitDirectory: path)
                    Issue.record("accepted \(config)")
                } catch let error as RepositoryFormatError {
                    // git says the same thing (among other lines, for some).
                    #expect(gits.errorText.contains(error.message), "\(gits.errorText) / \(error.message)")
                }
            }
        }
    }

    /// Trees, commits and tags of a SHA-256 repository, read for what they name.
    @Test func objectLinksOfRealObjects() throws {
        let path = Self.repositories.path("small.git")
        let objects = try ObjectDatabase(gitDirectory: path)
        #expect(objects.format == .sha256)
        for name in ["main", "main^{tree}", "v1", "tag-of-tag", "tag-of-tree"] {
            let id = try #require(ObjectID(try gitText(["rev-parse", name], in: path)))
            let object = try #require(try objects.object(id))
            #expect(try object.id(.sha256) == id)
            let links = try ObjectLinks.links(of: object.type, data: object.data, format: .sha256)
            let expected: [String]
            switch object.type {
            case .commit:
                expected = [
                    try gitText(["rev-parse", "\(name)^{tree}"], in: path),
                    try gitText(["rev-parse", "\(name)^"], in: path),
                ]
                let summary = try #require(CommitSummary(commitData: object.data, format: .sha256))
                #expect(summary.parents.map(\.hex) == [expected[1]])
            case .tree:
                expected = try gitText(["ls-tree", name], in: path).split(separator: "\n").map {
                    String($0.split(separator: " ")[2].prefix(64))
                }
            default:
                expected = [try gitText(["cat-file", "-p", name], in: path).split(separator: "\n")[0].dropFirst(7)].map(
                    String.init)
            }
            #expect(links.map(\.id.hex) == expected, "\(name)")
            // Read in the other width, they do not parse into ids of the wrong length.
            if let other = try? ObjectLinks.links(of: object.type, data: object.data, format: .sha1) {
                #expect(object.type == .tree && other.allSatisfy { $0.id.format == .sha1 })
            }
        }
    }
}
