/// Writing refs: symbolic refs, packed refs and transactions of updates, through git's lock files.
extension RefStore {
    /// Points `HEAD` (or another symbolic ref) at `target`, through its lock file.
    public func setSymbolicRef(_ name: String = "HEAD", to target: String) throws {
        try Self.checkName(target)
        let file = path(of: name)
        try FileSystem.makeDirectories(FileSystem.parentDirectory(of: file))
        let lock = try RefLock(file, content: Array("ref: \(target)\n".utf8))
        try lock.commit()
    }

    /// Points `HEAD` at the commit `id` itself (a detached `HEAD`), through its lock file.
    public func setDetachedHead(_ id: ObjectID) throws {
        let lock = try RefLock("\(gitDirectory)/HEAD", content: Array("\(id.hex)\n".utf8))
        try lock.commit()
    }

    /// Writes `packed-refs` with exactly `records`, as git does: the
    /// `# pack-refs with: peeled fully-peeled sorted ` header, records sorted by name, and a `^`
    /// line after each annotated tag with what it peels to. Refuses, as git's clone refuses them,
    /// records that name the same ref twice or a ref and another below it (`x` and `x/y`).
    public func writePackedRefs(_ records: [RefRecord]) throws {
        for record in records { try Self.checkName(record.name) }
        try Self.checkInitialNames(records.map(\.name))
        let lock = try RefLock(packedRefsPath, content: Self.packedRefsText(records))
        try lock.commit()
    }

    /// Checks the names of a new repository's refs as git's initial ref transaction does: no
    /// name twice (`multiple updates for ref '…' not allowed`), no name that is a directory of
    /// another (`cannot process 'x' and 'x/y' at the same time`).
    static func checkInitialNames(_ names: [String]) throws {
        let sorted = names.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        for (previous, name) in zip(sorted, sorted.dropFirst()) where previous == name {
            throw RefUpdateError(name: name, reason: .duplicate)
        }
        let all = HashedNames(names)
        for name in sorted {
            try Self.forEachDirectory(of: name) { prefix, hash in
                guard all.contains(prefix, hash: hash) else { return }
                let directory = String(prefix)
                throw RefUpdateError(name: directory, reason: .sameTime(directory, name), initial: true)
            }
        }
    }

    /// The text of a `packed-refs` file holding `records`.
    static func packedRefsText(_ records: [RefRecord]) -> [UInt8] {
        var text = Array("# pack-refs with: peeled fully-peeled sorted \n".utf8)
        for record in records.sorted(by: { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }) {
            record.id.appendHex(to: &text)
            text.append(UInt8(ascii: " "))
            text += record.name.utf8
            text.append(UInt8(ascii: "\n"))
            if let peeled = record.peeled {
                text.append(UInt8(ascii: "^"))
                peeled.appendHex(to: &text)
                text.append(UInt8(ascii: "\n"))
            }
        }
        return text
    }

    /// Applies `updates` all or nothing, as one git ref transaction: every ref is checked and
    /// locked (its new value written into its lock file) before anything is made visible, and
    /// `packed-refs` is rewritten only after that; a failure leaves every ref as it was and no
    /// lock behind. Throws the first ``RefUpdateError`` (refs in name order).
    public func apply(_ updates: [RefUpdate]) throws {
        _ = try apply(updates, atomic: true)
    }

    /// Applies `updates` as git does.
    ///
    /// With `atomic`, all or nothing (see ``apply(_:)``; throws the ``RefUpdateError``). Without,
    /// as `git fetch` does without `--atomic`: the deletions first, together (so a ref renamed
    /// from `x/y` to `x`, or back, can be deleted and created), then each other update on its own,
    /// in the order given; one that fails (a name conflict, a lock held by another process, a
    /// name too long for the file system, ...) leaves that ref as it was, the others are made,
    /// and its error is returned. Either way no lock file is left behind.
    ///
    /// `objectType` tells the type of a new value: a branch (`refs/heads/`) that would name
    /// anything but a commit, or a ref that would name a missing object, is refused as git
    /// refuses them. Without it, values are not checked.
    @discardableResult
    public func apply(
        _ updates: [RefUpdate], atomic: Bool, objectType: ((ObjectID) throws -> ObjectType?)? = nil
    ) throws -> [RefUpdateError] {
        try apply(updates, atomic: atomic, objectType: objectType, reflog: nil)
    }

