/// How to clone or fetch into a local repository.
///
/// A fetch follows git's rules (`git fetch`): with ``remote`` set, the remote's configured
/// refspecs (`remote.<name>.fetch`), `tagOpt`, `prune` and `pruneTags` apply as they do to
/// `git fetch <name>` (and a remote given by URL takes `HEAD` into `FETCH_HEAD` when no refspec
/// is given, as `git fetch <url>` does); ``refspecs`` are the command line's. Without ``remote``
/// and ``refspecs``, the library's own default applies: `+refs/heads/*:refs/heads/*` and
/// `+refs/tags/*:refs/tags/*`, what a bare mirror of branches and tags wants. Either way a
/// branch checked out in a work tree of the repository is never updated (the fetch fails as git's
/// does) unless ``updateHeadOK``.
public struct RepositoryFetchOptions: Sendable {
    /// The negotiation's options: protocol version, depth, filter, progress, ...
    public var fetch: FetchOptions
    /// Which remote refs to fetch and where they go (the refspecs of git's command line).
    public var refspecs: [Refspec]
    /// A mirror clone (`git clone --mirror`): every ref, and the configuration that says so.
    public var mirror: Bool
    /// Removes local refs the refspecs cover that the remote no longer has (`--prune`); nil:
    /// `remote.<name>.prune`, else `fetch.prune`, else no.
    public var prune: Bool?
    /// Prunes local tags too (`--prune-tags`: `refs/tags/*:refs/tags/*` joins the refspecs);
    /// nil: `remote.<name>.pruneTags`, else `fetch.pruneTags`, else no. Only with ``prune``.
    public var pruneTags: Bool?
    /// Updates the local refs all or nothing (`git fetch --atomic`): if one cannot be updated,
    /// the fetch fails with its ``RefUpdateError`` and no ref changes. Without it (git's
    /// default), a ref that cannot be updated is reported in its ``RefChange/error`` and the
    /// others are updated.
    public var atomic: Bool
    /// How `remote.origin.url` is written into a new repository's configuration (by default the
    /// remote's URL as given).
    public var configuredURL: String?
    /// Options of the indexer that stores the pack.
    public var index: PackIndexOptions
    /// The remote fetched from as git's configuration describes it (`git fetch <name>`), or as
    /// a URL given directly (``ConfiguredRemote/named(_:configuration:currentBranch:)`` makes
    /// either).
    public var remote: ConfiguredRemote?
    /// Which tags come besides those the refspecs name; nil: the remote's `tagOpt`, else
    /// ``FetchTags/follow``.
    public var tags: FetchTags?
    /// Allows non-fast-forward updates of every ref (`--force`), as a `+` refspec does.
    public var force: Bool
    /// Allows updating the branch a work tree has checked out (`--update-head-ok`).
    public var updateHeadOK: Bool
    /// Shows what would change without changing any ref or `FETCH_HEAD` (`--dry-run`); the
    /// objects are still fetched.
    public var dryRun: Bool
    /// Writes `FETCH_HEAD` (git's default; `--no-write-fetch-head` turns it off).
    public var writeFetchHead: Bool
    /// Appends to `FETCH_HEAD` instead of replacing it (`--append`).
    public var appendFetchHead: Bool
    /// `--refmap`: what opportunistic updates of remote-tracking refs follow instead of the
    /// configured refspecs (empty: none).
    public var refmap: [Refspec]?
    /// What reflog entries start with (git's `GIT_REFLOG_ACTION`, by default the command line,
    /// such as `fetch origin`); nil: `fetch` and the remote's name.
    public var reflogAction: String?
    /// A clone makes a bare repository (`git clone --bare`, the default); false makes what
    /// `git clone --no-checkout` makes: a work tree at the path with a `.git` directory,
    /// `refs/remotes/<origin>/*`, the remote's `HEAD` branch as a local branch that tracks it
    /// (`branch.<name>.remote`, `.merge`), and reflogs. Nothing is checked out: `git checkout`
    /// (or `git switch`) then fills the work tree.
    public var bare: Bool
    /// The name a clone gives the remote (`--origin`).
    public var originName: String
    /// The branch (or tag) a clone's `HEAD` takes instead of the remote's (`--branch`).
    public var branch: String?
    /// Whether a clone takes only one branch (`--single-branch`); nil: only for a shallow clone.
    public var singleBranch: Bool?
    /// Entries a clone writes into the new repository's configuration before it fetches
    /// (`git clone -c <key>=<value>`): in order, each added as `git config --add` adds it (at the
    /// end of the last section of its name, else in a new section), after `core` and before the
    /// remote's and the branch's entries; an entry with no value is written `true`. A clone that
    /// reads its configuration from the new repository (``configuration`` nil) sees them. The
    /// remote's `fetch`, `url`, `mirror` and `tagOpt` (`remote.<originName>.*`), which change
    /// what git's clone fetches, are refused (``FetchRefMapError``) before anything is made.
    public var cloneConfiguration: [ConfigEntry] = []
    /// The `objects` directories a clone names in its `objects/info/alternates` before it fetches
    /// (`git clone --reference`, `--shared`), in order, each once: their objects are the clone's,
    /// and their refs' tips complete, so that only what they lack is fetched.
    public var alternates: [String] = []
    /// Whether a clone's new repository stays registered for removal on a signal once the clone
    /// has succeeded, for the caller to forget (`SignalCleanup.forget`) when its own work on it is
    /// done (`clone --dissociate` copies the references' objects afterwards, and git's clone
    /// removes the repository if it is killed meanwhile).
    package var keepsRemovalOnSignal = false
    /// The template a clone copies into its new git directory first, as git's init copies it
    /// (`git clone --template`; git's own choice, `GIT_TEMPLATE_DIR`, else `init.templateDir`,
    /// else `/usr/share/git-core/templates`, is the caller's to make): see
    /// ``Repository/copyTemplate(_:into:ignored:)``. Its `config` is where the new configuration starts:
    /// the clone's entries are set and added in it as git's `git_config_set` edits it. An empty
    /// string, or a directory that is not there, copies nothing; nil writes gitwire's own
    /// `description` and `info/exclude` (those of git's default template, without its hooks).
    public var templateDirectory: String?
    /// Where a clone with a work tree puts its git directory instead of `<path>/.git`
    /// (`git clone --separate-git-dir`): the work tree's `.git` is then a file that names it by
    /// its real path (`gitdir: <path>`), as git writes it. It must not exist (else
    /// ``RepositoryError/destinationExists(_:)``); a failed clone removes it. Not for a bare clone.
    public var separateGitDirectory: String?
    /// The repository's configuration, as git reads it for the fetch; nil: read with
    /// ``GitConfiguration/load(gitDirectory:environment:commandLine:)`` and the process's
    /// environment.
    public var configuration: GitConfiguration?

