/// The first pass over a pack: takes its bytes in any chunking, inflates each entry as it streams
/// past (never holding a whole object), names every whole object, takes each entry's CRC-32, checks
/// sizes and the trailing checksum, and records everything in a ``PackEntryTable``. No I/O.
///
/// The last bytes received (as many as a checksum of the pack's format has) are held back until
/// more arrive: when the input ends they are the trailer, so a short or over-long object count is
/// told apart from truncation.
final class PackStreamParser {
    private enum State {
        case packHeader
        case entryHeader
        case entryData
        case end
    }

    /// The format of the pack's object names and checksum.
    let format: ObjectFormat
    /// What has been recorded so far.
    private var table: PackEntryTable
    /// The pack header, once read.
    private(set) var header: PackHeader?
    /// Called with the number of objects read after each one.
    var onObject: ((Int) -> Void)?
    /// Called with each entry once it is recorded (its bytes have all been given to the parser).
    var onEntry: ((ReceivedEntry) -> Void)?
    /// Records what whole commits, trees and tags name, if set.
    var links: LinkCollector?
    /// The content of the entry being read, kept while ``links`` wants it.
    private var entryContent: [UInt8] = []
    private var keepsContent = false
    private var linkBatch: LinkBatch = []

    private var state = State.packHeader
    /// The pack offset of the next byte the parser takes.
    private var offset: UInt64 = 0
    /// The start of a header that has not all arrived yet.
    private var stash: [UInt8] = []
    /// The last bytes received, not yet parsed: the trailer if the input ends now.
    private var holdback: [UInt8] = []
    /// Hashes the pack and has zlib read the delta streams libdeflate measured, on another thread.
    private let helper: FirstPassHelper
    /// zlib, the reference for what a valid stream is, for streams not whole in the input at hand
    /// (and larger entries); every other whole object's stream is read by zlib on the helper's
    /// thread, so later passes may inflate whole objects with a faster decoder (see
    /// ``PackEntryReading``).
    private let inflater: Inflater
    /// libdeflate, for entries whose stream is whole in the input at hand: it finds where the
    /// stream ends and checks its size (and gives a whole object's content to hash). For a whole
    /// object the helper then has zlib read the stream, which refuses the streams libdeflate
    /// accepts and zlib does not; a delta's stream is read by zlib only when resolution inflates
    /// it, and if the pack fails, ``firstRefusedDeltaStream(before:packPath:)`` finds the first
    /// one zlib refuses, which reading in order would have stopped at.
    private let wholeInflater: WholeInflater

    private var entryOffset: UInt64 = 0
    private var entryHeader = PackEntryHeader(kind: .object(.blob), size: 0, length: 0)
    private var entryCRC: UInt32 = 0
    private var entryProduced: UInt64 = 0
    private var objectHash: ObjectHasher

    /// A parser of a pack whose objects are named in `format`.
    init(format: ObjectFormat) throws {
        self.format = format
        table = PackEntryTable(format: format)
        helper = FirstPassHelper(format: format)
        objectHash = ObjectHasher(format)
        inflater = try Inflater()
        wholeInflater = try WholeInflater()
    }

    /// Hands over what was recorded, leaving the parser empty; call after ``finish()``.
    /// Writes the name of delta entry `index`, resolved elsewhere while the pack still arrives
    /// (``EarlyDeltaResolver``), into the table.
    func nameEntry(_ index: Int, _ id: ObjectID) { table.ids[index] = id }

    func takeTable() -> PackEntryTable {
        defer { table = PackEntryTable(format: format) }
        return table
    }

    /// Lets go of the buffers the first pass reused from entry to entry (libdeflate's output, as
    /// large as the largest object it read), which the resolution of deltas would otherwise hold
    /// through its peak; call once the input has ended.
    func releaseBuffers() {
        wholeInflater.releaseBuffer()
        stash = []
        holdback = []
    }

    /// The first delta entry recorded so far, starting before `limit`, whose stream zlib refuses
    /// (read back from the pack at `packPath`), or nil: for the error of a pack that failed at
    /// `limit` (see ``wholeInflater``).
    func firstRefusedDeltaStream(before limit: UInt64, packPath: String) -> PackError? {
        PackEntryReading.firstRefusedDeltaStream(in: table, before: limit, packPath: packPath)
    }

    /// The number of entries the header announces (zero before it is read).
    var expectedCount: UInt32 { header?.objectCount ?? 0 }

    /// Takes the next bytes of the pack.
    func append(_ chunk: ArraySlice<UInt8>) throws {
        do { try take(chunk) } catch let error as PackError { throw helper.earliestFailure(error) }
    }

