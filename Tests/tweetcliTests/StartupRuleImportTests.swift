import Foundation
import Testing
import TweetTestSupport

/// The first start-up rule: every target `tweetcli` links imports FoundationEssentials only, never
/// Foundation, FoundationInternationalization (ICU) or FoundationNetworking (libcurl).
@Suite struct StartupRuleImportTests {
    /// The targets ARCHITECTURE.md says `tweetcli` links. The scan covers these and whatever else the
    /// build links, and the list read from the build must hold them all, which shows that reading works.
    static let documentedTargets = [
        "TweetSystem", "TweetStore", "TweetStoreLocal", "TweetStorePostgres", "TwitterText", "TwitterArchive",
        "TweetCore", "TweetDemo", "TweetCLI", "tweetcli",
    ]

    /// The targets whose objects the built `tweetcli` links, from the list SwiftPM hands the linker
    /// (`tweetcli.product/Objects.LinkFileList` beside it): each object is in `<target>.build/`.
    static func linkedTargets() throws -> Set<String> {
        let list = CLIRunner.executable.deletingLastPathComponent()
            .appendingPathComponent("tweetcli.product/Objects.LinkFileList")
        let text = try String(contentsOf: list, encoding: .utf8)
        let directories = text.split(separator: "\n").compactMap { line in
            line.split(separator: "/").last { $0.hasSuffix(".build") }
        }
        return Set(directories.map { String($0.dropLast(".build".count)) })
    }

    @Test func noTargetTweetcliLinksImportsFoundation() throws {
        let linked = try Self.linkedTargets()
        let unlisted = Set(Self.documentedTargets).subtracting(linked)
        #expect(unlisted.isEmpty, "the build's link list lacks \(unlisted.sorted()); is it read right?")
        var files = 0
        for target in linked.union(Self.documentedTargets).sorted() {
            let directory = PackageDirectory.path("Sources/" + target)
            guard FileManager.default.fileExists(atPath: directory) else {
                Issue.record("tweetcli links \(target), whose sources are not in \(directory)")
                continue
            }
            let sources = try FileManager.default.subpathsOfDirectory(atPath: directory)
            files += sources.count(where: { $0.hasSuffix(".swift") })
            for found in try FoundationImport.find(inTarget: target) {
                let location = SourceLocation(
                    fileID: "\(target)/\((found.file as NSString).lastPathComponent)",
                    filePath: PackageDirectory.path(found.file), line: found.line, column: 1)
                Issue.record(
                    "\(found): tweetcli links \(target), which may import FoundationEssentials only",
                    sourceLocation: location)
            }
        }
        print("Checked the imports of \(files) Swift files in \(linked.count) targets tweetcli links.")
    }

    @Test(arguments: [
        "import Foundation", "  import Foundation  // for Data", "@preconcurrency import Foundation",
        "@_exported import Foundation", "@_implementationOnly import FoundationInternationalization",
        "public import FoundationNetworking", "@preconcurrency internal import Foundation",
        "import struct Foundation.URL", "import class Foundation.JSONDecoder", "import Foundation.NSData",
        "import TweetCore; import Foundation", "\timport\tFoundationNetworking",
    ])
    func everyFormOfABarredImportIsFound(_ line: String) {
        #expect(FoundationImport.isBarred(line))
    }

    @Test(arguments: [
        "import FoundationEssentials", "@preconcurrency import FoundationEssentials", "// import Foundation",
        "/// import Foundation, as the course did", "import TweetCore", "let imported = Foundation.self",
        "import Glibc", "#if canImport(Foundation)", "import FoundationEssentials.Data",
    ])
    func essentialsAndOtherModulesPass(_ line: String) {
        #expect(!FoundationImport.isBarred(line))
    }
}
