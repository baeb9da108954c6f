import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// Fetches `info/refs?service=git-upload-pack` of every URL listed in the file given (one a
// line), all requests started at once through one URLSession, and checks each answer is a
// smart-HTTP advertisement. Prints: requests, failures, wall seconds, the most threads the
// process had while the requests ran (CPU time and memory: run it under /usr/bin/time).
// Usage: urlsession-bench <url list> [max connections per host (default: URLSession's)]

let arguments = CommandLine.arguments
guard arguments.count >= 2, let list = try? String(contentsOfFile: arguments[1], encoding: .utf8) else {
    FileHandle.standardError.write("usage: urlsession-bench <url list> [connections per host]\n".data(using: .utf8)!)
    exit(128)
}
let urls = list.split(separator: "\n").map { URL(string: "\($0)/info/refs?service=git-upload-pack")! }
let configuration = URLSessionConfiguration.ephemeral
if arguments.count >= 3, let perHost = Int(arguments[2]) { configuration.httpMaximumConnectionsPerHost = perHost }
configuration.httpAdditionalHeaders = ["User-Agent": "git/2.0 (urlsession-bench)"]
let session = URLSession(configuration: configuration)

func threadCount() -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 0
}

final class Tally: @unchecked Sendable {
    let lock = NSLock()
    var failures = 0
    var maxThreads = 0
    func note(failed: Bool) {
        lock.withLock {
            if failed { failures += 1 }
            maxThreads = max(maxThreads, threadCount())
        }
    }
}

let tally = Tally()
let group = DispatchGroup()
let start = Date()
for url in urls {
    group.enter()
    var request = URLRequest(url: url)
    request.setValue("version=0", forHTTPHeaderField: "Git-Protocol")
    session.dataTask(with: request) { data, response, error in
        let status = (response as? HTTPURLResponse)?.statusCode
        let type = (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Type")
        let ok =
            error == nil && status == 200 && type == "application/x-git-upload-pack-advertisement"
            && (data.map { $0.starts(with: Array("001e# service=git-upload-pack\n".utf8)) } ?? false)
        tally.note(failed: !ok)
        group.leave()
    }.resume()
}
tally.note(failed: false)
group.wait()
let wall = Date().timeIntervalSince(start)
print(
    "requests \(urls.count) failures \(tally.failures) wall \(String(format: "%.3f", wall)) threads \(tally.maxThreads)"
)
