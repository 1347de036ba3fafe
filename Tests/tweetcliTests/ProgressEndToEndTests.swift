import Foundation
import Testing
import TweetTestSupport

/// Progress lines as `script` records a terminal's bytes: each long command draws its line at
/// least once (the first update and the last step are always drawn) and erases it before its
/// summary, however quickly it finishes.
@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script")))
struct ProgressEndToEndTests {
    /// What the terminal received while `arguments` ran on it, and its status.
    private func onTerminal(_ cli: CLIRunner, _ arguments: [String]) throws -> (screen: String, status: Int32) {
        let words = [CLIRunner.executable.path, "--store", cli.location] + arguments
        let command = words.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        let log = cli.home.appendingPathComponent("typescript-\(UUID().uuidString)")
        let result = try cli.run(["-q", "-e", "-c", command, log.path], executable: "/usr/bin/script", store: false)
        return (try String(contentsOf: log, encoding: .utf8), result.status)
    }

    /// Checks that `screen` draws a line starting with `label` that is erased before `summary`.
    private func expectErasedLine(_ screen: String, _ label: String, before summary: String) throws {
        let drawn = try #require(screen.range(of: "\r\u{1B}[K" + label), "\(screen.debugDescription)")
        let erased = try #require(
            screen.range(of: "\r\u{1B}[K", range: drawn.upperBound..<screen.endIndex), "\(screen.debugDescription)")
        let shown = try #require(screen.range(of: summary), "\(screen.debugDescription)")
        #expect(erased.upperBound <= shown.lowerBound)
    }

    @Test func mergingABackupShowsItsProgressThenTheSummary() throws {
        let cli = try CLIRunner()
        #expect(try cli.run(["seed", "--users", "20", "--tweets", "3000"]).status == 0)
        let backup = cli.home.appendingPathComponent("backup.jsonl")
        let export = try cli.run(["export"])
        try export.stdout.write(to: backup, atomically: true, encoding: .utf8)
        let merge = try onTerminal(cli, ["import", "--merge", backup.path])
        #expect(merge.status == 0, "\(merge.screen)")
        try expectErasedLine(merge.screen, "Merging: writing ", before: "Imported 0 documents")
    }

    @Test func repairingAStoreShowsTheFilesDoneThenTheReport() throws {
        let cli = try CLIRunner()
        #expect(try cli.run(["seed", "--users", "20", "--tweets", "3000"]).status == 0)
        let repair = try onTerminal(cli, ["doctor", "--repair"])
        #expect(repair.status == 0, "\(repair.screen)")
        try expectErasedLine(repair.screen, "Repairing: 1 of ", before: "Nothing needed repair.")
    }
}
