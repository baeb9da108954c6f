/// A pack index file is not a valid version 2 index.
public enum PackIndexError: GitWireError, Equatable, Sendable {
    /// What kind of failure this is: ``GitWireErrorKind/pack``.
    public var kind: GitWireErrorKind { .pack }

    /// The file is shorter than any index.
    case tooShort(Int)
    /// The file does not start with the index signature.
    case badSignature
    /// The index version is not 2.
    case unsupportedVersion(UInt32)
    /// The fan-out table decreases at this bucket.
    case badFanOut(bucket: Int)
    /// The file's size does not fit the number of objects.
    case badSize(Int, objects: Int)
    /// A 4-byte offset points past the 8-byte table.
    case badLargeOffset(position: Int)
    /// The offset of the entry at `position` (in name order) lies outside its pack's entries:
    /// inside the pack's header or at or past its trailer (a damaged index, or one of another
    /// pack).
    case offsetOutOfRange(position: Int, offset: UInt64)
    /// The trailing checksum is wrong.
    case checksumMismatch
    /// The index's bytes carry a SHA-1 collision attack (the id is git's "safe hash" of them).
    case sha1CollisionAttack(ObjectID)

    /// The text shown to users and in logs.
    public var description: String {
        switch self {
        case .tooShort(let size): return "pack index too short (\(size) bytes)"
        case .badSignature: return "not a pack index (bad signature)"
        case .unsupportedVersion(let version): return "unsupported pack index version \(version)"
        case .badFanOut(let bucket): return "pack index fan-out decreases at bucket \(bucket)"
        case .badSize(let size, let objects): return "pack index size \(size) does not fit \(objects) objects"
        case .badLargeOffset(let position): return "pack index offset \(position) points past the 8-byte table"
        case .offsetOutOfRange(let position, let offset):
            return
                "pack index entry \(position) has offset \(offset) outside its pack (truncated pack or damaged index?)"
        case .checksumMismatch: return "pack index checksum mismatch"
        case .sha1CollisionAttack(let id): return "SHA-1 appears to be part of a collision attack: \(id)"
        }
    }
}
