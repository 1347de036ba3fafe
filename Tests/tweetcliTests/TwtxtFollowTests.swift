import Foundation
import Testing
import TweetTestSupport

@testable import TweetCore

/// `follow --twtxt` and the followed feeds in `feed --following`: local files, http through
/// `tweetcli-fetch` and its cache (against Python's http.server), feeds that are down, slow or
/// hostile, and pages whose entries come once each.
@Suite(.serialized)
struct TwtxtFollowTests {
    /// Python, for a real HTTP server; without it the http tests say they did not run.
    static let python: String? = ["/usr/bin/python3", "/usr/local/bin/python3"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    @Test func timesAndLinesAreReadAsTheTwtxtClientReadsThem() {
        #expect(Twtxt.rfc3339("2026-12-01T18:00:00Z") == Date(timeIntervalSince1970: 1_796_148_000))
        #expect(Twtxt.rfc3339("2026-12-01T19:30:00+01:30") == Date(timeIntervalSince1970: 1_796_148_000))
        #expect(Twtxt.rfc3339("2026-12-01 18:00:00.250z") == Date(timeIntervalSince1970: 1_796_148_000.25))
        for bad in ["2026-13-01T18:00:00Z", "2026-12-01T18:00:00", "yesterday", "2026-12-01T18:00:00+0100"] {
            #expect(Twtxt.rfc3339(bad) == nil, "\(bad)")
        }
        let text =
            "# nick = carol\n#url = x\n\n2026-12-01T18:00:00Z\tone\u{2028}two\r\nnot an entry\n2026-12-01T19:00:00Z\t\n"
        let feed = Twtxt.parse(Array(text.utf8) + [0xFF, 0x0A], url: "file:///c.txt", nick: "fallback")
        #expect(feed.nick == "carol" && feed.skipped == 3)
        #expect(feed.entries.map(\.text) == ["one\ntwo"] && feed.entries.first?.nick == "carol")
        #expect(Twtxt.parse(Array("2026-12-01T18:00:00Z\thi\n".utf8), url: "u", nick: "n").entries.first?.nick == "n")
        // Days the month does not have, and entries from after tomorrow, are not entries.
        #expect(Twtxt.rfc3339("2026-02-31T18:00:00Z") == nil && Twtxt.rfc3339("2027-02-29T18:00:00Z") == nil)
        #expect(Twtxt.rfc3339("2028-02-29T18:00:00Z") != nil)
        let now = Date(timeIntervalSince1970: 1_796_148_000)  // 2026-12-01T18:00:00Z
        let future = "2026-12-01T17:00:00Z\tnow\n2026-12-03T18:00:00Z\tpinned on top\n9999-12-31T00:00:00Z\tforever\n"
        let dated = Twtxt.parse(Array(future.utf8), url: "u", nick: "n", now: now)
        #expect(dated.entries.map(\.text) == ["now"] && dated.skipped == 2)
        // A feed's own nick: one line, no controls, 30 characters at most.
        let long = "# nick = " + String(repeating: "n", count: 40) + "\u{2028}x\u{1B}[2J\n2026-12-01T17:00:00Z\thi\n"
        let named = Twtxt.parse(Array(long.utf8), url: "u", nick: "n", now: now)
        #expect(named.nick == String(repeating: "n", count: 30))
        let short = Twtxt.parse(Array("# nick = a\u{2028}b\u{1B}\n".utf8), url: "u", nick: "n", now: now)
        #expect(short.nick == "a b\u{FFFD}")
        // One character of a hundred thousand combining marks is not a 30-character nick.
        let marks = "# nick = a" + String(repeating: "\u{0301}", count: 100_000) + "\n2026-12-01T17:00:00Z\thi\n"
        let piled = Twtxt.parse(Array(marks.utf8), url: "u", nick: "n", now: now)
        #expect(piled.nick == nil || piled.nick!.unicodeScalars.count <= 4 * Twtxt.maximumNickLength)
        #expect(piled.entries.count == 1)
        let fewer = "# nick = a" + String(repeating: "\u{0301}", count: 1000) + "\n"
        #expect(Twtxt.parse(Array(fewer.utf8), url: "u", nick: "n", now: now).nick?.unicodeScalars.count == 120)
    }

    @Test func aFifoNamedAsAFeedIsRefusedNotWaitedOn() throws {
        let cli = try CLIRunner()
        try cli.register("ada", fullname: "Ada")
        let fifo = cli.home.appendingPathComponent("feed.txt")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        let result = try cli.run(["follow", "--twtxt", fifo.path])
        #expect(result.status == 1 && result.stderr.contains("not a regular file"), "\(result.stderr)")
    }

    @Test func aLocalFeedJoinsTheFollowingFeedInTimeAndLeavesWhenUnfollowed() throws {
        let cli = try CLIRunner()
        try cli.register("ada", fullname: "Ada")
        let post = try json(try cli.run(["post", "ada's tweet", "--json"]).stdout)
        let posted = try #require(ISO8601DateFormatter.fractional.date(from: post["timestamp"] as? String ?? ""))
        let stamp = { (offset: TimeInterval) in ISO8601DateFormatter().string(from: posted.addingTimeInterval(offset)) }
        let feed = cli.home.appendingPathComponent("carol.txt")
        try """
        # nick = carol
        \(stamp(-60))\tcarol before
        \(stamp(60))\tcarol after \u{1B}]0;owned\u{07}
        not an entry

        """.write(to: feed, atomically: true, encoding: .utf8)
        let follow = try cli.run(["follow", "--twtxt", feed.path])
        #expect(
            follow.status == 0 && follow.stdout.contains("You follow carol's twtxt feed now (2 entries)"),
            "\(follow.stderr)")
        #expect(try cli.run(["follow", "--twtxt", "file://" + feed.path]).stdout.contains("already follow"))
        let shown = try cli.run(["feed", "--following"])
        #expect(shown.status == 0)
        let after = try #require(shown.stdout.range(of: "carol after"))
        let tweet = try #require(shown.stdout.range(of: "ada's tweet"))
        #expect(after.lowerBound < tweet.lowerBound, "\(shown.stdout)")
        #expect(!shown.stdout.contains("\u{1B}") && shown.stdout.contains("carol (twtxt)"))
        #expect(shown.stderr.contains("skipped 1 line of file://\(feed.path) that are not twtxt entries"))
        // The entry older than every tweet comes after the last one, on the next page.
        let id = try #require(post["id"] as? String)
        #expect(!shown.stdout.contains("carol before") && shown.stderr.contains("--before \(id)"), "\(shown.stderr)")
        #expect(try cli.run(["feed", "--following", "--before", id]).stdout.contains("carol before"))
        let rows = try jsonArray(try cli.run(["feed", "--following", "--json"]).stdout)
        #expect(rows.count == 2 && (rows[0]["twtxt"] as? [String: String])?["nick"] == "carol")
        #expect(try cli.run(["feed"]).stdout.contains("carol") == false, "only the following feed has them")
        // Another nick, then gone.
        #expect(try cli.run(["unfollow", "--twtxt", feed.path]).stdout.contains("no longer follow carol's"))
        #expect(try cli.run(["follow", "--twtxt", feed.path, "--nick", "Caro"]).status == 0)
        #expect(try cli.run(["feed", "--following"]).stdout.contains("Caro (twtxt)"))
        #expect(try cli.run(["unfollow", "--twtxt", feed.path]).status == 0)
        #expect(!(try cli.run(["feed", "--following"]).stdout.contains("carol")))
    }

