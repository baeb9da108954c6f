import GitWire

/// Reads a subcommand's arguments as git's parse-options does: long options as `--name=value` or
/// `--name value`, unique prefixes of long names, `--no-<name>` for flags, short options alone,
/// clustered (`-qt`) or with their value attached (`-ofoo`) or following, options anywhere
/// among the arguments, and `--` before arguments that must not be read as options.
///
/// Hand-written rather than swift-argument-parser: that library builds its model of every command
/// by reflection on each start, which took most of gitwire's start-up (Documentation/Performance.md).
struct CommandOption<Command> {
    /// What the option takes.
    enum Kind {
        /// A switch: `true` when given, `false` with `--no-<name>`.
        case flag(WritableKeyPath<Command, Bool>)
        /// A switch whose setting `apply` takes (`true` when given, `false` with `--no-<name>`).
        case toggle((inout Command, Bool) -> Void)
        /// A value, named `valueName` in the help.
        case value(valueName: String, (inout Command, String) throws -> Void)
        /// A long option whose value is optional (`--name` or `--name=value`, never a following
        /// word) and which `--no-<name>` undoes: `apply` gets the value or nil, and whether undone.
        case optionalValue(valueName: String, (inout Command, String?, Bool) throws -> Void)
    }

    /// The one-letter name (`-q`), if any.
    var short: Character?
    /// The long name without its dashes (`quiet`), if any.
    var long: String?
    /// What the option takes.
    var kind: Kind
    /// One line of help; nil hides the option from `--help`.
    var help: String?

    /// A flag setting `path`.
    static func flag(
        _ short: Character? = nil, _ long: String?, _ path: WritableKeyPath<Command, Bool>, help: String?
    ) -> Self {
        Self(short: short, long: long, kind: .flag(path), help: help)
    }

    /// A switch whose setting (`true`, or `false` for `--no-<name>`) `apply` takes.
    static func toggle(
        _ short: Character? = nil, _ long: String?, help: String?, _ apply: @escaping (inout Command, Bool) -> Void
    ) -> Self {
        Self(short: short, long: long, kind: .toggle(apply), help: help)
    }

    /// An option whose value `apply` takes.
    static func value(
        _ short: Character? = nil, _ long: String?, valueName: String, help: String?,
        _ apply: @escaping (inout Command, String) throws -> Void
    ) -> Self {
        Self(short: short, long: long, kind: .value(valueName: valueName, apply), help: help)
    }

    /// A long option with an optional attached value (`--name[=value]`), which `--no-<name>`
    /// undoes.
    static func optionalValue(
        _ long: String, valueName: String, help: String?,
        _ apply: @escaping (inout Command, String?, Bool) throws -> Void
    ) -> Self {
        Self(short: nil, long: long, kind: .optionalValue(valueName: valueName, apply), help: help)
    }

    /// An option whose last value is kept in `path`.
    static func value(
        _ short: Character? = nil, _ long: String?, valueName: String, _ path: WritableKeyPath<Command, String?>,
        help: String?
    ) -> Self {
        value(short, long, valueName: valueName, help: help) { $0[keyPath: path] = $1 }
    }

    /// An option whose last value is kept in `path`.
    static func value(
        _ short: Character? = nil, _ long: String?, valueName: String, _ path: WritableKeyPath<Command, String>,
        help: String?
    ) -> Self {
        value(short, long, valueName: valueName, help: help) { $0[keyPath: path] = $1 }
    }

    /// An option that may be repeated; every value is appended to `path`.
    static func values(
        _ short: Character? = nil, _ long: String?, valueName: String, _ path: WritableKeyPath<Command, [String]>,
        help: String?
    ) -> Self {
        value(short, long, valueName: valueName, help: help) { $0[keyPath: path].append($1) }
    }

    /// An integer option (decimal, optionally signed); anything else is a usage error, in git's
    /// words.
    static func integer(
        _ short: Character? = nil, _ long: String?, valueName: String, _ path: WritableKeyPath<Command, Int?>,
        help: String?
    ) -> Self {
        value(short, long, valueName: valueName, help: help) { command, text in
            command[keyPath: path] = try integerValue(text, option: long ?? String(short ?? "?"))
        }
    }

    /// An integer option with a default.
    static func integer(
        _ short: Character? = nil, _ long: String?, valueName: String, _ path: WritableKeyPath<Command, Int>,
        help: String?
    ) -> Self {
        value(short, long, valueName: valueName, help: help) { command, text in
            command[keyPath: path] = try integerValue(text, option: long ?? String(short ?? "?"))
        }
    }

    private static func integerValue(_ text: String, option: String) throws -> Int {
        guard let number = Int(text) else { throw CommandLineError("option `\(option)' expects a numerical value") }
        return number
    }

