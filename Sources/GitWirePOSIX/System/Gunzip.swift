import CGitWire
import GitWireCore

/// Decompresses a whole gzip stream (an HTTP body sent with `Content-Encoding: gzip`). Refuses
/// output beyond `limit` bytes (``GzipExpansionError``), so a small body cannot expand without
/// bound; holds no more than `limit` bytes and one 64 KiB piece meanwhile.
package func gunzip(_ input: [UInt8], limit: Int) throws -> [UInt8] {
    var stream = z_stream()
    let status = cgw_inflate_init_gzip(&stream)
    guard status == Z_OK else { throw ZlibError(code: status, message: "inflateInit2 failed") }
    defer { inflateEnd(&stream) }
    var output: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    var result: Int32 = Z_OK
    try input.withUnsafeBufferPointer { source in
        stream.next_in = UnsafeMutablePointer(mutating: source.baseAddress)
        stream.avail_in = UInt32(min(source.count, Int(UInt32.max)))
        repeat {
            let produced = chunk.withUnsafeMutableBufferPointer { buffer -> Int in
                stream.next_out = buffer.baseAddress
                stream.avail_out = UInt32(buffer.count)
                result = inflate(&stream, Z_NO_FLUSH)
                return buffer.count - Int(stream.avail_out)
            }
            guard result == Z_OK || result == Z_STREAM_END else {
                throw ZlibError(code: result, message: "not a valid gzip stream")
            }
            guard produced <= limit - output.count else { throw GzipExpansionError(limit: limit) }
            output += chunk[..<produced]
            if produced == 0 && result == Z_OK && stream.avail_in == 0 {
                throw ZlibError(code: Z_BUF_ERROR, message: "gzip body ends early")
            }
        } while result != Z_STREAM_END
        stream.next_in = nil
        stream.next_out = nil
    }
    return output
}

/// A gzip body expands beyond the limit its reader set.
package struct GzipExpansionError: GitWireError, Hashable {
    /// The most bytes the body could have expanded to.
    package let limit: Int

    package var kind: GitWireErrorKind { .protocol }
    package var description: String { "gzip body expands beyond \(limit) bytes" }
}
