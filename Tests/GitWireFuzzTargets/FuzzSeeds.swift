import GitWire
import GitWireReplay

/// Starting inputs for the fuzz targets, made from real bytes: the recorded sessions in
/// `Fixtures/` and packs written by `git pack-objects` (`Tools/fuzz.sh` makes them). Each seed
/// carries the steering bytes its target reads first.
public enum FuzzSeeds {
    /// Writes seeds made from `files` (`.session` fixtures, `.pack` files with their `.idx`,
    /// commit-graph files) into `<directory>/<target>/`; returns how many were written per target.
    public static func write(from files: [String], into directory: String) throws -> [FuzzTarget: Int] {
        var seeds = SeedWriter(directory: directory)
        try credentialSeeds(&seeds)
        for path in files {
            if path.hasSuffix(".session") {
                try sessionSeeds(path, &seeds)
            } else if path.hasSuffix(".pack") {
                try packSeeds(path, &seeds)
            } else if path.hasSuffix(".server") {
                try rawPushSeeds(path, &seeds)
            } else if path.hasSuffix("commit-graph") || path.hasSuffix(".graph") {
                // A commit-graph file: its format from its header's hash version.
                let bytes = try FileSystem.read(path)
                try seeds.add(.commitGraph, [bytes.count > 5 && bytes[5] == 2 ? 1 : 0] + bytes)
            }
        }
        return seeds.counts
    }

    private static func sessionSeeds(_ path: String, _ seeds: inout SeedWriter) throws {
        let text = try FileSystem.read(path)
        try seeds.add(.fixture, text)
        let session = try Session(fixtureText: String(decoding: text, as: UTF8.self))
        let server = session.bytes(from: .server)
        let version = UInt8(session.protocolVersion.rawValue)
        let stateless: UInt8 = session.transport == "http" ? 0x10 : 0
        try seeds.add(.pktLine, [0] + server)
        if session.service == "git-receive-pack" {
            // Flags: the version and stateless RPC as recorded; plans that move, create and delete.
            for plan: UInt8 in [0x01, 0x13, 0x39, 0x72] {
                try seeds.add(.push, [(version & 1) | (stateless << 2), plan, 0] + server)
            }
        } else if path.contains("/ls-remote/") {
            try seeds.add(.lsRemote, [version | stateless, 0] + server)
        } else {
            try seeds.add(.fetch, [version, stateless << 2, 0] + server)
        }
        if session.transport == "http",
            case .bytes(.server, let discovery)? = session.events.first(where: {
                if case .bytes(.server, _) = $0 { return true } else { return false }
            })
        {
            let preamble = version == 2 ? [] : PktLine.text("# service=git-upload-pack").encoded + PktLine.flush.encoded
            try seeds.add(.smartHTTP, [version == 2 ? 1 : 0, 0] + preamble + discovery)
        }
        for url in session.path.isEmpty
            ? [] : ["git://127.0.0.1\(session.path)", "ssh://git@127.0.0.1:22\(session.path)"]
        {
            try seeds.add(.url, [0] + Array(url.utf8))
        }
    }

    /// A raw capture of what receive-pack answered `git push` (`Fixtures/push/*.server`): seeds
    /// for the `push` target, v0 and v1, with and without `--atomic`, over a few plans.
    private static func rawPushSeeds(_ path: String, _ seeds: inout SeedWriter) throws {
        let server = try FileSystem.read(path)
        for (flags, plan): (UInt8, UInt8) in [(0x00, 0x11), (0x01, 0x23), (0x02, 0x19), (0x04, 0x31), (0x40, 0x12)] {
            try seeds.add(.push, [flags, plan, 0] + server)
        }
    }

