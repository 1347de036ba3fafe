import FoundationEssentials
import TweetCore
import TweetStore
import TweetSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Reads followed twtxt feeds for the command line: a `file://` feed from its file each time; an
/// http(s) one from `$XDG_CACHE_HOME/tweetcli/twtxt`, fetched again by `tweetcli-fetch` (installed
/// beside tweetcli: URLSession's libraries stay out of every other command) once the copy is
/// older than `maximumAge`. A feed that cannot be fetched is read from the cache when there is one.
struct TwtxtFetcher: TwtxtFeedLoader {
    let cacheDirectory: String
    /// How long a fetched copy is used before it is fetched again.
    var maximumAge: TimeInterval = 300
    /// How long a fetch may take.
    var timeout: TimeInterval = 10
    /// The fetcher program; `nil` finds it beside the running tweetcli.
    var helper: String?
    /// When the command stops fetching: three timeouts after it began, however many feeds wait.
    var deadline: Date { started.addingTimeInterval(timeout * 3) }
    private let started = Date()

    init(environment: [String: String]) {
        cacheDirectory = PathName.join(AppPaths.cacheDirectory(environment: environment), "twtxt")
        if let age = environment["TWEETCLI_TWTXT_MAX_AGE"].flatMap(TimeInterval.init), age >= 0 { maximumAge = age }
        if let limit = environment["TWEETCLI_TWTXT_TIMEOUT"].flatMap(TimeInterval.init), limit.isFinite, limit > 0 {
            timeout = min(600, max(1, limit))
        }
        helper = environment["TWEETCLI_FETCH"].flatMap { $0.isEmpty ? nil : $0 }
    }

    func load(_ url: String, nick: String) async throws -> TwtxtFeed {
        if let path = Self.filePath(url) {
            return Twtxt.parse(try Self.read(path, url: url), url: url, nick: nick)
        }
        let cached = PathName.join(cacheDirectory, TwtxtService.cacheName(url))
        var info = stat()
        let hasCopy = stat(cached, &info) == 0
        let age = Date().timeIntervalSince1970 - TimeInterval(info.st_mtim.tv_sec)
        if !hasCopy || age > maximumAge || age < 0 {
            do {
                try await refresh(url, cached: cached, replacing: hasCopy)
            } catch let error as TwtxtError {
                // A stale copy is better than nothing; without one the feed cannot be read.
                guard hasCopy else { throw error }
                Output.writeError(
                    TerminalText("note: \(error.sentence); showing the copy fetched \(Int(age / 60)) minutes ago\n")
                        .rendered(color: false))
            }
        }
        return Twtxt.parse(try Self.read(cached, url: url), url: url, nick: nick)
    }

    /// The local path of a `file://` address.
    static func filePath(_ url: String) -> String? {
        guard url.hasPrefix("file://"), let parsed = URL(string: url), parsed.isFileURL else { return nil }
        return parsed.path
    }

