import GitWire
import GitWireTestSupport
import Testing

/// `RefNameFormat.isValid` agrees with `git check-ref-format`, one-level names allowed or not.
@Suite("ref name format")
struct RefNameFormatTests {
    static let names: [String] = [
        "refs/heads/main", "refs/tags/v1.0", "main", "HEAD", "@", "refs/heads/@", "a/@", "a/@{b", "a/b@{", "a/b@",
        "a/b@c", "a/{@", "a/.b", "a/b.", "a/b/", "/a/b", "a//b", "a/b.lock", "a/b.lock/c", "a/.lock", "a/lock",
        "a/b.lck", "a..b", "a/b..", "a/..", "a/.", ".a/b", "a/~b", "a/^b", "a/:b", "a/?b", "a/*b", "a/[b", "a/b]",
        "a/\\b", "a/b c", "a/b\tc", "a/b\u{7f}", "a/b\u{1}", "a/ünïcödé", "a/日本語", "a/b{c}", "a/-b", "a/b#c",
        "a/b!c", "a/b'c", "a/b\"c", "a/b%c", "a/b+c", "a/b=c", "a/b,c", "a/b;c", "a/b<c", "a/b>c", "a/b|c",
        "a/b&c", "a/b$c", "a/b`c", "a", "a.", "refs/heads/a.b.c", "refs/heads/x.lock.y", "refs/heads/.lock",
        "refs/heads/main.lock", "x/y/z/w", "a/b@{0}", "a/@{", "refs/remotes/origin/HEAD", "a/b/.c/d",
        "a/b\u{80}", "a/..b", "a/b..c", "a./b", "a/b.lock.", ".", "..", "a/b/c.", "a/ b", "a/b ",
    ]

    @Test(arguments: names)
    func agreesWithGitCheckRefFormat(_ name: String) throws {
        for allowOneLevel in [false, true] {
            let arguments = ["check-ref-format"] + (allowOneLevel ? ["--allow-onelevel"] : []) + [name]
            let result = try git(arguments, check: false)
            #expect(result.status == 0 || result.status == 1, "\(result.errorText)")
            let gitSaysValid = result.status == 0
            #expect(
                RefNameFormat.isValid(Array(name.utf8), allowOneLevel: allowOneLevel) == gitSaysValid,
                "'\(name)' allowOneLevel: \(allowOneLevel): git says \(gitSaysValid ? "valid" : "invalid")")
        }
    }

    @Test func theEmptyNameIsInvalid() throws {
        #expect(try git(["check-ref-format", "--allow-onelevel", ""], check: false).status == 1)
        #expect(!RefNameFormat.isValid([UInt8](), allowOneLevel: true))
    }
}
