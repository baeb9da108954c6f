import Foundation
import GitWireTestSupport
import Testing

/// `clone --template` with a hostile template directory: what is copied is copied as git's
/// `copy_templates` copies it, a block at a time, and nothing there makes the clone wait.
@Suite struct HostileTemplateTests {
    /// An upstream repository of one commit.
    func upstream(_ directory: TemporaryDirectory) throws -> String {
        let upstream = directory.appending("up")
        try git(["init", "-q", "-b", "main", upstream])
        try git(["commit", "-q", "--allow-empty", "-m", "one"], in: upstream)
        return upstream
    }

    /// A template file of 192 MiB (a sparse hole): gitwire read it whole before writing its
    /// copy (peak memory over 192 MiB; one of many gigabytes would have exhausted memory). git
    /// 2.39 copies it a block at a time (4.5 MiB for a file of 300 MiB); so does gitwire now.
    @Test("a huge template file is copied without being held in memory")
    func hugeFileStreamed() throws {
        let directory = try TemporaryDirectory(prefix: "gitwire-hostile-template")
        let upstream = try upstream(directory)
        let template = directory.appending("template")
        try FileManager.default.createDirectory(atPath: "\(template)/info", withIntermediateDirectories: true)
        try run(["truncate", "-s", "192M", "\(template)/info/big"])
        try "tail\n".write(toFile: "\(template)/info/small", atomically: false, encoding: .utf8)
        let clone = directory.appending("clone")
        let measured = try measuringPeakMemory(
            [gitwireExecutable, "clone", "-q", "--template=\(template)", upstream, clone], killAfter: 120)
        #expect(measured.output.status == 0, "\(measured.output.errorText)")
        #expect(measured.peakMemory < peakMemoryBound(96 << 20), "peak \(mebibytes(measured.peakMemory))")
        let size = try FileManager.default.attributesOfItem(atPath: "\(clone)/.git/info/big")[.size] as? Int
        #expect(size == 192 << 20)
        #expect(try String(contentsOfFile: "\(clone)/.git/info/small", encoding: .utf8) == "tail\n")
    }

    /// A template whose `config` is a symbolic link to a FIFO: gitwire opened it to read the
    /// configuration the clone starts from and waited for a writer for ever (git 2.39 waits
    /// too, in `read_repository_format`). Now only a regular file is read; the link is copied
    /// as git's `copy_templates` copies links, and replaced by the clone's own `config`.
    @Test("a template config that is a FIFO does not make the clone wait")
    func fifoConfigNotRead() throws {
        let directory = try TemporaryDirectory(prefix: "gitwire-hostile-template")
        let upstream = try upstream(directory)
        let template = directory.appending("template")
        try FileManager.default.createDirectory(atPath: template, withIntermediateDirectories: true)
        try run(["mkfifo", "\(template)/fifo"])
        try FileManager.default.createSymbolicLink(atPath: "\(template)/config", withDestinationPath: "fifo")
        let clone = directory.appending("clone")
        let measured = try measuringPeakMemory(
            [gitwireExecutable, "clone", "-q", "--template=\(template)", upstream, clone], killAfter: 60)
        #expect(measured.output.status == 0, "\(measured.output.errorText)")
        #expect(try gitText(["rev-parse", "HEAD"], in: clone) == gitText(["rev-parse", "HEAD"], in: upstream))
        let config = try FileManager.default.attributesOfItem(atPath: "\(clone)/.git/config")[.type]
        #expect(config as? FileAttributeType == .typeRegular)
    }

    /// A template git's init cannot use (`config` a directory): gitwire failed as git fails,
    /// but left the half-made clone behind (`.git` with `HEAD`, `objects`, `refs`; in a
    /// directory that was there empty, the same), where git removes it (or empties the
    /// directory it did not make). A template `HEAD` that is an empty directory gives way to the
    /// clone's `HEAD`, as in git; gitwire failed (`rename …: Is a directory`) and left the clone.
    @Test("a template the clone cannot use leaves nothing behind")
    func unusableTemplateLeavesNothing() throws {
        let directory = try TemporaryDirectory(prefix: "gitwire-hostile-template")
        let upstream = try upstream(directory)
        let template = directory.appending("template")
        try FileManager.default.createDirectory(atPath: "\(template)/config", withIntermediateDirectories: true)
        let clone = directory.appending("clone")
        let failed = try gitwire(["clone", "-q", "--template=\(template)", upstream, clone])
        #expect(failed.status == 128, "\(failed.errorText)")
        #expect(!FileManager.default.fileExists(atPath: clone))
        let bare = directory.appending("bare.git")
        let failedBare = try gitwire(["clone", "-q", "--bare", "--template=\(template)", upstream, bare])
        #expect(failedBare.status == 128, "\(failedBare.errorText)")
        #expect(!FileManager.default.fileExists(atPath: bare))
        let empty = directory.appending("empty")
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        let failedEmpty = try gitwire(["clone", "-q", "--template=\(template)", upstream, empty])
        #expect(failedEmpty.status == 128, "\(failedEmpty.errorText)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: empty) == [])

        try FileManager.default.removeItem(atPath: "\(template)/config")
        try FileManager.default.createDirectory(atPath: "\(template)/HEAD", withIntermediateDirectories: true)
        let cloned = try gitwire(["clone", "-q", "--template=\(template)", upstream, clone])
        #expect(cloned.status == 0, "\(cloned.errorText)")
        #expect(try String(contentsOfFile: "\(clone)/.git/HEAD", encoding: .utf8) == "ref: refs/heads/main\n")
    }

    /// A FIFO in the template (and one in a subdirectory): git's init passes it over with
    /// `error: ignoring template <path>` (the template as given, then the entry) and clones;
    /// gitwire passed it over without a word. Now the same lines as git, with `--template` given
    /// with and without a trailing `/`.
    @Test("a FIFO in the template is ignored in git's words")
    func fifoIgnoredInGitsWords() throws {
        let directory = try TemporaryDirectory(prefix: "gitwire-hostile-template")
        let upstream = try upstream(directory)
        let template = directory.appending("template")
        try FileManager.default.createDirectory(atPath: "\(template)/hooks", withIntermediateDirectories: true)
        try run(["mkfifo", "\(template)/fifo", "\(template)/hooks/fifo"])
        for (index, given) in [template, template + "/"].enumerated() {
            let theirs = try git(
                ["clone", "-q", "--template=\(given)", upstream, directory.appending("git\(index)")], check: false)
            let ours = try gitwire([
                "clone", "-q", "--template=\(given)", upstream, directory.appending("ours\(index)"),
            ])
            #expect(ours.status == theirs.status && ours.status == 0, "\(ours.errorText)")
            let sorted = { (text: String) in text.split(separator: "\n").sorted() }
            #expect(sorted(ours.errorText) == sorted(theirs.errorText))
            #expect(sorted(theirs.errorText).count == 2, "\(theirs.errorText)")
        }
    }
}