    /// ``apply(_:atomic:objectType:)``, each update that is made also logged in `reflog` with its
    /// ``RefUpdate/logMessage`` (and in `HEAD`'s log when it moves the branch `HEAD` names), each
    /// deletion taking its log with it.
    @discardableResult
    func apply(
        _ updates: [RefUpdate], atomic: Bool, objectType: ((ObjectID) throws -> ObjectType?)?, reflog: Reflog?
    ) throws -> [RefUpdateError] {
        guard !updates.isEmpty else { return [] }
        var state = try RefNames(store: self)
        if atomic {
            let sorted = updates.sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
            for (previous, update) in zip(sorted, sorted.dropFirst()) where previous.name == update.name {
                throw RefUpdateError(name: update.name, reason: .duplicate)
            }
            try transaction(sorted, state: &state, objectType: objectType, reflog: reflog)
            return []
        }
        var failures: [RefUpdateError] = []
        let deletions = updates.filter { $0.newID == nil }
        if !deletions.isEmpty {
            failures += try deleteEach(deletions, state: &state, reflog: reflog)
        }
        for update in updates where update.newID != nil {
            do {
                try transaction([update], state: &state, objectType: objectType, reflog: reflog)
            } catch let error as RefUpdateError {
                failures.append(error)
            }
        }
        return failures
    }

    /// One transaction: checks and locks every update, rewrites `packed-refs` for deletions,
    /// then commits. On a failure before the commit, every lock is removed.
    private func transaction(
        _ updates: [RefUpdate], state: inout RefNames, objectType: ((ObjectID) throws -> ObjectType?)?,
        reflog: Reflog?
    ) throws {
        let names = HashedNames(updates.map(\.name))
        var locks: [(RefLock, RefUpdate)] = []
        var oldValues: [String: ObjectID] = [:]
        var packedLock: RefLock?
        var unchanged = Set<String>()
        defer {
            for (lock, _) in locks { lock.rollback() }
            packedLock?.rollback()
        }
        for update in updates {
            try check(update, state: state, others: names, objectType: objectType)
            if reflog != nil, let old = try? currentValue(update.name, state: state) { oldValues[update.name] = old }
            let same = try isUnchanged(update, state: state)
            if same { unchanged.insert(update.name) }
            locks.append((try lock(update, exists: state.contains(update.name), unchanged: same), update))
        }
        let deleted = Set(updates.filter { $0.newID == nil && state.packed.contains($0.name) }.map(\.name))
        if !deleted.isEmpty {
            packedLock = try lockPackedRefs(without: deleted, names: updates.map(\.name))
        }
        // Made visible: new values first, then packed-refs, then deleted loose files (as git's
        // files backend orders them, so a ref is never missing while a deletion is under way).
        var commitError: RefUpdateError?
        for (lock, update) in locks where update.newID != nil {
            if unchanged.contains(update.name) {
                lock.rollback()
                continue
            }
            do {
                try lock.commit()
                state.add(update.name)
                try log(update, old: oldValues[update.name], in: reflog)
            } catch {
                commitError = commitError ?? RefUpdateError(name: update.name, reason: .cannotCommit("\(error)"))
            }
        }
        if let packedLock {
            do {
                try packedLock.commit()
            } catch {
                commitError = commitError ?? RefUpdateError(name: deleted.min()!, reason: .packedRefs("\(error)"))
            }
        }
        for (lock, update) in locks where update.newID == nil {
            do {
                try commitDeletion(lock, of: update.name, state: &state, reflog: reflog)
            } catch {
                commitError = commitError ?? RefUpdateError(name: update.name, reason: .cannotCommit("\(error)"))
            }
        }
        locks = []
        if let commitError { throw commitError }
    }

