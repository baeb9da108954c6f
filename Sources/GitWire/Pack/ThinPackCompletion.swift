/// Completes a thin pack as `git index-pack --fix-thin` does: for each reference delta still
/// unresolved, in pack order, appends its base (read from an ``ObjectSource``) as a whole object
/// where the trailer was, resolves the deltas that hang off it, and finally rewrites the object
/// count in the header and the trailing checksum.
final class ThinPackCompletion {
    private let plan: DeltaResolutionPlan
    private let claims: OnceFlags
    private let file: File
    private let header: PackHeader
    private let checksum: ObjectID
    private let progress: ProgressCounter
    /// The number of objects appended.
    private(set) var objectsAdded = 0
    /// What resolving the deltas on the appended bases did.
    private(set) var statistics = DeltaResolutionStatistics()

    private let links: LinkCollector?

    /// Prepares to complete the pack in `file`, whose first pass `plan` describes (with the deltas
    /// resolved so far claimed in `claims`), whose header was `header` and whose trailer was
    /// `checksum`.
    init(
        plan: DeltaResolutionPlan, claims: OnceFlags, file: File, header: PackHeader, checksum: ObjectID,
        progress: ProgressCounter, links: LinkCollector? = nil
    ) {
        self.links = links
        self.plan = plan
        self.claims = claims
        self.file = file
        self.header = header
        self.checksum = checksum
        self.progress = progress
    }

    /// Appends the missing bases `bases` has, records them and the deltas they resolve in
    /// `table`, and returns the completed pack's new checksum.
    func complete(_ table: inout PackEntryTable, from bases: any ObjectSource) throws -> ObjectID {
        let originalEnd = table.endOffset
        try file.truncate(to: Int64(originalEnd))
        let deflater = try Deflater(level: 1)
        // Each tree whole before the next base is looked for (a delta resolved is no longer missing
        // its base): objects named one by one.
        let resolver = try DeltaTreeResolver(
            plan: plan, claims: claims, progress: progress, links: links, inOrder: true)
        defer {
            resolver.flushLinks()
            statistics = resolver.statistics
        }
        for link in plan.referenceChildren.inPackOrder() where table.ids[Int(link.delta)].isZero {
            guard let base = try bases.object(link.base) else { continue }
            let baseID: ObjectID
            do { baseID = try base.id(checksum.format) } catch {
                throw PackError(offset: table.endOffset, .sha1CollisionAttack(error.safeHash))
            }
            guard baseID == link.base else {
                throw PackError(offset: table.endOffset, .externalBaseCorrupt(link.base))
            }
            let entryHeader = PackEntryHeader.encode(type: base.type, size: UInt64(base.data.count))
            let compressed = try deflater.deflateWhole(base.data[...])
            let offset = table.endOffset
            try file.write(entryHeader[...], at: Int64(offset))
            try file.write(compressed[...], at: Int64(offset) + Int64(entryHeader.count))
            let index = Int32(table.count)
            table.offsets.append(offset)
            table.crc32s.append(crc32(compressed[...], continuing: crc32(entryHeader[...])))
            table.typeNumbers.append(base.type.rawValue)
            table.ids.append(link.base)
            table.endOffset = offset + UInt64(entryHeader.count + compressed.count)
            objectsAdded += 1
            try resolver.resolveTree(
                root: index, type: base.type, id: link.base, range: offset..<table.endOffset, data: base.data)
            for delta in try resolver.takeResolved() { table.ids[Int(delta.index)] = delta.id }
        }
        guard objectsAdded > 0 else { return checksum }
        return try rewriteHeaderAndTrailer(
            objectCount: UInt32(table.count), originalEnd: originalEnd, end: table.endOffset)
    }

    /// Writes the new object count, then re-reads the pack to hash it: checks that the original
    /// part still hashes to the original trailer and appends the new trailer.
    private func rewriteHeaderAndTrailer(objectCount: UInt32, originalEnd: UInt64, end: UInt64) throws -> ObjectID {
        let newHeader = PackHeader(version: header.version, objectCount: objectCount).bytes
        try file.write(newHeader[...], at: 0)
        var original = ObjectHasher(checksum.format)
        var completed = ObjectHasher(checksum.format)
        original.update(header.bytes)
        completed.update(newHeader)
        var position = UInt64(PackHeader.length)
        while position < end {
            let chunk = try file.read(at: Int64(position), count: Int(min(1 << 20, end - position)))
            guard !chunk.isEmpty else { throw PackError(offset: position, .packChangedOnDisk) }
            completed.update(chunk)
            if position < originalEnd {
                original.update(chunk.prefix(Int(min(UInt64(chunk.count), originalEnd - position))))
            }
            position += UInt64(chunk.count)
        }
        let recomputed = try Self.finish(&original, at: originalEnd)
        guard recomputed == checksum else {
            throw PackError(offset: originalEnd, .checksumMismatch(expected: checksum, computed: recomputed))
        }
        let newChecksum = try Self.finish(&completed, at: end)
        try file.write(newChecksum.bytes[...], at: Int64(end))
        return newChecksum
    }

    /// Finishes a pack checksum; a collision attack in the pack becomes a ``PackError`` at `offset`.
    private static func finish(_ hash: inout ObjectHasher, at offset: UInt64) throws(PackError) -> ObjectID {
        do { return try hash.finish() } catch { throw PackError(offset: offset, .sha1CollisionAttack(error.safeHash)) }
    }
}
