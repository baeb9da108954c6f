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
package final class Inflater {
    private var stream = z_stream()
    private var scratch = [UInt8](repeating: 0, count: 64 * 1024)

    /// Makes an inflater for a zlib (RFC 1950) stream.
    package init() throws {
        let status = cgw_inflate_init(&stream)
        guard status == Z_OK else { throw ZlibError(code: status, message: "inflateInit failed") }
    }

    deinit { inflateEnd(&stream) }

    /// Starts a new zlib stream, keeping the allocated state.
    package func reset() { inflateReset(&stream) }

    /// Inflates as much of `input` as it can, handing each piece of output to `sink`, and stops at
    /// the end of the zlib stream (bytes after it are not consumed).
    package func inflate(
        _ input: ArraySlice<UInt8>, sink: (ArraySlice<UInt8>) throws -> Void
    ) throws -> InflateProgress {
        var progress = InflateProgress(consumed: 0, produced: 0, finished: false)
        if input.isEmpty { return progress }
        try input.withUnsafeBufferPointer { source in
            stream.next_in = UnsafeMutablePointer(mutating: source.baseAddress)
            stream.avail_in = UInt32(source.count)
            defer {
                stream.next_in = nil
                stream.avail_in = 0
            }
            while true {
                let room = scratch.count
                let status = scratch.withUnsafeMutableBufferPointer { output in
                    stream.next_out = output.baseAddress
                    stream.avail_out = UInt32(room)
                    return CGitWire.inflate(&stream, Z_NO_FLUSH)
                }
                let made = room - Int(stream.avail_out)
                stream.next_out = nil
                if made > 0 {
                    progress.produced += made
                    try sink(scratch[0..<made])
                }
                switch status {
                case Z_STREAM_END:
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
        reset()
        var status: Int32 = Z_OK
        var produced = 0
        var consumed = 0
        var probe: UInt8 = 0
        let output = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            input.withUnsafeBufferPointer { source in
                stream.next_in = UnsafeMutablePointer(mutating: source.baseAddress)
                stream.avail_in = UInt32(source.count)
                withUnsafeMutablePointer(to: &probe) { probePointer in
                    stream.next_out = size > 0 ? buffer.baseAddress : probePointer
                    stream.avail_out = UInt32(size)
                    repeat { status = CGitWire.inflate(&stream, Z_FINISH) } while status == Z_OK
                    produced = size - Int(stream.avail_out)
                    if status == Z_BUF_ERROR && stream.avail_out == 0 {
                        // Full, but the stream has not ended: one more byte tells "longer" from "needs input".
                        stream.next_out = probePointer
                        stream.avail_out = 1
                        repeat {
                            status = CGitWire.inflate(&stream, Z_FINISH)
                        } while status == Z_OK && stream.avail_out == 1
                        produced += 1 - Int(stream.avail_out)
                    }
                }
                consumed = source.count - Int(stream.avail_in)
                count = min(produced, size)
                stream.next_in = nil
                stream.next_out = nil
                stream.avail_in = 0
                stream.avail_out = 0
            }
        }
        if produced > size {
            throw InflateSizeError(expected: size, produced: produced, truncated: false)
        }
        switch status {
        case Z_STREAM_END:
            if produced != size { throw InflateSizeError(expected: size, produced: produced, truncated: false) }
            return (output, consumed)
        case Z_BUF_ERROR:
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

    /// Compresses `input` as one complete zlib (or gzip) stream.
    package func deflateWhole(_ input: ArraySlice<UInt8>) throws -> [UInt8] {
        deflateReset(&stream)
        let bound = Int(deflateBound(&stream, UInt(input.count)))
        var status: Int32 = Z_OK
        let output = [UInt8](unsafeUninitializedCapacity: bound) { buffer, count in
            input.withUnsafeBufferPointer { source in
                stream.next_in = UnsafeMutablePointer(mutating: source.baseAddress)
                stream.avail_in = UInt32(source.count)
                stream.next_out = buffer.baseAddress
                stream.avail_out = UInt32(bound)
                status = deflate(&stream, Z_FINISH)
                count = bound - Int(stream.avail_out)
                stream.next_in = nil
                stream.next_out = nil
            }
        }
        guard status == Z_STREAM_END else {
            throw ZlibError(code: status, message: stream.msg.map { String(cString: $0) } ?? "")
        }
        return output
    }
}

/// CRC-32 (zlib's) of `bytes`, continuing from `crc`.
package func crc32(_ bytes: ArraySlice<UInt8>, continuing crc: UInt32 = 0) -> UInt32 {
    bytes.withUnsafeBufferPointer { buffer in
        UInt32(CGitWire.crc32(UInt(crc), buffer.baseAddress, UInt32(buffer.count)))
    }
}