    private func take(_ chunk: ArraySlice<UInt8>) throws {
        let trailerLength = format.byteCount
        if chunk.count >= trailerLength {
            if !holdback.isEmpty {
                let held = holdback
                holdback.removeAll(keepingCapacity: true)
                try consume(held[...])
            }
            try consume(chunk.dropLast(trailerLength))
            holdback.append(contentsOf: chunk.suffix(trailerLength))
        } else {
            holdback.append(contentsOf: chunk)
            if holdback.count > trailerLength {
                let extra = holdback.count - trailerLength
                let ready = Array(holdback.prefix(extra))
                holdback.removeFirst(extra)
                try consume(ready[...])
            }
        }
    }

    /// Ends the input: checks that every announced object was read and the trailer is the pack's
    /// checksum (SHA-1 or SHA-256, as its format). Returns that checksum.
    func finish() throws -> ObjectID {
        do { return try end() } catch let error as PackError { throw helper.earliestFailure(error) }
    }

    private func end() throws -> ObjectID {
        links?.record(linkBatch)
        linkBatch.removeAll()
        let read = table.count
        let endOfInput = offset + UInt64(stash.count + holdback.count)
        guard holdback.count == format.byteCount, let trailer = ObjectID(bytes: holdback, format: format) else {
            throw PackError(offset: endOfInput, .truncated(objectsRead: read, objectsExpected: expectedCount))
        }
        var hash = try helper.finish()
        let computed: ObjectID
        do { computed = try hash.finish() } catch {
            throw PackError(offset: offset, .sha1CollisionAttack(error.safeHash))
        }
        switch state {
        case .end:
            guard trailer == computed else {
                throw PackError(offset: offset, .checksumMismatch(expected: trailer, computed: computed))
            }
            return computed
        case .entryHeader where stash.isEmpty && trailer == computed:
            throw PackError(offset: offset, .objectCountMismatch(header: expectedCount, objectsRead: read))
        default:
            throw PackError(offset: endOfInput, .truncated(objectsRead: read, objectsExpected: expectedCount))
        }
    }

    private func consume(_ bytes: ArraySlice<UInt8>) throws {
        // Every byte given here is part of the pack's checksum (the trailer is held back before).
        helper.hashPackBytes(bytes)
        var input = bytes
        while !input.isEmpty {
            switch state {
            case .packHeader, .entryHeader:
                let used: Int?
                if stash.isEmpty {
                    used = try parseHeader(input)
                    if let used {
                        takeHeader(input.prefix(used))
                        input = input.dropFirst(used)
                    } else {
                        stash.append(contentsOf: input)
                        input = []
                    }
                } else {
                    let before = stash.count
                    let taken = min(input.count, PackEntryHeader.maximumLength)
                    stash.append(contentsOf: input.prefix(taken))
                    used = try parseHeader(stash[...])
                    if let used {
                        takeHeader(stash.prefix(used))
                        stash.removeAll(keepingCapacity: true)
                        input = input.dropFirst(used - before)
                    } else {
                        input = input.dropFirst(taken)
                    }
                }
            case .entryData:
                input = try inflateEntry(input)
            case .end:
                throw PackError(offset: offset, .dataAfterEnd(objectCount: expectedCount))
            }
        }
    }

    /// Parses the header the state calls for; returns how many bytes it took, or nil if more are needed.
    private func parseHeader(_ bytes: ArraySlice<UInt8>) throws(PackError) -> Int? {
        if state == .packHeader {
            guard let parsed = try PackHeader.parse(bytes) else { return nil }
            header = parsed
            return PackHeader.length
        }
        guard let parsed = try PackEntryHeader.parse(bytes, at: offset, format: format) else { return nil }
        entryHeader = parsed
        return parsed.length
    }

    /// Accounts for the bytes of a header just parsed and moves to what follows it.
    private func takeHeader(_ bytes: ArraySlice<UInt8>) {
        if state == .packHeader {
            offset += UInt64(bytes.count)
            table.endOffset = offset
            state = expectedCount == 0 ? .end : .entryHeader
            helper.sizeQueue(objectCount: expectedCount)
            return
        }
        entryOffset = offset
        offset += UInt64(bytes.count)
        entryCRC = crc32(bytes)
        entryProduced = 0
        keepsContent = false
        if case .object(let type) = entryHeader.kind {
            objectHash = ObjectHasher(format)
            objectHash.update("\(type.name) \(entryHeader.size)\0".utf8.map { $0 }[...])
            keepsContent = links != nil && type != .blob
            entryContent.removeAll(keepingCapacity: true)
        }
        inflater.reset()
        state = .entryData
    }

