import FoundationEssentials
import TweetCore
import TweetImages
import TweetSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Pictures named by address (`edit-profile --avatar https://…`), fetched by `tweetcli-fetch` in
/// the background into `$XDG_CACHE_HOME/tweetcli/avatars`: the first view shows the identicon
/// while the picture comes; the next checks what came as `edit-profile --avatar FILE` checks a
/// photo, cuts it square, and keeps that PNG, drawn from then on. What came from the network is
/// never drawn before it is checked, and a file someone put in the cache is decoded as untrusted.
struct AvatarCache {
    let directory: String
    /// The fetcher program; `nil` finds it beside the running tweetcli.
    let helper: String?

    /// A fetch not finished within this many seconds is started again; a refused picture is
    /// fetched again after a day.
    static let retrySeconds = 3600
    static let refusedSeconds = 86_400

    init(environment: [String: String]) {
        directory = PathName.join(AppPaths.cacheDirectory(environment: environment), "avatars")
        helper = environment["TWEETCLI_FETCH"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The square PNG kept for `url`, if it has come, and the name it is kept by (the SHA-256 of
    /// the address); else `nil`, having started its fetch when `fetching` and none is under way.
    func png(for url: String, fetching: Bool) -> (key: String, png: [UInt8])? {
        guard url.hasPrefix("https://") || url.hasPrefix("http://"), url.utf8.count <= 2048,
            // Without libcrypto the picture cannot be named: the identicon stays.
            let key = try? ImageIntake.sha256(Array(url.utf8))
        else { return nil }
        let base = PathName.join(directory, key)
        // A cache that cannot be read is no cache.
        if let kept = (try? FileIO.readFile(base + ".png")) ?? nil { return (key, kept) }
        if let fetched = (try? FileIO.readFile(base + ".fetched")) ?? nil {
            unlink(base + ".fetched")
            // Checked as a photo is; one that is not is refused, and fetched again a day later.
            guard let image = try? ImageIntake.check(fetched, file: url), let square = try? Avatar.square(of: image)
            else {
                touch(base + ".refused")
                return nil
            }
            CacheFiles.replace(base + ".png", with: square.bytes, in: directory)
            return (key, square.bytes)
        }
        guard fetching, age(base + ".refused").map({ $0 > Self.refusedSeconds }) ?? true,
            age(base + ".started").map({ $0 > Self.retrySeconds }) ?? true
        else { return nil }
        touch(base + ".started")
        start(url, to: base + ".fetched")
        return nil
    }

    /// Starts `tweetcli-fetch URL DESTINATION` in a session of its own, waited for by nobody: it
    /// writes the file whole or not at all.
    private func start(_ url: String, to destination: String) {
        let program =
            helper
            ?? PathName.join(
                URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent().path,
                "tweetcli-fetch")
        guard FileManager.default.isExecutableFile(atPath: program) else { return }
        // A fetch that cannot start leaves the identicon; it is tried again after the wait.
        _ = try? ChildProcess.spawn(
            program, arguments: [program, url, destination, "10", String(ImageIntake.maximumBytes)],
            options: .init(defaultSignals: [], newSession: true))
    }

    /// Seconds since `path` was last changed, or `nil` when it is not there.
    private func age(_ path: String) -> Int? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return time(nil) - info.st_mtim.tv_sec
    }

    /// Makes the cache folder (0700) and `path` in it, or makes `path`'s time now's.
    private func touch(_ path: String) {
        CacheFiles.makeDirectory(directory)
        let fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        if fd >= 0 { close(fd) }
        utimensat(AT_FDCWD, path, nil, 0)
    }

}
