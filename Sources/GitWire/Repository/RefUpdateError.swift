/// One ref could not be updated: git's reason, in git's words.
public struct RefUpdateError: GitWireError, Hashable, Sendable {
    /// Why the ref could not be updated.
    public enum Reason: Hashable, Sendable {
        /// This ref exists and is a directory of the new ref, or lies below it (`x` and `x/y`).
        case exists(String)
        /// The transaction holds both refs, one a directory of the other.
        case sameTime(String, String)
        /// A directory that is not empty lies where the ref's file goes.
        case blockingDirectory(String)
        /// The lock file exists: another process is changing the ref (or crashed doing so).
        case lockHeld(String)
        /// The lock file could not be created: its path and the system's reason.
        case cannotCreateLock(String, String)
        /// The ref no longer has the value the update expected (nil: no such ref).
        case changed(expected: ObjectID?, actual: ObjectID?)
        /// A branch would name an object that is not a commit.
        case nonCommitToBranch(ObjectID)
        /// The new value names an object the repository does not have.
        case missingObject(ObjectID)
        /// The same ref is updated twice in one transaction.
        case duplicate
        /// A name git refuses.
        case badName
        /// The new value could not be made visible (the system's reason).
        case cannotCommit(String)
        /// `packed-refs` could not be rewritten (the system's reason).
        case packedRefs(String)
    }

    /// The full name of the ref.
    public let name: String
    /// Why it could not be updated.
    public let reason: Reason
    /// Whether the message is the one git gives in a new repository's first transaction
    /// (a clone), which does not begin with `cannot lock ref '…': `.
    let initial: Bool

    /// An error for `name`.
    public init(name: String, reason: Reason) { self.init(name: name, reason: reason, initial: false) }

    init(name: String, reason: Reason, initial: Bool) {
        self.name = name
        self.reason = reason
        self.initial = initial
    }

    /// What kind of failure this is: ``GitWireErrorKind/usage`` for names and values git
    /// refuses, ``GitWireErrorKind/system`` otherwise.
    public var kind: GitWireErrorKind {
        switch reason {
        case .badName, .duplicate, .nonCommitToBranch, .exists, .sameTime: return .usage
        default: return .system
        }
    }

    /// Whether git counts this as a name conflict with an existing ref (after which `git fetch`
    /// suggests `git remote prune`); two refs of one transaction in conflict are not.
    package var isNameConflict: Bool {
        switch reason {
        case .exists, .blockingDirectory: return true
        default: return false
        }
    }

    /// git's message.
    public var description: String {
        let shown = escapedForDisplay(name.utf8)
        let lock = "cannot lock ref '\(shown)': "
        switch reason {
        case .exists(let other):
            return lock + "'\(escapedForDisplay(other.utf8))' exists; cannot create '\(shown)'"
        case .sameTime(let first, let second):
            let text =
                "cannot process '\(escapedForDisplay(first.utf8))' and '\(escapedForDisplay(second.utf8))' at the same time"
            return initial ? text : lock + text
        case .blockingDirectory(let path):
            return lock
                + "there is a non-empty directory '\(escapedForDisplay(path.utf8))' blocking reference '\(shown)'"
        case .lockHeld(let path):
            return lock + LockHeldError(lockPath: path).description
        case .cannotCreateLock(let path, let reason):
            return lock + "Unable to create '\(escapedForDisplay(path.utf8))': \(reason)"
        case .changed(let expected?, let actual?):
            return lock + "is at \(actual.hex) but expected \(expected.hex)"
        case .changed(_?, nil):
            return lock + "unable to resolve reference '\(shown)'"
        case .changed(nil, _):
            return lock + "reference already exists"
        case .nonCommitToBranch(let id):
            return "cannot update ref '\(shown)': trying to write non-commit object \(id.hex) to branch '\(shown)'"
        case .missingObject(let id):
            return "cannot update ref '\(shown)': trying to write ref '\(shown)' with nonexistent object \(id.hex)"
        case .duplicate:
            return "multiple updates for ref '\(shown)' not allowed"
        case .badName:
            return "refusing to update ref with bad name '\(shown)'"
        case .cannotCommit(let reason):
            return "cannot update ref '\(shown)': \(reason)"
        case .packedRefs(let reason):
            return "could not delete reference \(shown): \(reason)"
        }
    }
}

/// A ref git's clone sets with `update_ref` (a detached `HEAD`) could not be set: git dies with
/// `update_ref failed for ref '<name>': ` before the reason.
public struct UpdateRefFailure: GitWireError, Hashable, Sendable {
    /// Why the ref could not be set.
    public let error: RefUpdateError

    /// What kind of failure this is: the reason's.
    public var kind: GitWireErrorKind { error.kind }

    /// git's message.
    public var description: String { "update_ref failed for ref '\(escapedForDisplay(error.name.utf8))': \(error)" }
}
