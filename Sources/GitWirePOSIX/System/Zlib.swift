import CGitWire
import GitWireCore

/// What one ``Inflater`` step did.
package struct InflateProgress: Sendable {
    /// Input bytes consumed.
    package var consumed: Int
    /// Output bytes produced.
    package var produced: Int
    /// Whether the zlib stream ended.
    package var finished: Bool
}

/// A reusable zlib inflater over the system zlib. Owns its `z_stream`; not shared across threads.
///
/// zlib decodes the stream and reads its header and trailer, but the trailer's Adler-32 is checked
/// here, with libdeflate's vector code (zlib's scalar loop took 2% of index-pack's CPU time): a
/// mismatch fails as zlib's own check does, `Z_DATA_ERROR` "incorrect data check", at the same
/// point of the stream.
package final class Inflater {
    private var stream = z_stream()
    /// The output of ``inflate(_:sink:)``'s steps, 64 KiB, made on its first use: the resolving
    /// threads' inflaters never use it.
    private var scratch: [UInt8] = []
    /// The Adler-32 of what the stream has produced so far (``Inflater/inflate(_:sink:)``'s path).
    private var outputCheck: UInt32 = 1
    /// The last four input bytes the stream took, the first in the high byte: once the stream
    /// ends, its Adler-32 trailer.
    private var lastInput: UInt32 = 0

    /// Makes an inflater for a zlib (RFC 1950) stream.
    package init() throws {
        let status = cgw_inflate_init(&stream)
        guard status == Z_OK else { throw ZlibError(code: status, message: "inflateInit failed") }
    }

    deinit { inflateEnd(&stream) }

    /// Starts a new zlib stream, keeping the allocated state.
    package func reset() {
        inflateReset(&stream)
        outputCheck = 1
        lastInput = 0
    }

    /// One call of zlib's `inflate` on the stream as it is set up, returning what it returns with
    /// `Z_NO_FLUSH`. It is called with `Z_FINISH`, which zlib documents as changing two things:
    /// it keeps no sliding window for a stream that ends within the call (a stream read whole,
    /// as most pack entries are, needs none), and a call that made progress without ending the
    /// stream returns `Z_BUF_ERROR` rather than `Z_OK`, turned back here. A stream that does not
    /// end keeps its window, so the next call goes on as with `Z_NO_FLUSH`.
    private func inflateStep() -> Int32 {
        let inputBefore = stream.avail_in
        let outputBefore = stream.avail_out
        let status = CGitWire.inflate(&stream, Z_FINISH)
        let progressed = stream.avail_in != inputBefore || stream.avail_out != outputBefore
        return status == Z_BUF_ERROR && progressed ? Z_OK : status
    }

    /// Notes the `count` input bytes from `start` that zlib just took.
    private func took(_ start: UnsafeMutablePointer<UInt8>?, _ count: Int) {
        guard let start, count > 0 else { return }
        if count >= 4 {
            lastInput = UInt32(bigEndian: UnsafeRawPointer(start + (count - 4)).loadUnaligned(as: UInt32.self))
        } else {
            for position in 0..<count { lastInput = lastInput << 8 | UInt32(start[position]) }
        }
    }

    /// Throws zlib's error for a stream whose output (of Adler-32 `check`) is not what its
    /// trailer says.
    private func checkTrailer(_ check: UInt32) throws(ZlibError) {
        guard lastInput == check else { throw ZlibError(code: Z_DATA_ERROR, message: "incorrect data check") }
    }

    /// The Adler-32 of `count` bytes at `start`, continuing from `check`.
    private static func adler32(_ check: UInt32, _ start: UnsafeRawPointer?, _ count: Int) -> UInt32 {
        count == 0 ? check : UInt32(libdeflate_adler32(check, start, count))
    }

    /// The first bytes (at most `count`, at most 4 GiB of input) of the zlib stream at the start
    /// of `input`, inflating no further: fewer when the stream ends first or `input` runs out.
    /// Throws when the stream is corrupt before that point.
    package func inflatePrefix(_ input: ArraySlice<UInt8>, count: Int) throws -> [UInt8] {
        reset()
        let piece = input.prefix(Self.maximumPiece)
        var made = 0
        var status: Int32 = Z_OK
        let output = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            piece.withUnsafeBufferPointer { source in
                stream.next_in = UnsafeMutablePointer(mutating: source.baseAddress)
                stream.avail_in = UInt32(source.count)
                stream.next_out = buffer.baseAddress
                stream.avail_out = UInt32(count)
                status = inflateStep()
                made = count - Int(stream.avail_out)
                took(UnsafeMutablePointer(mutating: source.baseAddress), source.count - Int(stream.avail_in))
                stream.next_in = nil
                stream.avail_in = 0
                stream.next_out = nil
                stream.avail_out = 0
            }
            initialized = made
        }
        guard status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR else {
            throw ZlibError(code: status, message: stream.msg.map { String(cString: $0) } ?? "")
        }
        if status == Z_STREAM_END {
            try checkTrailer(output.withUnsafeBytes { Self.adler32(1, $0.baseAddress, $0.count) })
        }
        return output
    }

    /// The most bytes zlib takes or gives in one call: its counters are 32 bits wide, so longer
    /// input and output go through in pieces of at most this many bytes.
    static let maximumPiece = Int(UInt32.max)

    /// The most a zlib stream can expand: deflate's best case spends two bits on 258 bytes, so
    /// `n` compressed bytes never inflate to more than `1032 * n`. A size claimed beyond that is a
    /// lie, found before anything is allocated for it.
    package static let maximumExpansion = 1032

    /// Output room given past the size a stream must inflate to. Both decoders have a fast loop
    /// that runs only while the output has room for a whole match after the next symbols (zlib's
    /// `inflate_fast` 258 bytes, libdeflate's fast loop 299): with room for exactly the size,
    /// a stream's last 258–299 bytes of output (all of most deltas' instructions) went through
    /// their slower symbol-by-symbol loops. The room past the size is never part of the result;
    /// output that reaches into it is a stream longer than its size, an error as before.
    package static let outputSlack = 320

    /// Inflates as much of `input` as it can, handing each piece of output to `sink`, and stops at
    /// the end of the zlib stream (bytes after it are not consumed). Input of any length.
    package func inflate(
        _ input: ArraySlice<UInt8>, sink: (ArraySlice<UInt8>) throws -> Void
    ) throws -> InflateProgress {
        var total = InflateProgress(consumed: 0, produced: 0, finished: false)
        var rest = input
        while !rest.isEmpty {
            let piece = rest.prefix(Self.maximumPiece)
            let progress = try inflatePiece(piece, sink: sink)
            total.consumed += progress.consumed
            total.produced += progress.produced
            total.finished = progress.finished
            if progress.finished || progress.consumed < piece.count { break }
            rest = rest.dropFirst(piece.count)
        }
        return total
    }

    private func inflatePiece(
        _ input: ArraySlice<UInt8>, sink: (ArraySlice<UInt8>) throws -> Void
    ) throws -> InflateProgress {
        var progress = InflateProgress(consumed: 0, produced: 0, finished: false)
        if input.isEmpty { return progress }
        if scratch.isEmpty { scratch = [UInt8](repeating: 0, count: 64 * 1024) }
        try input.withUnsafeBufferPointer { source in
            stream.next_in = UnsafeMutablePointer(mutating: source.baseAddress)
            stream.avail_in = UInt32(source.count)
            defer {
                stream.next_in = nil
                stream.avail_in = 0
            }
            while true {
                let room = scratch.count
                let start = stream.next_in
                let available = Int(stream.avail_in)
                let status = scratch.withUnsafeMutableBufferPointer { output in
                    stream.next_out = output.baseAddress
                    stream.avail_out = UInt32(room)
                    let status = inflateStep()
                    outputCheck = Self.adler32(outputCheck, output.baseAddress, room - Int(stream.avail_out))
                    return status
                }
                took(start, available - Int(stream.avail_in))
                let made = room - Int(stream.avail_out)
                stream.next_out = nil
                if made > 0 {
                    progress.produced += made
                    try sink(scratch[0..<made])
                }
                switch status {
                case Z_STREAM_END:
                    try checkTrailer(outputCheck)
                    progress.finished = true
                    progress.consumed = source.count - Int(stream.avail_in)
                    return
                case Z_OK:
                    if stream.avail_in == 0 && made < room {
                        progress.consumed = source.count
                        return
                    }
                case Z_BUF_ERROR:
                    progress.consumed = source.count - Int(stream.avail_in)
                    return
                default:
                    throw ZlibError(code: status, message: stream.msg.map { String(cString: $0) } ?? "")
                }
            }
        }
        return progress
    }

    /// Inflates one whole zlib stream from the start of `input` into a new array of exactly
    /// `size` bytes. Throws when the stream is corrupt, ends early, or inflates to another size.
    /// Returns the output and the number of input bytes the stream took.
    package func inflateWhole(_ input: ArraySlice<UInt8>, size: Int) throws -> (bytes: [UInt8], consumed: Int) {
        var given = false
        return try inflateWhole(size: size) {
            defer { given = true }
            return given ? nil : input
        }
    }

    /// Inflates one whole zlib stream into a new array of exactly `size` bytes (any size, also
    /// past 4 GiB), taking its input piece by piece from `nextInput` (nil when there is no more),
    /// so the compressed bytes need not be in memory at once. Throws when the stream is corrupt,
    /// ends early, or inflates to another size; reads no further input once the stream ends.
    /// Returns the output and the number of input bytes the stream took.
    package func inflateWhole(
        size: Int, input nextInput: () throws -> ArraySlice<UInt8>?
    ) throws -> (bytes: [UInt8], consumed: Int) {
        precondition(size >= 0)
        reset()
        var status: Int32 = Z_OK
        var produced = 0
        var consumed = 0
        var probe: UInt8 = 0
        // Room past `size` keeps zlib's fast loop going to the end of the stream (``outputSlack``).
        let capacity = size <= Int.max - Self.outputSlack ? size + Self.outputSlack : size
        let output = try [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
            defer {
                count = min(produced, size)
                stream.next_in = nil
                stream.next_out = nil
                stream.avail_in = 0
                stream.avail_out = 0
            }
            try withUnsafeMutablePointer(to: &probe) { probePointer in
                feeding: while status != Z_STREAM_END, produced <= size, let chunk = try nextInput() {
                    var rest = chunk
                    while !rest.isEmpty {
                        let piece = rest.prefix(Self.maximumPiece)
                        let taken = piece.withUnsafeBufferPointer { source in
                            stream.next_in = UnsafeMutablePointer(mutating: source.baseAddress)
                            stream.avail_in = UInt32(source.count)
                            while true {
                                // Past the room, a one-byte probe tells "longer" from "ended".
                                let room = produced < capacity ? min(capacity - produced, Self.maximumPiece) : 1
                                stream.next_out = produced < capacity ? buffer.baseAddress! + produced : probePointer
                                stream.avail_out = UInt32(room)
                                let start = stream.next_in
                                let available = Int(stream.avail_in)
                                status = inflateStep()
                                took(start, available - Int(stream.avail_in))
                                produced += room - Int(stream.avail_out)
                                // Go on while input is left, or while a full window may hide more output.
                                guard status == Z_OK, produced <= size, stream.avail_in > 0 || stream.avail_out == 0
                                else { break }
                            }
                            return source.count - Int(stream.avail_in)
                        }
                        consumed += taken
                        rest = rest.dropFirst(taken)
                        if status != Z_OK && status != Z_BUF_ERROR || produced > size { break feeding }
                        if taken < piece.count { break feeding }
                    }
                }
            }
        }
        if produced > size {
            throw InflateSizeError(expected: size, produced: produced, truncated: false)
        }
        switch status {
        case Z_STREAM_END:
            try checkTrailer(output.withUnsafeBytes { Self.adler32(1, $0.baseAddress, $0.count) })
            if produced != size { throw InflateSizeError(expected: size, produced: produced, truncated: false) }
            return (output, consumed)
        case Z_OK, Z_BUF_ERROR:
            throw InflateSizeError(expected: size, produced: produced, truncated: true)
        default:
            throw ZlibError(code: status, message: stream.msg.map { String(cString: $0) } ?? "")
        }
    }
}

