import GitWireCore
import Testing

/// The name rules whose string searches now run on bytes (so that `_StringProcessing` stays out of
/// the binary; ExecutableFootprintTests): git's `ref_rev_parse_rules` and push's revision forms.
@Suite("name rules")
struct NameRulesTests {
    /// `expand_ref_prefix` and `refname_match`, as git's refs.c gives them.
    @Test func revParseRulesExpandAndScore() {
        #expect(
            Refspec.expandedPrefixes("main") == [
                "main", "refs/main", "refs/tags/main", "refs/heads/main", "refs/remotes/main",
                "refs/remotes/main/HEAD",
            ])
        // A name holding the placeholder's own characters is put in as it is.
        #expect(Refspec.expandedPrefixes("a%sb")[1] == "refs/a%sb")
        #expect(Refspec.matchScore("main", fullName: "refs/heads/main") == 3)
        #expect(Refspec.matchScore("v1", fullName: "refs/tags/v1") == 4)
        #expect(Refspec.matchScore("origin", fullName: "refs/remotes/origin/HEAD") == 1)
        #expect(Refspec.matchScore("main", fullName: "refs/heads/other") == 0)
    }

    /// Reflog entries (`@{`) and paths in trees (`:`) are not push sources here, before or after
    /// the steps; everything else of the form is.
    @Test func revisionExpressionsRefuseReflogsAndPaths() {
        for text in ["main@{1}", "main@{1}~2", "HEAD:README", "main:a~1", "@{u}"] {
            #expect(RevisionExpression(text) == nil, "\(text)")
        }
        for text in ["main", "main~2", "v1^{}", "HEAD^2", "@", "main@x~1", "a{b"] {
            #expect(RevisionExpression(text) != nil, "\(text)")
        }
    }
}
