/// git's options before the command name that change where it runs and what configuration it
/// reads: `-c <name>[=<value>]`, `--config-env <name>=<variable>` (or `=`-joined), `-C <path>`,
/// `--git-dir <path>` and `--work-tree <path>` (or `=`-joined), read as git's `handle_options`
/// reads them (for the `gitwire` command line).
package struct GlobalOptions: Equatable, Sendable {
    /// A problem with the options, with git's message (git prints it and its usage, and exits
    /// 129; or dies with 128 for ``dies``).
    package struct Failure: Error, Equatable, Sendable {
        /// git's message.
        package let message: String
        /// Whether git dies (`fatal:`, 128) rather than printing its usage (129).
        package let dies: Bool

        /// A failure with git's `message`.
        package init(message: String, dies: Bool) {
            self.message = message
            self.dies = dies
        }
    }

    /// What one option does, in command-line order.
    package enum Option: Equatable, Sendable {
        /// `-c <argument>`.
        case config(String)
        /// `--config-env <name>=<variable>`: the name and the variable's value.
        case configFromEnvironment(name: String, value: String)
        /// `-C <path>` (an empty path changes nothing).
        case directory(String)
        /// `--git-dir <path>`: git sets `GIT_DIR` to the path as given.
        case gitDirectory(String)
        /// `--work-tree <path>`: git sets `GIT_WORK_TREE` to the path as given.
        case workTree(String)
    }

    /// The options, in order.
    package var options: [Option] = []
    /// The words after the options: the command and its arguments.
    package var remaining: [String] = []

    /// Reads the options at the front of `words` (the command line without the program name),
    /// up to the first word that is not one of them. `--config-env` reads its variable from
    /// `environment`.
    package init(_ words: [String], environment: [String: String]) throws(Failure) {
        var index = 0
        while index < words.count {
            let word = words[index]
            func argument(_ missing: String) throws(Failure) -> String {
                guard index + 1 < words.count else { throw Failure(message: missing, dies: false) }
                index += 1
                return words[index]
            }
            if word == "-c" {
                options.append(.config(try argument("-c expects a configuration string")))
            } else if word == "--config-env" {
                options.append(
                    try Self.configFromEnvironment(try argument("no config key given for --config-env"), environment))
            } else if word.hasPrefix("--config-env=") {
                options.append(
                    try Self.configFromEnvironment(String(word.dropFirst("--config-env=".count)), environment))
            } else if word == "-C" {
                options.append(.directory(try argument("no directory given for '-C' option")))
            } else if word == "--git-dir" {
                options.append(.gitDirectory(try argument("no directory given for '--git-dir' option")))
            } else if word.hasPrefix("--git-dir=") {
                options.append(.gitDirectory(String(word.dropFirst("--git-dir=".count))))
            } else if word == "--work-tree" {
                options.append(.workTree(try argument("no directory given for '--work-tree' option")))
            } else if word.hasPrefix("--work-tree=") {
                options.append(.workTree(String(word.dropFirst("--work-tree=".count))))
            } else {
                break
            }
            index += 1
        }
        remaining = Array(words[index...])
    }

    /// git's `git_config_push_env`: `<name>=<variable>` split at the last `=`.
    private static func configFromEnvironment(_ spec: String, _ environment: [String: String]) throws(Failure)
        -> Option
    {
        let bytes = Array(spec.utf8)
        guard let equals = bytes.lastIndex(of: UInt8(ascii: "=")) else {
            throw Failure(message: "invalid config format: \(spec)", dies: true)
        }
        let name = String(decoding: bytes[..<equals], as: UTF8.self)
        let variable = String(decoding: bytes[(equals + 1)...], as: UTF8.self)
        guard !variable.isEmpty else {
            throw Failure(message: "missing environment variable name for configuration '\(name)'", dies: true)
        }
        guard let value = environment[variable] else {
            throw Failure(
                message: "missing environment variable '\(variable)' for configuration '\(name)'", dies: true)
        }
        return .configFromEnvironment(name: name, value: value)
    }

    /// `environment` with the configuration options added to `GIT_CONFIG_PARAMETERS` as git adds
    /// them, so that ``GitConfiguration/load(gitDirectory:environment:commandLine:)`` reads them
    /// and the programs gitwire starts (ssh, `git-upload-pack`, credential helpers) see them as
    /// git's children do; `--git-dir` and `--work-tree` set `GIT_DIR` and `GIT_WORK_TREE` (the
    /// last one given wins, as in git).
    package func environment(updating environment: [String: String]) -> [String: String] {
        var environment = environment
        for option in options {
            switch option {
            case .config(let argument):
                environment["GIT_CONFIG_PARAMETERS"] = ConfigParameters.appending(
                    commandLineArgument: argument, to: environment["GIT_CONFIG_PARAMETERS"])
            case .configFromEnvironment(let name, let value):
                environment["GIT_CONFIG_PARAMETERS"] = ConfigParameters.appending(
                    key: name, value: value, to: environment["GIT_CONFIG_PARAMETERS"])
            case .gitDirectory(let path): environment["GIT_DIR"] = path
            case .workTree(let path): environment["GIT_WORK_TREE"] = path
            case .directory: break
            }
        }
        return environment
    }

    /// The `-C` paths, in order (empty ones left out: git skips them).
    package var directories: [String] {
        options.compactMap { if case .directory(let path) = $0, !path.isEmpty { return path } else { return nil } }
    }

    /// Changes the process's directory by each `-C` in turn, as git does. Throws git's
    /// `cannot change to '<path>': <reason>` (git dies with it).
    package func changeDirectories() throws(Failure) {
        for path in directories {
            if let reason = ConfigFiles.changeDirectory(path) {
                throw Failure(message: "cannot change to '\(path)': \(reason)", dies: true)
            }
        }
    }
}
