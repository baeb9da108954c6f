import GitWire
import GitWireCoreTestSupport

/// The pack indexer, on raw input and on packs built from the input.
enum FuzzIndexPack {
    /// A folder of this process for the packs the indexer writes (emptied after each input).
    static let directory: String = {
        let base = Environment.value("TMPDIR") ?? "/tmp"
        let path = "\(base)/gitwire-fuzz-\(UInt64.random(in: 0...UInt64.max))"
        try? FileSystem.makeDirectories(path)
        return path
    }()

    /// Objects a thin pack may name as bases without holding them, by id in each format.
    static let externalObjects: [ObjectID: GitObject] = {
        var objects: [ObjectID: GitObject] = [:]
        for text in ["external base one\n", String(repeating: "external base two, longer\n", count: 20)] {
            let object = GitObject(type: .blob, data: Array(text.utf8))
            for format in ObjectFormat.allCases { objects[try! object.id(format)] = object }
        }
        return objects
    }()

    /// The external objects, smallest first (each once).
    static let externalList: [GitObject] = Array(Set(externalObjects.values.map(\.data)))
        .sorted { $0.count < $1.count }.map { GitObject(type: .blob, data: $0) }

    static func raw(_ data: [UInt8]) {
        var input = FuzzInput(data)
        let flags = input.byte()
        let format: ObjectFormat = flags & 0x20 != 0 ? .sha256 : .sha1
        let size = fuzzChunkSize(input.byte())
        var pack = input.rest()
        if flags & 1 != 0, pack.count >= 12 + format.byteCount {
            pack.removeLast(format.byteCount)
            pack += checksum(pack, format)
        }
        _ = indexTwice(pack, chunkSize: size, flags: flags, links: flags & 0x10 != 0, format: format)
        cleanUp()
    }

    /// The checksum of `bytes` in `format`, attacks or not.
    static func checksum(_ bytes: [UInt8], _ format: ObjectFormat) -> [UInt8] {
        format == .sha1 ? UncheckedSHA1.hash(bytes[...]).bytes : SHA256.hash(bytes[...]).bytes
    }

    static func built(_ data: [UInt8]) {
        var input = FuzzInput(data)
        let flags = input.byte()
        let format: ObjectFormat = flags & 0x01 != 0 ? .sha256 : .sha1
        let size = fuzzChunkSize(input.byte())
        var builder = FuzzPackBuilder(level: Int32(flags >> 4) % 10, format: format)
        let entryCount = 1 + Int(input.byte() % 24)
        for _ in 0..<entryCount where !input.isEmpty { builder.addEntry(&input) }
        let pack = builder.pack(objectCount: flags & 0x02 != 0 ? UInt32(input.byte()) : nil)
        defer { cleanUp() }
        guard let result = indexTwice(pack, chunkSize: size, flags: flags, links: false, format: format) else {
            return
        }
        // A pack built without deliberate damage must index to exactly the objects it was built
        // from, each readable with the content the builder gave it.
        guard !builder.damaged, flags & 0x02 == 0 else { return }
        fuzzInvariant(
            result.objectCount == builder.expected.count + result.objectsAdded,
            "indexed \(result.objectCount) objects, built \(builder.expected.count)")
        fuzzInvariant(result.packChecksum.format == format, "a checksum of another format")
        guard let reader = try? PackReader(packPath: result.packPath, format: format) else {
            fuzzInvariant(false, "the indexed pack does not open")
            return
        }
        for (id, object) in builder.expected {
            fuzzInvariant((try? reader.object(id)) == object, "object \(id) reads back differently")
        }
    }

    /// Indexes `pack` whole, then in pieces of `chunkSize`: both must end alike (the same index
    /// byte for byte, or the same error). Returns the second result, its files left in place for
    /// the caller to check and then remove (see ``cleanUp()``).
    private static func indexTwice(
        _ pack: [UInt8], chunkSize: Int, flags: UInt8, links: Bool, format: ObjectFormat
    ) -> PackIndexResult? {
        let whole = index(pack, chunkSize: Int.max, flags: flags, links: links, format: format)
        cleanUp()
        let pieces = index(pack, chunkSize: chunkSize, flags: flags, links: links, format: format)
        fuzzInvariant(
            whole.outcome == pieces.outcome,
            "indexing in pieces of \(chunkSize) ended otherwise: \(whole.outcome) / \(pieces.outcome)")
        return pieces.result
    }

    /// Indexes `pack` in pieces of `chunkSize`: what came of it (the index's checksum and object
    /// count, or the error) and the result if it indexed.
    private static func index(_ pack: [UInt8], chunkSize: Int, flags: UInt8, links: Bool, format: ObjectFormat) -> (
        outcome: String, result: PackIndexResult?
    ) {
        var options = PackIndexOptions(
            threads: flags & 0x04 != 0 ? 2 : 1, baseCacheLimit: flags & 0x08 != 0 ? 64 : 1 << 20, objectFormat: format)
        // The connectivity check's link collection parses every commit, tree and tag as it is indexed.
        if links { options.links = LinkCollector(shallow: [], contentMayBeMissing: true, format: format) }
        do {
            let indexer = try PackIndexer(destination: .directory(directory), options: options)
            for chunk in fuzzChunks(pack, size: chunkSize) { try indexer.append(chunk) }
            let result = try indexer.finish(externalBases: ExternalObjects())
            let index = (try? FileSystem.read(result.indexPath)) ?? []
            return ("\(result.objectCount) objects, index \(UncheckedSHA1.hash(index[...]))", result)
        } catch {
            let left = (try? FileSystem.contents(ofDirectory: directory)) ?? []
            fuzzInvariant(left.isEmpty, "a failed indexer left \(left) behind")
            return ("error: \(error)", nil)
        }
    }

