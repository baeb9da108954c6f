/// Which of the remote's advertised refs a push needs (all of them for `--mirror`, which deletes
/// what the local repository lacks): those a local ref or a refspec could name (git's ref
/// matching: the name as written, under `refs/`, `refs/tags/`, `refs/heads/`, `refs/remotes/`,
/// and `refs/remotes/<name>/HEAD`), and one ref per object the local repository has, for the
/// pack's exclusions and `--follow-tags`. The rest cannot change what is sent or reported, and
/// is dropped as it is read: what the push holds is bounded by the local repository, not by
/// the server's advertisement.
final class RemoteRefFilter: @unchecked Sendable {
    private let names: Set<String>
    private let patterns: [String]
    private let objects: ObjectDatabase
    private var seen: Set<ObjectID> = []

    init(repository: Repository, refspecs: [PushRefspec]) throws {
        var names = Set(try repository.refs.all().map(\.name))
        for text in refspecs.flatMap({ [$0.source, $0.destination] }).compactMap({ $0 }) {
            names.formUnion(Self.expansions(text))
        }
        // A pattern's destination side: the remote refs it could map a local ref to.
        patterns = refspecs.filter { $0.isPattern && !$0.isNegative }.compactMap { $0.destination ?? $0.source }
        if case .symbolic(let target) = try repository.refs.head() { names.insert(target) }
        self.names = names
        objects = repository.objects
    }

    /// The names git's matching tries for `pattern` (see `RepositoryPush.countMatches`).
    static func expansions(_ pattern: String) -> [String] {
        [
            pattern, "refs/\(pattern)", "refs/tags/\(pattern)", "refs/heads/\(pattern)", "refs/remotes/\(pattern)",
            "refs/remotes/\(pattern)/HEAD",
        ]
    }

    func keeps(_ ref: Ref) -> Bool {
        if names.contains(ref.name) { return true }
        if patterns.contains(where: { PushRefspec.mapping(ref.name, key: $0, value: "*") != nil }) { return true }
        guard let id = ref.objectID, !seen.contains(id), objects.contains(id) else { return false }
        seen.insert(id)
        return true
    }
}
