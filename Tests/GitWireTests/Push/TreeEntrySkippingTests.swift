import Foundation
import GitWireCore
import GitWireTestSupport
import Testing

@testable import GitWire

/// `ObjectLinks.forEachTreeEntry(_:format:skipping:_:)`, with which the push's walk leaves out the
/// entries of a tree that are byte for byte those of the tree walked before at the same path:
/// on trees git sorts (`git mktree`), exactly the entries the other tree does not hold are
/// read; on a tree out of git's order, never one it does not hold is left out.
@Suite("Tree entries skipping another tree's")
struct TreeEntrySkippingTests {
    @Test("the entries left out are those of the other tree, git's order of names included")
    func skipsWhatTheOtherTreeHolds() throws {
        let directory = try TemporaryDirectory(prefix: "gitwire-tree-skipping")
        let path = directory.appending("repository.git")
        try git(["init", "--quiet", "--bare", path])
        let environment = ["GIT_DIR": path]
        // Names whose order differs between trees and blobs (git sorts a tree as `name/`).
        let names = ["a", "foo", "foo.c", "foo-bar", "foo0", "fo", "g", "z", "\u{e9}t\u{e9}", "b c"]
        let modes = ["100644", "100755", "120000", "40000", "160000"]
        var generator = SystemRandomNumberGenerator()
        func id() -> String { (0..<20).map { _ in ["00", "01", "ab"].randomElement(using: &generator)! }.joined() }
        func tree(_ entries: [(mode: String, name: String, id: String)]) throws -> [UInt8] {
            let listing = entries.map { entry -> String in
                let type = entry.mode == "40000" ? "tree" : entry.mode == "160000" ? "commit" : "blob"
                return "\(entry.mode) \(type) \(entry.id)\t\(entry.name)\n"
            }.joined()
            let hex = try git(["mktree", "--missing"], environment: environment, input: Array(listing.utf8))
                .text.trimmingCharacters(in: .whitespacesAndNewlines)
            return Array(try git(["cat-file", "tree", hex], environment: environment).standardOutput)
        }
        func read(_ data: [UInt8], skipping reference: [UInt8] = []) throws -> [[UInt8]] {
            var read: [[UInt8]] = []
            try ObjectLinks.forEachTreeEntry(data, format: .sha1, skipping: reference) { name, link in
                read.append(Array(data[name]) + [0] + link.id.bytes)
            }
            return read
        }
        /// An entry as `read` gives it (its name, a NUL, its id), or nil for a gitlink.
        func asRead(_ entry: [UInt8]) -> [UInt8]? {
            entry.starts(with: Array("160000 ".utf8)) ? nil : Array(entry[(entry.firstIndex(of: 0x20)! + 1)...])
        }
        var skipped = 0
        for _ in 0..<40 {
            var base: [(mode: String, name: String, id: String)] = []
            for name in names where Bool.random(using: &generator) {
                base.append((modes.randomElement(using: &generator)!, name, id()))
            }
            // The other tree: some entries kept, some changed in id or mode, some removed or added.
            var other: [(mode: String, name: String, id: String)] = []
            for name in names {
                let old = base.first { $0.name == name }
                switch Int.random(in: 0..<5, using: &generator) {
                case 0, 1: if let old { other.append(old) }
                case 2: other.append((old?.mode ?? "100644", name, id()))
                case 3: if let old { other.append((modes.randomElement(using: &generator)!, name, old.id)) }
                default: if old == nil { other.append((modes.randomElement(using: &generator)!, name, id())) }
                }
            }
            let baseData = try tree(base)
            let otherData = try tree(other)
            let baseEntries = Set(entries(of: baseData))
            let expected = entries(of: otherData).filter { !baseEntries.contains($0) }.compactMap(asRead)
            let reading = try read(otherData, skipping: baseData)
            #expect(reading == expected)
            // With the other tree's entry ends: the same entries read, and the ends recorded.
            var baseEnds: [UInt32] = []
            _ = try readJumping(baseData, skipping: [], referenceEnds: [], ends: &baseEnds)
            #expect(baseEnds == ends(of: baseData))
            var otherEnds: [UInt32] = []
            let jumping = try readJumping(otherData, skipping: baseData, referenceEnds: baseEnds, ends: &otherEnds)
            #expect(jumping == expected)
            #expect(otherEnds == ends(of: otherData))
            #expect(try read(otherData) == entries(of: otherData).compactMap(asRead))
            skipped += entries(of: otherData).count - reading.count
            // Out of git's order: the reference's entries reversed; nothing it does not hold is left out.
            let reversed = Array(entries(of: baseData).reversed().joined())
            let left = Set(try read(otherData)).subtracting(try read(otherData, skipping: reversed))
            #expect(left.isSubset(of: Set(baseEntries.compactMap(asRead))))
        }
        #expect(skipped > 20)
    }

    /// What `read` gives, read with `reference`'s entry ends and recording `data`'s into `ends`.
    private func readJumping(
        _ data: [UInt8], skipping reference: [UInt8], referenceEnds: [UInt32], ends: inout [UInt32]
    ) throws -> [[UInt8]] {
        var read: [[UInt8]] = []
        try ObjectLinks.forEachTreeEntry(
            data, format: .sha1, skipping: reference, referenceEnds: referenceEnds, ends: &ends
        ) { name, link in
            read.append(Array(data[name]) + [0] + link.id.bytes)
        }
        return read
    }

    /// Where each entry of a tree ends.
    private func ends(of data: [UInt8]) -> [UInt32] {
        var total = 0
        return entries(of: data).map { entry in
            total += entry.count
            return UInt32(total)
        }
    }

    @Test("a long run of shared entries is jumped over whole; a change after it is still read")
    func jumpsOverSharedEntries() throws {
        // 300 entries; the other tree changes the id of one entry in the middle, removes one and
        // adds one at the end (names in git's order: fixed width).
        func entry(_ number: Int, _ idByte: UInt8) -> [UInt8] {
            Array("100644 f\(String(1000 + number))".utf8) + [0] + [UInt8](repeating: idByte, count: 20)
        }
        let base = (0..<300).map { entry($0, 1) }
        var other = base
        other[150] = entry(150, 2)
        other.remove(at: 200)
        other.append(entry(300, 3))
        let baseData = Array(base.joined())
        let otherData = Array(other.joined())
        var baseEnds: [UInt32] = []
        #expect(try readJumping(baseData, skipping: [], referenceEnds: [], ends: &baseEnds).count == 300)
        var otherEnds: [UInt32] = []
        let read = try readJumping(otherData, skipping: baseData, referenceEnds: baseEnds, ends: &otherEnds)
        #expect(read.map { Array($0.prefix(5)) } == [Array("f1150".utf8), Array("f1300".utf8)])
        #expect(otherEnds == ends(of: otherData))
    }

    /// The raw entries of a tree (mode, space, name, NUL, id), each whole.
    private func entries(of data: [UInt8]) -> [[UInt8]] {
        var result: [[UInt8]] = []
        var start = 0
        while start < data.count {
            let nul = data[start...].firstIndex(of: 0)!
            result.append(Array(data[start..<(nul + 21)]))
            start = nul + 21
        }
        return result
    }
}
