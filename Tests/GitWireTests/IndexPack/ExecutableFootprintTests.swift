import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// What the executable's own pages cost in a run's peak memory (Documentation/Performance.md,
/// "Peak memory on small packs").
@Suite struct ExecutableFootprintTests {
    /// `_StringProcessing` and `_RegexParser` (about 1.2 MB of code and metadata in the static
    /// build) come in with a single `String.contains(_:)` of a string or `split(separator:)` with
    /// a string separator anywhere in the package; the mangled names of their symbols (the module
    /// names with their lengths) then appear in the binary, whether it links them statically or
    /// not.
    @Test func gitwireUsesNoRegexModules() throws {
        let binary = try #require(FileManager.default.contents(atPath: gitwireExecutable))
        for module in ["17_StringProcessing", "12_RegexParser"] {
            #expect(binary.range(of: Data(module.utf8)) == nil, "gitwire refers to \(module)")
        }
    }

    /// Releasing the executable's pages takes them out of the resident set (they come back on
    /// their next use), and leaves the program running.
    @Test func releaseUnmapsTheExecutablesPages() throws {
        let before = try residentExecutableKiB()
        let released = ExecutablePages.release()
        let after = try residentExecutableKiB()
        #expect(released > 0)
        #expect(after < before, "resident executable pages: \(before) KiB before, \(after) KiB after")
        // The code released runs again (its pages come back from the page cache).
        #expect(RevisionExpression("main~2") != nil)
    }

    /// The resident KiB of this process's executable's read-only mappings, from `/proc/self/smaps`.
    private func residentExecutableKiB() throws -> Int {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        let smaps = try String(contentsOfFile: "/proc/self/smaps", encoding: .utf8)
        var total = 0
        var inside = false
        for line in smaps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if let range = fields.first, range.contains("-"), fields.count >= 5, !range.hasSuffix(":") {
                inside = fields.count >= 6 && fields[5] == executable && !fields[1].contains("w")
            } else if inside, fields.first == "Rss:", fields.count >= 2, let kib = Int(fields[1]) {
                total += kib
            }
        }
        return total
    }
}
