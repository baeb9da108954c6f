/// Loose objects: one zlib-compressed file per object at `objects/xx/yyyy…`, holding
/// `<type> <size>\0` and the content.
public struct LooseObjectStore: ObjectSource, Sendable {
    /// The repository's `objects` directory.
    public let objectsDirectory: String
    /// The format objects are named in.
    public let format: ObjectFormat

    /// The loose objects under `objectsDirectory`, named in `format`.
    public init(objectsDirectory: String, format: ObjectFormat) {
        self.objectsDirectory = objectsDirectory
        self.format = format
    }

    /// Where the loose object `id` lives.
    public func path(of id: ObjectID) -> String {
        let hex = id.hex
        return "\(objectsDirectory)/\(hex.prefix(2))/\(hex.dropFirst(2))"
    }

    /// Whether the loose object `id` exists (a name of another format never does).
    public func contains(_ id: ObjectID) -> Bool { id.format == format && FileSystem.exists(path(of: id)) }

    /// The loose object `id`, or nil if there is none.
    public func object(_ id: ObjectID) throws -> GitObject? {
        guard id.format == format else { return nil }
        let path = path(of: id)
        guard FileSystem.exists(path) else { return nil }
        do {
            return try Self.decode(FileSystem.read(path)[...])
        } catch let error as LooseObjectError {
            throw LooseObjectFileError(path: path, error: error)
        }
    }

    /// The type and size the header of the loose object `id` declares, inflating no more than
    /// the header (the content is neither inflated nor checked), or nil if there is none.
    package func header(_ id: ObjectID) throws -> (type: ObjectType, size: Int)? {
        guard id.format == format else { return nil }
        let path = path(of: id)
        guard FileSystem.exists(path) else { return nil }
        do {
            let prefix: [UInt8]
            do {
                // A dynamic Huffman block's tables come before the first byte of output: read
                // more of the file when the first kilobyte does not reach the header's end.
                let file = try File.openForReading(path)
                let inflater = try Inflater()
                let start = try file.read(at: 0, count: 1024)
                var header = try inflater.inflatePrefix(start[...], count: 64)
                if start.count == 1024 && !header.contains(0) {
                    header = try inflater.inflatePrefix(file.read(at: 0, count: 64 << 10)[...], count: 64)
                }
                prefix = header
            } catch {
                throw LooseObjectError.corruptStream("\(error)")
            }
            guard let parsed = try Self.parseHeader(prefix) else { throw LooseObjectError.badHeader }
            return (parsed.type, parsed.size)
        } catch let error as LooseObjectError {
            throw LooseObjectFileError(path: path, error: error)
        }
    }

    /// Writes `object` as a loose object unless it exists already, and returns its name. The file
    /// is written under a temporary name and renamed into place, read-only, as git does.
    @discardableResult
    public func write(_ object: GitObject) throws -> ObjectID {
        let id = try object.id(format)
        let path = path(of: id)
        if FileSystem.exists(path) { return id }
        let directory = String(path.dropLast(format.hexCount - 2 + 1))
        try FileSystem.makeDirectory(directory)
        try FileSystem.writeAtomically(
            Self.encode(object)[...], to: path, permissions: 0o444, temporaryPrefix: "tmp_obj_")
        return id
    }

    /// The bytes of a loose object file: `<type> <size>\0` and the content, deflated at zlib's level 1
    /// as git's default `core.compression` does for loose objects.
    public static func encode(_ object: GitObject) throws -> [UInt8] {
        try Deflater(level: 1).deflateWhole((object.type.header(size: object.data.count) + object.data)[...])
    }

    /// Decodes the bytes of a loose object file. Inflates no further than the size in its header
    /// allows, and throws for a bad header, a size mismatch, a corrupt stream or bytes after it.
    public static func decode(_ compressed: ArraySlice<UInt8>) throws(LooseObjectError) -> GitObject {
        var output: [UInt8] = []
        var expectedTotal: Int?
        var header: (type: ObjectType, length: Int)?
        let progress: InflateProgress
        do {
            let inflater = try Inflater()
            progress = try inflater.inflate(compressed) { piece in
                output.append(contentsOf: piece)
                if expectedTotal == nil, let parsed = try parseHeader(output) {
                    header = (parsed.type, parsed.length)
                    expectedTotal = parsed.length + parsed.size
                }
                if expectedTotal == nil && output.count > 64 { throw LooseObjectError.badHeader }
                if let expectedTotal, output.count > expectedTotal { throw LooseObjectError.sizeMismatch }
            }
        } catch let error as LooseObjectError {
            throw error
        } catch {
            throw .corruptStream("\(error)")
        }
        guard progress.finished else { throw .corruptStream("stream ends early") }
        guard progress.consumed == compressed.count else { throw .trailingGarbage }
        guard let header, let expectedTotal else { throw .badHeader }
        guard output.count == expectedTotal else { throw .sizeMismatch }
        return GitObject(type: header.type, data: Array(output[header.length...]))
    }

    /// Parses `<type> <size>\0` at the start of `bytes`: nil if the NUL has not come yet.
    private static func parseHeader(_ bytes: [UInt8]) throws(LooseObjectError) -> (
        type: ObjectType, size: Int, length: Int
    )? {
        guard let nul = bytes.firstIndex(of: 0) else { return nil }
        guard let space = bytes[..<nul].firstIndex(of: UInt8(ascii: " ")),
            let type = ObjectType(name: bytes[..<space])
        else { throw .badHeader }
        let digits = bytes[(space + 1)..<nul]
        guard !digits.isEmpty, digits.count <= 18, digits.allSatisfy({ (48...57).contains($0) }),
            digits.count == 1 || digits.first != UInt8(ascii: "0")
        else { throw .badHeader }
        let size = digits.reduce(0) { $0 * 10 + Int($1 - 48) }
        return (type, size, nul + 1)
    }
}
