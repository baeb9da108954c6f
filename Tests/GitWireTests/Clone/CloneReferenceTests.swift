import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// `clone --reference`, `--reference-if-able`, `--shared` and `--dissociate` against git's: the
/// same messages and exit status, the same `objects/info/alternates` bytes, nothing fetched that
/// the references have (the same packs, none), and with `--dissociate` a clone that stands
/// alone. gitwire refused these options as unknown.
extension CloneWorkTreeTests {
    /// A bare clone of the source to borrow from, a shallow one, and a directory that is no
    /// repository.
    static let references = Result { () throws -> (full: String, shallow: String, plain: String) in
        let source = try CloneWorkTreeTests.source.get()
        let full = source.directory.appending("reference.git")
        let shallow = source.directory.appending("shallow-reference.git")
        let plain = source.directory.appending("not-a-repository")
        try git(["clone", "-q", "--bare", source.path, full])
        try git(["clone", "-q", "--bare", "--depth=1", "file://\(source.path)", shallow])
        try FileManager.default.createDirectory(atPath: plain, withIntermediateDirectories: true)
        return (full, shallow, plain)
    }

    /// What a clone leaves in `objects` beyond the refs: its alternates and the files of its
    /// packs (the names; with `--dissociate` how many objects they hold, git's repack and
    /// gitwire's copies being packed differently).
    func objectsState(_ gitDirectory: String, counted: Bool) throws -> [String] {
        let alternates =
            (try? String(contentsOfFile: "\(gitDirectory)/objects/info/alternates", encoding: .utf8)) ?? "(none)"
        var state = ["alternates: \(alternates)"]
        if counted {
            state.append(try gitText(["rev-list", "--objects", "--all"], in: gitDirectory))
        } else {
            let packs = try FileManager.default.contentsOfDirectory(atPath: "\(gitDirectory)/objects/pack")
            state.append("packs: \(packs.sorted())")
        }
        return state
    }

    @Test(arguments: [0, 2])
    func referencesAreBorrowedAsGitBorrowsThem(version: Int) throws {
        let source = try Self.source.get()
        let references = try Self.references.get()
        let url = source.daemon.url("source")
        let missing = source.directory.appending("missing/below")
        for (index, (options, localURL)) in [
            (["--reference", references.full], false),
            (["--reference=\(references.full)", "--reference", references.full + "/"], false),
            (["--reference-if-able", missing, "--reference-if-able", references.full], false),
            (["--reference-if-able", references.plain], false),
            (["--reference", references.plain], false), (["--reference", missing], false),
            (["--reference", references.shallow], false),
            (["-q", "--reference", references.full, "--dissociate"], false),
            (["--dissociate"], false), (["-q", "--shared"], true),
            (["-q", "-s", "--reference", references.full], true),
            (["-q", "--shared", "--dissociate"], true), (["-q", "--shared"], false),
        ].enumerated() {
            let name = "reference-\(version)-\(index)"
            try expectSameClone(options, url: localURL ? source.path : url, version: version, name: name)
            let base = source.directory.appending("clones/\(name)")
            guard FileManager.default.fileExists(atPath: "\(base)/git/repo") else { continue }
            let counted = options.contains("--dissociate")
            #expect(
                try objectsState("\(base)/ours/repo/.git", counted: counted)
                    == objectsState("\(base)/git/repo/.git", counted: counted), "\(options)")
        }
    }

    /// A clone whose caller still works on it (`--dissociate` copies the references' objects
    /// afterwards) stays registered for removal on a signal until the caller forgets it, as git's
    /// clone removes the repository when killed during its repack; any other clone is forgotten
    /// when it returns. (The command line's `--dissociate` was unprotected during its copy: a
    /// signal there left a half-made clone.)
    @Test func removalOnSignalLastsUntilTheCallerIsDone() throws {
        let source = try Self.source.get()
        for keeps in [false, true] {
            let target = source.directory.appending("clones/signal-\(keeps).git")
            var options = RepositoryFetchOptions(bare: true)
            options.keepsRemovalOnSignal = keeps
            _ = try Remote("file://\(source.path)").cloneBlocking(into: target, options: options)
            #expect(SignalCleanup.isRegistered(target) == keeps)
            SignalCleanup.forget(target)
            #expect(FileManager.default.fileExists(atPath: "\(target)/HEAD"))
        }
    }
}
