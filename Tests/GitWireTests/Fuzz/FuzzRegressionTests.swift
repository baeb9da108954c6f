import Foundation
import GitWireFuzzTargets
import GitWireTestSupport
import Testing

/// Every input that ever made a fuzz target crash, hang, leak or break an invariant, kept under
/// `Fixtures/fuzz/<target>/` by `Tools/fuzz.sh`, run again through the same target. Each runs in a
/// `gitwire-fuzz` process of its own under `timeout`, so a regression fails this test instead of
/// stopping or hanging the suite.
@Suite("fuzz regressions")
struct FuzzRegressionTests {
    /// One kept input.
    struct KeptInput: CustomTestStringConvertible, Sendable {
        let target: String
        let path: String
        var testDescription: String { "\(target)/\((path as NSString).lastPathComponent)" }
    }

    static let directory = "\(fixturesDirectory)/fuzz"

    static let keptInputs: [KeptInput] = {
        let folders = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return folders.sorted().flatMap { folder in
            let files = (try? FileManager.default.contentsOfDirectory(atPath: "\(directory)/\(folder)")) ?? []
            return files.sorted().map { KeptInput(target: folder, path: "\(directory)/\(folder)/\($0)") }
        }
    }()

    @Test(arguments: keptInputs)
    func replays(_ input: KeptInput) throws {
        let result = try run(["timeout", "120", fuzzExecutable, input.target, input.path], check: false)
        #expect(result.status != 124, "still running after 120 s")
        #expect(result.status == 0, "\(result.errorText)")
    }

    /// Each folder is named after a target, so no kept input is silently skipped.
    @Test func foldersNameTargets() throws {
        let folders = (try? FileManager.default.contentsOfDirectory(atPath: Self.directory)) ?? []
        for folder in folders {
            #expect(FuzzTarget(rawValue: folder) != nil, "Fixtures/fuzz/\(folder) names no fuzz target")
        }
    }
}
