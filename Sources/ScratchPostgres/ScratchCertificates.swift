import FoundationEssentials
import TweetSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Certificates for a scratch cluster's TLS, made with `openssl`: a certificate authority, a
/// server certificate it signs for `localhost` and the given addresses, and a second authority
/// that signs nothing here (a client that trusts only it must refuse the server).
public struct ScratchCertificates: Sendable {
    /// The authority that signed the server's certificate, for `sslrootcert`.
    public let authority: String
    /// An authority that signed nothing the server shows.
    public let otherAuthority: String

    /// Whether `openssl` is where Debian puts it.
    public static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: openssl) }

    private static let openssl = "/usr/bin/openssl"

    /// Makes them in `directory`, with the server's key and certificate (`server.key`,
    /// `server.crt`) in `serverFiles`, handed to the postgres user when this process is root.
    /// - Throws: ``ScratchCluster/Failure`` when a step of openssl's fails.
    public static func make(
        in directory: String, serverFiles: String, addresses: [String]
    ) throws(ScratchCluster.Failure) -> ScratchCertificates {
        func run(_ arguments: [String]) throws(ScratchCluster.Failure) {
            let ended: ChildProcess.Termination
            do {
                ended = try ChildProcess.run(
                    openssl, arguments: ["openssl"] + arguments,
                    options: .init(standardOutput: .file(directory + "/openssl.log"), standardError: .descriptor(1)))
            } catch {
                throw ScratchCluster.Failure(description: "openssl cannot be started: \(error.reason)")
            }
            guard ended == .exited(0) else {
                throw ScratchCluster.Failure(
                    description: "openssl \(arguments.first ?? "") failed; see \(directory)/openssl.log")
            }
        }
        let curve = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        for name in ["ca", "other-ca"] {
            try run(
                ["req", "-x509"] + curve + [
                    "-keyout", "\(directory)/\(name).key", "-out", "\(directory)/\(name).crt", "-days", "2",
                    "-subj", "/CN=tweetcli scratch \(name)",
                ])
        }
        try run(
            ["req"] + curve + [
                "-keyout", "\(serverFiles)/server.key", "-out", "\(directory)/server.csr", "-subj", "/CN=localhost",
            ])
        do {
            try "subjectAltName=DNS:localhost\(addresses.map { ",IP:" + $0 }.joined())\n".write(
                toFile: directory + "/server.ext", atomically: false, encoding: .utf8)
        } catch {
            throw ScratchCluster.Failure(description: "\(directory)/server.ext cannot be written")
        }
        try run([
            "x509", "-req", "-in", "\(directory)/server.csr", "-CA", "\(directory)/ca.crt", "-CAkey",
            "\(directory)/ca.key", "-CAcreateserial", "-out", "\(serverFiles)/server.crt", "-days", "2", "-extfile",
            "\(directory)/server.ext",
        ])
        // The server reads its key only if no one else can.
        guard chmod(serverFiles + "/server.key", 0o600) == 0 else {
            throw ScratchCluster.Failure(description: "\(serverFiles)/server.key cannot be made private")
        }
        if geteuid() == 0, let user = getpwnam("postgres")?.pointee.pw_uid {
            for file in ["server.key", "server.crt"] where chown(serverFiles + "/" + file, user, gid_t.max) != 0 {
                throw ScratchCluster.Failure(description: "\(serverFiles)/\(file) cannot be handed to postgres")
            }
        }
        return ScratchCertificates(authority: directory + "/ca.crt", otherAuthority: directory + "/other-ca.crt")
    }
}