    /// Deletes `deletions` as git's `delete_refs` does: each loose ref locked (a ref that cannot
    /// be is reported and kept), `packed-refs` rewritten without the locked ones, then their loose
    /// files removed.
    /// Logs a made update as git does: in the ref's log, and in `HEAD`'s when `HEAD` names it.
    /// Deletes the loose ref `name` through its `lock`, then forgets it: its name, the empty
    /// directories it leaves, its reflog.
    private func commitDeletion(_ lock: RefLock, of name: String, state: inout RefNames, reflog: Reflog?) throws {
        try lock.commitDeletion()
        state.remove(name)
        removeEmptyParents(of: name)
        reflog?.remove(name)
    }

    private func log(_ update: RefUpdate, old: ObjectID?, in reflog: Reflog?) throws {
        guard let reflog, let message = update.logMessage else { return }
        try reflog.append(update.name, old: old, new: update.newID, message: message)
        if case .symbolic(let target)? = try? readLoose("HEAD"), target == update.name {
            try reflog.append("HEAD", old: old, new: update.newID, message: message)
        }
    }

    private func deleteEach(_ deletions: [RefUpdate], state: inout RefNames, reflog: Reflog?) throws
        -> [RefUpdateError]
    {
        var failures: [RefUpdateError] = []
        var locks: [(RefLock, RefUpdate)] = []
        defer { for (lock, _) in locks { lock.rollback() } }
        // Checked one after the other, each against the refs as the ones before leave them.
        var checking = state
        var missing: [RefUpdate] = []
        for update in deletions {
            do {
                try check(update, state: checking, others: HashedNames([]), objectType: nil)
                // A ref that is not there has nothing to delete once checked; git takes and drops
                // its lock, which fails on a directory that cannot be emptied: looked at below,
                // once the deletions before it are made.
                guard checking.contains(update.name) else {
                    missing.append(update)
                    continue
                }
                locks.append((try lock(update, exists: true), update))
                checking.remove(update.name)
            } catch let error as RefUpdateError {
                failures.append(error)
            }
        }
        let deleted = Set(locks.map(\.1.name).filter { state.packed.contains($0) })
        if !deleted.isEmpty {
            do {
                let packedLock = try lockPackedRefs(without: deleted, names: locks.map(\.1.name))
                try packedLock.commit()
            } catch let error as RefUpdateError {
                // None of them is deleted: each keeps its packed value, so its loose file stays.
                return failures + locks.map { RefUpdateError(name: $0.1.name, reason: error.reason) }
            } catch {
                return failures + locks.map { RefUpdateError(name: $0.1.name, reason: .packedRefs("\(error)")) }
            }
        }
        for (lock, update) in locks {
            do {
                try commitDeletion(lock, of: update.name, state: &state, reflog: reflog)
            } catch {
                failures.append(RefUpdateError(name: update.name, reason: .cannotCommit("\(error)")))
            }
        }
        locks = []
        for update in missing {
            let path = self.path(of: update.name)
            if FileSystem.isDirectory(path) {
                Self.removeEmptyDirectories(path)
                if FileSystem.exists(path) {
                    failures.append(RefUpdateError(name: update.name, reason: .blockingDirectory(path)))
                    continue
                }
            }
            // Taken and dropped, as git does: another process's lock fails the deletion.
            guard FileSystem.isDirectory(FileSystem.parentDirectory(of: path)) else { continue }
            do {
                try RefLock(path, content: []).rollback()
            } catch let error as LockHeldError {
                failures.append(RefUpdateError(name: update.name, reason: .lockHeld(error.lockPath)))
            } catch let error as SystemCallError {
                failures.append(
                    RefUpdateError(name: update.name, reason: .cannotCreateLock("\(path).lock", "\(error.errno)")))
            }
        }
        return failures
    }

