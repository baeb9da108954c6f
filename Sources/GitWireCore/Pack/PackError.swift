/// A pack or one of its entries is malformed, incomplete or inconsistent. Says what is wrong and at
/// which byte offset of the pack.
public struct PackError: GitWireError, Equatable, Sendable {
    /// What kind of failure this is: ``GitWireErrorKind/pack``.
    public var kind: GitWireErrorKind { .pack }

    /// What is wrong.
    public enum Reason: Equatable, Sendable {
        /// The pack does not start with `PACK`.
        case badSignature
        /// The pack's version is not 2 or 3.
        case unsupportedVersion(UInt32)
        /// An entry header names type 0, 5 or another unknown type.
        case badObjectType(UInt8)
        /// An entry header's size or delta offset does not fit in 64 bits.
        case headerOverflow
        /// An offset delta points before the start of the pack or at itself.
        case badDeltaBaseOffset(distance: UInt64)
        /// An offset delta's base offset is not where an entry starts.
        case deltaBaseNotAnEntry(baseOffset: UInt64)
        /// An entry's zlib stream is corrupt.
        case badZlibStream(String)
        /// An entry inflated to another size than its header gives (`nil`: more than expected).
        case sizeMismatch(expected: UInt64, actual: UInt64?)
        /// The input ended before the pack did.
        case truncated(objectsRead: Int, objectsExpected: UInt32)
        /// The header promises more objects than the pack holds: the input ended, after
        /// `objectsRead` objects, with a valid checksum.
        case objectCountMismatch(header: UInt32, objectsRead: Int)
        /// More bytes follow the trailing checksum of the objects the header announces.
        case dataAfterEnd(objectCount: UInt32)
        /// The trailing checksum is not the SHA-1 of the pack.
        case checksumMismatch(expected: ObjectID, computed: ObjectID)
        /// A delta's base is neither in the pack nor among the external bases.
        case deltaBaseMissing(DeltaBase)
        /// A delta does not apply to its base.
        case badDelta(DeltaError)
        /// Two entries hold the same object.
        case duplicateObject(ObjectID, firstOffset: UInt64)
        /// A delta chain loops back on itself.
        case deltaChainLoop
        /// A delta was reached a second time, through another object with the name of its base
        /// (two entries hold that object, or a delta's result is its own base); git 2.39 refuses
        /// such a pack with the same words.
        case deltaAlreadyResolved(base: ObjectID)
        /// The pack holds more objects than an index can name.
        case tooManyObjects
        /// An object supplied to complete a thin pack does not hash to its name.
        case externalBaseCorrupt(ObjectID)
        /// An entry read back from the pack file is not what the first pass read there.
        case packChangedOnDisk
        /// An object or the pack itself carries a SHA-1 collision attack; the id is the digest
        /// computed instead (git's "safe hash").
        case sha1CollisionAttack(ObjectID)
    }

    /// The offset of the entry (or byte) where the problem was found.
    public var offset: UInt64
    /// What is wrong.
    public var reason: Reason

    /// Makes an error for `reason` at `offset`.
    public init(offset: UInt64, _ reason: Reason) {
        self.offset = offset
        self.reason = reason
    }

    /// The text shown to users and in logs.
    public var description: String { "pack error at offset \(offset): \(reasonDescription)" }

    private var reasonDescription: String {
        switch reason {
        case .badSignature: return "bad signature (not a pack)"
        case .unsupportedVersion(let version): return "unsupported pack version \(version)"
        case .badObjectType(let type): return "bad object type \(type)"
        case .headerOverflow: return "entry size or delta offset overflows 64 bits"
        case .badDeltaBaseOffset(let distance): return "delta base offset out of bounds (\(distance) bytes back)"
        case .deltaBaseNotAnEntry(let base): return "delta base missing (ofs-delta to offset \(base), not an entry)"
        case .badZlibStream(let message): return "bad zlib stream (\(message))"
        case .sizeMismatch(let expected, let actual):
            return "size mismatch: header says \(expected) bytes, inflated to \(actual.map(String.init) ?? "more")"
        case .truncated(let read, let expected):
            return "pack truncated after \(read) of \(expected) objects"
        case .objectCountMismatch(let header, let read):
            return "object count mismatch: header says \(header) objects, pack holds \(read)"
        case .dataAfterEnd(let count): return "data after the end of the \(count) objects the header announces"
        case .checksumMismatch(let expected, let computed):
            return "pack checksum mismatch: trailer \(expected), computed \(computed)"
        case .deltaBaseMissing(let base): return "delta base missing (\(base))"
        case .badDelta(let error): return "bad delta: \(error)"
        case .duplicateObject(let id, let first): return "duplicate object \(id) (also at offset \(first))"
        case .deltaChainLoop: return "delta chain loops"
        case .deltaAlreadyResolved(let base): return "delta already resolved (duplicate base \(base)?)"
        case .tooManyObjects: return "too many objects"
        case .externalBaseCorrupt(let id): return "local object \(id) is corrupt"
        case .packChangedOnDisk: return "pack file changed on disk while being indexed"
        case .sha1CollisionAttack(let id): return "SHA-1 appears to be part of a collision attack: \(id)"
        }
    }
}
