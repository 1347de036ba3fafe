import Foundation
import Testing
import TweetTestSupport

/// The second start-up rule: no ICU, libcurl, libpq, libarchive or zlib in a command's start-up.
/// libpq and the archive libraries are loaded with `dlopen` by the commands that need them, and
/// `tweetcli-fetch` is a program of its own so that libcurl stays out of `tweetcli`. Checked on the
/// debug build beside the tests and on the release build `Scripts/test` makes.
@Suite struct StartupRuleLibraryTests {
    /// A build of `tweetcli`.
    enum Build: String, CustomTestStringConvertible {
        case debug, release

        /// The builds there are to check: the release one only when it is there and up to date.
        static var present: [Build] { StartupPrerequisites.hasReleaseBuild ? [.debug, .release] : [.debug] }

        var testDescription: String { rawValue }

        /// Its executable.
        /// - Throws: When it is not there: the debug one must be, since the tests are built with it.
        func executable() throws -> String {
            let path =
                switch self {
                case .debug: CLIRunner.executable.path
                case .release: PackageDirectory.releaseExecutable
                }
            try #require(FileManager.default.isExecutableFile(atPath: path), "no \(rawValue) tweetcli at \(path)")
            return path
        }
    }

    @Test func theReleaseBuildWasCheckedOrSaysWhyNot() throws {
        try StartupPrerequisites.sayWhyNotRun(
            "the release build's library checks", needing: [StartupPrerequisites.releaseExecutable])
    }

    @Test(arguments: Build.present)
    func theExecutableLinksNoLibraryBarredAtStartUp(_ build: Build) throws {
        let executable = try build.executable()
        let cli = try CLIRunner()
        let loaded = try StartupLibraries.loaded(by: executable, in: cli)
        #expect(loaded.contains { $0.hasPrefix("libc.so") }, "the loader's list of \(executable) was read: \(loaded)")
        let barred = StartupLibraries.barredOnes(among: loaded)
        #expect(barred.isEmpty, "\(executable) loads at start-up: \(barred.joined(separator: ", "))")
    }

    @Test(arguments: Build.present)
    func aRunningCommandMapsNoLibraryBarredAtStartUp(_ build: Build) throws {
        let executable = try build.executable()
        let cli = try CLIRunner()
        try cli.register("ada", fullname: "Ada Lovelace")
        // `post --draft` opens the store, then the editor on the kept draft, even without a terminal:
        // the editor copies the memory map of the command that waits for it.
        let state = cli.home.appendingPathComponent("state/tweetcli")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        try Data("A draft\n".utf8).write(to: state.appendingPathComponent("draft.txt"))
        let editor = cli.home.appendingPathComponent("editor.sh")
        try Data(StartupLibraries.mapCopyingEditor(caption: "Mapped at start-up").utf8).write(to: editor)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: editor.path)
        let maps = cli.home.appendingPathComponent("maps.txt")

        let post = try cli.run(
            ["post", "--draft"], environment: ["EDITOR": "\(editor.path) \(maps.path)"], executable: executable)
        #expect(post.status == 0, "post --draft: \(post.stderr)")
        #expect(post.stdout.contains("Mapped at start-up"))
        let mapped = StartupLibraries.mapped(try String(contentsOf: maps, encoding: .utf8))
        let real = URL(fileURLWithPath: executable).resolvingSymlinksInPath().path
        #expect(mapped.contains(real), "the map read is tweetcli's, which maps \(real): \(Set(mapped).sorted())")
        let barred = StartupLibraries.barredOnes(among: mapped)
        #expect(barred.isEmpty, "a running \(executable) maps: \(barred.joined(separator: ", "))")
    }

    @Test(arguments: Build.present)
    func theExecutableHoldsNoICUData(_ build: Build) throws {
        let executable = try build.executable()
        #expect(try !StartupLibraries.holdsICUData(executable), "\(executable) has ICU's data linked in")
    }

    /// The checks find what they look for: `tweetcli-fetch`, built beside `tweetcli`, links
    /// FoundationNetworking and so libcurl and ICU.
    @Test func theLoaderCheckFindsTheLibrariesOfTweetcliFetch() throws {
        let fetch = CLIRunner.executable.deletingLastPathComponent().appendingPathComponent("tweetcli-fetch").path
        let barred = StartupLibraries.barredOnes(among: try StartupLibraries.loaded(by: fetch, in: try CLIRunner()))
        #expect(barred.contains { $0.hasPrefix("libcurl") }, "\(barred)")
        #expect(barred.contains { $0.hasPrefix("lib_FoundationICU") || $0.hasPrefix("libicu") }, "\(barred)")
    }
}
