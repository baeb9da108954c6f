import GitWire

/// `gitwire`: a git wire-protocol client.
@main
enum GitWireCommand {
    /// The subcommands, in the order `gitwire --help` lists them.
    static var subcommands: [any Subcommand.Type] {
        [
            LsRemoteCommand.self, CloneCommand.self, FetchCommand.self, IndexPackCommand.self,
            HashObjectCommand.self, PackObjectsCommand.self, PushCommand.self, RecordProxyCommand.self,
        ]
    }

    /// What `gitwire --help` prints.
    static var help: String {
        var text = """
            usage: gitwire [-v | --version] [-h | --help] [-C <path>] [-c <name>=<value>]
                           [--git-dir=<path>] [--work-tree=<path>] [--config-env=<name>=<envvar>]
                           <command> [<args>]

            A git wire-protocol client: list refs, clone and fetch, record and replay sessions, index packs, hash objects.

            commands:

            """
        for command in subcommands {
            text += "    " + command.name.padding(toLength: 15) + command.abstract + "\n"
        }
        text += "\nSee 'gitwire <command> --help' (or 'gitwire help <command>') for a command's options.\n"
        text += """

            Before the command, as git takes them: -C <path> runs as if started in <path> (several
            are taken in turn), -c <name>=<value> and --config-env=<name>=<envvar> set configuration
            for this run, --git-dir=<path> and --work-tree=<path> set GIT_DIR and GIT_WORK_TREE.
            ls-remote, clone and fetch read git's configuration (system, global, the repository's
            when run inside one, then these).

            """
        return text
    }

    static func main() {
        // One malloc arena for all threads, which then share the pages they free (MallocArenas).
        MallocArenas.limit(to: 1)
        // A signal removes the lock and temporary files (and a clone's new repository) first.
        try? SignalCleanup.install()
        // A `core.sharedRepository` git refuses: git dies when it first makes a file, its lock
        // and temporary files removed; so does gitwire.
        FileSystem.onSharedRepositoryRefusal { message in
            Console.writeError(message)
            SignalCleanup.removeAllNow()
            Console.exit(128)
        }
        // An object store's pack directory that cannot be listed: git's error, and no packs there.
        ObjectDatabase.onUnreadablePackDirectory { Console.writeError("error: \($0)\n") }
        switch CommandConfiguration.applyGlobalOptions(Array(CommandLine.arguments.dropFirst())) {
        case .success(let words): Console.exit(run(words))
        case .failure(let status): Console.exit(status.code)
        }
    }

    /// Runs the command line `words` (without the program's name); returns the exit status.
    static func run(_ words: [String]) -> Int32 {
        guard let first = words.first else {
            Console.writeError(help)
            return 1
        }
        switch first {
        case "--version", "-v", "version":
            return (try? Console.writeOutput("gitwire version \(GitWireInfo.version)\n")) == nil ? 128 : 0
        case "--help", "-h":
            return (try? Console.writeOutput(help)) == nil ? 128 : 0
        case "help":
            guard words.count > 1 else { return run(["--help"]) }
            return run([words[1], "--help"])
        default:
            guard let command = subcommands.first(where: { $0.name == first }) else {
                Console.writeError(
                    "gitwire: '\(maskedForTerminal(first))' is not a gitwire command. See 'gitwire --help'.\n")
                return 1
            }
            return command.main(Array(words.dropFirst()))
        }
    }
}

extension String {
    /// The string padded with spaces to `length` characters (unchanged when longer).
    func padding(toLength length: Int) -> String {
        count >= length ? self : self + String(repeating: " ", count: length - count)
    }
}
