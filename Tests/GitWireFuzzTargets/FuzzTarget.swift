import GitWire

/// The fuzz targets: each takes one input of arbitrary bytes and runs a parser of gitwire on it.
///
/// A target may see any error thrown for bad input (that is the parser's job); what it must never
/// see is a trap, a hang, unbounded memory or an invariant broken (a decoder that answers
/// differently when the same bytes arrive in other pieces). `Tools/fuzz.sh` runs them under
/// libFuzzer and AddressSanitizer; `FuzzRegressionTests` replays every input kept under
/// `Fixtures/fuzz/<target>/` through the same functions in an ordinary `swift test`.
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// The pkt-line decoder and side-band demultiplexer, whole and in pieces.
    case pktLine = "pkt-line"
    /// A ref advertisement (v0/v1) or capability advertisement and `ls-refs` answer (v2) through
    /// the exchange codec.
    case lsRemote = "ls-remote"
    /// A whole upload-pack answer to a fetch (refs, acknowledgments, shallow lines, side-band
    /// pack) through the exchange codec, v0/v1/v2, plain and stateless.
    case fetch
    /// What receive-pack answers a push (advertisement, report-status or report-status-v2,
    /// side-band with `remote:` messages) through the push exchange, v0/v1, plain and stateless.
    case push
    /// Smart HTTP's discovery preamble (`# service=…`), then the advertisement behind it.
    case smartHTTP = "smart-http"
    /// Pack and pack-entry headers.
    case packEntry = "pack-entry"
    /// The delta applier: a base and a delta from the input.
    case delta
    /// The pack indexer fed the input as a whole pack (thin-pack bases from a small object set).
    case indexPack = "index-pack"
    /// The pack indexer fed a pack built from the input: real zlib streams, delta entries and a
    /// valid trailer, so the fuzzer reaches delta resolution instead of stopping at a checksum.
    case indexPackBuilt = "index-pack-built"
    /// The `.idx` reader and lookups in it.
    case packIndex = "pack-index"
    /// Commit-graph files (`objects/info/commit-graph`) and every record read from them.
    case commitGraph = "commit-graph"
    /// Loose objects: the input as a compressed object, and compressed for it.
    case looseObject = "loose-object"
    /// Commits, trees and tags parsed for the objects they name.
    case objectLinks = "object-links"
    /// Session fixtures: read, written back, read again.
    case fixture
    /// Repository URLs, the ssh command line built from them, refspecs and wildmatch patterns.
    case url
    /// gzip bodies (as the HTTP recording proxy takes them from a server).
    case gunzip
    /// Ref transactions on a repository, compared with `git update-ref` (runs git: slow).
    case refTransaction = "ref-transaction"
    /// A smart HTTP session's credentials: a URL with a password, then redirects to other
    /// origins, 401s and answers (``CredentialTrial``): no request carries another origin's
    /// credential, no shown text carries the password.
    case credentials
    /// git configuration text: parsed, written, parsed again to the same entries; the same bytes
    /// as `GIT_CONFIG_PARAMETERS`, values, URLs and wildmatch patterns.
    case config
    /// ``ConfigEditor`` on a key, a value and a configuration text: it reads what the parser
    /// reads, and its edits leave texts that read back to the entries expected.
    case configEdit = "config-edit"

    /// Runs the target on `data`.
    public func run(_ data: [UInt8]) {
        switch self {
        case .pktLine: FuzzPktLine.run(data)
        case .lsRemote: FuzzExchanges.lsRemote(data)
        case .fetch: FuzzExchanges.fetch(data)
        case .push: FuzzPush.run(data)
        case .smartHTTP: FuzzExchanges.smartHTTP(data)
        case .packEntry: FuzzPack.entryHeaders(data)
        case .delta: FuzzPack.delta(data)
        case .indexPack: FuzzIndexPack.raw(data)
        case .indexPackBuilt: FuzzIndexPack.built(data)
        case .packIndex: FuzzPack.packIndex(data)
        case .commitGraph: FuzzCommitGraph.run(data)
        case .looseObject: FuzzPack.looseObject(data)
        case .objectLinks: FuzzPack.objectLinks(data)
        case .fixture: FuzzText.fixture(data)
        case .url: FuzzText.url(data)
        case .gunzip: FuzzText.gunzip(data)
        case .refTransaction: FuzzRefs.run(data)
        case .credentials: FuzzCredentials.run(data)
        case .config: FuzzConfig.run(data)
        case .configEdit: FuzzConfigEdit.run(data)
        }
    }
}
