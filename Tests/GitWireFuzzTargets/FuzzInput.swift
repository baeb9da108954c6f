/// Reads a fuzzer's input from the front: small numbers that steer a target (a chunk size, a
/// protocol version, a length), then the rest as the bytes under test.
public struct FuzzInput {
    private let bytes: [UInt8]
    private var position = 0

    /// The input `bytes`, read from the start.
    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// Whether every byte has been taken.
    public var isEmpty: Bool { position == bytes.count }

    /// The next byte, or 0 once the input is used up.
    public mutating func byte() -> UInt8 {
        guard position < bytes.count else { return 0 }
        defer { position += 1 }
        return bytes[position]
    }

    /// The next two bytes as a big-endian number (0 past the end).
    public mutating func uint16() -> Int { Int(byte()) << 8 | Int(byte()) }

    /// The next `count` bytes, or fewer at the end.
    public mutating func take(_ count: Int) -> [UInt8] {
        let end = min(bytes.count, position + max(0, count))
        defer { position = end }
        return Array(bytes[position..<end])
    }

    /// Everything not yet taken.
    public mutating func rest() -> [UInt8] { take(bytes.count - position) }
}

/// Chunk sizes steered by one input byte: whole, then single bytes, then the sizes the other
/// tests use, so that a decoder fed in pieces is held to the answer it gives for the whole.
public func fuzzChunkSize(_ selector: UInt8) -> Int {
    let sizes = [Int.max, 1, 2, 3, 4, 5, 7, 64, 4096, 65520]
    return sizes[Int(selector) % sizes.count]
}

/// `bytes` cut into pieces of `size` (the last one shorter).
public func fuzzChunks(_ bytes: [UInt8], size: Int) -> [[UInt8]] {
    guard size < bytes.count else { return [bytes] }
    return stride(from: 0, to: bytes.count, by: size).map { Array(bytes[$0..<min(bytes.count, $0 + size)]) }
}

/// Stops the process with `message`: an invariant the target checks did not hold. libFuzzer
/// keeps the input as a crash.
public func fuzzInvariant(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() { fatalError("fuzz invariant: \(message())") }
}