    private static func read(_ path: String, url: String) throws -> [UInt8] {
        let fd: Int32
        switch RegularFile.open(path) {
        case .success(let opened): fd = opened
        case .failure(let reason): throw TwtxtError.unreachable(url, reason: reason.description)
        }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw TwtxtError.unreachable(url, reason: String(cString: strerror(errno))) }
            if count == 0 { return bytes }
            bytes += buffer[0..<count]
            guard bytes.count <= Twtxt.maximumFeedBytes else {
                throw TwtxtError.unreachable(url, reason: "it is larger than \(Twtxt.maximumFeedBytes >> 20) MiB")
            }
        }
    }

    /// Fetches the feed at `url` beside its cached copy and puts it in the copy's place, unless a
    /// copy is there and the answer has no entry: an empty answer (a server that lost the file, a
    /// captive portal's page) never replaces a good copy.
    private func refresh(_ url: String, cached: String, replacing hasCopy: Bool) async throws {
        let fetched = cached + ".part-fetched-\(UInt64.random(in: 0...UInt64.max))"
        defer { unlink(fetched) }  // Gone once renamed; removed when it is refused.
        try await fetch(url, to: fetched)
        if hasCopy, Twtxt.parse(try Self.read(fetched, url: url), url: url, nick: "").entries.isEmpty {
            throw TwtxtError.unreachable(url, reason: "the server sent a feed without entries")
        }
        guard rename(fetched, cached) == 0 else {
            throw TwtxtError.unreachable(url, reason: "cannot write in \(cacheDirectory): \(FileIO.errnoText())")
        }
    }

    /// Removes what fetches that were killed left in the cache (their partial copies and
    /// messages) once they are older than any fetch can run.
    private func removeLeftovers() {
        let now = Date().timeIntervalSince1970
        // A cache that cannot be listed has nothing to tidy; the fetch says why if it cannot write.
        for name in (try? FileManager.default.contentsOfDirectory(atPath: cacheDirectory)) ?? []
        where name.contains(".part-") || name.contains(".error-") {
            let path = PathName.join(cacheDirectory, name)
            var info = stat()
            if lstat(path, &info) == 0, now - TimeInterval(info.st_mtim.tv_sec) > 3600 { unlink(path) }
        }
    }

    /// Runs `tweetcli-fetch URL DESTINATION TIMEOUT MAXIMUM` and waits for it without holding a
    /// thread, so that several feeds are fetched at once. Past the deadline nothing more is fetched.
    private func fetch(_ url: String, to destination: String) async throws {
        guard Date() < deadline else {
            throw TwtxtError.unreachable(
                url, reason: "not fetched: the followed feeds took longer than \(Int(timeout * 3)) seconds")
        }
        // 0700, and the copies 0600 (tweetcli-fetch makes them so): whom someone follows is theirs
        // to know. A cache an older tweetcli made open to all is closed here.
        try FileManager.default.createDirectory(
            atPath: cacheDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        chmod(cacheDirectory, 0o700)
        removeLeftovers()
        let program =
            helper
            ?? PathName.join(
                URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent().path,
                "tweetcli-fetch")
        guard FileManager.default.isExecutableFile(atPath: program) else {
            throw TwtxtError.unreachable(
                url, reason: "fetching over http needs tweetcli-fetch, which is not installed beside tweetcli")
        }
        // Its one sentence on failure, in a file: a pipe would have to be read while it runs.
        let messages = destination + ".error-\(UInt64.random(in: 0...UInt64.max))"
        let errors = open(messages, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard errors >= 0 else { throw TwtxtError.unreachable(url, reason: "cannot write in \(cacheDirectory)") }
        defer {
            // Only tweetcli-fetch wrote to it, and it has been read: nothing of it is lost.
            close(errors)
            unlink(messages)
        }
        let arguments = [program, url, destination, String(timeout), String(Twtxt.maximumFeedBytes)]
        let child: ChildProcess
        do {
            // Only what tweetcli itself ignores goes back to the default: a hang-up or an
            // interrupt that tweetcli was started to ignore (nohup) stays ignored.
            child = try ChildProcess.spawn(
                program, arguments: arguments,
                options: .init(standardError: .descriptor(errors), defaultSignals: [SIGPIPE, SIGXFSZ]))
        } catch {
            throw TwtxtError.unreachable(url, reason: "tweetcli-fetch could not start: \(error.reason)")
        }
        // Its own timeout ends it; a fetch stopped or stuck past that, and a little more, is killed.
        guard let ending = await child.wait(until: .now + .seconds(timeout + 5)) else {
            throw TwtxtError.unreachable(url, reason: "the fetch was stopped after \(Int(timeout + 5)) seconds")
        }
        guard ending.status == 0 else {
            // The fetch failed either way; an unreadable message leaves the plain sentence below.
            let message = (try? FileIO.readFile(messages)) ?? nil
            let text = String(decoding: (message ?? []).prefix(500), as: UTF8.self).trimmed()
            throw TwtxtError.unreachable(url, reason: text.isEmpty ? "the fetch failed" : text)
        }
    }
}