    /// Sessions the `credentials` target starts from (see ``FuzzCredentials/trial(from:)``): the
    /// cases of issue 19 and their neighbours. A password (`SECRET` and the bytes given) in the
    /// URL, or from the helper after a 401; redirects to another port, host name, host and scheme,
    /// with and without user information in the `Location`; 401s on the discovery and on a `POST`.
    private static func credentialSeeds(_ seeds: inout SeedWriter) throws {
        let user: [UInt8] = [5] + Array("alice".utf8)
        let password: [UInt8] = [8] + Array("p@ss:w/d".utf8)
        // Answers: 0 = redirect (then host, suffix, path; bits 3-4 of the kind byte: path, absolute,
        // with user information, scheme-relative; bit 6: libcurl carries the user information), 3 =
        // 401, 5 = 200, 7 = error status.
        let toOtherPort: [UInt8] = [0x08, 1, 0, 0]
        let toOtherName: [UInt8] = [0x08, 2, 0, 0]
        let toOtherHost: [UInt8] = [0x08, 4, 0, 0]
        let withUserInfo: [UInt8] = [0x10, 1, 0, 0]
        let carried: [UInt8] = [0x40, 0, 0, 1]
        let toHTTPS: [UInt8] = [0x08, 0x80, 0, 0]
        let cases: [[UInt8]] = [
            [0x00] + user + password + [0] + toOtherPort + [5, 3, 5],
            [0x00] + user + password + [0] + toOtherName + [3, 5, 5],
            [0x00] + user + password + [0] + toOtherHost + [5, 3],
            [0x10] + user + password + [0] + [3, 5] + toOtherPort + [5, 3, 5],
            [0x10] + user + password + [1] + [3] + carried + withUserInfo + [5, 3],
            [0x20] + user + password + [2] + carried + [5, 5, 5],
            [0x00] + user + password + [0] + toHTTPS + [3, 5],
            [0x00] + user + password + [5] + [5, 3, 5, 7],
            [0x10] + user + password + [0] + [3, 3],
            [0x00] + user + password + [0] + Array(repeating: carried, count: 22).flatMap { $0 },
        ]
        for bytes in cases { try seeds.add(.credentials, bytes) }
    }

    private static func packSeeds(_ path: String, _ seeds: inout SeedWriter) throws {
        let pack = try FileSystem.read(path)
        let indexPath = String(path.dropLast(".pack".count)) + ".idx"
        // The index's checksum tells the pack's format (a SHA-256 pack's index checks out only so).
        guard let format = ObjectFormat.allCases.first(where: { (try? PackIndex(path: indexPath, format: $0)) != nil })
        else { return }
        let sha256 = format == .sha256
        try seeds.add(.indexPack, [sha256 ? 0x20 : 0, 0] + pack)
        let reader = try PackReader(packPath: path, format: format)
        let inflater = try Inflater()
        let index = try PackIndex(path: indexPath, format: format)
        try seeds.add(.packIndex, [sha256 ? 0x02 : 0] + FileSystem.read(indexPath))
        let offsets = (0..<index.count).map(index.offset(at:)).sorted()
        for (position, offset) in offsets.enumerated() {
            let end = position + 1 < offsets.count ? Int(offsets[position + 1]) : pack.count - format.byteCount
            let entry = pack[Int(offset)..<end]
            if offset < 1 << 16 {
                try seeds.add(
                    .packEntry, [UInt8(offset >> 8), UInt8(offset & 0xff), sha256 ? 0x80 : 0] + entry.prefix(44))
            }
            guard let header = try PackEntryHeader.parse(entry, at: offset, format: format) else { continue }
            let object = try reader.object(atOffset: offset)
            try seeds.add(.looseObject, [0] + LooseObjectStore.encode(object))
            if object.type != .blob {
                try seeds.add(.objectLinks, [object.type.rawValue - 1 | (sha256 ? 0x80 : 0)] + object.data)
            }
            let base: [UInt8]
            switch header.kind {
            case .object: continue
            case .offsetDelta(let baseOffset): base = try reader.object(atOffset: baseOffset).data
            case .referenceDelta(let id): base = try reader.object(id)?.data ?? []
            }
            guard base.count < 1 << 16 else { continue }
            let delta = try inflater.inflateWhole(entry.dropFirst(header.length), size: Int(header.size)).bytes
            try seeds.add(.delta, [UInt8(base.count >> 8), UInt8(base.count & 0xff)] + base + delta)
        }
    }
}

/// Writes seeds named by their position, up to a bound per target.
private struct SeedWriter {
    let directory: String
    var counts: [FuzzTarget: Int] = [:]
    static let limit = 300

    init(directory: String) { self.directory = directory }

    mutating func add(_ target: FuzzTarget, _ bytes: [UInt8]) throws {
        let count = counts[target, default: 0]
        guard count < Self.limit else { return }
        let folder = "\(directory)/\(target.rawValue)"
        try FileSystem.makeDirectories(folder)
        try FileSystem.writeAtomically(
            bytes[...], to: "\(folder)/seed-\(count)", permissions: 0o644, temporaryPrefix: ".seed-")
        counts[target] = count + 1
    }
}
