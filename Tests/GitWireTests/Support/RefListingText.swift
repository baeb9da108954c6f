import GitWire

/// What `git ls-remote` prints for `refs` (no filter): `<oid>\t<name>` per ref with an object,
/// then `<peeled>\t<name>^{}` after a peeled tag. Unborn refs are left out, as git leaves them out.
func lsRemoteText(_ refs: [Ref]) -> [UInt8] {
    var output: [UInt8] = []
    for ref in refs {
        guard let id = ref.objectID else { continue }
        output += id.hexBytes + [0x09] + ref.nameBytes + [0x0a]
        if let peeled = ref.peeled { output += peeled.hexBytes + [0x09] + ref.nameBytes + Array("^{}\n".utf8) }
    }
    return output
}

/// The packets of `bytes`, which must be whole pkt-lines.
func packets(of bytes: [UInt8]) -> [PktLine] { ServerCaptures.referencePackets(bytes) }

/// `lines` encoded back to bytes.
func bytes(of lines: [PktLine]) -> [UInt8] {
    var buffer: [UInt8] = []
    for line in lines { line.encode(into: &buffer) }
    return buffer
}
