import Foundation
import Testing
import TweetStorePostgres
import TweetTestSupport

/// A PostgreSQL server that does not answer ends the command with one sentence within its
/// timeout: a listener that accepts and says nothing, a server that shakes hands and then falls
/// silent, and a lock another client holds.
@Suite(.serialized)
struct PostgresTimeoutTests {
    /// A PostgreSQL server that answers the start-up (no TLS, no password) and never a statement.
    static let handshakeOnly = """
        import socket, struct, threading
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(('127.0.0.1', PORT))
        s.listen(16)
        def message(kind, body):
            return kind + struct.pack('!I', len(body) + 4) + body
        def exactly(c, n):
            data = b''
            while len(data) < n:
                part = c.recv(n - len(data))
                if not part:
                    raise EOFError
                data += part
            return data
        def serve(c):
            try:
                while True:
                    length, code = struct.unpack('!II', exactly(c, 8))
                    exactly(c, length - 8)
                    if code in (80877103, 80877104):
                        c.sendall(b'N')
                        continue
                    break
                c.sendall(message(b'R', struct.pack('!I', 0))
                    + message(b'S', b'client_encoding\\0UTF8\\0')
                    + message(b'S', b'server_version\\x0016.0\\0')
                    + message(b'S', b'integer_datetimes\\0on\\0')
                    + message(b'K', struct.pack('!II', 1, 2))
                    + message(b'Z', b'I'))
                while c.recv(65536):
                    pass
            except Exception:
                pass
        while True:
            c, _ = s.accept()
            threading.Thread(target=serve, args=(c,), daemon=True).start()
        """

    /// The config file of `cli`'s home, holding `lines`.
    private func configure(_ cli: CLIRunner, _ lines: [String]) throws {
        let directory = cli.home.appendingPathComponent(".config/tweetcli")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try (lines.joined(separator: "\n") + "\n").write(
            to: directory.appendingPathComponent("config"), atomically: true, encoding: .utf8)
    }

    /// Runs `arguments` and says how long it took.
    private func timed(_ cli: CLIRunner, _ arguments: [String]) throws -> (CLIRunner.Result, TimeInterval) {
        let start = Date()
        let result = try cli.run(arguments)
        return (result, Date().timeIntervalSince(start))
    }

    @Test(.enabled(if: ScriptedServer.python != nil))
    func aListenerThatNeverAnswersEndsTheCommandWithinTheConnectTimeout() throws {
        let server = try ScriptedServer(ScriptedServer.silent)
        // In the connection string, libpq's own parameter.
        let inURI = try CLIRunner(location: "postgresql://u@127.0.0.1:\(server.port)/db?connect_timeout=2")
        let (result, seconds) = try timed(inURI, ["feed"])
        #expect(result.status == 1 && result.stdout.isEmpty, "\(result.stderr)")
        #expect(result.stderr.contains("did not answer within 2 seconds"), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(seconds < 8, "took \(seconds) s")
        // In the config file.
        let inConfig = try CLIRunner(location: "postgresql://u@127.0.0.1:\(server.port)/db")
        try configure(inConfig, ["postgres-connect-timeout = 3"])
        let (configured, took) = try timed(inConfig, ["explore"])
        #expect(configured.status == 1 && configured.stderr.contains("did not answer within 3 seconds"))
        #expect(took < 9, "took \(took) s")
    }

    @Test(.enabled(if: ScriptedServer.python != nil))
    func aServerThatFallsSilentAfterTheHandshakeEndsTheCommand() throws {
        let server = try ScriptedServer(Self.handshakeOnly)
        let cli = try CLIRunner(
            location: "postgresql://u@127.0.0.1:\(server.port)/db?sslmode=disable&gssencmode=disable")
        try configure(cli, ["postgres-statement-timeout = 1"])
        let (result, seconds) = try timed(cli, ["feed"])
        #expect(result.status == 1 && result.stdout.isEmpty, "\(result.stderr)")
        #expect(result.stderr.contains("did not answer within 3 seconds"), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(seconds < 9, "took \(seconds) s")
    }

    @Test func badTimeoutSettingsAreRefused() throws {
        let cli = try CLIRunner()
        for value in ["0", "-1", "ten", "86401", "1.5"] {
            let result = try cli.run(["config", "set", "postgres-statement-timeout", value])
            #expect(result.status == 64 && result.stderr.contains("whole number of seconds"), "\(result.stderr)")
        }
        #expect(try cli.run(["config", "set", "postgres-lock-timeout", "5"]).status == 0)
        let got = try cli.run(["config", "get", "postgres-connect-timeout"])
        #expect(got.stdout.hasPrefix("10"), "\(got.stdout)")
    }

    @Test(.enabled(if: PostgresCluster.isAvailable))
    func aLockHeldByAnotherClientEndsAWriteWithinTheLockTimeout() throws {
        let location = try PostgresCluster.freshLocation()
        let cli = try CLIRunner(location: location)
        try cli.register("ada", fullname: "Ada")
        // The connection string's own options win over the config file (signed in before the lock).
        let quick = try CLIRunner(location: location + "%20-clock_timeout%3D1s")
        try configure(quick, ["postgres-lock-timeout = 60"])
        try quick.login("ada")
        // Another client holds the clock row every write locks first.
        let holder = try PostgresConnection(try PostgresLocation(location))
        try holder.execute("BEGIN")
        try holder.execute("UPDATE tweetcli_clock SET last_ms = last_ms WHERE id = 1")
        defer { _ = try? holder.execute("ROLLBACK") }  // the holder's lock goes with the test
        try configure(cli, ["postgres-lock-timeout = 1"])
        let (locked, seconds) = try timed(cli, ["post", "waits for the lock"])
        #expect(locked.status == 1 && locked.stderr.contains("longer than the lock timeout"), "\(locked.stderr)")
        #expect(locked.stderr.split(separator: "\n").count == 1 && seconds < 8, "\(seconds) s")
        try configure(cli, ["postgres-lock-timeout = 60", "postgres-statement-timeout = 1"])
        let (stopped, took) = try timed(cli, ["post", "waits for the lock"])
        #expect(
            stopped.status == 1 && stopped.stderr.contains("longer than the statement timeout"), "\(stopped.stderr)")
        #expect(took < 8, "\(took) s")
        let (own, ownSeconds) = try timed(quick, ["post", "waits for the lock"])
        #expect(own.status == 1 && own.stderr.contains("lock timeout") && ownSeconds < 8, "\(own.stderr)")
        _ = try holder.execute("ROLLBACK")
        #expect(try cli.run(["post", "after the lock"]).status == 0)
        #expect(try cli.run(["feed"]).stdout.contains("after the lock"))
    }
}
