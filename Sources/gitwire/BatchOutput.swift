import GitWire

/// How `ls-remote --batch` prints one remote's listing.
///
/// Text: a block per remote, `# <url>` (credentials removed), then what plain `ls-remote` prints
/// for it (no line of which is empty), then an empty line; a failed remote's block has, instead of
/// refs, the `remote: <line>` lines of a server's message, if any, and `error: <message>` (one
/// line). JSON: one object per line, `{"url": …, "refs": [{"name", "oid", "peeled", "symref"}]}` or
/// `{"url": …, "error": {"kind": …, "message": …}}`.
struct BatchOutput {
    let filter: RefFilter
    let showSymrefs: Bool
    let json: Bool

    /// The bytes to print for `listing`.
    func format(_ listing: BatchListing) -> [UInt8] {
        let url = RemoteURL.withoutCredentials(listing.url)
        return json ? formatJSON(listing, url: url) : formatText(listing, url: url)
    }

    private func formatText(_ listing: BatchListing, url: String) -> [UInt8] {
        var output = Array("# \(oneLine(url))\n".utf8)
        switch listing.result {
        case .success(let refs):
            output += LsRemoteOutput.format(refs.refs, filter: filter, showSymrefs: showSymrefs)
        case .failure(let error):
            if let message = (error.base as? HTTPError)?.serverMessage {
                for line in message.split(separator: "\n") where !line.allSatisfy(\.isWhitespace) {
                    output += Array("remote: \(oneLine(String(line)))\n".utf8)
                }
            }
            output += Array("error: \(oneLine(String(describing: error)))\n".utf8)
        }
        output.append(0x0a)
        return output
    }

    private func formatJSON(_ listing: BatchListing, url: String) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(256)
        output += Array("{\"url\":".utf8)
        appendJSONString(url, to: &output)
        switch listing.result {
        case .success(let refs):
            output += Array(",\"refs\":[".utf8)
            var first = true
            for ref in refs.refs {
                guard let id = ref.objectID, filter.includes(ref.nameBytes) else { continue }
                if !first { output.append(UInt8(ascii: ",")) }
                first = false
                output += Array("{\"name\":".utf8)
                appendJSONString(ref.name, to: &output)
                output += Array(",\"oid\":\"\(id.hex)\",\"peeled\":".utf8)
                if let peeled = ref.peeled, filter.includes(ref.nameBytes + Array("^{}".utf8)) {
                    output += Array("\"\(peeled.hex)\"".utf8)
                } else {
                    output += Array("null".utf8)
                }
                output += Array(",\"symref\":".utf8)
                if let target = ref.symrefTarget {
                    appendJSONString(target, to: &output)
                } else {
                    output += Array("null".utf8)
                }
                output.append(UInt8(ascii: "}"))
            }
            output.append(UInt8(ascii: "]"))
        case .failure(let error):
            output += Array(",\"error\":{\"kind\":".utf8)
            appendJSONString(String(describing: error.kind), to: &output)
            output += Array(",\"message\":".utf8)
            appendJSONString(String(describing: error), to: &output)
            if let message = (error.base as? HTTPError)?.serverMessage {
                output += Array(",\"remote\":".utf8)
                appendJSONString(message, to: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
        output += Array("}\n".utf8)
        return output
    }

    /// `text` with line breaks and every other control character replaced by spaces: C0, DEL and
    /// C1 (U+0080 to U+009F, which some terminals take as escape sequences: U+009B is CSI).
    private func oneLine(_ text: String) -> String {
        String(
            String.UnicodeScalarView(
                text.unicodeScalars.map { $0.value < 0x20 || (0x7f...0x9f).contains($0.value) ? " " : $0 }))
    }
}

/// Appends `text` as a JSON string literal (RFC 8259): quotes, backslashes and control
/// characters escaped (C0, and DEL and C1 too, U+007F to U+009F, so that a terminal shown the JSON
/// meets no escape sequence), everything else as UTF-8. Invalid UTF-8 in ref names was already
/// replaced (U+FFFD) when they were decoded to `String`.
func appendJSONString(_ text: String, to output: inout [UInt8]) {
    let hex = Array("0123456789abcdef".utf8)
    let bytes = Array(text.utf8)
    output.append(UInt8(ascii: "\""))
    var index = 0
    while index < bytes.count {
        var byte = bytes[index]
        index += 1
        // A C1 control is 0xc2 followed by 0x80...0x9f in UTF-8.
        if byte == 0xc2, index < bytes.count, (0x80...0x9f).contains(bytes[index]) {
            byte = bytes[index]
            index += 1
        }
        switch byte {
        case UInt8(ascii: "\""): output += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
        case UInt8(ascii: "\\"): output += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
        case 0x0a: output += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
        case 0x0d: output += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
        case 0x09: output += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
        case 0..<0x20, 0x7f...0x9f:
            output += Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0xf)]]
        default: output.append(byte)
        }
    }
    output.append(UInt8(ascii: "\""))
}
