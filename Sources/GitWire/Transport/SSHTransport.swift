/// ssh:// and scp-like `[user@]host:path` — runs ssh with the remote command
/// `git-upload-pack '<path>'`, as git does: the program from `GIT_SSH_COMMAND` (through the
/// shell), else `GIT_SSH`, else `ssh`; git's option rules for its variants (`ssh`, `plink`,
/// `putty`, `tortoiseplink`, `simple`); protocol v1/v2 asked for through `GIT_PROTOCOL` in the
/// environment and `-o SendEnv=GIT_PROTOCOL`. ssh's standard error stays the user's (prompts,
/// host-key and permission errors reach the terminal); the process is reaped when the
/// connection closes.
public struct SSHTransport: Transport {
    /// The variants of ssh programs git knows, which take options differently.
    public enum Variant: String, Sendable, Hashable, CaseIterable {
        /// OpenSSH: `-p <port>`, `-4`/`-6`, `-o SendEnv=GIT_PROTOCOL`.
        case ssh
        /// PuTTY's plink: `-P <port>`, `-4`/`-6`.
        case plink
        /// PuTTY: as plink.
        case putty
        /// TortoisePlink: `-P <port>`, `-batch`.
        case tortoiseplink
        /// A program that takes only a host and a command: no port, no options.
        case simple
    }

    /// The host.
    public let host: String
    /// The user, if the URL names one.
    public let user: String?
    /// The port, if the URL gives one.
    public let port: Int?
    /// The command run on the server for `git-upload-pack` (the quoted path is appended).
    public let uploadPack: String
    /// Force IPv4 (`-4`) or IPv6 (`-6`); nil lets ssh choose.
    public let addressFamily: AddressFamily?
    /// The ssh program and how it is run, read from the environment when the transport is made.
    public let command: SSHCommand

    /// IPv4 or IPv6.
    public enum AddressFamily: Sendable, Hashable {
        /// `-4`.
        case ipv4
        /// `-6`.
        case ipv6
    }

    /// Always ``RemoteURL/Scheme/ssh``.
    public var scheme: RemoteURL.Scheme { .ssh }

    /// A transport to `host` (as `user`, on `port`), running `uploadPack` there, with the ssh
    /// command git would choose from the environment unless `command` is given.
    public init(
        host: String, user: String? = nil, port: Int? = nil, uploadPack: String = "git-upload-pack",
        addressFamily: AddressFamily? = nil, command: SSHCommand = SSHCommand.fromEnvironment()
    ) {
        self.host = host
        self.user = user
        self.port = port
        self.uploadPack = uploadPack
        self.addressFamily = addressFamily
        self.command = command
    }

    /// Starts ssh with pipes to the remote `git-upload-pack`; the connection reaps it when closed.
    public func connect(
        _ request: ServiceRequest, timeout: Duration?, in loop: EpollRunLoop
    ) throws -> any Connection {
        var environment: [String: String?] = [:]
        if let value = request.gitProtocolEnvironment { environment["GIT_PROTOCOL"] = .some(value) }
        let (pair, process, _) = try ByteStreamPair.spawning(
            try arguments(for: request), environment: environment)
        return StreamConnection(pair: pair, process: process, greeting: [], loop: loop)
    }

    /// The command line git runs for `request`: the program (or `sh -c` with `GIT_SSH_COMMAND`),
    /// the variant's options, `[user@]host`, and `<service> '<path>'`.
    public func arguments(for request: ServiceRequest) throws -> [String] {
        let target = (user.map { "\($0)@" } ?? "") + host
        // As git: `user@host` whole, so that neither part can be taken for an option.
        guard !target.hasBytePrefix("-") else { throw StrangePathnameError(path: target, what: "hostname") }
        let variant = command.variant
        var options: [String] = []
        if request.protocolVersion != .v0 && variant == .ssh { options += ["-o", "SendEnv=GIT_PROTOCOL"] }
        if variant == .tortoiseplink { options.append("-batch") }
        if let addressFamily {
            guard variant != .simple else { throw SSHVariantError(variant: variant, feature: "setting IPv4/IPv6") }
            options.append(addressFamily == .ipv4 ? "-4" : "-6")
        }
        if let port {
            guard variant != .simple else { throw SSHVariantError(variant: variant, feature: "setting port") }
            options += [variant == .ssh ? "-p" : "-P", String(port)]
        }
        let service = request.service == .uploadPack ? uploadPack : request.service.rawValue
        let remoteCommand = "\(service) \(LocalTransport.shellQuoted(request.path))"
        return command.prefix + options + [target, remoteCommand]
    }
}

/// The ssh program git runs and its variant, chosen as git chooses them.
public struct SSHCommand: Sendable, Hashable {
    /// What comes before the options: `["ssh"]`, the `GIT_SSH` program, or
    /// `["/bin/sh", "-c", "<GIT_SSH_COMMAND> \"$@\"", "<GIT_SSH_COMMAND>"]`.
    public var prefix: [String]
    /// How the program takes its options.
    public var variant: SSHTransport.Variant

    /// A command with `prefix` and `variant`.
    public init(prefix: [String], variant: SSHTransport.Variant) {
        self.prefix = prefix
        self.variant = variant
    }

    /// git's choice: `GIT_SSH_COMMAND` (run through the shell), else `GIT_SSH` (run as it is),
    /// else `ssh`; the variant from `GIT_SSH_VARIANT`, else from the program's name (`plink`,
    /// `putty`, `tortoiseplink`; anything else is taken as OpenSSH).
    public static func fromEnvironment(
        _ value: (String) -> String? = { Environment.value($0) }
    ) -> SSHCommand {
        let program: String
        let prefix: [String]
        if let command = value("GIT_SSH_COMMAND"), !command.isEmpty {
            program = command.split(whereSeparator: { $0 == " " || $0 == "\t" }).first.map(String.init) ?? command
            prefix = ["/bin/sh", "-c", "\(command) \"$@\"", command]
        } else if let ssh = value("GIT_SSH"), !ssh.isEmpty {
            program = ssh
            prefix = [ssh]
        } else {
            program = "ssh"
            prefix = ["ssh"]
        }
        if let name = value("GIT_SSH_VARIANT"), let variant = SSHTransport.Variant(rawValue: name.lowercased()) {
            return SSHCommand(prefix: prefix, variant: variant)
        }
        var base = program.split(separator: "/").last.map(String.init) ?? program
        if base.lowercased().hasSuffix(".exe") { base.removeLast(4) }
        let variant: SSHTransport.Variant
        switch base.lowercased() {
        case "plink": variant = .plink
        case "putty": variant = .putty
        case "tortoiseplink": variant = .tortoiseplink
        default: variant = .ssh
        }
        return SSHCommand(prefix: prefix, variant: variant)
    }
}

/// An ssh variant that cannot do what the URL or options ask (git: "ssh variant 'simple' does not
/// support setting port").
public struct SSHVariantError: GitWireError, Hashable, Sendable {
    /// What kind of failure this is: ``GitWireErrorKind/usage``.
    public var kind: GitWireErrorKind { .usage }
    /// The variant.
    public let variant: SSHTransport.Variant
    /// What it cannot do.
    public let feature: String

    /// git's message.
    public var description: String { "ssh variant '\(variant.rawValue)' does not support \(feature)" }
}