/// A zlib deflater for writing loose objects and completing thin packs.
package final class Deflater {
    private var stream = z_stream()

    /// Makes a deflater at `level` (zlib's 0 to 9, -1 for its default).
    package init(level: Int32 = -1) throws {
        let status = cgw_deflate_init(&stream, level)
        guard status == Z_OK else { throw ZlibError(code: status, message: "deflateInit failed") }
    }

    /// Makes a deflater that writes gzip streams (RFC 1952) instead of zlib streams.
    package init(gzipLevel level: Int32) throws {
        let status = cgw_deflate_init_gzip(&stream, level)
        guard status == Z_OK else { throw ZlibError(code: status, message: "deflateInit2 failed") }
    }

    deinit { deflateEnd(&stream) }

    /// Compresses `input` (of any length) as one complete zlib (or gzip) stream.
    package func deflateWhole(_ input: ArraySlice<UInt8>) throws -> [UInt8] {
        deflateReset(&stream)
        var output: [UInt8] = []
        var scratch = [UInt8](repeating: 0, count: 64 * 1024)
        var status: Int32 = Z_OK
        var rest = input
        repeat {
            let piece = rest.prefix(Inflater.maximumPiece)
            let last = piece.count == rest.count
            piece.withUnsafeBufferPointer { source in
                stream.next_in = UnsafeMutablePointer(mutating: source.baseAddress)
                stream.avail_in = UInt32(source.count)
                repeat {
                    let room = scratch.count
                    scratch.withUnsafeMutableBufferPointer { buffer in
                        stream.next_out = buffer.baseAddress
                        stream.avail_out = UInt32(room)
                        status = deflate(&stream, last ? Z_FINISH : Z_NO_FLUSH)
                    }
                    output += scratch[0..<(room - Int(stream.avail_out))]
                } while status == Z_OK && (last || stream.avail_in > 0)
                stream.next_in = nil
                stream.next_out = nil
            }
            rest = rest.dropFirst(piece.count)
        } while !rest.isEmpty && (status == Z_OK || status == Z_BUF_ERROR)
        guard status == Z_STREAM_END else {
            throw ZlibError(code: status, message: stream.msg.map { String(cString: $0) } ?? "")
        }
        return output
    }
}