    @Test func badSourcesAreRefusedAndFollowNothing() throws {
        let cli = try CLIRunner()
        try cli.register("ada", fullname: "Ada")
        let junk = cli.home.appendingPathComponent("junk.txt")
        try "just\nsome\ntext\n".write(to: junk, atomically: true, encoding: .utf8)
        let cases: [([String], String)] = [
            (["follow", "--twtxt", cli.home.appendingPathComponent("none.txt").path], "there is no such file"),
            (["follow", "--twtxt", cli.home.path], "it is a folder"),
            (["follow", "--twtxt", "ftp://example.org/feed.txt"], "only http, https and local files"),
            (["follow", "--twtxt", junk.path], "none of its 3 lines is a time, a tab and a text"),
        ]
        for (arguments, message) in cases {
            let result = try cli.run(arguments)
            #expect(result.status == 1 && result.stdout.isEmpty && result.stderr.contains(message), "\(result.stderr)")
        }
        let usage = try cli.run(["follow", "--twtxt", junk.path, "@bob"])
        #expect(usage.status == 64 && usage.stderr.contains("--twtxt takes one feed and no user"))
        #expect(try cli.run(["follow", "@ada", "--nick", "x"]).status == 64)
        #expect(try cli.run(["feed", "--following", "--json"]).stdout.contains("twtxt") == false)
    }

