import Foundation
import Testing

/// A relay on a Unix socket of its own in front of the tests' PostgreSQL cluster, which counts the
/// round trips that pass through it: each time the server answers after its client spoke, on any
/// connection. A client that sends several statements before it waits (libpq's pipeline mode)
/// makes one round trip of them, as it does on the wire.
package final class RoundTripCounter {
    /// The directory whose socket the relay listens on: `host=` for a connection through it.
    package let directory: String
    private let countFile: String
    private let process: Process

    /// The relay's script: one selector loop, which writes the running count to a file before it
    /// passes each answer on, so that a command that has exited is counted whole.
    private static let script = """
        import os, selectors, socket, sys
        directory, target, count_file = sys.argv[1:4]
        listener = socket.socket(socket.AF_UNIX)
        listener.bind(os.path.join(directory, '.s.PGSQL.5432'))
        listener.listen(64)
        selector = selectors.DefaultSelector()
        selector.register(listener, selectors.EVENT_READ, None)
        answers = 0
        def save():
            with open(count_file + '.part', 'w') as f:
                f.write(str(answers))
            os.replace(count_file + '.part', count_file)
        save()
        while True:
            for key, _ in selector.select():
                if key.fileobj is listener:
                    client, _ = listener.accept()
                    server = socket.socket(socket.AF_UNIX)
                    server.connect(os.path.join(target, '.s.PGSQL.5432'))
                    pair = {'spoke': False}
                    selector.register(client, selectors.EVENT_READ, (server, True, pair))
                    selector.register(server, selectors.EVENT_READ, (client, False, pair))
                    continue
                peer, from_client, pair = key.data
                try:
                    data = key.fileobj.recv(65536)
                except OSError:
                    data = b''
                if not data:
                    for end in (key.fileobj, peer):
                        try:
                            selector.unregister(end)
                        except (KeyError, ValueError):
                            pass
                        end.close()
                    continue
                if from_client:
                    pair['spoke'] = True
                elif pair['spoke']:
                    pair['spoke'] = False
                    answers += 1
                    save()
                try:
                    peer.sendall(data)
                except OSError:
                    pass
        """

    /// Starts one in front of the cluster whose socket is in `target`.
    package init(target: String) throws {
        let python = try #require(ScriptedServer.python, "python3 counts the round trips")
        directory =
            FileManager.default.temporaryDirectory.appendingPathComponent(
                "tweetcli-trips-\(UUID().uuidString.prefix(8))"
            ).path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        countFile = directory + "/count"
        process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", Self.script, directory, target, countFile]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try ProcessEnvironment.gate.withLock { _ in try process.run() }
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: directory + "/.s.PGSQL.5432")
            || !FileManager.default.fileExists(atPath: countFile)
        {
            guard Date() < deadline, process.isRunning else { throw RelayError() }
            usleep(10_000)
        }
    }

    struct RelayError: Error, CustomStringConvertible {
        var description: String { "the round-trip relay did not start" }
    }

    /// The answers counted so far, on every connection through the relay.
    package var answers: Int {
        // Replaced whole each time, so always readable while the relay runs; gone, it counted nothing.
        Int((try? String(contentsOfFile: countFile, encoding: .utf8)) ?? "") ?? 0
    }

    /// `location` (a URI of the cluster's socket) through the relay instead.
    package func relayed(_ location: String, socket: String) -> String {
        location.replacingOccurrences(of: "host=\(socket)", with: "host=\(directory)")
    }

    deinit {
        process.terminate()
        try? FileManager.default.removeItem(atPath: directory)  // Best effort: a temporary directory.
    }
}