    /// The same option for a command that keeps this one's values at `path`.
    func lifted<Outer>(_ path: WritableKeyPath<Outer, Command>) -> CommandOption<Outer> {
        let kind: CommandOption<Outer>.Kind
        switch self.kind {
        case .flag(let inner):
            kind = .flag(path.appending(path: inner))
        case .toggle(let apply):
            kind = .toggle { outer, value in apply(&outer[keyPath: path], value) }
        case .value(let valueName, let apply):
            kind = .value(valueName: valueName) { outer, text in try apply(&outer[keyPath: path], text) }
        case .optionalValue(let valueName, let apply):
            kind = .optionalValue(valueName: valueName) { outer, text, undone in
                try apply(&outer[keyPath: path], text, undone)
            }
        }
        return CommandOption<Outer>(short: short, long: long, kind: kind, help: help)
    }
}

/// The words of the command line after the subcommand's name, as given (git makes its reflog
/// messages from them).
nonisolated(unsafe) var subcommandWords: [String] = []

/// A positional argument of a subcommand.
struct CommandArgument<Command> {
    /// Its name in the usage and help, as `<name>`.
    var name: String
    /// Whether the command cannot run without it.
    var isRequired: Bool
    /// Whether it takes every argument left.
    var isRepeating: Bool
    /// One line of help.
    var help: String
    /// Stores one value.
    var assign: (inout Command, String) -> Void

    /// A required argument kept in `path`.
    static func required(_ name: String, _ path: WritableKeyPath<Command, String>, help: String) -> Self {
        Self(name: name, isRequired: true, isRepeating: false, help: help) { $0[keyPath: path] = $1 }
    }

    /// An optional argument kept in `path`.
    static func optional(_ name: String, _ path: WritableKeyPath<Command, String?>, help: String) -> Self {
        Self(name: name, isRequired: false, isRepeating: false, help: help) { $0[keyPath: path] = $1 }
    }

    /// Every argument left, appended to `path`.
    static func repeating(_ name: String, _ path: WritableKeyPath<Command, [String]>, help: String) -> Self {
        Self(name: name, isRequired: false, isRepeating: true, help: help) { $0[keyPath: path].append($1) }
    }
}

/// A mistake in the command line: reported as git reports them, `error: <message>` and the
/// command's usage on standard error, exit status 129.
struct CommandLineError: Error, CustomStringConvertible {
    let description: String
    /// Reported as git's `usage_msg_opt` reports it: `fatal: <message>`, a blank line, the usage.
    let fatal: Bool

    init(_ description: String, fatal: Bool = false) {
        self.description = description
        self.fatal = fatal
    }
}

/// A subcommand of `gitwire`.
protocol Subcommand {
    /// A command with every option at its default.
    init()
    /// Its name after `gitwire`.
    static var name: String { get }
    /// One line saying what it does.
    static var abstract: String { get }
    /// More about it, for `--help`.
    static var discussion: String { get }
    /// Its options, in the order `--help` lists them.
    static var options: [CommandOption<Self>] { get }
    /// Its positional arguments, in order.
    static var arguments: [CommandArgument<Self>] { get }
    /// Checks what the options cannot check one by one; throws ``CommandLineError``.
    func validate() throws
    /// Does the work; returns the exit status.
    func execute() throws -> Int32
}

extension Subcommand {
    /// Nothing to check beyond the options themselves.
    func validate() throws {}

    /// The usage line: `gitwire <name> [<options>] <arguments>`.
    static var usage: String {
        var line = "gitwire \(name) [<options>]"
        var optionalDepth = 0
        for argument in arguments {
            let name = argument.isRepeating ? "<\(argument.name)>..." : "<\(argument.name)>"
            if argument.isRequired {
                line += " \(name)"
            } else {
                line += " [\(name)"
                optionalDepth += 1
            }
        }
        return line + String(repeating: "]", count: optionalDepth)
    }

    /// What `--help` prints: usage, what the command does, its arguments and options, aligned as
    /// git aligns its option help.
    static var help: String {
        var text = "usage: \(usage)\n\n\(abstract)\n"
        if !discussion.isEmpty { text += "\n\(discussion)\n" }
        var rows: [(String, String)] = arguments.map { ("<\($0.name)>", $0.help) }
        if !rows.isEmpty { rows.append(("", "")) }
        for option in options {
            guard let help = option.help else { continue }
            var names = [option.short.map { "-\($0)" }, option.long.map { "--\($0)" }].compactMap { $0 }
                .joined(separator: ", ")
            if case .value(let valueName, _) = option.kind { names += " <\(valueName)>" }
            if case .optionalValue(let valueName, _) = option.kind { names += "[=<\(valueName)>]" }
            rows.append((names, help))
        }
        text += "\n"
        for (names, help) in rows {
            guard !names.isEmpty else {
                text += "\n"
                continue
            }
            let left = "    " + names
            if left.count <= 24 {
                text += left.padding(toLength: 26) + help + "\n"
            } else {
                text += left + "\n" + String(repeating: " ", count: 26) + help + "\n"
            }
        }
        return text
    }

