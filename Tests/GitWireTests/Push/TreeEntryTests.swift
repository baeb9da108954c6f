import Foundation
import GitWireCore
import GitWireTestSupport
import Testing

@testable import GitWire

/// The tree reader the push's walk reads every tree with (`ObjectLinks.forEachTreeEntry`, which
/// reads entries in place), against git's `ls-tree` of the same tree.
@Suite("Tree entries")
struct TreeEntryTests {
    @Test("a tree's entries are git's ls-tree, gitlinks left out; every cut inside an entry is an error")
    func entriesAsGitListsThem() throws {
        let directory = try TemporaryDirectory(prefix: "gitwire-tree-entries")
        let path = directory.appending("repository.git")
        try git(["init", "--quiet", "--bare", path])
        let environment = ["GIT_DIR": path]
        func hex(_ output: ProcessOutput) -> String { output.text.trimmingCharacters(in: .whitespacesAndNewlines) }
        let blob = hex(
            try git(["hash-object", "-w", "--stdin"], environment: environment, input: Array("text\n".utf8)))
        let other = hex(try git(["hash-object", "-w", "--stdin"], environment: environment, input: Array("x".utf8)))
        let subtree = hex(
            try git(["mktree"], environment: environment, input: Array("100644 blob \(other)\tinner\n".utf8)))
        let listing = [
            "100644 blob \(blob)\ta file", "100755 blob \(other)\tscript", "120000 blob \(blob)\tlink",
            "040000 tree \(subtree)\tdir", "160000 commit \(String(repeating: "ab", count: 20))\tsubmodule",
            "100644 blob \(other)\tnon-ascii \u{e9}", "040000 tree \(subtree)\tz",
        ]
        let tree = hex(
            try git(
                ["mktree", "--missing"], environment: environment,
                input: Array(listing.joined(separator: "\n").utf8) + [10]
            ))
        let entries = try git(["ls-tree", "-z", tree], environment: environment).standardOutput.split(separator: 0).map
        {
            line -> (mode: [UInt8], type: String, id: String, name: [UInt8]) in
            let tab = line.firstIndex(of: 9)!
            let fields = line[..<tab].split(separator: 0x20).map { String(decoding: $0, as: UTF8.self) }
            return (Array(fields[0].utf8.drop { $0 == 0x30 }), fields[1], fields[2], Array(line[(tab + 1)...]))
        }
        #expect(entries.count == listing.count)

        let database = try ObjectDatabase(gitDirectory: path)
        let treeID = try #require(ObjectID(tree))
        let data = try #require(try database.object(treeID)).data
        var read: [(name: [UInt8], id: String, type: ObjectType)] = []
        try ObjectLinks.forEachTreeEntry(data, format: .sha1) { name, link in
            read.append((Array(data[name]), link.id.hex, link.type))
        }
        let expected = entries.filter { $0.type != "commit" }
        #expect(read.map(\.name) == expected.map(\.name))
        #expect(read.map(\.id) == expected.map(\.id))
        #expect(read.map(\.type.name) == expected.map(\.type))
        let named = try ObjectLinks.namedTreeLinks(data, format: .sha1)
        #expect(named.map { Array($0.name) } == expected.map(\.name))
        #expect(try ObjectLinks.links(of: .tree, data: data, format: .sha1).map(\.id.hex) == expected.map(\.id))

        // Cut anywhere: whole entries read, a cut inside an entry is an error (as before).
        var boundaries: Set<Int> = [0]
        var end = 0
        for entry in entries {
            end += entry.mode.count + 1 + entry.name.count + 1 + 20
            boundaries.insert(end)
        }
        #expect(end == data.count)
        for cut in 0..<data.count {
            let prefix = Array(data[..<cut])
            if boundaries.contains(cut) {
                #expect(throws: Never.self) { try ObjectLinks.forEachTreeEntry(prefix, format: .sha1) { _, _ in } }
            } else {
                #expect(throws: ProtocolError.self, "cut at \(cut)") {
                    try ObjectLinks.forEachTreeEntry(prefix, format: .sha1) { _, _ in }
                }
            }
        }
    }
}
