import Foundation
import Testing
import TweetSystem
import TweetTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Three machines, as far as the network goes: a PostgreSQL server (TLS, SCRAM passwords) in a
/// network namespace of its own, and two tweetcli clients each in another, joined to it by a veth
/// link each. The teacher sets the database up from one machine; two students register, each on
/// their own machine with the guest's connection string, and see each other's tweets. A link cut
/// mid-write leaves every write whole or absent, and the client says the server cannot be reached;
/// restored, all works again.
@Suite(.serialized, .enabled(if: PostgresCluster.isAvailable))
struct NetworkNamespaceTests {
    @Test func twoClientsOnTheirOwnLinksShareOneTimelineAndSurviveACutLink() throws {
        guard geteuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/sbin/ip") else {
            // Namespaces need root (CI runs as root); elsewhere the test says it did not run.
            #expect(!PostgresCluster.isRequired, "network namespaces need root and iproute2's ip")
            return
        }
        let network = try Network()
        defer { network.remove() }
        guard
            let server = try TLSServer.start(
                addresses: network.serverAddresses, launcher: ["/usr/sbin/ip", "netns", "exec", network.server])
        else { return }
        defer { server.stop() }
        // The teacher, on the first machine, connects as the database's owner.
        let teacher = try Client(namespace: network.clients[0], uri: server.uri(host: network.serverAddresses[0]))
        // Each client reaches the server only over its own link: the other's address is not routed.
        let across = try teacher.run(["feed"], uri: server.uri(host: network.serverAddresses[1]))
        #expect(across.status == 1, "\(across.stderr)")

        // The owner's own account, from before the set-up, makes the store.
        try teacher.run(
            [
                "register", "--email", "teacher@example.com", "--username", "teacher", "--fullname", "T",
                "--password-stdin",
            ],
            stdin: "correct horse battery\n", succeeds: true)
        let documentsBefore = try server.psql("SELECT count(*) FROM tweetcli_documents", database: "tweetcli")

        // Before the set-up, the owner loads a backup of thousands of documents in one transaction,
        // and the link is cut in the middle of it. The client gives up within its statement timeout
        // (3 s here), and the server, its client gone, rolls all of it back.
        let backup = try CLIRunner()
        #expect(try backup.run(["seed", "--users", "300", "--tweets", "30000", "--seed", "3"]).status == 0)
        let file = backup.home.appendingPathComponent("backup.jsonl")
        try Data(try backup.run(["export"]).stdout.utf8).write(to: file)
        let quick = server.uri(host: network.serverAddresses[0], extra: "&options=-c%20statement_timeout%3D3s")
        let merge = Process()
        merge.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
        merge.arguments = [
            "netns", "exec", network.clients[0], CLIRunner.executable.path, "--store", quick, "import", "--merge",
            file.path,
        ]
        merge.environment = ["HOME": teacher.runner.home.path, "PATH": "/usr/bin:/bin"]
        let errors = Pipe()
        merge.standardError = errors
        merge.standardOutput = FileHandle.nullDevice
        try merge.run()
        // Cut once the merge's transaction is open on the server.
        let client = network.serverAddresses[0].replacingOccurrences(of: ".1.1", with: ".1.2")
        var writing = false
        let opened = Date().addingTimeInterval(30)
        while !writing, merge.isRunning, Date() < opened {
            usleep(20_000)
            writing =
                try server.psql(
                    "SELECT count(*) FROM pg_stat_activity WHERE client_addr = '\(client)' AND xact_start IS NOT NULL")
                != "0"
        }
        #expect(writing && merge.isRunning, "the merge's transaction was not seen open; make the backup larger")
        try network.setLink(of: network.clients[0], up: false)
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        merge.waitUntilExit()
        #expect(merge.terminationStatus == 1, "\(said)")
        #expect(said.hasPrefix("error: ") && said.split(separator: "\n").count == 1, "\(said)")
        #expect(!said.contains(PostgresTLSTests.password))
        // The server's session for it ends once its keepalives go unanswered: then nothing of the
        // merge is there.
        let deadline = Date().addingTimeInterval(20)
        var documents = ""
        repeat {
            usleep(200_000)
            documents = try server.psql("SELECT count(*) FROM tweetcli_documents", database: "tweetcli")
        } while documents != documentsBefore && Date() < deadline
        #expect(documents == documentsBefore, "a merge cut off half-way left \(documents) documents")

