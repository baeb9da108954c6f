import GitWireCore
import Glibc
import Synchronization

/// `core.sharedRepository`: how the files and directories gitwire makes in a repository are
/// opened up to its group or to everyone, as git's `adjust_shared_perm` does.
///
/// A process-wide setting, as git's: the repository a command opens sets it
/// (``FileSystem/useSharedRepository(_:)``), and every file or directory made in a repository
/// afterwards goes through ``FileSystem/adjustSharedPermissions(_:)`` (or has its mode chosen by
/// ``FileSystem/creationMode(_:)``).
package enum SharedRepository {
    /// git's `PERM_GROUP`: group read and write added to the umask's mode.
    package static let group: Int32 = 0o660
    /// git's `PERM_EVERYBODY`: group read and write, read for others.
    package static let everybody: Int32 = 0o664

    /// The setting `value` names, as git's `git_config_perm` reads it: `umask`/`false`/`0`
    /// (0: the umask alone), `group`/`true`/`1`, `all`/`world`/`everybody`/`2`, or an octal
    /// mode `0xxx` the files are set to (a negative number here, as in git); a key without a
    /// value is `group`; anything else that is no octal number is a boolean as git's
    /// `git_config_bool` reads it (`0x1ff`, `9` and `1k` are true; `08` and `0999`, octal to
    /// `strtol` up to the 8, are no boolean: git dies). nil for an octal mode that does not let
    /// the owner read and write, which git refuses.
    package static func parse(_ value: String?) -> Int32? {
        guard let value else { return group }
        switch value {
        case "umask": return 0
        case "group": return group
        case "all", "world", "everybody": return everybody
        default: break
        }
        guard let number = octal(value) else { return ConfigValue.bool(value) == true ? group : 0 }
        switch number {
        case 0: return 0
        case 1: return group
        case 2: return everybody
        default:
            guard number & 0o600 == 0o600 else { return nil }
            return -(number & 0o666)
        }
    }

    /// The value of an octal number (as `strtol(value, &end, 8)` with nothing after it), nil
    /// when `value` is not one.
    private static func octal(_ value: String) -> Int32? {
        var bytes = value.utf8[...]
        while let first = bytes.first, first == 0x20 || (first >= 0x09 && first <= 0x0d) { bytes = bytes.dropFirst() }
        var negative = false
        if let sign = bytes.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") {
            negative = sign == UInt8(ascii: "-")
            bytes = bytes.dropFirst()
        }
        guard !bytes.isEmpty else { return value.isEmpty ? 0 : nil }
        var number: Int64 = 0
        for byte in bytes {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "7") else { return nil }
            number = min(number * 8 + Int64(byte - UInt8(ascii: "0")), Int64(Int32.max))
        }
        return Int32(truncatingIfNeeded: negative ? -number : number)
    }

    /// What git says when it dies of `value` (its `git_config_perm`, when it first needs the
    /// setting): an octal mode that does not let the owner read and write
    /// (`fatal: problem with core.sharedRepository filemode value (0400).` and why), or a value
    /// that is no name, number or boolean (`fatal: bad boolean config value ...`); nil for a
    /// value git takes.
    package static func refusal(_ value: String?) -> String? {
        guard let value else { return nil }
        switch value {
        case "umask", "group", "all", "world", "everybody": return nil
        default: break
        }
        guard let number = octal(value) else {
            guard ConfigValue.bool(value) == nil else { return nil }
            return "fatal: bad boolean config value '\(value)' for 'core.sharedrepository'\n"
        }
        guard !(0...2).contains(number), number & 0o600 != 0o600 else { return nil }
        var digits = String(UInt32(bitPattern: number), radix: 8)
        while digits.count < 3 { digits = "0" + digits }
        return "fatal: problem with core.sharedRepository filemode value (0\(digits)).\n"
            + "The owner of files must always have read and write permissions.\n"
    }

    /// git's `calc_shared_perm`: the mode a file of mode `mode` gets with `setting`.
    package static func mode(_ mode: UInt32, setting: Int32) -> UInt32 {
        var tweak = UInt32(setting < 0 ? -setting : setting)
        if mode & 0o200 == 0 { tweak &= ~0o222 }
        if mode & 0o100 != 0 { tweak |= (tweak & 0o444) >> 2 }
        return setting < 0 ? (mode & ~0o777) | tweak : mode | tweak
    }

    fileprivate static let current = Atomic<Int32>(0)
    /// Whether ``refused`` holds a message (read on every file made, without a lock).
    fileprivate static let isRefused = Atomic<Bool>(false)
    /// git's message for a setting it refuses, until a repository's setting replaces it.
    fileprivate static let refused = Mutex<String?>(nil)
    /// What the command line does with a refused setting when a file is first made: git dies.
    fileprivate static let refusalHandler = Mutex<(@Sendable (String) -> Void)?>(nil)

    /// Calls the refusal handler (which does not return on the command line) if the setting
    /// in use is one git refuses; nothing otherwise, or without a handler (a library user's
    /// refused setting counts as none).
    fileprivate static func checkRefusal() {
        guard isRefused.load(ordering: .relaxed), let message = refused.withLock({ $0 }) else { return }
        if let handler = refusalHandler.withLock({ $0 }) { handler(message) }
    }
}

