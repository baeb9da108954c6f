/// The repository's `Fixtures/` directory (found from this file's path, so tests need no
/// resources and no network).
public let fixturesDirectory: String = {
    var path = Substring(#filePath)
    for _ in 0..<3 { path = path[..<(path.lastIndex(of: "/") ?? path.startIndex)] }
    return path + "/Fixtures"
}()