    /// Feeds entry bytes to the inflater; returns what is left of `input` after the entry's zlib stream.
    private func inflateEntry(_ input: ArraySlice<UInt8>) throws -> ArraySlice<UInt8> {
        let expected = entryHeader.size
        let hashing: Bool
        if case .object = entryHeader.kind { hashing = true } else { hashing = false }
        if entryProduced == 0, expected <= UInt64(Self.largestWholeEntry), let consumed = inflateWhole(input, hashing) {
            let used = input.prefix(consumed)
            // A whole object's stream is read by zlib now; a delta's when its instructions are
            // needed (resolution has zlib inflate every delta, see ``PackEntryReading``).
            if hashing { helper.checkStream(.init(bytes: used, offset: entryOffset, size: expected)) }
            entryCRC = crc32(used, continuing: entryCRC)
            offset += UInt64(consumed)
            entryProduced = expected
            try recordEntry()
            return input.dropFirst(consumed)
        }
        let progress: InflateProgress
        do {
            progress = try inflater.inflate(input) { output in
                entryProduced += UInt64(output.count)
                guard entryProduced <= expected else {
                    throw PackError(offset: entryOffset, .sizeMismatch(expected: expected, actual: nil))
                }
                if hashing { objectHash.update(output) }
                if keepsContent { entryContent.append(contentsOf: output) }
            }
        } catch let error as ZlibError {
            throw PackError(offset: entryOffset, .badZlibStream(error.description))
        }
        let used = input.prefix(progress.consumed)
        entryCRC = crc32(used, continuing: entryCRC)
        offset += UInt64(progress.consumed)
        if progress.finished {
            guard entryProduced == expected else {
                throw PackError(offset: entryOffset, .sizeMismatch(expected: expected, actual: entryProduced))
            }
            try recordEntry()
        } else if progress.consumed == 0 {
            throw PackError(offset: entryOffset, .badZlibStream("inflate made no progress"))
        }
        return input.dropFirst(progress.consumed)
    }

    /// Entries up to this size are tried with libdeflate first.
    static let largestWholeEntry = 1 << 20

    /// Has libdeflate read the entry's stream if it is whole in `input`, hashing the content of a
    /// whole object (`hashing`) and keeping it if ``links`` wants it; returns the stream's length,
    /// or nil if libdeflate cannot read it there (cut short, or refused: zlib reads it then).
    private func inflateWhole(_ input: ArraySlice<UInt8>, _ hashing: Bool) -> Int? {
        let size = Int(entryHeader.size)
        guard hashing else { return wholeInflater.streamLength(input, size: size) }
        guard let (content, consumed) = wholeInflater.inflateReusingBuffer(input, size: size) else { return nil }
        objectHash.update(content)
        if keepsContent { entryContent.append(contentsOf: content) }
        return consumed
    }

    private func recordEntry() throws {
        let index = table.count
        guard index < Int(Int32.max) else { throw PackError(offset: entryOffset, .tooManyObjects) }
        if index == table.reservedCount { table.reserve(growingFrom: index, upTo: Int(expectedCount)) }
        table.offsets.append(entryOffset)
        table.crc32s.append(entryCRC)
        table.typeNumbers.append(entryHeader.typeNumber)
        var offsetBase: Int32 = -1
        switch entryHeader.kind {
        case .object(let type):
            let id: ObjectID
            do {
                id = try objectHash.finish()
            } catch {
                throw PackError(offset: entryOffset, .sha1CollisionAttack(error.safeHash))
            }
            table.ids.append(id)
            if keepsContent, let links {
                links.collect(type: type, id: id, data: entryContent, into: &linkBatch)
                if linkBatch.count >= LinkCollector.batchCount {
                    links.record(linkBatch)
                    LinkCollector.empty(&linkBatch)
                }
            }
        case .offsetDelta(let baseOffset):
            guard let base = table.index(ofOffset: baseOffset) else {
                throw PackError(offset: entryOffset, .deltaBaseNotAnEntry(baseOffset: baseOffset))
            }
            table.ids.append(format.zeroID)
            table.offsetDeltas.append(OffsetDeltaLink(base: Int32(base), delta: Int32(index)))
            offsetBase = Int32(base)
        case .referenceDelta(let base):
            table.ids.append(format.zeroID)
            table.referenceDeltas.append(ReferenceDeltaLink(base: base, delta: Int32(index)))
        }
        table.endOffset = offset
        state = table.count == Int(expectedCount) ? .end : .entryHeader
        onEntry?(ReceivedEntry(start: entryOffset, end: offset, typeNumber: entryHeader.typeNumber, base: offsetBase))
        onObject?(table.count)
    }
}
