import CGitWire
import GitWireCore

/// Streaming SHA-256, as git names objects in a repository with `extensions.objectFormat =
/// sha256` (no collision detection: none is needed). Compresses with the SHA extensions where
/// the CPU has them (`Sources/CGitWire/sha256.c`), with portable C elsewhere.
///
/// ```swift
/// var sha = SHA256()
/// sha.update(Array("blob 5\0hello".utf8))
/// let id = sha.finish()      // a 32-byte ObjectID of format .sha256
/// ```
public struct SHA256: Sendable {
    @usableFromInline var context = cgw_sha256_ctx()

    /// Starts a new digest.
    public init() { cgw_sha256_init(&context, -1) }

    /// Starts a new digest on the given code path (tests compare them).
    package init(paths: SHA256Paths) { cgw_sha256_init(&context, paths.features) }

    /// Adds the bytes of `buffer` to the digest.
    @inlinable
    public mutating func update(_ buffer: UnsafeRawBufferPointer) {
        cgw_sha256_update(&context, buffer.baseAddress, buffer.count)
    }

    /// Adds `bytes` to the digest.
    @inlinable
    public mutating func update(_ bytes: ArraySlice<UInt8>) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// Adds `bytes` to the digest.
    @inlinable
    public mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// Finishes the digest. The value must not be updated afterwards.
    public mutating func finish() -> ObjectID {
        var digest = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        withUnsafeMutableBytes(of: &digest) { raw in
            cgw_sha256_final(&context, raw.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
        return ObjectID(
            words: UInt64(bigEndian: digest.0), UInt64(bigEndian: digest.1), UInt64(bigEndian: digest.2),
            UInt64(bigEndian: digest.3), format: .sha256)
    }

    /// The SHA-256 of `bytes`.
    public static func hash(_ bytes: ArraySlice<UInt8>) -> ObjectID {
        var sha = SHA256()
        sha.update(bytes)
        return sha.finish()
    }
}

/// Which code path a ``SHA256`` takes; tests run the same data through each.
package enum SHA256Paths: Sendable, CaseIterable {
    /// The fastest this CPU has (the default).
    case fastest
    /// The portable C code only.
    case portable

    var features: Int32 {
        switch self {
        case .fastest: return -1
        case .portable: return 0
        }
    }

    /// Whether the CPU has the SHA extensions (`fastest` is portable code otherwise).
    package static var hasSHAExtensions: Bool {
        cgw_sha256_available_features() & Int32(CGW_SHA256_SHA_EXTENSIONS) != 0
    }
}

/// Names objects and checks packs in a repository's ``ObjectFormat``: SHA-1 with collision
/// detection (``SHA1``) or SHA-256 (``SHA256``).
public struct ObjectHasher: Sendable {
    /// The format of the names it makes.
    public let format: ObjectFormat
    @usableFromInline var sha1: SHA1?
    @usableFromInline var sha256: SHA256?

    /// Starts a new digest in `format`.
    public init(_ format: ObjectFormat) {
        self.format = format
        if format == .sha1 { sha1 = SHA1() } else { sha256 = SHA256() }
    }

    /// Adds the bytes of `buffer` to the digest.
    @inlinable
    public mutating func update(_ buffer: UnsafeRawBufferPointer) {
        if format == .sha1 { sha1!.update(buffer) } else { sha256!.update(buffer) }
    }

    /// Adds `bytes` to the digest.
    @inlinable
    public mutating func update(_ bytes: ArraySlice<UInt8>) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// Adds `bytes` to the digest.
    @inlinable
    public mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// Finishes the digest; throws for SHA-1 data that carries a collision attack (see ``SHA1``).
    /// The value must not be updated afterwards.
    public mutating func finish() throws(SHA1CollisionError) -> ObjectID {
        if format == .sha1 { return try sha1!.finish() }
        return sha256!.finish()
    }

    /// The digest of `bytes` in `format`; throws for SHA-1 data that carries a collision attack.
    public static func hash(_ bytes: ArraySlice<UInt8>, format: ObjectFormat) throws(SHA1CollisionError) -> ObjectID {
        var hasher = ObjectHasher(format)
        hasher.update(bytes)
        return try hasher.finish()
    }
}
