import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// A local pack damaged on purpose: a blob stored as an offset delta whose base offset is moved
/// one byte into its base's entry (the index's CRC-32 and checksum made to agree, so that only
/// the offset is wrong). git's pack-objects stops there (`fatal: packed object <id> (stored in
/// <pack>) is corrupt`) and sends no pack; gitwire must stop too, never copy the entry as it is
/// (its offset would name garbage in the pack sent), with the same words.
@Suite(.serialized) struct PushDamagedPackTests {
    /// Moves the base offset of the first blob stored as an offset delta in the one pack of the
    /// repository at `gitDirectory`; prints the blob's id.
    static let damage = #"""
        import glob, hashlib, struct, subprocess, sys, zlib
        pack = glob.glob(sys.argv[1] + "/objects/pack/*.pack")[0]
        idx = pack[:-5] + ".idx"
        listing = subprocess.run(["git", "verify-pack", "-v", idx], capture_output=True, text=True, check=True).stdout
        entries = []
        for line in listing.splitlines():
            words = line.split()
            if len(words) >= 7 and words[1] == "blob":
                entries.append((words[0], int(words[4])))
        starts = sorted(int(line.split()[4]) for line in listing.splitlines()
                        if len(line.split()) >= 5 and line.split()[1] in ("commit", "tree", "blob", "tag"))
        data = bytearray(open(pack, "rb").read())
        def encode(value):
            out = [value & 0x7f]
            value >>= 7
            while value:
                value -= 1
                out.insert(0, 0x80 | (value & 0x7f))
                value >>= 7
            return bytes(out)
        for oid, offset in entries:
            if (data[offset] >> 4) & 7 != 6:
                continue
            at = offset
            while data[at] & 0x80:
                at += 1
            at += 1
            end = at
            distance = data[end] & 0x7f
            while data[end] & 0x80:
                end += 1
                distance = ((distance + 1) << 7) | (data[end] & 0x7f)
            moved = encode(distance - 1)
            if len(moved) != end + 1 - at or offset - (distance - 1) in starts:
                continue
            data[at:end + 1] = moved
            open(pack, "wb").write(data)
            index = bytearray(open(idx, "rb").read())
            width = len(oid) // 2
            count = struct.unpack(">I", index[8 + 255 * 4:8 + 256 * 4])[0]
            names = [index[1032 + k * width:1032 + (k + 1) * width].hex() for k in range(count)]
            following = [start for start in starts if start > offset] + [len(data) - width]
            crc = zlib.crc32(bytes(data[offset:min(following)])) & 0xffffffff
            position = 1032 + count * width + names.index(oid) * 4
            index[position:position + 4] = struct.pack(">I", crc)
            index[-width:] = (hashlib.sha1 if width == 20 else hashlib.sha256)(bytes(index[:-width])).digest()
            open(idx, "wb").write(index)
            print(oid)
            sys.exit(0)
        sys.exit("no blob stored as an offset delta")
        """#

    /// A repository (`local`, a work tree) whose history of two growing files is in one pack with
    /// a damaged offset delta, an empty bare `served.git` beside it, and the damaged blob's id.
    static func damagedRepository() throws -> (TemporaryDirectory, local: String, served: String, blob: String) {
        let directory = try TemporaryDirectory(prefix: "gitwire-damaged")
        let local = directory.appending("local")
        try git(["init", "--quiet", "--initial-branch=main", local])
        for index in 1...8 {
            let first = (1...(index * 50)).map { "line \($0)\n" }.joined()
            let second = (3...(index * 40)).map { "row \($0)\n" }.joined()
            try first.write(toFile: "\(local)/f.txt", atomically: true, encoding: .utf8)
            try second.write(toFile: "\(local)/g.txt", atomically: true, encoding: .utf8)
            try git(["add", "."], in: local)
            try git(["commit", "--quiet", "-m", "commit \(index)"], in: local)
        }
        try git(["repack", "-adq"], in: local)
        let blob = try run(["python3", "-c", damage, "\(local)/.git"]).text.trimmingCharacters(
            in: .whitespacesAndNewlines)
        let served = directory.appending("served.git")
        try git(["init", "--quiet", "--bare", served])
        return (directory, local, served, blob)
    }

    /// The `fatal:` line of git's pack-objects, with the pack's path (git names it as it opened
    /// it, relative to the work tree; gitwire absolute) left out.
    static func corruptLine(_ text: String) -> String? {
        text.split(separator: "\n").first { $0.hasPrefix("fatal: packed object ") }.map {
            String($0).replacing(/\(stored in [^)]*\)/, with: "(stored in …)")
        }
    }

    @Test("a push from a damaged pack sends nothing and says what git's pack-objects says")
    func push() throws {
        let (directory, local, served, blob) = try Self.damagedRepository()
        defer { withExtendedLifetime(directory) {} }
        let daemon = try GitDaemon(basePath: directory.path, extraArguments: ["--enable=receive-pack"])
        for url in ["file://\(served)", daemon.url("served.git")] {
            let theirs = try git(["push", url, "main"], in: local, check: false)
            let ours = try gitwire(["push", url, "main"], in: local, environment: reproducibleGitEnvironment)
            let expected = "fatal: packed object \(blob) (stored in …) is corrupt"
            #expect(Self.corruptLine(theirs.errorText) == expected, "git: \(theirs.errorText)")
            #expect(Self.corruptLine(ours.errorText) == expected, "gitwire: \(ours.errorText)")
            #expect(theirs.status != 0)
            #expect(ours.status != 0)
            // The server took nothing from either.
            #expect(try git(["for-each-ref"], in: served).text == "", "\(url)")
            #expect(try git(["count-objects"], in: served).text == "0 objects, 0 kilobytes\n", "\(url)")
        }
    }

    @Test("pack-objects from a damaged pack writes nothing, as git's")
    func packObjects() throws {
        let (directory, local, _, blob) = try Self.damagedRepository()
        defer { withExtendedLifetime(directory) {} }
        let theirs = try git(
            ["pack-objects", "--stdout", "--revs"], in: local, input: Array("main\n".utf8), check: false)
        let ours = try run(
            [gitwireExecutable, "pack-objects", "--stdout", "--revs"], in: local,
            environment: reproducibleGitEnvironment,
            input: Array("main\n".utf8), check: false)
        #expect(theirs.status == 128)
        #expect(ours.status == theirs.status)
        #expect(ours.standardOutput.isEmpty && theirs.standardOutput.isEmpty)
        #expect(Self.corruptLine(ours.errorText) == "fatal: packed object \(blob) (stored in …) is corrupt")
        #expect(Self.corruptLine(ours.errorText) == Self.corruptLine(theirs.errorText))
    }

    /// Without a delta search (depth 0) nothing else reads the damaged entry: the planner itself
    /// must find it, and never plan it as a copy.
    @Test("PackWriter refuses a damaged offset delta rather than copy it", arguments: [0, 50])
    func library(_ depth: Int) throws {
        let (directory, local, _, blob) = try Self.damagedRepository()
        defer { withExtendedLifetime(directory) {} }
        let repository = try Repository(gitDirectory: "\(local)/.git")
        let head = try #require(try repository.resolveRevision("main"))
        let error = try #require(throws: PushPackError.self) {
            let writer = try PackWriter(
                database: repository.objects, include: [head], exclude: [], options: PackWriter.Options(depth: depth))
            while try writer.read() != nil {}
        }
        guard case .corruptPacked(let id, let path) = error else {
            Issue.record("\(error)")
            return
        }
        #expect(id.hex == blob)
        #expect(path.hasSuffix(".pack"))
        #expect(error.kind == .pack)
    }
}
