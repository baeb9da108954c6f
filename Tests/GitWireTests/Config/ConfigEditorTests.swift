import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// ``ConfigEditor`` against `git config --file` (git 2.39's `git_config_set_multivar_in_file`)
/// on generated files: the same bytes after each set, unset and add, the same "nothing set"
/// (git's exit 5) and the same refusal of a file git cannot read (git's exit 3).
@Suite struct ConfigEditorTests {
    /// Pieces the files are made of: comments, odd spacing, sections present twice, keys in
    /// other cases, quoted and escaped values, a header on the line of a key, CRLF, no final
    /// newline.
    static let pieces: [String] = [
        "[core]\n\tbare = false\n",
        "# a comment\n",
        "[branch \"main\"]\n\tremote = origin\n\tmerge = refs/heads/main\n",
        "[branch \"main\"] ; trailing comment\n  REMOTE=up # why\n",
        "[Branch \"Main\"]\n\tmerge = refs/heads/x\n",
        "[branch.main]\n\tremote = legacy\n",
        "[branch \"main\"]\n",
        "[a] k = v\n",
        "[a \"s\\\"q\"]\n\tk = \"quoted ; value\" ; c\n",
        "\tk2 = one \\\n two\n",
        "[branch \"main\"]\r\n\tmerge = refs/heads/crlf\r\n",
        "[include]\n\tpath = other.inc\n",
        "\n\n   \n",
        "[branch \"main\"]\n\tmerge = refs/heads/second",
        "[a]\n\tflag\n\tk = \"trailing \" \n",
        "; only a comment",
    ]

    static let edits: [(key: String, value: String?, add: Bool)] = [
        ("branch.main.remote", "origin", false),
        ("branch.main.merge", "refs/heads/main", false),
        ("branch.main.merge", nil, false),
        ("branch.main.merge", "refs/heads/added", true),
        ("branch.main.remote", nil, false),
        ("Branch.main.Remote", "Case", false),
        ("branch.Main.merge", "x", false),
        ("a.k", "new value # hash", false),
        ("a.k", nil, false),
        ("a.s\"q.k", "tab\there", false),
        ("new.sec\\tion.key", " spaced ", false),
        ("core.bare", nil, false),
        ("new.key", "v", true),
        ("a.k", "cr\rin", false),
        ("x.y", "\tlead nl\nq\"b\\", false),
        ("x.y", "trail\t", true),
    ]

    static var files: [String] {
        var files = [""] + pieces.map { $0 }
        for (i, first) in pieces.enumerated() {
            for second in pieces[(i + 1)...] { files.append(first + second) }
        }
        files.append(pieces.prefix(6).joined())
        files.append("\u{FEFF}" + pieces[2])
        files.append("\u{FEFF}")
        return files
    }

    @Test("each edit of each generated file gives git config's bytes and outcome")
    func againstGit() throws {
        let directory = try TemporaryDirectory(prefix: "gitwire-config-editor")
        let path = directory.appending("config")
        var compared = 0
        for text in Self.files {
            for edit in Self.edits {
                try Data(text.utf8).write(to: URL(fileURLWithPath: path))
                var arguments = ["config", "--file", path]
                if edit.add { arguments.append("--add") }
                if edit.value == nil { arguments.append("--unset") }
                arguments.append(edit.key)
                if let value = edit.value { arguments.append(value) }
                let fromGit = try git(arguments, check: false)
                let gitText = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
                let context = "\(edit) on \(text.debugDescription)"
                guard let (editor, outcome) = Self.apply(edit, to: text) else {
                    #expect(fromGit.status == 3, "\(context)")
                    compared += 1
                    continue
                }
                if edit.add { #expect(fromGit.status == 0, "\(context)") }
                #expect((fromGit.status == 5) == (outcome == .nothingSet), "\(context): \(fromGit.errorText)")
                #expect(editor.text == gitText, "\(context)")
                compared += 1
            }
        }
        #expect(compared > 1000)
    }

    /// The edit applied by a ``ConfigEditor``; nil where it throws.
    static func apply(_ edit: (key: String, value: String?, add: Bool), to text: String) -> (
        ConfigEditor, ConfigEditor.Outcome
    )? {
        var editor = ConfigEditor(Array(text.utf8))
        do {
            if edit.add {
                try editor.add(edit.key, value: edit.value!)
                return (editor, .changed)
            }
            let outcome = try editor.set(edit.key, to: edit.value)
            return (editor, outcome)
        } catch {
            return nil
        }
    }

    @Test("a file that does not exist: a set creates it as git does, an unset sets nothing")
    func missingFile() throws {
        let directory = try TemporaryDirectory(prefix: "gitwire-config-editor")
        let path = directory.appending("config")
        try git(["config", "--file", path, "Branch.Sub\"x.Key", "a;b"])
        var editor = ConfigEditor(nil)
        #expect(try editor.set("Branch.Sub\"x.Key", to: "a;b") == .changed)
        #expect(editor.text == (try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))))
        var empty = ConfigEditor(nil)
        #expect(try empty.set("a.b", to: nil) == .nothingSet)
        #expect(!empty.exists)
    }

    @Test("two values where one is replaced: nothing set, git's warning")
    func multipleValues() throws {
        var editor = ConfigEditor(Array("[a]\n\tb = 1\n\tb = 2\n\tb = 3\n".utf8))
        #expect(try editor.set("a.b", to: "x") == .nothingSet)
        #expect(editor.warnings == ["a.b has multiple values"])
        #expect(String(decoding: editor.text, as: UTF8.self) == "[a]\n\tb = 1\n\tb = 2\n\tb = 3\n")
    }
}
