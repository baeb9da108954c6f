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
}
