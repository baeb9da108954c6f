// The writing half of PackWriter: streaming the planned objects as pack entries.

extension PackWriter {
    /// The next bytes of the pack, about `maxBytes` of them (more when one object's header and
    /// compressed content run over); nil once the trailer has been returned.
    public func read(maxBytes: Int = 1 << 20) throws -> [UInt8]? {
        guard !finished || !pending.isEmpty else { return nil }
        while pending.count < maxBytes && !finished {
            if let copy = pendingCopy {
                let count = Int(min(copy.range.upperBound - copy.range.lowerBound, UInt64(maxBytes - pending.count)))
                // Through `pread`, not the maps: the copies go through the whole pack in the walk's
                // order, so two small windows of their own thrashed (0.9 s of system time for
                // curl) and the readers' sixteen would keep a large pack's pages in memory.
                let bytes = try database.packs[copy.pack].file.read(at: Int64(copy.range.lowerBound), count: count)
                guard bytes.count == count else { throw PackError(offset: copy.range.lowerBound, .packChangedOnDisk) }
                emit(bytes)
                let rest = (copy.range.lowerBound + UInt64(count))..<copy.range.upperBound
                if var check = pendingCheck {
                    check.crc = fastCRC32(bytes[...], continuing: check.crc)
                    pendingCheck = rest.isEmpty ? nil : check
                    if rest.isEmpty && check.crc != check.expected {
                        throw PushPackError.corruptPacked(check.id, packPath: database.packs[copy.pack].packPath)
                    }
                }
                pendingCopy = rest.isEmpty ? nil : (copy.pack, rest)
                continue
            }
            if let index = queue.popLast() {
                try write(at: index)
                // As git counts: once an object is written with the bases it needed first.
                if queue.isEmpty { reportWriting() }
                continue
            }
            guard next < items.count else {
                let trailer = sha256 != nil ? sha256!.finish() : hasher.finish()
                pending += trailer.bytes
                statistics.bytes = offset + UInt64(trailer.bytes.count)
                finished = true
                progress?(.finished(statistics))
                break
            }
            // The object and, first, the bases it needs that are not written yet.
            var index = next
            next += 1
            while writtenAt[index] == Self.notWritten {
                queue.append(index)
                guard let base = baseID(of: items[index].plan), let basePosition = position[base],
                    writtenAt[basePosition] == Self.notWritten, !queue.contains(basePosition)
                else { break }
                index = basePosition
            }
        }
        let chunk = pending
        pending = []
        return chunk
    }

    func baseID(of plan: Plan) -> ObjectID? {
        switch plan {
        case .delta(_, _, _, let base), .newDelta(let base, _, _): return base
        case .copy, .whole: return nil
        }
    }

    func reportWriting() {
        guard let progress else { return }
        let percent = statistics.objects * 100 / max(1, items.count)
        if percent != writingPercent {
            writingPercent = percent
            progress(.writing(completed: statistics.objects, total: items.count, bytes: offset))
        }
    }

    /// Writes `items[index]` (once: an object written before as a base is not written again).
    func write(at index: Int) throws {
        guard writtenAt[index] == Self.notWritten else { return }
        writtenAt[index] = offset
        let item = items[index]
        statistics.objects += 1
        switch item.plan {
        case .copy(let pack, let range):
            statistics.reused += 1
            pendingCheck = try StoredEntryCheck(item, in: database.packs[pack], dataStart: range.lowerBound)
            pendingCopy = (pack, range)
        case .delta(let pack, let data, let size, let base):
            statistics.reused += 1
            statistics.reusedDeltas += 1
            statistics.deltas += 1
            emitDeltaHeader(size: size, base: base)
            pendingCheck = try StoredEntryCheck(item, in: database.packs[pack], dataStart: data.lowerBound)
            pendingCopy = (pack, data)
        case .newDelta(let base, let size, let compressed):
            statistics.deltas += 1
            var bytes = compressed
            if bytes == nil {
                guard let source = try database.object(base) else { throw PushPackError.missingObject(base) }
                guard let target = try database.object(item.id) else { throw PushPackError.missingObject(item.id) }
                guard let delta = DeltaSource(source.data).delta(to: target.data, maximumSize: size + 1),
                    delta.count == size
                else { throw PushPackError.malformed(item.id) }
                if deflater == nil { deflater = try Deflater() }
                bytes = try deflater!.deflateWhole(delta[...])
            }
            emitDeltaHeader(size: UInt64(size), base: base)
            emit(bytes!)
        case .whole:
            guard let object = try database.object(item.id) else { throw PushPackError.missingObject(item.id) }
            if deflater == nil { deflater = try Deflater() }
            let compressed = try deflater!.deflateWhole(object.data[...])
            emit(PackEntryHeader.encode(type: object.type, size: UInt64(object.data.count)))
            emit(compressed)
        }
    }

    func emitDeltaHeader(size: UInt64, base: ObjectID) {
        if options.offsetDeltas, let basePosition = position[base], writtenAt[basePosition] != Self.notWritten {
            let baseOffset = writtenAt[basePosition]
            var header = PackEntryHeader.encode(typeNumber: 6, size: size)
            header += Self.encodeOffset(offset - baseOffset)
            emit(header)
        } else {
            emit(PackEntryHeader.encode(typeNumber: 7, size: size) + base.bytes)
        }
    }

    func emit(_ bytes: [UInt8]) {
        if sha256 != nil { sha256!.update(bytes) } else { hasher.update(bytes) }
        offset += UInt64(bytes.count)
        pending += bytes
    }

    /// An offset delta's distance as the pack format writes it (big-endian groups of seven bits,
    /// each continuation adding one).
    static func encodeOffset(_ distance: UInt64) -> [UInt8] {
        var value = distance
        var bytes: [UInt8] = [UInt8(value & 0x7f)]
        value >>= 7
        while value > 0 {
            value -= 1
            bytes.append(0x80 | UInt8(value & 0x7f))
            value >>= 7
        }
        return bytes.reversed()
    }
}

/// A stored entry copied into the pack, checked as it is copied against the CRC-32 its pack's
/// index holds for it (header and compressed data, as the entry lies in the pack): a bit flipped
/// on disk in reused bytes, which nothing else reads before the server, fails the push here with
/// the object's name and its pack instead of in the server's `index-pack`. git's `pack-objects`
/// makes this check only when it writes a pack file, not for a push (`--stdout`); over curl's
/// 126 MB of reused entries it costs about 20 ms.
struct StoredEntryCheck {
    var id: ObjectID
    /// The CRC-32 the index records for the entry.
    var expected: UInt32
    /// The CRC-32 of the entry's bytes copied (or read) so far.
    var crc: UInt32

    /// The check of the stored entry of `item` in `pack` whose copy starts at `dataStart`: the
    /// entry's own header, when the copy leaves it out (a reused delta whose header is written
    /// anew), is counted first, read where it lies. Nil when the plan found no CRC-32 for it.
    init?(_ item: PackWriter.Item, in pack: PackReader, dataStart: UInt64) throws {
        guard let stored = item.stored else { return nil }
        id = item.id
        expected = stored.crc
        crc = 0
        if stored.start < dataStart {
            let count = Int(dataStart - stored.start)
            let header = try pack.file.read(at: Int64(stored.start), count: count)
            guard header.count == count else { throw PackError(offset: stored.start, .packChangedOnDisk) }
            crc = fastCRC32(header[...])
        }
    }
}