        // Link restored, the teacher sets the database up for many people, from that machine, and
        // gives the students the guest's connection string; each reaches the server over their own link.
        try network.setLink(of: network.clients[0], up: true)
        try server.psql("ALTER ROLE teacher CREATEROLE")
        let setup = try teacher.run(["admin", "setup"], succeeds: true)
        #expect(setup.stderr.isEmpty, "the server checks passwords: \(setup.stderr)")
        let guest = try #require(PostgresCluster.guestLocation(printedBy: setup))
        #expect(guest.contains("sslmode=verify-full"), "\(guest)")
        #expect(!guest.contains("teacher") && !guest.contains(PostgresTLSTests.password), "\(guest)")
        let ada = try Client(namespace: network.clients[0], uri: guest)
        let bob = try Client(
            namespace: network.clients[1],
            uri: guest.replacingOccurrences(of: network.serverAddresses[0], with: network.serverAddresses[1]))
        let wrong = try ada.run(["login", "ada", "--password-stdin"], stdin: "correct horse battery\n")
        #expect(wrong.status == 1 && wrong.stderr.contains("wrong"), "no such account yet: \(wrong.stderr)")

        try ada.run(
            ["register", "--email", "ada@example.com", "--username", "ada", "--fullname", "Ada", "--password-stdin"],
            stdin: "correct horse battery\n", succeeds: true)
        try bob.run(
            ["register", "--email", "bob@example.com", "--username", "bob", "--fullname", "Bob", "--password-stdin"],
            stdin: "correct horse battery\n", succeeds: true)
        try ada.run(["post", "hello from the first machine"], succeeds: true)
        #expect(try bob.run(["feed"]).stdout.contains("hello from the first machine"))
        try bob.run(["post", "and from the second"], succeeds: true)
        #expect(try ada.run(["feed"]).stdout.contains("and from the second"))

        // Ada posts in a loop; her link goes down under it.
        var acknowledged: [String] = []
        var failure: CLIRunner.Result?
        for number in 1...400 {
            if number == 20 { try network.setLink(of: network.clients[0], up: false) }
            let posted = try ada.run(["post", "--json", "post number \(number)"])
            guard posted.status == 0 else {
                failure = posted
                break
            }
            acknowledged.append(try #require(try json(posted.stdout)["id"] as? String))
        }
        let failed = try #require(failure, "a post went through a cut link")
        #expect(
            failed.stderr.contains("not reachable") || failed.stderr.contains("did not answer")
                || failed.stderr.contains("was lost"),
            "\(failed.stderr)")
        #expect(failed.stderr.split(separator: "\n").count == 1, "\(failed.stderr)")
        let guestPassword = try #require(guest.split(separator: "@").first?.split(separator: ":").last)
        #expect(!failed.stderr.contains(guestPassword), "\(failed.stderr)")

        // Bob, on his own link, goes on meanwhile.
        try bob.run(["post", "still here"], succeeds: true)
        try network.setLink(of: network.clients[0], up: true)
        try ada.run(["post", "back again"], succeeds: true)
        // Every acknowledged post is there, and no post is half there: each tweet the server has
        // is counted on Ada's profile, and the store's counters agree with its documents.
        let profile = try json(try bob.run(["profile", "@ada", "--json", "--limit", "200"]).stdout)
        let tweets = try #require(profile["tweets"] as? [[String: Any]])
        let ids = Set(tweets.compactMap { $0["id"] as? String })
        let counted = try #require((profile["stats"] as? [String: Any])?["tweets"] as? Int)
        #expect(counted == ids.count, "the tweet count agrees with the tweets there")
        #expect(Set(acknowledged).isSubset(of: ids))
        #expect(ids.count <= acknowledged.count + 3, "at most the post cut off, besides the others")
        let doctor = try bob.run(["doctor"])
        #expect(doctor.status == 0 && doctor.stdout.contains("is healthy"), "\(doctor.stdout)\(doctor.stderr)")
        #expect(try ada.run(["feed"]).stdout.contains("still here"))
    }
}

