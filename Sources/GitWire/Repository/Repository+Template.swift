extension Repository {
    /// Copies the template directory `template` into the git directory `gitDirectory` as git's
    /// `copy_templates` copies it: every entry whose name does not start with `.`, directories
    /// followed (made with mode 0777 less the umask), symbolic links made again with what they
    /// hold, regular files copied with mode 0777 when any execute bit is set and 0666 otherwise
    /// (less the umask, opened up as `core.sharedRepository` says); an entry already there is
    /// left as it is, and anything else (a FIFO, a socket, a device) is passed over, its path
    /// (`template` and the entry's name) handed to `ignored`, for git's `error: ignoring
    /// template <path>`. The template's `config` is copied too: git's init then sets its own
    /// entries in it.
    public static func copyTemplate(
        _ template: String, into gitDirectory: String, ignored: (String) -> Void = { _ in }
    ) throws {
        try FileSystem.makeDirectory(gitDirectory, mode: 0o777)
        let base = template.hasSuffix("/") ? template : template + "/"
        for name in try FileSystem.contents(ofDirectory: template) where !name.hasPrefix(".") {
            let source = base + name
            let target = "\(gitDirectory)/\(name)"
            let exists = FileSystem.exists(target) || FileSystem.isSymbolicLink(target)
            if FileSystem.isSymbolicLink(source) {
                guard !exists, let link = FileSystem.symbolicLinkTarget(source) else { continue }
                try FileSystem.makeSymbolicLink(link, at: target)
            } else if FileSystem.isDirectory(source) {
                try copyTemplate(source, into: target, ignored: ignored)
            } else if !exists && FileSystem.isRegularFile(source) {
                let executable = (FileSystem.permissions(of: source) ?? 0) & 0o111 != 0
                try copyFile(source, to: target, mode: executable ? 0o777 : 0o666)
                try FileSystem.adjustSharedPermissions(target)
            } else if !exists && !FileSystem.isRegularFile(source) {
                ignored(source)
            }
        }
    }

    /// Copies the file `source` to the new file `target` a block at a time, as git's `copy_file`
    /// does: a template file of many gigabytes is not held in memory.
    private static func copyFile(_ source: String, to target: String, mode: UInt32) throws {
        let input = try File.openForReading(source)
        defer { try? input.close() }
        let output = try File.create(target, mode: mode)
        do {
            while true {
                let block = try input.read(upTo: 1 << 16)
                if block.isEmpty { break }
                try output.write(block[...])
            }
            try output.close()
        } catch {
            try? output.close()
            try? FileSystem.remove(target)
            throw error
        }
    }
}