    /// Reads `arguments` (everything after the subcommand's name). Returns nil when `--help`
    /// was asked for.
    static func parse(_ words: [String]) throws -> Self? {
        let options = Self.options
        var command = Self()
        var positionals: [String] = []
        var index = 0
        func nextValue(for name: String) throws -> String {
            index += 1
            guard index < words.count else { throw CommandLineError("option `\(name)' requires a value") }
            return words[index]
        }
        while index < words.count {
            let word = words[index]
            if word == "--" {
                positionals += words[(index + 1)...]
                break
            }
            if word == "--help" { return nil }
            if word.hasPrefix("--") {
                let body = word.dropFirst(2)
                let name = String(body.prefix { $0 != "=" })
                let attached = body.firstIndex(of: "=").map { String(body[body.index(after: $0)...]) }
                let (option, negated) = try findLong(name, in: options)
                switch option.kind {
                case .flag(let path):
                    if attached != nil { throw CommandLineError("option `\(option.long!)' takes no value") }
                    command[keyPath: path] = !negated
                case .toggle(let apply):
                    if attached != nil { throw CommandLineError("option `\(option.long!)' takes no value") }
                    apply(&command, !negated)
                case .value(_, let apply):
                    if negated { throw CommandLineError("option `no-\(option.long!)' isn't available") }
                    try apply(&command, try attached ?? nextValue(for: option.long!))
                case .optionalValue(_, let apply):
                    if negated && attached != nil {
                        throw CommandLineError("option `no-\(option.long!)' takes no value")
                    }
                    try apply(&command, attached, negated)
                }
            } else if word.hasPrefix("-") && word.count > 1 {
                var rest = Substring(word.dropFirst())
                while let letter = rest.first {
                    rest = rest.dropFirst()
                    guard let option = options.first(where: { $0.short == letter }) else {
                        throw CommandLineError("unknown switch `\(letter)'")
                    }
                    switch option.kind {
                    case .flag(let path):
                        command[keyPath: path] = true
                    case .toggle(let apply):
                        apply(&command, true)
                    case .value(_, let apply):
                        try apply(&command, rest.isEmpty ? try nextValue(for: String(letter)) : String(rest))
                        rest = ""
                    case .optionalValue(_, let apply):
                        try apply(&command, rest.isEmpty ? nil : String(rest), false)
                        rest = ""
                    }
                }
            } else {
                positionals.append(word)
            }
            index += 1
        }
        var remaining = positionals[...]
        for argument in arguments {
            if argument.isRepeating {
                for value in remaining { argument.assign(&command, value) }
                remaining = []
            } else if let value = remaining.popFirst() {
                argument.assign(&command, value)
            } else if argument.isRequired {
                throw CommandLineError("missing <\(argument.name)>")
            }
        }
        if let extra = remaining.first { throw CommandLineError("unexpected argument '\(extra)'") }
        return command
    }

    /// The option `--<name>` means: an exact long name, `no-` and a flag's name, or a prefix of
    /// exactly one of those, as git allows.
    private static func findLong(
        _ name: String, in options: [CommandOption<Self>]
    ) throws -> (CommandOption<Self>, negated: Bool) {
        var candidates: [(CommandOption<Self>, negated: Bool, spelled: String)] = []
        for option in options {
            guard let long = option.long else { continue }
            candidates.append((option, false, long))
            switch option.kind {
            case .flag, .toggle, .optionalValue:
                if !long.hasPrefix("no-") { candidates.append((option, true, "no-" + long)) }
            case .value:
                break
            }
        }
        if let exact = candidates.first(where: { $0.spelled == name }) { return (exact.0, exact.negated) }
        let matches = candidates.filter { !name.isEmpty && $0.spelled.hasPrefix(name) }
        if matches.count == 1 { return (matches[0].0, matches[0].negated) }
        if matches.count > 1 {
            throw CommandLineError(
                "ambiguous option: \(name) (could be --\(matches[0].spelled) or --\(matches[1].spelled))")
        }
        throw CommandLineError("unknown option `\(name)'")
    }

    /// Parses `words` and runs the command: exit status 0 after `--help`, 129 after a mistake in
    /// the command line (with the usage, as git does), 128 after a failure (`fatal: …`),
    /// otherwise what the command returns.
    static func main(_ words: [String]) -> Int32 {
        subcommandWords = words
        let command: Self
        do {
            guard let parsed = try parse(words) else {
                return (try? Console.writeOutput(help)) == nil ? 128 : 0
            }
            try parsed.validate()
            command = parsed
        } catch let error as CommandLineError where error.fatal {
            Console.writeError("fatal: \(maskedForTerminal(error.description))\n\nusage: \(usage)\n")
            return 129
        } catch {
            Console.writeError("error: \(maskedForTerminal("\(error)"))\nusage: \(usage)\n")
            return 129
        }
        return command.runReportingErrors()
    }
}
