import CGitWire
import GitWireCore

/// Streaming SHA-1 with collision detection, as git names objects (its SHA-1DC): the digest of
/// ordinary data is plain SHA-1, and data that carries one of the known collision attacks on
/// SHA-1 (SHAttered, SHA-mbles and anything else built on the same disturbance vectors) makes
/// ``finish()`` throw ``SHA1CollisionError``.
///
/// Detection follows Stevens' counter-cryptanalysis (CRYPTO 2013) with the unavoidable bit
/// conditions of Stevens and Shumow (USENIX Security 2017), in gitwire's own C
/// (`Sources/CGitWire/sha1dc.c`): the SHA extensions compress, AVX2 checks the conditions of eight
/// blocks at once, and a portable version runs on other CPUs. Every object id and pack checksum
/// gitwire computes goes through it; ``UncheckedSHA1`` is plain SHA-1 for callers that ask for it.
///
/// ```swift
/// var sha = SHA1()
/// sha.update(Array("blob 5\0hello".utf8))
/// let id = try sha.finish()      // throws SHA1CollisionError for attack data
/// ```
public struct SHA1: Sendable {
    @usableFromInline var context = cgw_sha1dc_ctx()

    /// Starts a new digest.
    public init() { cgw_sha1dc_init(&context, 1, -1) }

    /// Starts a new digest on the given code paths (tests compare them); with
    /// `detectReducedRoundCollisions`, also reports collisions of reduced-round SHA-1, which only
    /// tests of the detection itself want.
    package init(paths: SHA1Paths, detectReducedRoundCollisions: Bool = false) {
        cgw_sha1dc_init(&context, 1, paths.features)
        cgw_sha1dc_detect_reduced_round(&context, detectReducedRoundCollisions ? 1 : 0)
    }

