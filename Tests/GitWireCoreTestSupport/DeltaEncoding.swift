/// A delta: the two sizes, then the instructions.
public func makeDelta(baseSize: Int, resultSize: Int, _ instructions: [UInt8]) -> [UInt8] {
    PackEncoding.deltaSize(baseSize) + PackEncoding.deltaSize(resultSize) + instructions
}

/// A copy instruction: `size` bytes from `offset` of the base.
public func copyInstruction(offset: Int, size: Int) -> [UInt8] {
    var opcode: UInt8 = 0x80
    var arguments: [UInt8] = []
    for bit in 0..<4 where (offset >> (8 * bit)) & 0xff != 0 {
        opcode |= 1 << bit
        arguments.append(UInt8((offset >> (8 * bit)) & 0xff))
    }
    let encodedSize = size == 0x10000 ? 0 : size
    for bit in 0..<3 where (encodedSize >> (8 * bit)) & 0xff != 0 {
        opcode |= 0x10 << bit
        arguments.append(UInt8((encodedSize >> (8 * bit)) & 0xff))
    }
    return [opcode] + arguments
}

/// An insert instruction with `bytes` (1 to 127 of them).
public func insertInstruction(_ bytes: [UInt8]) -> [UInt8] { [UInt8(bytes.count)] + bytes }
