import CGitWire
import GitWireCore

/// Streaming SHA-1 over the system libcrypto (hardware SHA extensions where the CPU has them).
/// It does not detect collision attacks the way git's SHA-1DC does; see the README.
public struct SHA1: Sendable {
    private var context = cgw_sha1_ctx()

    /// Starts a new digest.
    public init() { cgw_sha1_init(&context) }

    /// Adds `bytes` to the digest.
    public mutating func update(_ bytes: ArraySlice<UInt8>) {
        bytes.withUnsafeBufferPointer { cgw_sha1_update(&context, $0.baseAddress, $0.count) }
    }

    /// Adds `bytes` to the digest.
    public mutating func update(_ bytes: [UInt8]) { update(bytes[...]) }

    /// Finishes the digest. The value must not be updated afterwards.
    public mutating func finish() -> ObjectID {
        var digest = (
            UInt64(0), UInt64(0), UInt32(0)
        )
        withUnsafeMutableBytes(of: &digest) { raw in
            cgw_sha1_final(&context, raw.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
        return ObjectID(
            high: UInt64(bigEndian: digest.0), middle: UInt64(bigEndian: digest.1), low: UInt32(bigEndian: digest.2))
    }

    /// The SHA-1 of `bytes`.
    public static func hash(_ bytes: ArraySlice<UInt8>) -> ObjectID {
        var sha = SHA1()
        sha.update(bytes)
        return sha.finish()
    }
}
