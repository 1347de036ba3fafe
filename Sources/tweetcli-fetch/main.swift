// tweetcli-fetch: fetches one twtxt feed over http(s) for tweetcli, with Foundation's URLSession.
//
//   tweetcli-fetch URL DESTINATION [TIMEOUT_SECONDS] [MAXIMUM_BYTES]
//
// It writes the body to DESTINATION (through a temporary file beside it, renamed when whole) and
// exits 0, or prints one sentence on stderr and exits 1. A program of its own because
// FoundationNetworking links libcurl and the libraries it needs (TLS, Kerberos, LDAP): in tweetcli
// they would load into every command's start-up for the one that follows a feed.
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(1)
}

let arguments = CommandLine.arguments
guard arguments.count >= 3, arguments.count <= 5 else {
    fail("usage: tweetcli-fetch URL DESTINATION [TIMEOUT_SECONDS] [MAXIMUM_BYTES]")
}
guard let url = URL(string: arguments[1]), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
    url.host != nil
else { fail("\(arguments[1]) is not an http or https address") }
let destination = arguments[2]
let timeout = arguments.count > 3 ? Double(arguments[3]) ?? 10 : 10
let maximum = arguments.count > 4 ? Int(arguments[4]) ?? (4 << 20) : 4 << 20

let configuration = URLSessionConfiguration.ephemeral
configuration.timeoutIntervalForRequest = timeout
configuration.timeoutIntervalForResource = timeout
configuration.httpAdditionalHeaders = ["User-Agent": "tweetcli (twtxt)"]
let session = URLSession(configuration: configuration)
let done = DispatchSemaphore(value: 0)
nonisolated(unsafe) var outcome: Result<Data, any Error> = .failure(URLError(.unknown))
var request = URLRequest(url: url)
request.timeoutInterval = timeout
let task = session.dataTask(with: request) { data, response, error in
    defer { done.signal() }
    if let error {
        outcome = .failure(error)
        return
    }
    guard let http = response as? HTTPURLResponse else {
        outcome = .failure(URLError(.badServerResponse))
        return
    }
    guard http.statusCode == 200 else {
        outcome = .failure(
            NSError(
                domain: "tweetcli", code: http.statusCode,
                userInfo: [NSLocalizedDescriptionKey: "the server answered \(http.statusCode)"]))
        return
    }
    outcome = .success(data ?? Data())
}
task.resume()
// The session's own timeout, and this one in case it does not fire.
if done.wait(timeout: .now() + timeout + 2) == .timedOut {
    fail("no answer within \(Int(timeout)) seconds")
}
switch outcome {
case .failure(let error as URLError) where error.code == .timedOut:
    fail("no answer within \(Int(timeout)) seconds")
case .failure(let error):
    fail((error as NSError).localizedDescription)
case .success(let data):
    guard data.count <= maximum else { fail("the feed is larger than \(maximum >> 20) MiB") }
    let temporary = destination + ".part-\(getpid())"
    guard FileManager.default.createFile(atPath: temporary, contents: data) else {
        fail("cannot write \(temporary)")
    }
    guard rename(temporary, destination) == 0 else {
        unlink(temporary)
        fail("cannot write \(destination): \(String(cString: strerror(errno)))")
    }
}
