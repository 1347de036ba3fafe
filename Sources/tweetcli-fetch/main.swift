// tweetcli-fetch: fetches one twtxt feed over http(s) for tweetcli, with Foundation's URLSession.
//
//   tweetcli-fetch URL DESTINATION [TIMEOUT_SECONDS] [MAXIMUM_BYTES]
//
// It writes the body to DESTINATION (through a temporary file beside it, renamed when whole) and
// exits 0, or prints one sentence on stderr and exits 1. The body goes to the file as it arrives
// and the fetch stops at MAXIMUM_BYTES, so a feed of any size (or one that inflates) takes no more
// memory than a piece of it. A program of its own because FoundationNetworking links libcurl and
// the libraries it needs (TLS, Kerberos, LDAP): in tweetcli they would load into every command's
// start-up for the one that follows a feed.
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
// Between a second and ten minutes, whatever was asked: the wait below must be a real time.
let timeout = min(600, max(1, arguments.count > 3 ? Double(arguments[3]).flatMap { $0.isFinite ? $0 : nil } ?? 10 : 10))
let maximum = min(1 << 30, max(1, arguments.count > 4 ? Int(arguments[4]) ?? (4 << 20) : 4 << 20))
let temporary = destination + ".part-\(getpid())"

/// Takes the body a piece at a time into the temporary file, and stops the fetch past `maximum`.
/// URLSession calls it on its delegate queue, one call at a time; the main thread reads `failure`
/// only after `done` is signalled.
final class Receiver: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    let done = DispatchSemaphore(value: 0)
    private(set) var failure: String?
    private var finished = false
    private var received = 0
    /// Whether a 200 answer's body is what arrives: only then is a finished fetch a feed.
    private var answered = false
    private var redirects = 0
    /// The temporary file, made before the fetch starts: a timeout that unlinks it leaves no
    /// file for a late delegate call to make again.
    private let file: FileHandle

    init(file: FileHandle) {
        self.file = file
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        // A refusal ends the program first (finish, then cancel): cancelling can wait on
        // URLSession's own queue, which a fast sender keeps busy.
        guard let http = response as? HTTPURLResponse else {
            finish("the server's answer is not http")
            return completionHandler(.cancel)
        }
        guard http.statusCode == 200 else {
            finish("the server answered \(http.statusCode)")
            return completionHandler(.cancel)
        }
        guard response.expectedContentLength <= Int64(maximum) else {
            finish(tooLarge)
            return completionHandler(.cancel)
        }
        answered = true
        completionHandler(.allow)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        // Only to another http(s) address, and not for ever: a redirect elsewhere (file://, or a
        // scheme libcurl reads some other way) is the server's mistake, not a feed.
        redirects += 1
        guard let url = request.url, let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
            url.host != nil
        else {
            finish("the server answered \(response.statusCode) with a Location that is not an http or https address")
            return completionHandler(nil)
        }
        guard redirects <= 5 else {
            finish("the server redirected more than 5 times")
            return completionHandler(nil)
        }
        completionHandler(request)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        guard !finished else { return }
        received += data.count
        // Not cancelled: the program ends as soon as `done` is signalled, and the connection with it.
        guard received <= maximum else { return finish(tooLarge) }
        do {
            try file.write(contentsOf: data)
        } catch {
            finish("cannot write \(temporary): \(error.localizedDescription)")
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        if let error = error as? URLError, error.code == .timedOut {
            finish("no answer within \(Int(timeout)) seconds")
        } else if let error {
            finish((error as NSError).localizedDescription)
        } else if !answered {
            // A 3xx without a Location it could follow ends here with no answer taken: an
            // error, never an empty feed that would replace a good copy.
            let status = (task.response as? HTTPURLResponse)?.statusCode
            guard let status else { return finish("the server sent no answer") }
            finish(
                (300..<400).contains(status)
                    ? "the server answered \(status) without a usable Location" : "the server answered \(status)")
        } else {
            finish(nil)
        }
    }

    /// Ends the fetch, once: with `failure`, or whole when it is `nil`. The program ends then, so a
    /// refused body is not read on to its end (URLSession may keep reading after a cancel).
    private func finish(_ failure: String?) {
        guard !finished else { return }
        finished = true
        self.failure = failure
        // Its writes went to the file as they came (FileHandle does not buffer): closing it
        // cannot lose any, and the program ends next.
        try? file.close()
        done.signal()
    }

    private var tooLarge: String { "the feed is larger than \(maximum >> 20) MiB" }
}

let configuration = URLSessionConfiguration.ephemeral
configuration.timeoutIntervalForRequest = timeout
configuration.timeoutIntervalForResource = timeout
// A feed is text: asked for as it is, so what arrives is what is counted.
configuration.httpAdditionalHeaders = ["User-Agent": "tweetcli (twtxt)", "Accept-Encoding": "identity"]
// 0600: whom someone follows is theirs to know.
guard FileManager.default.createFile(atPath: temporary, contents: nil, attributes: [.posixPermissions: 0o600]),
    let file = FileHandle(forWritingAtPath: temporary)
else { fail("cannot write \(temporary)") }
let receiver = Receiver(file: file)
let queue = OperationQueue()
queue.maxConcurrentOperationCount = 1
let session = URLSession(configuration: configuration, delegate: receiver, delegateQueue: queue)
var request = URLRequest(url: url)
request.timeoutInterval = timeout
session.dataTask(with: request).resume()
// The session's own timeout, and this one in case it does not fire.
if receiver.done.wait(timeout: .now() + timeout + 2) == .timedOut {
    unlink(temporary)
    fail("no answer within \(Int(timeout)) seconds")
}
if let failure = receiver.failure {
    unlink(temporary)
    fail(failure)
}
guard rename(temporary, destination) == 0 else {
    unlink(temporary)
    fail("cannot write \(destination): \(String(cString: strerror(errno)))")
}