    private static func cleanUp() {
        for name in (try? FileSystem.contents(ofDirectory: directory)) ?? [] {
            try? FileSystem.remove("\(directory)/\(name)")
        }
    }

    struct ExternalObjects: ObjectSource {
        func object(_ id: ObjectID) throws -> GitObject? { externalObjects[id] }
    }
}

/// Builds a pack from fuzzer input: whole objects, offset and reference deltas made of copy and
/// insert instructions the input chooses (so their results are known), and, when the input asks
/// for it, damage (wrong sizes, cut zlib streams, bytes flipped, garbage).
struct FuzzPackBuilder {
    private let level: Int32
    private let format: ObjectFormat
    private var body: [UInt8] = []
    private var count: UInt32 = 0
    /// Entries so far: pack offset and the object each resolves to (nil when damaged).
    private var entries: [(offset: Int, object: GitObject?)] = []
    /// The objects the pack should index to, by id.
    private(set) var expected: [ObjectID: GitObject] = [:]
    /// Whether damage was done on purpose.
    private(set) var damaged = false

    init(level: Int32, format: ObjectFormat) {
        self.level = level
        self.format = format
    }

    mutating func addEntry(_ input: inout FuzzInput) {
        let operation = input.byte()
        let offset = 12 + body.count
        let bases = entries.compactMap { entry in entry.object.map { (entry.offset, $0) } }
        switch operation % 5 {
        case 0, 1:
            let type = [ObjectType.blob, .blob, .tree, .commit, .tag][Int(input.byte()) % 5]
            let data = input.take(Int(input.byte()))
            add(
                typeNumber: type.rawValue, data: data, extra: [], object: GitObject(type: type, data: data),
                input: &input, operation: operation)
        case 2 where !bases.isEmpty:
            let (baseOffset, base) = bases[Int(input.byte()) % bases.count]
            let (delta, result) = makeDelta(on: base.data, &input)
            add(
                typeNumber: 6, data: delta, extra: PackEncoding.baseDistance(offset - baseOffset),
                object: GitObject(type: base.type, data: result), input: &input, operation: operation)
        case 3:
            let candidates = bases.map(\.1) + FuzzIndexPack.externalList
            let base = candidates[Int(input.byte()) % candidates.count]
            let (delta, result) = makeDelta(on: base.data, &input)
            let object = GitObject(type: base.type, data: result)
            // A delta whose result is its own external base makes the thin pack name one object twice.
            if let id = try? object.id(format), FuzzIndexPack.externalObjects[id] != nil { damaged = true }
            guard let baseID = try? base.id(format) else { return }
            add(typeNumber: 7, data: delta, extra: baseID.bytes, object: object, input: &input, operation: operation)
        default:
            body += input.take(Int(input.byte() % 64))
            count += 1
            entries.append((offset, nil))
            damaged = true
        }
    }

    /// The pack, with `objectCount` in its header instead of the true count if given.
    func pack(objectCount: UInt32?) -> [UInt8] {
        var pack = PackHeader(objectCount: objectCount ?? count).bytes + body
        pack += FuzzIndexPack.checksum(pack, format)
        return pack
    }

    private mutating func add(
        typeNumber: UInt8, data: [UInt8], extra: [UInt8], object: GitObject, input: inout FuzzInput, operation: UInt8
    ) {
        var declared = UInt64(data.count)
        var compressed = (try? Deflater(level: level).deflateWhole(data[...])) ?? []
        var object: GitObject? = object
        if operation & 0x80 != 0 {
            damaged = true
            object = nil
            switch input.byte() % 4 {
            case 0: declared = declared &+ UInt64(input.byte()) &- 128
            case 1: compressed.removeLast(min(compressed.count, 1 + Int(input.byte() % 8)))
            case 2 where !compressed.isEmpty:
                compressed[Int(input.byte()) % compressed.count] ^= 1 << (input.byte() % 8)
            default: compressed += input.take(Int(input.byte() % 8))
            }
        }
        let header = PackEncoding.entryHeader(typeNumber: typeNumber, size: declared)
        entries.append((12 + body.count, object))
        body += header + extra + compressed
        count += 1
        if let object, let id = try? object.id(format) {
            if expected[id] != nil { damaged = true }  // a duplicate: the indexer must refuse it
            expected[id] = object
        }
    }

    /// A delta on `base` from copy and insert instructions the input chooses, and its result.
    private func makeDelta(on base: [UInt8], _ input: inout FuzzInput) -> (delta: [UInt8], result: [UInt8]) {
        var instructions: [UInt8] = []
        var result: [UInt8] = []
        for _ in 0..<(1 + Int(input.byte() % 8)) where result.count < 1 << 16 {
            let choice = input.byte()
            if choice & 1 == 0 || base.isEmpty {
                var text = input.take(1 + Int(choice >> 1) % 127)
                if text.isEmpty { text = [0x0a] }
                instructions.append(UInt8(text.count))
                instructions += text
                result += text
            } else {
                let start = input.uint16() % base.count
                let length = min(0xffff, 1 + input.uint16() % (base.count - start))
                instructions += [
                    0x80 | 0x01 | 0x02 | 0x10 | 0x20, UInt8(start & 0xff), UInt8(start >> 8), UInt8(length & 0xff),
                    UInt8(length >> 8),
                ]
                result += base[start..<(start + length)]
            }
        }
        return (PackEncoding.deltaSize(base.count) + PackEncoding.deltaSize(result.count) + instructions, result)
    }
}
