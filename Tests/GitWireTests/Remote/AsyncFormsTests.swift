import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// The blocking and `async` forms cannot be mistaken for one another: in top-level code, Swift
/// picks a synchronous overload for `try await f()` when one of the same name exists (with only a
/// warning, "no 'async' operations occur within 'await' expression"), so the blocking forms have
/// names of their own. Checked by type-checking programs against the built modules, warnings as
/// errors.
@Suite("async forms")
struct AsyncFormsTests {
    /// `swiftc -typecheck -warnings-as-errors` of `source` as a program's `main.swift`, against
    /// the modules this test bundle was built with.
    static func typecheck(_ source: String) throws -> ProcessOutput {
        let directory = try TemporaryDirectory(prefix: "gitwire-typecheck")
        try source.write(toFile: directory.appending("main.swift"), atomically: true, encoding: .utf8)
        let build = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        var products = build
        // Under XCTest's runner the bundle path is deeper; the products are beside the bundle.
        while !FileManager.default.fileExists(atPath: products.appendingPathComponent("Modules").path),
            products.path != "/"
        {
            products.deleteLastPathComponent()
        }
        let root = URL(fileURLWithPath: fixturesDirectory).deletingLastPathComponent().path
        return try run(
            [
                "swiftc", "-typecheck", "-warnings-as-errors", "-swift-version", "6",
                "-I", products.appendingPathComponent("Modules").path,
                "-Xcc", "-fmodule-map-file=\(products.appendingPathComponent("CGitWire.build/module.modulemap").path)",
                "-Xcc", "-I", "-Xcc", "\(root)/Sources/CGitWire/include", directory.appending("main.swift"),
            ], check: false)
    }

    @Test func awaitPicksTheAsyncFormInTopLevelCode() throws {
        let result = try Self.typecheck(
            """
            import GitWire

            let remote = try Remote("git://127.0.0.1/project.git")
            let listing: RefListing = try await remote.lsRemote()
            let cloned: FetchResult = try await remote.clone(into: "/srv/project.git")
            let fetched: FetchResult = try await remote.fetch(into: "/srv/project.git")
            let listed: RefListing = try await remote.run(
                LsRemoteExchange(options: LsRemoteOptions()), protocolVersion: .v2, traceIdentity: "ls-remote")
            // The blocking forms say so.
            let blocking: RefListing = try remote.lsRemoteBlocking()
            print(listing, cloned, fetched, listed, blocking)

            """)
        #expect(result.status == 0, "\(result.errorText)")
    }

    /// Without `await`, the short names are not the blocking forms: the compiler says the call is
    /// asynchronous.
    @Test(arguments: [
        "try remote.lsRemote()", "try remote.clone(into: \"/srv/project.git\")",
        "try remote.fetch(into: \"/srv/project.git\")",
    ])
    func theShortNamesAreOnlyAsync(call: String) throws {
        let result = try Self.typecheck(
            """
            import GitWire

            func list() throws {
                let remote = try Remote("git://127.0.0.1/project.git")
                _ = \(call)
            }

            """)
        #expect(result.status != 0)
        #expect(result.errorText.contains("'async' call in a function that does not support concurrency"))
    }

    /// Every Swift example in the README type-checks against the built modules, warnings as
    /// errors, so the README shows the API as it is.
    @Test func theReadmeExamplesTypeCheck() throws {
        let root = URL(fileURLWithPath: fixturesDirectory).deletingLastPathComponent().path
        let readme = try String(contentsOfFile: root + "/README.md", encoding: .utf8)
        var examples: [String] = []
        var current: [Substring]?
        for line in readme.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line == "```swift" {
                current = []
            } else if let lines = current, line == "```" {
                examples.append(lines.joined(separator: "\n") + "\n")
                current = nil
            } else {
                current?.append(line)
            }
        }
        #expect(examples.count >= 2)
        for example in examples {
            let result = try Self.typecheck(example)
            #expect(result.status == 0, "\(example)\n\(result.errorText)")
        }
    }
}
