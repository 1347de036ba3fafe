import Foundation
import ScratchPostgres
import Testing
import TweetSystem
import TweetTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// tweetcli against a PostgreSQL server as a shared one is reached: over TCP, with TLS checked
/// against a certificate authority the test makes with openssl (`sslmode=verify-full`), and a
/// SCRAM-SHA-256 password. Each way it can fail is one sentence that never shows the password.
@Suite(.serialized)
struct PostgresTLSTests {
    static let password = "s3cret-Horse-battery"

    @Test func overTLSWithAPasswordEveryCommandWorks() throws {
        guard let server = try TLSServer.start() else { return }
        defer { server.stop() }
        let cli = try CLIRunner(location: server.uri())
        try cli.register("ada", fullname: "Ada")
        let id = try cli.post("over TLS #secure")
        #expect(try cli.run(["like", id]).status == 0)
        let feed = try cli.run(["feed", "--json"])
        #expect(feed.status == 0, "\(feed.stderr)")
        #expect(try jsonArray(feed.stdout).first?["likes"] as? Int == 1)
        // The server saw this client over TLS, authenticated by SCRAM, and nothing else.
        let log = try String(contentsOfFile: server.directory + "/server.log", encoding: .utf8)
        let authorized = log.split(separator: "\n").filter { $0.contains("connection authorized: user=teacher") }
        #expect(!authorized.isEmpty && authorized.allSatisfy { $0.contains("SSL enabled") }, "\(log)")
        #expect(log.contains("method=scram-sha-256"), "\(log)")
        let hash = try server.psql("SELECT left(rolpassword, 13) FROM pg_authid WHERE rolname = 'teacher'")
        #expect(hash == "SCRAM-SHA-256")
    }

    @Test func eachWayOfFailingToConnectIsOneSentenceWithoutThePassword() throws {
        guard let server = try TLSServer.start() else { return }
        defer { server.stop() }
        let cases: [(String, String, String)] = [
            ("a wrong password", server.uri(password: "wrong-Password-42"), "the user name or password was refused"),
            (
                "a certificate signed by an authority the client does not trust",
                server.uri(rootCertificate: server.otherAuthority),
                "the server's certificate is not signed by an authority this client trusts"
            ),
            (
                "a certificate for another host name",
                server.uri(host: "tweetcli.invalid", extra: "&hostaddr=127.0.0.1"),
                "the server's certificate is for another host name than the one connected to"
            ),
            (
                "no authority to check the certificate against",
                server.uri(rootCertificate: server.directory + "/missing.crt"),
                "the certificate authority's file (sslrootcert) cannot be read"
            ),
            (
                "a connection without TLS, which the server refuses",
                server.uri(sslmode: "disable"),
                "the server refuses this connection without TLS (sslmode)"
            ),
            (
                "a port nothing listens on", server.uri(port: server.closedPort),
                "the server is not running or not reachable there"
            ),
        ]
        for (name, uri, sentence) in cases {
            let cli = try CLIRunner(location: uri)
            let result = try cli.run(["feed"])
            #expect(result.status == 1, "\(name)")
            #expect(result.stderr.contains(sentence), "\(name): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(name): \(result.stderr)")
            #expect(!result.stderr.contains(Self.password) && !result.stderr.contains("wrong-Password-42"), "\(name)")
        }
    }
}

/// A PostgreSQL server of the test's own that takes only TLS connections on the loopback, with a
/// certificate signed by a CA made here, and SCRAM-SHA-256 passwords; `teacher` owns the database.
struct TLSServer {
    let cluster: ScratchCluster
    let certificates: ScratchCertificates
    let port: Int
    /// Another port on the loopback, nothing listening.
    let closedPort: Int
    var directory: String { cluster.directory }
    var authority: String { certificates.authority }
    var otherAuthority: String { certificates.otherAuthority }

    /// Starts one listening on `addresses` (its certificate names each, and localhost), its
    /// `pg_ctl` run by `launcher` (`ip netns exec NAME`); `nil` (the test does not run) where
    /// PostgreSQL or openssl is missing, unless CI requires the PostgreSQL tests.
    static func start(addresses: [String] = ["127.0.0.1"], launcher: [String] = []) throws -> TLSServer? {
        guard ScratchCluster.binaries() != nil, ScratchCertificates.isAvailable else {
            #expect(!PostgresCluster.isRequired, "PostgreSQL and openssl are needed (Scripts/packages.sh)")
            return nil
        }
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("tweetcli-tls-\(UUID().uuidString)")
            .path
        let cluster = try ScratchCluster.create(in: root)
        let data = cluster.data
        let certificates = try ScratchCertificates.make(in: root, serverFiles: data, addresses: addresses)
        try """
        local all all trust
        hostssl all all 0.0.0.0/0 scram-sha-256
        hostnossl all all 0.0.0.0/0 reject

        """.write(toFile: data + "/pg_hba.conf", atomically: false, encoding: .utf8)
        var lastError: (any Error)?
        for _ in 0..<5 {
            let port = Int.random(in: 20_000..<60_000)
            do {
                // A client that goes away (a cut link) ends its server session within seconds.
                try cluster.start(
                    fsync: false,
                    options: "-c listen_addresses=\(addresses.joined(separator: ",")) -c port=\(port) -c ssl=on "
                        + "-c password_encryption=scram-sha-256 -c log_connections=on -c tcp_keepalives_idle=1 "
                        + "-c tcp_keepalives_interval=1 -c tcp_keepalives_count=3 "
                        + "-c client_connection_check_interval=1000",
                    launcher: launcher)
            } catch {
                lastError = error
                continue
            }
            let server = TLSServer(
                cluster: cluster, certificates: certificates, port: port, closedPort: port == 59_999 ? 59_998 : port + 1
            )
            try server.psql("CREATE ROLE teacher LOGIN PASSWORD '\(PostgresTLSTests.password)'")
            try server.psql("CREATE DATABASE tweetcli OWNER teacher")
            return server
        }
        throw lastError ?? TLSServerError("the server did not start")
    }

    /// A connection URI for the `tweetcli` database as `teacher`, over TCP and TLS.
    func uri(
        password: String = PostgresTLSTests.password, host: String = "localhost", port: Int? = nil,
        user: String = "teacher",
        sslmode: String = "verify-full", rootCertificate: String? = nil, extra: String = ""
    ) -> String {
        "postgresql://\(user):\(password)@\(host):\(port ?? self.port)/tweetcli?sslmode=\(sslmode)"
            + "&sslrootcert=\(rootCertificate ?? authority)" + extra
    }

    /// Runs SQL as the postgres user over the cluster's socket and returns its output.
    @discardableResult
    func psql(_ sql: String, database: String = "postgres") throws -> String {
        let output = directory + "/psql.out"
        let command = [
            cluster.bin + "/psql", "-X", "-q", "-A", "-t", "-h", directory, "-p", "\(port)", "-U", "postgres",
        ]
        let ended = try ChildProcess.run(
            command[0], arguments: command + ["-d", database, "-c", sql],
            options: .init(standardOutput: .file(output), standardError: .descriptor(1)))
        guard ended == .exited(0) else { throw TLSServerError("psql failed: \(sql)") }
        return try String(contentsOfFile: output, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func stop() {
        try? cluster.stop(immediately: true)  // Best effort: a throwaway server.
        try? FileManager.default.removeItem(atPath: directory)  // Best effort: a temporary directory.
    }
}

struct TLSServerError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