    /// Adds the bytes of `buffer` to the digest.
    @inlinable
    public mutating func update(_ buffer: UnsafeRawBufferPointer) {
        cgw_sha1dc_update(&context, buffer.baseAddress, buffer.count)
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

    /// Finishes the digest. Throws if the data carries a collision attack; the error holds the
    /// digest git prints then (the "safe hash": the attack block compressed twice more). The
    /// value must not be updated afterwards.
    public mutating func finish() throws(SHA1CollisionError) -> ObjectID {
        var digest = (UInt64(0), UInt64(0), UInt32(0))
        let attack = withUnsafeMutableBytes(of: &digest) { raw in
            cgw_sha1dc_final(&context, raw.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
        let id = ObjectID(
            words: UInt64(bigEndian: digest.0), UInt64(bigEndian: digest.1), UInt64(UInt32(bigEndian: digest.2)) << 32,
            0,
            format: .sha1)
        if attack != 0 { throw SHA1CollisionError(safeHash: id) }
        return id
    }

    /// The SHA-1 of `bytes`; throws if they carry a collision attack.
    public static func hash(_ bytes: ArraySlice<UInt8>) throws(SHA1CollisionError) -> ObjectID {
        var sha = SHA1()
        sha.update(bytes)
        return try sha.finish()
    }
}

/// Which code paths a ``SHA1`` may take; tests run the same data through each.
package enum SHA1Paths: Sendable, CaseIterable {
    /// The fastest this CPU has (the default).
    case fastest
    /// The SHA extensions and the AVX2 condition masks, eight blocks at a time (what `fastest` is
    /// on a CPU without AVX-512).
    case avx2
    /// The SHA extensions for compression, but the portable condition check, one block at a time.
    case shaExtensionsOnly
    /// The portable C code only.
    case portable

    var features: Int32 {
        switch self {
        case .fastest: return -1
        case .avx2: return Int32(CGW_SHA1DC_SHA_EXTENSIONS | CGW_SHA1DC_AVX2)
        case .shaExtensionsOnly: return Int32(CGW_SHA1DC_SHA_EXTENSIONS)
        case .portable: return 0
        }
    }

    /// Whether this CPU has every instruction the path would use (the others fall back to
    /// portable code).
    package var isAvailable: Bool {
        let available = cgw_sha1dc_available_features()
        switch self {
        case .fastest, .portable: return true
        case .shaExtensionsOnly: return available & Int32(CGW_SHA1DC_SHA_EXTENSIONS) != 0
        case .avx2:
            let both = Int32(CGW_SHA1DC_SHA_EXTENSIONS | CGW_SHA1DC_AVX2)
            return available & both == both
        }
    }
}

/// Plain streaming SHA-1 (the same code as ``SHA1`` with collision detection off, SHA-NI where
/// present), without collision detection: for callers that
/// explicitly want the digest of data whatever it carries (for instance to show that two attack
/// files collide). gitwire itself names objects and checks packs with ``SHA1``.
public struct UncheckedSHA1: Sendable {
    @usableFromInline var context = cgw_sha1_ctx()

    /// Starts a new digest.
    public init() { cgw_sha1_init(&context) }

    /// Adds the bytes of `buffer` to the digest.
    @inlinable
    public mutating func update(_ buffer: UnsafeRawBufferPointer) {
        cgw_sha1_update(&context, buffer.baseAddress, buffer.count)
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
        var digest = (UInt64(0), UInt64(0), UInt32(0))
        withUnsafeMutableBytes(of: &digest) { raw in
            cgw_sha1_final(&context, raw.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
        return ObjectID(
            words: UInt64(bigEndian: digest.0), UInt64(bigEndian: digest.1), UInt64(UInt32(bigEndian: digest.2)) << 32,
            0,
            format: .sha1)
    }

    /// The SHA-1 of `bytes`.
    public static func hash(_ bytes: ArraySlice<UInt8>) -> ObjectID {
        var sha = UncheckedSHA1()
        sha.update(bytes)
        return sha.finish()
    }
}

/// Objects named together: their headers and contents are hashed with collision detection, up to
/// sixteen side by side with AVX-512 (faster than one object at a time on the SHA extensions when
/// the batch holds many objects of similar sizes; see Documentation/Performance.md, "index-pack"),
/// one after the other on CPUs without it. The digests are those of ``ObjectID/of(type:data:format:)``. With
/// SHA-256 the objects are named one after the other (on the SHA extensions where present).
package struct ObjectHashBatch {
    /// The format of the names.
    package let format: ObjectFormat
    /// Each object's type, or nil for raw bytes.
    private var types: [ObjectType?] = []
    private var contents: [[UInt8]] = []

    /// Makes an empty batch naming objects in `format`.
    package init(format: ObjectFormat = .sha1) { self.format = format }

    /// The number of objects waiting.
    package var count: Int { contents.count }
    /// The content bytes waiting.
    package private(set) var bytes = 0

    /// Adds an object to name; its content is kept (not copied) until ``hashAll(paths:)``.
    package mutating func append(type: ObjectType, data: [UInt8]) {
        types.append(type)
        contents.append(data)
        bytes += data.count
    }

    /// Adds bytes to hash as they are, with no object header (tests of the collision detection
    /// use it: the public attacks are raw files).
    package mutating func append(raw data: [UInt8]) {
        types.append(nil)
        contents.append(data)
        bytes += data.count
    }

    /// Names every object added since the last call, in the order they were added, and empties
    /// the batch: each result is the object's name, or the collision error its data raised.
    package mutating func hashAll(paths: SHA1Paths = .fastest) -> [Result<ObjectID, SHA1CollisionError>] {
        defer {
            types.removeAll(keepingCapacity: true)
            contents.removeAll(keepingCapacity: true)
            bytes = 0
        }
        if contents.isEmpty { return [] }
        if format == .sha256 {
            return zip(types, contents).map { type, data in
                var sha = SHA256()
                if let type { sha.update(type.header(size: data.count)) }
                sha.update(data)
                return .success(sha.finish())
            }
        }
        var headers: [UInt8] = []
        var headerEnds: [Int] = []
        for (type, data) in zip(types, contents) {
            if let type { headers += type.header(size: data.count) }
            headerEnds.append(headers.count)
        }
        var jobs = [cgw_sha1dc_job](repeating: cgw_sha1dc_job(), count: contents.count)
        headers.withUnsafeBufferPointer { headerBytes in
            var start = 0
            for index in jobs.indices {
                // An empty header (raw bytes only) has no storage to point into.
                jobs[index].prefix = headerBytes.baseAddress.map { $0 + start }
                jobs[index].prefix_length = headerEnds[index] - start
                start = headerEnds[index]
            }
            Self.withContents(contents[...], jobs: &jobs) { jobs in
                cgw_sha1dc_hash_jobs(jobs.baseAddress, jobs.count, paths.features)
            }
        }
        return jobs.map { job in
            var digest = job.digest
            let id = withUnsafeBytes(of: &digest) { raw in
                ObjectID(
                    words: UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self)),
                    UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)),
                    UInt64(UInt32(bigEndian: raw.loadUnaligned(fromByteOffset: 16, as: UInt32.self))) << 32, 0,
                    format: .sha1)
            }
            return job.attack != 0 ? .failure(SHA1CollisionError(safeHash: id)) : .success(id)
        }
    }

    /// Points each job at its content for as long as `body` runs: one nested access per array,
    /// so every pointer stays valid throughout.
    private static func withContents(
        _ rest: ArraySlice<[UInt8]>, jobs: inout [cgw_sha1dc_job],
        _ body: (UnsafeMutableBufferPointer<cgw_sha1dc_job>) -> Void
    ) {
        guard let first = rest.first else {
            jobs.withUnsafeMutableBufferPointer { body($0) }
            return
        }
        first.withUnsafeBufferPointer { data in
            let index = jobs.count - rest.count
            // An empty array may have no storage; the C side reads nothing then.
            jobs[index].data = data.baseAddress
            jobs[index].length = data.count
            withContents(rest.dropFirst(), jobs: &jobs, body)
        }
    }
}
