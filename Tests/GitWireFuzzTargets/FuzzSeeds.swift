import GitWire
import GitWireReplay

/// Starting inputs for the fuzz targets, made from real bytes: the recorded sessions in
/// `Fixtures/` and packs written by `git pack-objects` (`Tools/fuzz.sh` makes them). Each seed
/// carries the steering bytes its target reads first.
public enum FuzzSeeds {
    /// Writes seeds made from `files` (`.session` fixtures, `.pack` files with their `.idx`) into
    /// `<directory>/<target>/`; returns how many were written per target.
    public static func write(from files: [String], into directory: String) throws -> [FuzzTarget: Int] {
        var seeds = SeedWriter(directory: directory)
        for path in files {
            if path.hasSuffix(".session") {
                try sessionSeeds(path, &seeds)
            } else if path.hasSuffix(".pack") {
                try packSeeds(path, &seeds)
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
        if path.contains("/ls-remote/") {
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