extension FileSystem {
    /// Sets the process's `core.sharedRepository` (a value ``SharedRepository/parse(_:)``
    /// returns; 0 for none).
    package static func useSharedRepository(_ setting: Int32) {
        SharedRepository.current.store(setting, ordering: .relaxed)
        SharedRepository.refused.withLock { $0 = nil }
        SharedRepository.isRefused.store(false, ordering: .relaxed)
    }

    /// Makes the process's `core.sharedRepository` one git refuses, with git's `message`
    /// (``SharedRepository/refusal(_:)``): as git, which reads the setting when it first makes
    /// a file, the first file or directory made in a repository afterwards calls the handler
    /// ``onSharedRepositoryRefusal(_:)`` installed (the command line dies as git dies); without
    /// one the setting counts as none.
    package static func refuseSharedRepository(_ message: String) {
        SharedRepository.current.store(0, ordering: .relaxed)
        SharedRepository.refused.withLock { $0 = message }
        SharedRepository.isRefused.store(true, ordering: .relaxed)
    }

    /// Installs what is done with a refused `core.sharedRepository` when a file is first made
    /// (see ``refuseSharedRepository(_:)``).
    package static func onSharedRepositoryRefusal(_ handler: @escaping @Sendable (String) -> Void) {
        SharedRepository.refusalHandler.withLock { $0 = handler }
    }

    /// Whether the next file made in a repository calls the refusal handler: the setting is one
    /// git refuses and a handler is installed. A command that prints something before git would
    /// make that file (push's report, before its remote-tracking refs) asks first, and then
    /// calls ``checkSharedRepositoryRefusal()``.
    package static var sharedRepositoryRefusalPending: Bool {
        SharedRepository.isRefused.load(ordering: .relaxed) && SharedRepository.refusalHandler.withLock { $0 != nil }
    }

    /// Calls the refusal handler now if the setting is one git refuses (as making a file would).
    package static func checkSharedRepositoryRefusal() { SharedRepository.checkRefusal() }

    /// The process's `core.sharedRepository` setting (0: none).
    package static var sharedRepository: Int32 { SharedRepository.current.load(ordering: .relaxed) }

    /// The permission bits a new file in a repository made with `mode` gets: `mode` less the
    /// umask, opened up as `core.sharedRepository` says (git's `adjust_shared_perm` of a file).
    package static func creationMode(_ mode: UInt32) -> UInt32 {
        SharedRepository.checkRefusal()
        let masked = mode & ~creationMask
        let setting = sharedRepository
        return setting == 0 ? masked : SharedRepository.mode(masked, setting: setting)
    }

    /// git's `adjust_shared_perm`: opens up what `path` names as `core.sharedRepository` says (a
    /// directory also gets execute bits where it has read bits, and the set-group-id bit when
    /// the group may read or write it);
    /// nothing without the setting.
    package static func adjustSharedPermissions(_ path: String) throws {
        SharedRepository.checkRefusal()
        let setting = sharedRepository
        guard setting != 0 else { return }
        var info = stat()
        guard stat(path, &info) == 0 else { throw SystemCallError("stat \(path)", Errno.current) }
        let old = UInt32(info.st_mode) & 0o7777
        var new = SharedRepository.mode(old, setting: setting)
        if UInt32(info.st_mode) & UInt32(S_IFMT) == UInt32(S_IFDIR) {
            new |= (new & 0o444) >> 2
            // git: "g+s matters only if any extra access is granted based on group membership".
            if new & 0o060 != 0 { new |= UInt32(S_ISGID) }
        }
        if old != new, chmod(path, mode_t(new)) != 0 { throw SystemCallError("chmod \(path)", Errno.current) }
    }
}
