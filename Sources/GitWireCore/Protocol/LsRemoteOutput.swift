/// The output of `git ls-remote`, byte for byte.
package enum LsRemoteOutput {
    /// One `<oid>\t<name>` line per ref that passes `filter`, a `<peeled>\t<name>^{}` line after a
    /// peeled tag, and `ref: <target>\t<name>` before a symref's line when `showSymrefs` is set.
    /// Unborn refs are not shown (git's ls-remote leaves them out too).
    package static func format(_ refs: [Ref], filter: RefFilter = RefFilter(), showSymrefs: Bool = false) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(refs.count * 80)
        for ref in refs { append(ref, filter: filter, showSymrefs: showSymrefs, to: &output) }
        return output
    }

    /// Appends the lines of one ref to `output`, as ``format(_:filter:showSymrefs:)`` writes them:
    /// a listing can be formatted ref by ref while it arrives.
    package static func append(
        _ ref: Ref, filter: RefFilter = RefFilter(), showSymrefs: Bool = false, to output: inout [UInt8]
    ) {
        func line(_ id: ObjectID, _ name: [UInt8], symref: String?) {
            guard filter.includes(name) else { return }
            if showSymrefs, let symref {
                output.append(contentsOf: "ref: \(symref)\t".utf8)
                output.append(contentsOf: name)
                output.append(0x0a)
            }
            id.appendHex(to: &output)
            output.append(0x09)
            output.append(contentsOf: name)
            output.append(0x0a)
        }
        guard let id = ref.objectID else { return }
        line(id, ref.nameBytes, symref: ref.symrefTarget)
        if let peeled = ref.peeled { line(peeled, ref.nameBytes + peeledSuffix, symref: nil) }
    }
}

private let peeledSuffix: [UInt8] = Array("^{}".utf8)
