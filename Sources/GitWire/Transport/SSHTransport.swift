/// ssh:// and scp-like `[user@]host:path` — runs ssh with the remote command
/// `git-upload-pack '<path>'`, as git does: the program from `GIT_SSH_COMMAND` (through the
/// shell), else `GIT_SSH`, else `ssh`; git's option rules for its variants (`ssh`, `plink`,
/// `putty`, `tortoiseplink`, `simple`, and for a program git does not know, its `-G` probe);
/// protocol v1/v2 asked for through `GIT_PROTOCOL` in the environment and
/// `-o SendEnv=GIT_PROTOCOL`. A path that starts with `-` is refused, as git refuses it. ssh asks
/// for passwords and host keys on the terminal, as always; what it writes on its standard error
/// goes to ``programErrorOutput`` (this process's standard error by default) and explains a
/// failure (``RemoteProgramError``: `Permission denied (publickey).`). The process is reaped when
/// the connection closes.
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
        /// A program git does not know by name: before connecting, git runs it as
        /// `<program> -G <OpenSSH's options> <host>` (no input or output) and takes it for
        /// ``ssh`` when that succeeds, for ``simple`` otherwise.
        case auto
    }

    /// The host.
    public let host: String
    /// The user, if the URL names one.
    public let user: String?
    /// The port, if the URL gives one.
    public let port: Int?
    /// The command run on the server for `git-upload-pack` (the quoted path is appended).
    public let uploadPack: String
    /// The command that serves `git-receive-pack` for a push (`--receive-pack`, `--exec`,
    /// `remote.<name>.receivepack`), run as ``uploadPack`` is.
    public var receivePack = "git-receive-pack"
    /// Force IPv4 (`-4`) or IPv6 (`-6`); nil lets ssh choose.
    public let addressFamily: AddressFamily?
    /// The ssh program and how it is run, read from the environment when the transport is made.
    public let command: SSHCommand
    /// What becomes of ssh's standard error (this process's standard error by default); its last
    /// lines explain a failure either way.
    public var programErrorOutput: ProgramErrorOutput = .standardError

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
        let (arguments, variant) = try commandLine(for: request, probeTimeout: timeout)
        // As git: `GIT_PROTOCOL` only for OpenSSH, which is told to send it.
        var environment: [String: String?] = [:]
        if variant == .ssh, let value = request.gitProtocolEnvironment { environment["GIT_PROTOCOL"] = .some(value) }
        return try StreamChannel.connection(
            spawning: arguments, environment: environment, errorOutput: programErrorOutput, loop: loop)
    }

    /// The command line git runs for `request`: the program (or `sh -c` with `GIT_SSH_COMMAND`),
    /// the variant's options, `[user@]host`, and `<service> '<path>'`. For the ``Variant/auto``
    /// variant this first runs git's probe (see there), as git does before every connection.
    public func arguments(for request: ServiceRequest) throws -> [String] {
        try commandLine(for: request, probeTimeout: nil).arguments
    }

    /// ``arguments(for:)`` and the variant they are for, the probe of an unknown program given at
    /// most `probeTimeout` (then it counts as failed).
    func commandLine(for request: ServiceRequest, probeTimeout: Duration?) throws -> (
        arguments: [String], variant: Variant
    ) {
        // git checks the path before anything else, then `user@host` whole, so that neither part
        // can be taken for an option.
        guard !request.path.hasBytePrefix("-") else { throw StrangePathnameError(path: request.path) }
        let target = (user.map { "\($0)@" } ?? "") + host
        guard !target.hasBytePrefix("-") else { throw StrangePathnameError(path: target, what: "hostname") }
        var variant = command.variant
        if variant == .auto {
            var environment: [String: String?] = [:]
            if let value = request.gitProtocolEnvironment { environment["GIT_PROTOCOL"] = .some(value) }
            let probe = command.prefix + ["-G"] + (try options(for: .ssh, request)) + [target]
            let status = try ChildProcess.runSilently(probe, environment: environment, timeout: probeTimeout)
            variant = status == 0 ? .ssh : .simple
        }
        let service =
            request.service == .uploadPack
            ? uploadPack : request.service == .receivePack ? receivePack : request.service.rawValue
        let remoteCommand = "\(service) \(LocalTransport.shellQuoted(request.path))"
        return (command.prefix + (try options(for: variant, request)) + [target, remoteCommand], variant)
    }

    /// git's `push_ssh_options`: `-o SendEnv=GIT_PROTOCOL` (OpenSSH, v1 and v2), `-4`/`-6`,
    /// `-batch` (TortoisePlink), then the port.
    private func options(for variant: Variant, _ request: ServiceRequest) throws -> [String] {
        var options: [String] = []
        if request.protocolVersion != .v0 && variant == .ssh { options += ["-o", "SendEnv=GIT_PROTOCOL"] }
        if let addressFamily {
            let flag = addressFamily == .ipv4 ? "-4" : "-6"
            guard variant != .simple else { throw SSHVariantError(variant: variant, feature: flag) }
            options.append(flag)
        }
        if variant == .tortoiseplink { options.append("-batch") }
        if let port {
            guard variant != .simple else { throw SSHVariantError(variant: variant, feature: "setting port") }
            options += [variant == .ssh ? "-p" : "-P", String(port)]
        }
        return options
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

    /// git's choice (connect.c): `GIT_SSH_COMMAND` (run through the shell), else `GIT_SSH` (run
    /// as it is), else `ssh`. The variant from `GIT_SSH_VARIANT` (`plink`, `putty`,
    /// `tortoiseplink`, `simple`; `auto` to decide by name; anything else means OpenSSH), else
    /// from the program's name (the first word of `GIT_SSH_COMMAND` as git splits it): `ssh`,
    /// `plink`, `tortoiseplink` (with or without `.exe`, any case); any other name is
    /// ``SSHTransport/Variant/auto``.
    public static func fromEnvironment(
        _ value: (String) -> String? = { Environment.value($0) }
    ) -> SSHCommand {
        let program: String?
        let prefix: [String]
        if let command = value("GIT_SSH_COMMAND"), !command.isEmpty {
            program = firstWord(of: command)
            prefix = ["/bin/sh", "-c", "\(command) \"$@\"", command]
        } else if let ssh = value("GIT_SSH"), !ssh.isEmpty {
            program = ssh
            prefix = [ssh]
        } else {
            program = "ssh"
            prefix = ["ssh"]
        }
        if let name = value("GIT_SSH_VARIANT"), name != "auto" {
            let variant = SSHTransport.Variant(rawValue: name) ?? .ssh
            return SSHCommand(prefix: prefix, variant: variant)
        }
        guard let program else { return SSHCommand(prefix: prefix, variant: .auto) }
        var name = Substring(program)
        while name.count > 1 && name.hasSuffix("/") { name = name.dropLast() }
        if let slash = name.lastIndex(of: "/"), name.count > 1 { name = name[name.index(after: slash)...] }
        let variant: SSHTransport.Variant
        switch name.lowercased() {
        case "ssh", "ssh.exe": variant = .ssh
        case "plink", "plink.exe": variant = .plink
        case "tortoiseplink", "tortoiseplink.exe": variant = .tortoiseplink
        default: variant = .auto
        }
        return SSHCommand(prefix: prefix, variant: variant)
    }

    /// The first word of `command` as git's `split_cmdline` reads it (whitespace outside quotes
    /// ends it; `'` and `"` quote; a backslash escapes the next byte outside single quotes); nil
    /// when git cannot split the command (an unclosed quote, a backslash at the end).
    package static func firstWord(of command: String) -> String? {
        let single = UInt8(ascii: "'")
        let double = UInt8(ascii: "\"")
        let backslash = UInt8(ascii: "\\")
        var word: [UInt8] = []
        var quote: UInt8?
        var wordEnded = false
        var bytes = Array(command.utf8)[...]
        while let byte = bytes.popFirst() {
            if quote == nil && (byte == 0x20 || (0x09...0x0d).contains(byte)) {
                wordEnded = true
            } else if quote == nil && (byte == single || byte == double) {
                quote = byte
            } else if byte == quote {
                quote = nil
            } else if byte == backslash && quote != single {
                guard let escaped = bytes.popFirst() else { return nil }
                if !wordEnded { word.append(escaped) }
            } else if !wordEnded {
                word.append(byte)
            }
        }
        return quote == nil ? String(decoding: word, as: UTF8.self) : nil
    }
}

/// An ssh variant that cannot do what the URL or options ask (git: "ssh variant 'simple' does not
/// support setting port", "... does not support -4").
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
