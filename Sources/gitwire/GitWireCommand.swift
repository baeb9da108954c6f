import ArgumentParser

/// `gitwire`: a git wire-protocol client.
@main
struct GitWireCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gitwire",
        abstract: "A git wire-protocol client: list refs, fetch and index packs.",
        subcommands: [LsRemoteCommand.self, IndexPackCommand.self, RecordProxyCommand.self]
    )
}