/// CRC-32 (zlib's) of `bytes`, continuing from `crc`, for input of any length: libdeflate's
/// (``fastCRC32(_:continuing:)``, about twice zlib's speed; the same values).
package func crc32(_ bytes: ArraySlice<UInt8>, continuing crc: UInt32 = 0) -> UInt32 {
    fastCRC32(bytes, continuing: crc)
}

/// Inflates zlib streams that are whole in memory and whose inflated size is known, with
/// libdeflate: about twice as fast as zlib on pack entries here. It only says whether the
/// stream decoded to exactly the size expected; anything else (a stream cut short, corrupt, or of
/// another size) is for ``Inflater`` to read and describe. Not shared across threads.
///
/// Two libdeflate decompressors: one for streams whose first block is a fixed-Huffman block and
/// one for the rest. libdeflate keeps the fixed code's decode tables until it decodes a dynamic
/// block, and pack entries mix the two kinds, so one decompressor built the fixed tables again
/// after each run of dynamic streams (2,247 times on swift-nio's clone pack); the fixed one
/// seldom sees a dynamic block.
package final class WholeInflater {
    private let decompressor: OpaquePointer
    private let fixedDecompressor: OpaquePointer

    /// Makes an inflater.
    package init() throws {
        guard let made = libdeflate_alloc_decompressor() else {
            throw ZlibError(code: Z_MEM_ERROR, message: "libdeflate_alloc_decompressor failed")
        }
        guard let fixed = libdeflate_alloc_decompressor() else {
            libdeflate_free_decompressor(made)
            throw ZlibError(code: Z_MEM_ERROR, message: "libdeflate_alloc_decompressor failed")
        }
        decompressor = made
        fixedDecompressor = fixed
    }

    deinit {
        libdeflate_free_decompressor(decompressor)
        libdeflate_free_decompressor(fixedDecompressor)
    }

    /// The decompressor for the zlib stream at the start of `input`: the fixed one when the
    /// first deflate block (after the two-byte zlib header) says BTYPE 01. Either decodes any
    /// stream; the choice only spares rebuilding tables.
    private func decompressor(for input: ArraySlice<UInt8>) -> OpaquePointer {
        input.count > 2 && input[input.startIndex + 2] & 0b110 == 0b010 ? fixedDecompressor : decompressor
    }

    /// The output room given to libdeflate for a stream of `size` bytes: ``Inflater/outputSlack``
    /// more, so that its fast loop runs to the end of the stream; a stream that fills more than
    /// `size` of it is refused as one that does not fit was.
    private static func room(for size: Int) -> Int {
        size <= Int.max - Inflater.outputSlack ? size + Inflater.outputSlack : size
    }

    /// Reused by ``streamLength(_:size:)`` and ``inflateReusingBuffer(_:size:)``.
    private var scratch: [UInt8] = []

    /// Lets go of the buffer kept between calls (the next call makes another).
    package func releaseBuffer() { scratch = [] }

    /// The number of input bytes the zlib stream at the start of `input` takes, if it decodes to
    /// exactly `size` bytes within `input`; the output is thrown away (into a buffer kept for the
    /// next call), else nil.
    package func streamLength(_ input: ArraySlice<UInt8>, size: Int) -> Int? {
        let room = Self.room(for: size)
        if scratch.count < room { scratch = [UInt8](repeating: 0, count: max(room, 2 * scratch.count)) }
        var consumed = 0
        var produced = 0
        let status = scratch.withUnsafeMutableBytes { output in
            input.withUnsafeBytes { source in
                libdeflate_zlib_decompress_ex(
                    decompressor(for: input), source.baseAddress, source.count, output.baseAddress, room, &consumed,
                    &produced)
            }
        }
        return status == LIBDEFLATE_SUCCESS && produced == size ? consumed : nil
    }

    /// The zlib stream at the start of `input` inflated to exactly `size` bytes, in a buffer kept
    /// for the next call (let the slice go before then, or the next call copies the buffer), and
    /// the input bytes it took; nil if it does not decode to exactly that within `input`.
    package func inflateReusingBuffer(_ input: ArraySlice<UInt8>, size: Int) -> (
        bytes: ArraySlice<UInt8>, consumed: Int
    )? {
        guard let consumed = streamLength(input, size: size) else { return nil }
        return (scratch[0..<size], consumed)
    }

    /// The zlib stream at the start of `input` inflated to exactly `size` bytes and the input
    /// bytes it took, or nil if it does not decode to exactly that within `input`.
    package func inflate(_ input: ArraySlice<UInt8>, size: Int) -> (bytes: [UInt8], consumed: Int)? {
        var consumed = 0
        var succeeded = false
        let room = Self.room(for: size)
        let bytes = [UInt8](unsafeUninitializedCapacity: room) { buffer, count in
            var produced = 0
            let status = input.withUnsafeBytes { source in
                libdeflate_zlib_decompress_ex(
                    decompressor(for: input), source.baseAddress, source.count, buffer.baseAddress, room, &consumed,
                    &produced)
            }
            succeeded = status == LIBDEFLATE_SUCCESS && produced == size
            count = succeeded ? size : 0
        }
        return succeeded ? (bytes, consumed) : nil
    }
}