    /// Options for a fetch with `fetch`'s negotiation and `refspecs`.
    public init(
        fetch: FetchOptions = FetchOptions(), refspecs: [Refspec] = [], mirror: Bool = false, prune: Bool? = nil,
        configuredURL: String? = nil, index: PackIndexOptions = PackIndexOptions(), atomic: Bool = false,
        remote: ConfiguredRemote? = nil, tags: FetchTags? = nil, force: Bool = false, updateHeadOK: Bool = false,
        dryRun: Bool = false, pruneTags: Bool? = nil, writeFetchHead: Bool = true, appendFetchHead: Bool = false,
        refmap: [Refspec]? = nil, reflogAction: String? = nil, configuration: GitConfiguration? = nil,
        bare: Bool = true, originName: String = "origin", branch: String? = nil, singleBranch: Bool? = nil
    ) {
        self.bare = bare
        self.originName = originName
        self.branch = branch
        self.singleBranch = singleBranch
        self.atomic = atomic
        self.fetch = fetch
        self.refspecs = refspecs
        self.mirror = mirror
        self.prune = prune
        self.configuredURL = configuredURL
        self.index = index
        self.remote = remote
        self.tags = tags
        self.force = force
        self.updateHeadOK = updateHeadOK
        self.dryRun = dryRun
        self.pruneTags = pruneTags
        self.writeFetchHead = writeFetchHead
        self.appendFetchHead = appendFetchHead
        self.refmap = refmap
        self.reflogAction = reflogAction
        self.configuration = configuration
    }

    /// The refspecs a clone follows: the branches (under `refs/remotes/<origin>/` unless bare),
    /// and the tags unless ``tags`` is ``FetchTags/none``; every ref for a mirror.
    func cloneRefspecs() throws -> [Refspec] {
        for entry in cloneConfiguration where entry.section == "remote" && entry.subsection == originName[...] {
            if ["fetch", "url", "mirror", "tagopt"].contains(entry.key) {
                throw FetchRefMapError(
                    "\(entry.name) cannot be set by clone's -c/--config in gitwire (git's clone would use it "
                        + "for the clone itself); set it with git config after the clone")
            }
        }
        if !refspecs.isEmpty { return refspecs }
        if mirror { return [try! Refspec("+refs/*:refs/*")] }
        // git's valid_remote_name: the name must make a valid refspec.
        guard (try? Refspec("refs/heads/test:refs/remotes/\(originName)/test")) != nil else {
            throw FetchRefMapError("'\(originName)' is not a valid remote name")
        }
        let top = bare ? "refs/heads/" : "refs/remotes/\(originName)/"
        var specs = [try Refspec("+refs/heads/*:\(top)*")]
        if tags != FetchTags.none {
            specs.append(try! Refspec(bare ? "+refs/tags/*:refs/tags/*" : "refs/tags/*:refs/tags/*"))
        }
        return specs
    }

    /// The library's default refspecs for a fetch with neither ``remote`` nor ``refspecs``.
    static let defaultRefspecs = [try! Refspec("+refs/heads/*:refs/heads/*"), try! Refspec("+refs/tags/*:refs/tags/*")]
}