/// A tweetcli on one of the namespaces: its own home, run through `ip netns exec`.
private struct Client {
    let namespace: String
    let uri: String
    let runner: CLIRunner

    init(namespace: String, uri: String) throws {
        self.namespace = namespace
        self.uri = uri
        runner = try CLIRunner(location: uri)
    }

    @discardableResult
    func run(_ arguments: [String], stdin: String? = nil, uri: String? = nil, succeeds: Bool = false) throws
        -> CLIRunner.Result
    {
        let result = try runner.run(
            ["netns", "exec", namespace, CLIRunner.executable.path, "--store", uri ?? self.uri] + arguments,
            stdin: stdin,
            executable: "/usr/sbin/ip", store: false)
        if succeeds { #expect(result.status == 0, "\(arguments): \(result.stderr)") }
        return result
    }
}

/// The namespaces and links: `server` holds one end of each client's veth pair, 10.N.1.1 and
/// 10.N.2.1, and each client the other end, .2 of the same /24.
private struct Network {
    let server: String
    let clients: [String]
    let serverAddresses: [String]
    private let links: [String]

    init() throws {
        let tag = String(UUID().uuidString.prefix(6)).lowercased()
        let subnet = Int.random(in: 100..<250)
        server = "tws-\(tag)"
        clients = ["twa-\(tag)", "twb-\(tag)"]
        links = ["twva\(tag)", "twvb\(tag)"]
        serverAddresses = ["10.\(subnet).1.1", "10.\(subnet).2.1"]
        try Self.ip(["netns", "add", server])
        try Self.ip(["-n", server, "link", "set", "lo", "up"])
        for (index, client) in clients.enumerated() {
            try Self.ip(["netns", "add", client])
            try Self.ip(["-n", client, "link", "set", "lo", "up"])
            let (near, far) = (links[index], links[index] + "s")
            try Self.ip(["link", "add", near, "type", "veth", "peer", "name", far])
            try Self.ip(["link", "set", near, "netns", client])
            try Self.ip(["link", "set", far, "netns", server])
            try Self.ip(["-n", server, "addr", "add", serverAddresses[index] + "/24", "dev", far])
            try Self.ip(["-n", client, "addr", "add", "10.\(subnet).\(index + 1).2/24", "dev", near])
            try Self.ip(["-n", server, "link", "set", far, "up"])
            try Self.ip(["-n", client, "link", "set", near, "up"])
        }
    }

    /// Takes a client's link down or up, at its end.
    func setLink(of client: String, up: Bool) throws {
        let index = try #require(clients.firstIndex(of: client))
        try Self.ip(["-n", client, "link", "set", links[index], up ? "up" : "down"])
        if up {
            // Its address's route comes back with the link; wait until it is there.
            let deadline = Date().addingTimeInterval(5)
            while Date() < deadline,
                (try? Self.ip(["-n", client, "route", "get", serverAddresses[index]])) == nil
            {
                usleep(50_000)
            }
        }
    }

    func remove() {
        // Best effort: deleting a namespace deletes the veth ends in it.
        for name in [server] + clients { _ = try? Self.ip(["netns", "delete", name]) }
    }

    @discardableResult
    private static func ip(_ arguments: [String]) throws -> Bool {
        let ended = try ChildProcess.run(
            "/usr/sbin/ip", arguments: ["ip"] + arguments,
            options: .init(standardOutput: .file("/dev/null"), standardError: .file("/dev/null")))
        guard ended == .exited(0) else { throw TLSServerError("ip \(arguments.joined(separator: " ")) failed") }
        return true
    }
}
