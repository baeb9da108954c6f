import GitWire

/// How git's fetch-pack reads a pack (its `get_pack`): with index-pack or unpack-objects, kept
/// or not. Its progress lines, and what it says when a side-band 3 error cuts the pack short,
/// depend on it.
struct PackReading: Sendable {
    /// Whether the pack goes to index-pack as it comes (clone, `fetch -k`), without git reading
    /// its header first.
    var keepsPack = true
    /// `fetch.unpackLimit`, else `transfer.unpackLimit`, else 100: a pack of fewer objects is
    /// unpacked (or indexed and not kept).
    var unpackLimit = 100
    /// Whether a small pack still goes to index-pack (a filtered fetch from a promisor remote,
    /// `fetch.fsckObjects`/`transfer.fsckObjects`).
    var indexesSmallPacks = false

    /// For `git fetch` in a repository with `configuration`.
    init(fetchWith configuration: GitConfiguration, keep: Bool, filtered: Bool) {
        keepsPack = keep
        unpackLimit =
            ((try? configuration.int("fetch.unpackLimit")) ?? nil).flatMap { $0 >= 0 ? $0 : nil }
            ?? ((try? configuration.int("transfer.unpackLimit")) ?? nil).flatMap { $0 >= 0 ? $0 : nil } ?? 100
        let fsck =
            ((try? configuration.bool("fetch.fsckObjects")) ?? nil)
            ?? ((try? configuration.bool("transfer.fsckObjects")) ?? nil) ?? false
        indexesSmallPacks = filtered || fsck
    }

    /// As `git clone` reads it.
    init() {}

    /// Whether git keeps a pack of `count` objects (index-pack writes it and says its name).
    func keeps(count: UInt32) -> Bool {
        keepsPack || (unpackLimit > 0 && Int(count) >= unpackLimit)
    }

    /// Whether git's unpack-objects reads a pack of `count` objects (its progress says
    /// `Unpacking objects`, with no `Resolving deltas`), not index-pack.
    func unpacks(count: UInt32) -> Bool {
        !keeps(count: count) && !indexesSmallPacks
    }

    /// git's fatal lines once the pack stopped after `header` (the first pack bytes, up to 12).
    func fatalLines(header: [UInt8]) -> String {
        var count: UInt32 = 0
        if !keepsPack && unpackLimit > 0 {
            // fetch-pack reads the header itself; a short or wrong one is all it says.
            guard header.count == 12, header.starts(with: Array("PACK".utf8)),
                header[4...7].elementsEqual([0, 0, 0, 2]) || header[4...7].elementsEqual([0, 0, 0, 3])
            else { return "fatal: protocol error: bad pack header\n" }
            count = header[8...].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        }
        // index-pack or unpack-objects stops at the end of its input; a kept pack's lock file
        // name never comes, else the command's failure is what fetch-pack reports.
        let failure =
            keeps(count: count)
            ? "fetch-pack: invalid index-pack output"
            : unpacks(count: count) ? "unpack-objects failed" : "index-pack failed"
        return "fatal: early EOF\nfatal: \(failure)\n"
    }
}
