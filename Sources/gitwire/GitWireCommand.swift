import ArgumentParser
import GitWire

/// `gitwire`: a git wire-protocol client.
@main
struct GitWireCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gitwire",
        abstract:
            "A git wire-protocol client: list refs, clone and fetch, record and replay sessions, index packs, hash objects.",
        version: GitWireInfo.version,
        subcommands: [
            LsRemoteCommand.self, CloneCommand.self, FetchCommand.self, IndexPackCommand.self, HashObjectCommand.self,
            RecordProxyCommand.self,
        ]
    )
}
