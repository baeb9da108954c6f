import Foundation

/// Environment that makes `git` reproducible: fixed names and dates, no user or system config.
public let reproducibleGitEnvironment: [String: String] = [
    "GIT_AUTHOR_NAME": "A U Thor", "GIT_AUTHOR_EMAIL": "author@example.com",
    "GIT_COMMITTER_NAME": "C O Mitter", "GIT_COMMITTER_EMAIL": "committer@example.com",
    "GIT_AUTHOR_DATE": "1700000000 +0000", "GIT_COMMITTER_DATE": "1700000000 +0000",
    "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null", "HOME": "/nonexistent",
    "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C",
]

/// Runs `git` with ``reproducibleGitEnvironment`` (plus `environment`) in `directory`.
@discardableResult
public func git(
    _ arguments: [String], in directory: String? = nil, environment: [String: String] = [:],
    input: [UInt8] = [], check: Bool = true
) throws -> ProcessOutput {
    try run(
        ["git"] + arguments, in: directory, environment: reproducibleGitEnvironment.merging(environment) { $1 },
        input: input, check: check)
}

/// `git` with its output as text, trailing newline removed.
public func gitText(_ arguments: [String], in directory: String? = nil) throws -> String {
    var text = try git(arguments, in: directory).text
    if text.hasSuffix("\n") { text.removeLast() }
    return text
}

/// A bare repository `upstream` (branch `main`) and a clone of it, `work`, whose first commit
/// (empty, `first`) is pushed: the start of tests that push, fetch or clone between the two.
public func bareUpstreamWithClone(upstream: String, work: String) throws {
    try git(["init", "-q", "--bare", "-b", "main", upstream])
    try git(["clone", "-q", upstream, work])
    try git(["commit", "-q", "--allow-empty", "-m", "first"], in: work)
    try git(["push", "-q", "origin", "main"], in: work)
}