    @Test func pagesShowEachEntryOnceBetweenTheirTweets() throws {
        let cli = try CLIRunner()
        try cli.register("ada", fullname: "Ada")
        var times: [Date] = []
        for index in 0..<5 {
            let post = try json(try cli.run(["post", "tweet \(index)", "--json"]).stdout)
            times.append(try #require(ISO8601DateFormatter.fractional.date(from: post["timestamp"] as? String ?? "")))
            usleep(20_000)
        }
        // An entry just after each tweet, and two older than all of them.
        var lines = ["# nick = carol"]
        let formatter = ISO8601DateFormatter.fractional
        for (index, time) in times.enumerated() {
            lines.append("\(formatter.string(from: time.addingTimeInterval(0.005)))\tentry after \(index)")
        }
        lines += ["2020-01-01T00:00:00Z\told one", "2019-01-01T00:00:00Z\told two"]
        let feed = cli.home.appendingPathComponent("carol.txt")
        try (lines.joined(separator: "\n") + "\n").write(to: feed, atomically: true, encoding: .utf8)
        #expect(try cli.run(["follow", "--twtxt", feed.path]).status == 0)
        var seen: [String] = []
        var before: String?
        for _ in 0..<10 {
            let rows = try jsonArray(
                try cli.run(
                    ["feed", "--following", "--json", "--limit", "2"] + (before.map { ["--before", $0] } ?? [])
                ).stdout)
            seen += rows.compactMap { $0["caption"] as? String }
            // The next page starts after the last tweet, as the More line says.
            guard let cursor = rows.last(where: { $0["twtxt"] == nil })?["id"] as? String else { break }
            before = cursor
        }
        let entries = seen.filter { $0.hasPrefix("entry") || $0.hasPrefix("old") }
        #expect(entries.sorted() == (["old one", "old two"] + (0..<5).map { "entry after \($0)" }).sorted(), "\(seen)")
        #expect(Set(entries).count == entries.count, "each entry once: \(seen)")
        #expect(seen.filter { $0.hasPrefix("tweet") } == (0..<5).reversed().map { "tweet \($0)" })
    }

    /// What `export --twtxt` writes, followed by another account: every tweet comes back as an
    /// entry, line breaks and all, and no line is skipped.
    @Test func anExportedFeedReadsBackWhole() throws {
        let cli = try CLIRunner()
        try cli.register("ada", fullname: "Ada")
        let captions = ["first from ada #swift", "second\non two lines", "third, with a tab\tinside"]
        for caption in captions {
            #expect(try cli.run(["post", "-"], stdin: caption).status == 0)
            usleep(1_100_000)  // twtxt times are to the second: one post per second keeps their order
        }
        let feed = cli.home.appendingPathComponent("ada.txt")
        try Data(try cli.run(["export", "--twtxt"]).stdout.utf8).write(to: feed)
        try cli.register("bob", fullname: "Bob")
        let follow = try cli.run(["follow", "--twtxt", feed.path])
        #expect(follow.stdout.contains("You follow ada's twtxt feed now (3 entries)"), "\(follow.stderr)")
        let shown = try cli.run(["feed", "--following", "--json"])
        #expect(shown.stderr.isEmpty, "no line skipped: \(shown.stderr)")
        let entries = try jsonArray(shown.stdout).filter { $0["twtxt"] != nil }
        #expect(
            entries.compactMap { $0["caption"] as? String }
                == captions.reversed().map { $0.replacingOccurrences(of: "\t", with: " ") })
    }