    /// What git checks before it locks a ref: a valid name, the expected old value, no name
    /// conflict for a ref that does not exist (with refs that exist or with `others` in the same
    /// transaction),
    /// and for a new value that the object exists and, for a branch, is a commit.
    private func check(
        _ update: RefUpdate, state: RefNames, others: HashedNames, objectType: ((ObjectID) throws -> ObjectType?)?
    ) throws {
        let name = update.name
        guard (try? Self.checkName(name)) != nil else { throw RefUpdateError(name: name, reason: .badName) }
        if let expected = update.expectedOldID {
            let actual = try currentValue(name, state: state)
            if actual != expected {
                throw RefUpdateError(name: name, reason: .changed(expected: expected, actual: actual))
            }
        }
        // A ref that does not exist is locked as a new one, a deletion too (as git does).
        if !state.contains(name) {
            try Self.forEachDirectory(of: name) { prefix, hash in
                if state.names.contains(prefix, hash: hash) {
                    throw RefUpdateError(name: name, reason: .exists(String(prefix)))
                }
                if others.contains(prefix, hash: hash) {
                    throw RefUpdateError(name: name, reason: .sameTime(String(prefix), name))
                }
            }
            if let below = state.firstBelow(name) { throw RefUpdateError(name: name, reason: .exists(below)) }
            if let below = others.names.filter({ $0.hasPrefix(name + "/") }).min() {
                throw RefUpdateError(name: name, reason: .sameTime(name, below))
            }
        }
        if let new = update.newID, let objectType {
            guard let type = try objectType(new) else { throw RefUpdateError(name: name, reason: .missingObject(new)) }
            if type != .commit && name.hasPrefix("refs/heads/") {
                throw RefUpdateError(name: name, reason: .nonCommitToBranch(new))
            }
        }
    }

    /// The value of `name` now: its loose file, else its packed record.
    private func currentValue(_ name: String, state: RefNames) throws -> ObjectID? {
        switch try readLoose(name) {
        case .detached(let id)?: return id
        case .symbolic(let target)?: return target == name ? nil : try resolve(target)
        case nil: return state.packedIDs[name]
        }
    }

    /// Whether `update` sets a ref to the value it already has (not through a symbolic ref): git
    /// then writes nothing and only takes and drops the lock, so a packed ref stays packed and a
    /// directory where its loose file would go is no obstacle.
    private func isUnchanged(_ update: RefUpdate, state: RefNames) throws -> Bool {
        guard let new = update.newID, state.contains(update.name) else { return false }
        switch try readLoose(update.name) {
        case .detached(let id)?: return id == new
        case .symbolic?: return false
        case nil: return state.packedIDs[update.name] == new
        }
    }

    /// Takes `update`'s lock, its new value written (empty for a deletion, and for an `unchanged`
    /// update, whose lock is only taken and dropped). An empty directory where the ref's file goes
    /// (left by refs once below it) is removed first, as git does.
    private func lock(_ update: RefUpdate, exists: Bool, unchanged: Bool = false) throws -> RefLock {
        let path = self.path(of: update.name)
        if !unchanged && (update.newID != nil || !exists) && FileSystem.isDirectory(path) {
            Self.removeEmptyDirectories(path)
            if FileSystem.exists(path) {
                throw RefUpdateError(name: update.name, reason: .blockingDirectory(path))
            }
        }
        let content = unchanged ? [] : update.newID.map { Array("\($0.hex)\n".utf8) } ?? []
        do {
            try FileSystem.makeDirectories(FileSystem.parentDirectory(of: path))
            do {
                return try RefLock(path, content: content)
            } catch {
                if update.newID == nil { removeEmptyParents(of: update.name) }
                throw error
            }
        } catch let error as LockHeldError {
            throw RefUpdateError(name: update.name, reason: .lockHeld(error.lockPath))
        } catch let error as SystemCallError {
            throw RefUpdateError(name: update.name, reason: .cannotCreateLock("\(path).lock", "\(error.errno)"))
        }
    }

    /// Takes `packed-refs.lock` with the file's new content: the records but `deleted`.
    private func lockPackedRefs(without deleted: Set<String>, names: [String]) throws -> RefLock {
        let records = try packedRefs().filter { !deleted.contains($0.name) }
        do {
            return try RefLock(packedRefsPath, content: Self.packedRefsText(records))
        } catch let error as LockHeldError {
            throw RefUpdateError(name: deleted.min() ?? names[0], reason: .lockHeld(error.lockPath))
        } catch let error as SystemCallError {
            throw RefUpdateError(
                name: deleted.min() ?? names[0], reason: .cannotCreateLock("\(packedRefsPath).lock", "\(error.errno)"))
        }
    }
}
