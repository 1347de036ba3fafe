import Foundation
import Testing

/// What the start-up rules' tests need beyond the debug build: the release `tweetcli`, built from
/// the sources as they are, and valgrind. The tests that need one run only when it is there; a
/// test of its own says why they did not, as a warning on a cancelled test, so the run never
/// shows them as passed. `TWEETCLI_STARTUP_TESTS=require` (set by `Scripts/test`) makes a missing
/// one a failure.
package enum StartupPrerequisites {
    /// Why a required prerequisite is missing.
    package struct Missing: Error, CustomStringConvertible {
        package let description: String
    }

    /// Whether a missing prerequisite must fail the run.
    package static var isRequired: Bool {
        ProcessInfo.processInfo.environment["TWEETCLI_STARTUP_TESTS"] == "require"
    }

    /// The release `tweetcli`, when it is there and newer than every source it is built from.
    package static let releaseExecutable: Result<String, Missing> = {
        let executable = PackageDirectory.releaseExecutable
        let rebuild = "build it with: \(PackageDirectory.releaseBuildCommand)"
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            return .failure(Missing(description: "there is no release build at \(executable); \(rebuild)"))
        }
        if let newer = PackageDirectory.sourceNewer(than: executable) {
            return .failure(Missing(description: "the release build \(executable) is older than \(newer); \(rebuild)"))
        }
        return .success(executable)
    }()

    /// valgrind, from the `valgrind` Debian package.
    package static let valgrind: Result<String, Missing> = {
        let candidates = ["/usr/bin/valgrind", "/usr/local/bin/valgrind"]
        guard let found = candidates.first(where: FileManager.default.isExecutableFile) else {
            return .failure(Missing(description: "valgrind is not installed (apt-get install valgrind)"))
        }
        return .success(found)
    }()

    /// Whether the release build is there to check.
    package static var hasReleaseBuild: Bool { (try? releaseExecutable.get()) != nil }

    /// Whether instructions can be counted on the release build.
    package static var canCountInstructions: Bool { hasReleaseBuild && (try? valgrind.get()) != nil }

    /// Says why tests needing `prerequisites` did not run, if they did not: a failure when
    /// required, else a warning, and the calling test ends as cancelled.
    /// - Throws: ``Missing`` when required; otherwise what `Test.cancel` throws to end the test.
    package static func sayWhyNotRun(
        _ tests: String, needing prerequisites: [Result<String, Missing>],
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let missing = prerequisites.compactMap { result -> Missing? in
            guard case .failure(let reason) = result else { return nil }
            return reason
        }
        guard !missing.isEmpty else { return }
        let reasons = missing.map(\.description).joined(separator: "; ")
        if isRequired {
            throw Missing(description: "TWEETCLI_STARTUP_TESTS=require, but \(tests) did not run: \(reasons)")
        }
        Issue.record("\(tests) did not run: \(reasons)", severity: .warning, sourceLocation: sourceLocation)
        try Test.cancel("\(tests) did not run: \(reasons)", sourceLocation: sourceLocation)
    }
}
