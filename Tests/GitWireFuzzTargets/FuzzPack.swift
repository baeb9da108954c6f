import GitWire

/// The pure pack parsers: entry headers, deltas, `.idx` files, loose objects and the links that
/// commits, trees and tags hold.
enum FuzzPack {
    static func entryHeaders(_ data: [UInt8]) {
        var input = FuzzInput(data)
        let high = input.uint16()
        let shift = input.byte()
        let offset = UInt64(high) << UInt64(shift % 40)
        // The high bit picks SHA-256 (32-byte reference-delta bases).
        let format: ObjectFormat = shift & 0x80 != 0 ? .sha256 : .sha1
        let bytes = input.rest()
        _ = try? PackHeader.parse(bytes[...])
        let whole: PackEntryHeader?
        do {
            whole = try PackEntryHeader.parse(bytes[...], at: offset, format: format)
        } catch {
            return
        }
        guard let whole else { return }
        fuzzInvariant(whole.length <= bytes.count && whole.length <= PackEntryHeader.maximumLength, "header too long")
        // A header is read the same from a prefix that holds it, and not at all from a shorter one.
        fuzzInvariant(
            (try? PackEntryHeader.parse(bytes[..<whole.length], at: offset, format: format)) == whole, "prefix differs")
        if whole.length > 0 {
            fuzzInvariant(
                (try? PackEntryHeader.parse(bytes[..<(whole.length - 1)], at: offset, format: format)) == .some(nil),
                "a cut header parsed")
        }
        if case .referenceDelta(let base) = whole.kind {
            fuzzInvariant(base.format == format && base.bytes.count == format.byteCount, "base of another width")
        }
        if case .object(let type) = whole.kind {
            let encoded = PackEntryHeader.encode(type: type, size: whole.size)
            fuzzInvariant(
                (try? PackEntryHeader.parse(encoded[...], at: offset, format: format))??.size == whole.size, "encoding")
        }
    }

    static func delta(_ data: [UInt8]) {
        var input = FuzzInput(data)
        let base = input.take(input.uint16())
        let delta = input.rest()
        // The C run of the instructions must agree with the reference, result or error.
        let reference = Result { () throws(DeltaError) in try Delta.apply(delta[...], to: base[...]) }
        let native = Result { () throws(DeltaError) in try Delta.applyNative(delta[...], to: base[...]) }
        fuzzInvariant(reference == native, "applyNative: \(native), apply: \(reference)")
        guard let header = try? Delta.header(delta[...]) else { return }
        guard let result = try? Delta.apply(delta[...], to: base[...]) else { return }
        fuzzInvariant(UInt64(result.count) == header.resultSize, "result size \(result.count) != \(header.resultSize)")
        fuzzInvariant(UInt64(base.count) == header.baseSize, "applied to a base of the wrong size")
        // The same delta within larger arrays (slices that do not start at 0).
        let shifted = [0x55] + delta + [0xaa]
        let shiftedBase = [0x11] + base + [0x22]
        fuzzInvariant(
            (try? Delta.apply(shifted[1..<(shifted.count - 1)], to: shiftedBase[1..<(shiftedBase.count - 1)]))
                == result, "slices differ")
    }

    static func packIndex(_ data: [UInt8]) {
        var input = FuzzInput(data)
        let flags = input.byte()
        let format: ObjectFormat = flags & 2 != 0 ? .sha256 : .sha1
        var bytes = input.rest()
        // Most mutations break the trailing checksum; fix it up half the time to get past its check.
        if flags & 1 != 0, bytes.count >= format.byteCount {
            bytes.removeLast(format.byteCount)
            bytes += format == .sha1 ? UncheckedSHA1.hash(bytes[...]).bytes : SHA256.hash(bytes[...]).bytes
        }
        guard let index = try? PackIndex(bytes: bytes, format: format) else { return }
        _ = try? index.verifyChecksum()
        for position in 0..<min(index.count, 4096) {
            let id = index.id(at: position)
            _ = index.offset(at: position)
            _ = index.crc32(at: position)
            _ = index.position(of: id)
        }
        for other in ObjectFormat.allCases {
            _ = index.position(of: other.zeroID)
            _ = index.offset(of: ObjectID(bytes: [UInt8](repeating: 0xff, count: other.byteCount), format: other)!)
        }
    }

    static func looseObject(_ data: [UInt8]) {
        var input = FuzzInput(data)
        let flags = input.byte()
        var bytes = input.rest()
        if flags & 1 != 0, let compressed = try? Deflater().deflateWhole(bytes[...]) { bytes = compressed }
        guard let object = try? LooseObjectStore.decode(bytes[...]) else { return }
        // What decodes encodes back to an object that decodes the same.
        guard let encoded = try? LooseObjectStore.encode(object) else {
            fuzzInvariant(false, "a decoded object does not encode")
            return
        }
        fuzzInvariant((try? LooseObjectStore.decode(encoded[...])) == object, "loose object does not round-trip")
    }

    static func objectLinks(_ data: [UInt8]) {
        var input = FuzzInput(data)
        let selector = input.byte()
        let type = ObjectType.allCases[Int(selector) % ObjectType.allCases.count]
        let format: ObjectFormat = selector & 0x80 != 0 ? .sha256 : .sha1
        let bytes = input.rest()
        if let links = try? ObjectLinks.links(of: type, data: bytes, format: format) {
            fuzzInvariant(links.allSatisfy { $0.id.format == format }, "a link of another format")
        }
        _ = CommitSummary(commitData: bytes, format: format)
    }
}