    @Test func mentionsOfUsersWithAFeedAreWrittenAsTwtxtMentions() throws {
        let cli = try CLIRunner()
        try cli.register("bob", fullname: "Bob")
        #expect(try cli.run(["edit-profile", "--twtxt-url", "https://example.org/bob.txt"]).status == 0)
        try cli.register("ada", fullname: "Ada")
        _ = try cli.post("hi @Bob and @carol")
        let feed = try cli.run(["export", "--twtxt"]).stdout
        #expect(feed.contains("\thi @<bob https://example.org/bob.txt> and @carol\n"), "\(feed)")
        #expect(
            try cli.run(["export", "--twtxt", "--user", "@bob"]).stdout.contains("# url = https://example.org/bob.txt"))
        #expect(try cli.run(["edit-profile", "--twtxt-url", "gopher://x"]).status == 1)
    }

    // MARK: Over http

    /// Ends a server for good: SIGKILL, since a child of the test runner may inherit a mask that
    /// blocks SIGTERM, and then waits for it.
    static func stop(_ process: Process) {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Whether something listens on `port` of 127.0.0.1.
    static func accepts(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    /// ada signed in, and an empty folder for a server to serve.
    private func signedInWithSite() throws -> (CLIRunner, site: URL) {
        let cli = try CLIRunner()
        try cli.register("ada", fullname: "Ada")
        let site = cli.home.appendingPathComponent("site")
        try FileManager.default.createDirectory(at: site, withIntermediateDirectories: true)
        return (cli, site)
    }

    /// Python's http.server on a free port, serving `directory`, until the returned process ends.
    private func serve(_ directory: URL) throws -> (Process, port: Int) {
        try startPython { ["-m", "http.server", String($0), "--bind", "127.0.0.1", "--directory", directory.path] }
    }

    /// Python with the `arguments` for a port, tried on free ports of 127.0.0.1 until one listens.
    private func startPython(_ arguments: (Int) -> [String], in directory: URL? = nil) throws -> (Process, port: Int) {
        let python = try #require(Self.python)
        for _ in 0..<5 {
            let port = Int.random(in: 20_000...60_000)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: python)
            process.arguments = arguments(port)
            if let directory { process.currentDirectoryURL = directory }
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            for _ in 0..<50 {
                usleep(100_000)
                if Self.accepts(port) { return (process, port) }
                if !process.isRunning { break }
            }
            Self.stop(process)
        }
        throw CocoaError(.fileReadUnknown)
    }

    @Test(.enabled(if: TwtxtFollowTests.python != nil)) func anHttpFeedIsFetchedCachedAndReadWhenTheServerIsDown()
        throws
    {
        let (cli, site) = try signedInWithSite()
        try "# nick = dave\n2026-11-30T12:00:00Z\tdave over http\n".write(
            to: site.appendingPathComponent("dave.txt"), atomically: true, encoding: .utf8)
        let (server, port) = try serve(site)
        defer { Self.stop(server) }
        let url = "http://127.0.0.1:\(port)/dave.txt"
        let follow = try cli.run(["follow", "--twtxt", url])
        #expect(follow.status == 0 && follow.stdout.contains("dave's twtxt feed"), "\(follow.stderr)")
        let cache = cli.home.appendingPathComponent(".cache/tweetcli/twtxt")
        #expect(try FileManager.default.contentsOfDirectory(atPath: cache.path).count == 1)
        #expect(try cli.run(["feed", "--following"]).stdout.contains("dave over http"))
        let missing = try cli.run(["follow", "--twtxt", "http://127.0.0.1:\(port)/nobody.txt"])
        #expect(missing.status == 1 && missing.stderr.contains("the server answered 404"), "\(missing.stderr)")
        // The server goes away: the cached copy is shown, with a note.
        Self.stop(server)
        let offline = try cli.run(["feed", "--following"], environment: ["TWEETCLI_TWTXT_MAX_AGE": "0"])
        #expect(offline.status == 0 && offline.stdout.contains("dave over http"))
        #expect(offline.stderr.contains("showing the copy fetched"), "\(offline.stderr)")
    }

    @Test(.enabled(if: TwtxtFollowTests.python != nil)) func aServerThatNeverAnswersTimesOut() throws {
        let cli = try CLIRunner()
        try cli.register("ada", fullname: "Ada")
        let python = try #require(Self.python)
        let port = Int.random(in: 20_000...60_000)
        let silent = Process()
        silent.executableURL = URL(fileURLWithPath: python)
        silent.arguments = [
            "-c",
            "import socket,time\ns=socket.socket()\ns.bind(('127.0.0.1',\(port)))\ns.listen(5)\nwhile True:\n  c,_=s.accept()\n  time.sleep(60)",
        ]
        try silent.run()
        defer { Self.stop(silent) }
        usleep(300_000)
        let start = Date()
        let result = try cli.run(
            ["follow", "--twtxt", "http://127.0.0.1:\(port)/feed.txt"], environment: ["TWEETCLI_TWTXT_TIMEOUT": "1"])
        #expect(result.status == 1 && result.stderr.contains("no answer within 1 seconds"), "\(result.stderr)")
        #expect(Date().timeIntervalSince(start) < 10)
    }

    /// A Python program on a free port of 127.0.0.1 (its `PORT` replaced), until the returned
    /// process ends; `script` runs in `directory`.
    private func run(_ script: String, in directory: URL) throws -> (Process, port: Int) {
        try startPython({ ["-c", script.replacingOccurrences(of: "PORT", with: String($0))] }, in: directory)
    }

    /// A feed that never ends, or that says it is 200 MiB: refused as it streams, at the limit,
    /// not after taking it all in (the server counts what it could send before the fetch hung up).
    @Test(.enabled(if: TwtxtFollowTests.python != nil)) func aFeedLargerThanTheLimitIsCutOffAsItArrives() throws {
        let (cli, site) = try signedInWithSite()
        let (server, port) = try run(
            """
            import socket, threading
            s = socket.socket()
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind(('127.0.0.1', PORT))
            s.listen(5)
            def serve(c):
                request = c.recv(65536).decode('latin-1')
                name = request.split(' ')[1].strip('/')
                line = b'2026-11-30T12:00:00Z\\t' + b'x' * 1000 + b'\\n'
                sent = 0
                try:
                    if name == 'declared':
                        c.sendall(b'HTTP/1.1 200 OK\\r\\nContent-Length: 209715200\\r\\n\\r\\n')
                    else:
                        c.sendall(b'HTTP/1.0 200 OK\\r\\nContent-Type: text/plain\\r\\n\\r\\n')
                    while sent < 200 * 1024 * 1024:
                        c.sendall(line * 64)
                        sent += len(line) * 64
                except OSError:
                    pass
                open('sent-' + name, 'w').write(str(sent))
                c.close()
            while True:
                c, _ = s.accept()
                threading.Thread(target=serve, args=(c,), daemon=True).start()
            """, in: site)
        defer { Self.stop(server) }
        for name in ["endless", "declared", "endless", "endless"] {
            let result = try cli.run(["follow", "--twtxt", "http://127.0.0.1:\(port)/\(name)"])
            #expect(result.status == 1 && result.stderr.contains("the feed is larger than 4 MiB"), "\(result.stderr)")
            var sent: Int?
            defer { try? FileManager.default.removeItem(at: site.appendingPathComponent("sent-" + name)) }
            for _ in 0..<100 where sent == nil {
                sent = (try? String(contentsOf: site.appendingPathComponent("sent-" + name), encoding: .utf8))
                    .flatMap { Int($0) }
                if sent == nil { usleep(50_000) }
            }
            let bytes = try #require(sent, "the server never saw the fetch hang up")
            #expect(bytes < 64 << 20, "\(name): \(bytes) bytes sent before the fetch stopped")
        }
        let cache = cli.home.appendingPathComponent(".cache/tweetcli/twtxt")
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: cache.path)) ?? []).isEmpty, "no partial copy")
    }

    /// Ten feeds that each take half a second: read several at once (the server counts the
    /// requests it holds at the same time), and a timeout of infinity is taken as the longest.
    @Test(.enabled(if: TwtxtFollowTests.python != nil)) func followedFeedsAreFetchedSeveralAtOnce() throws {
        let (cli, site) = try signedInWithSite()
        let (server, port) = try run(
            """
            import http.server, threading, time
            lock = threading.Lock()
            state = {'now': 0, 'most': 0}
            class Slow(http.server.BaseHTTPRequestHandler):
                def do_GET(self):
                    with lock:
                        state['now'] += 1
                        state['most'] = max(state['most'], state['now'])
                        open('most', 'w').write(str(state['most']))
                    time.sleep(0.5)
                    body = ('# nick = feed%s\\n2026-11-30T12:00:00Z\\tentry of %s\\n' % (self.path, self.path)).encode()
                    self.send_response(200)
                    self.send_header('Content-Length', str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                    with lock:
                        state['now'] -= 1
                def log_message(self, *args):
                    pass
            http.server.ThreadingHTTPServer(('127.0.0.1', PORT), Slow).serve_forever()
            """, in: site)
        defer { Self.stop(server) }
        for index in 0..<10 {
            let follow = try cli.run(["follow", "--twtxt", "http://127.0.0.1:\(port)/f\(index)"])
            #expect(follow.status == 0, "\(follow.stderr)")
        }
        try "0".write(to: site.appendingPathComponent("most"), atomically: true, encoding: .utf8)
        let feed = try cli.run(
            ["feed", "--following"], environment: ["TWEETCLI_TWTXT_MAX_AGE": "0", "TWEETCLI_TWTXT_TIMEOUT": "inf"])
        #expect(feed.status == 0, "\(feed.stderr)")
        for index in 0..<10 { #expect(feed.stdout.contains("entry of /f\(index)"), "\(feed.stdout)") }
        let most = Int(try String(contentsOf: site.appendingPathComponent("most"), encoding: .utf8)) ?? 0
        #expect(most >= 2, "at most \(most) fetch at a time")
    }

    /// A server whose answer for each path is set by writing a file named after it in its folder:
    /// `ok` (a feed), `empty`, `moved` (a 302 without a Location), `elsewhere` (a 301 to ftp://).
    static let switchable = """
        import http.server, os
        class Switch(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                name = self.path.strip('/')
                mode = open(name).read().strip() if os.path.exists(name) else 'ok'
                body = b''
                if mode == 'moved':
                    self.send_response(302)
                elif mode == 'elsewhere':
                    self.send_response(301)
                    self.send_header('Location', 'ftp://127.0.0.1/feed.txt')
                else:
                    self.send_response(200)
                    if mode == 'ok':
                        body = b'# nick = erin\\n2026-11-30T12:00:00Z\\terin over http\\n'
                self.send_header('Content-Length', str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            def log_message(self, *args):
                pass
        http.server.HTTPServer(('127.0.0.1', PORT), Switch).serve_forever()
        """

    @Test(.enabled(if: TwtxtFollowTests.python != nil))
    func aRedirectWithoutAUsableLocationIsAnErrorAndNoAnswerReplacesTheCachedCopy() throws {
        let (cli, site) = try signedInWithSite()
        let server = try ScriptedServer(Self.switchable, in: site)
        let mode = { (name: String, value: String) in
            try value.write(to: site.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        try mode("moved", "moved")
        try mode("elsewhere", "elsewhere")
        for (name, message) in [
            ("moved", "the server answered 302 without a usable Location"),
            ("elsewhere", "the server answered 301 with a Location that is not an http or https address"),
        ] {
            let result = try cli.run(["follow", "--twtxt", "http://127.0.0.1:\(server.port)/\(name)"])
            #expect(result.status == 1 && result.stderr.contains(message), "\(name): \(result.stderr)")
            #expect(result.stdout.isEmpty && result.stderr.split(separator: "\n").count == 1)
        }
        #expect(try jsonArray(try cli.run(["feed", "--following", "--json"]).stdout).isEmpty, "nothing followed")
        // A followed feed, cached 0600 in a folder of 0700.
        let url = "http://127.0.0.1:\(server.port)/feed"
        #expect(try cli.run(["follow", "--twtxt", url]).status == 0)
        let cache = cli.home.appendingPathComponent(".cache/tweetcli/twtxt")
        let files = try FileManager.default.contentsOfDirectory(atPath: cache.path)
        #expect(files.count == 1)
        let permissions = { (path: String) in
            (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? -1
        }
        #expect(
            try permissions(cache.path) == 0o700 && permissions(cache.appendingPathComponent(files[0]).path) == 0o600)
        let copy = try Data(contentsOf: cache.appendingPathComponent(files[0]))
        // Then the server loses it: a redirect to nowhere, an empty answer. The copy stays.
        for answer in ["moved", "empty"] {
            try mode("feed", answer)
            let feed = try cli.run(["feed", "--following"], environment: ["TWEETCLI_TWTXT_MAX_AGE": "0"])
            #expect(feed.status == 0 && feed.stdout.contains("erin over http"), "\(answer): \(feed.stderr)")
            #expect(feed.stderr.contains("showing the copy fetched"), "\(answer): \(feed.stderr)")
            #expect(try Data(contentsOf: cache.appendingPathComponent(files[0])) == copy, "\(answer)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: cache.path) == files, "nothing left beside it")
    }

    @Test(arguments: [false, true])
    func aPlantedFollowIsSkippedAndNeverRead(onPostgres: Bool) async throws {
        guard !onPostgres || PostgresCluster.isAvailable else { return }
        let cli = try CLIRunner(location: onPostgres ? try PostgresCluster.freshLocation() : nil)
        let uid = try cli.register("ada", fullname: "Ada")
        // A file of ada's this device never followed, and addresses follow --twtxt refuses.
        let secret = cli.home.appendingPathComponent("secret.txt")
        try "2026-11-30T12:00:00Z\tada's private note\n".write(to: secret, atomically: true, encoding: .utf8)
        let planted = [
            ("0000000000000001", "file://" + secret.path), ("0000000000000002", "ftp://example.org/f.txt"),
            ("0000000000000003", "http:///no-host"), ("0000000000000004", "gopher://127.0.0.1:1/x"),
        ]
        // Import refuses such follows, so they are written past it, as an older version could have.
        try await cli.plant(
            planted.map { key, url in
                (
                    "users/\(uid)/twtxt-following/\(key)",
                    "{\"followed\":\"2026-11-30T12:00:00.000Z\",\"nick\":\"mallory\",\"url\":\"\(url)\"}"
                )
            })
        let feed = try cli.run(["feed", "--following"])
        #expect(feed.status == 0, "\(feed.stderr)")
        #expect(!feed.stdout.contains("private note"), "a planted local file was read")
        #expect(
            feed.stderr.contains(
                "skipped the followed twtxt feed file://\(secret.path): it is a local file not followed on this device"),
            "\(feed.stderr)")
        for (_, url) in planted.dropFirst() {
            #expect(feed.stderr.contains("skipped the followed twtxt feed \(url): "), "\(url): \(feed.stderr)")
        }
        // ada's own follow of the file, made here, is read; and it proves the planted one too.
        let follow = try cli.run(["follow", "--twtxt", secret.path])
        #expect(follow.status == 0 && follow.stdout.contains("You follow"), "\(follow.stdout) \(follow.stderr)")
        #expect(try cli.run(["feed", "--following"]).stdout.contains("private note"))
        // On another device (another state folder), the same follow is not read.
        let elsewhere = try cli.run(
            ["feed", "--following"], environment: ["XDG_STATE_HOME": cli.home.appendingPathComponent("other").path])
        #expect(elsewhere.status == 1 || !elsewhere.stdout.contains("private note"))
    }

    @Test func theHttpTestsRanOrSayWhyNot() {
        if Self.python == nil { print("twtxt http tests not run: no python3 for http.server") }
        #expect(
            FileManager.default.isExecutableFile(
                atPath: CLIRunner.executable.deletingLastPathComponent().appendingPathComponent("tweetcli-fetch").path))
    }
}

extension ISO8601DateFormatter {
    /// With milliseconds, as the store writes times.
    static var fractional: ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }
}
