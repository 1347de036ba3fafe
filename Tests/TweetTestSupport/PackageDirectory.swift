import Foundation

/// This package's root directory and the release build in it, found from this file's own place
/// (`Tests/TweetTestSupport/`), so tests that read the sources or the release `tweetcli` work from
/// any working directory.
package enum PackageDirectory {
    /// The package's root: the folder holding `Package.swift`.
    package static let path: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    /// `relative` inside the package.
    package static func path(_ relative: String) -> String {
        (path as NSString).appendingPathComponent(relative)
    }

    /// The command that builds ``releaseExecutable``, as `Scripts/test` and `Scripts/install` run it.
    package static let releaseBuildCommand = "swift build -c release --static-swift-stdlib --product tweetcli"

    /// The release `tweetcli`, which `Scripts/test` builds before `swift test`.
    package static var releaseExecutable: String { path(".build/release/tweetcli") }

    /// The newest of the files a build of `tweetcli` reads (the manifest, the sources, the linker's
    /// order file) that is newer than `executable`, or `nil` when the executable is up to date.
    /// Only source files count, not folders, which an editor's own files touch.
    package static func sourceNewer(than executable: String) -> String? {
        let manager = FileManager.default
        guard let built = (try? manager.attributesOfItem(atPath: executable))?[.modificationDate] as? Date else {
            return nil
        }
        var newest: (path: String, date: Date)?
        var candidates = [path("Package.swift"), path("Linker/tweetcli.order")]
        if let sources = manager.enumerator(atPath: path("Sources")) {
            for case let relative as String in sources
            where [".swift", ".c", ".h", ".modulemap"].contains(where: relative.hasSuffix) {
                candidates.append(path("Sources/" + relative))
            }
        }
        for candidate in candidates {
            guard let date = (try? manager.attributesOfItem(atPath: candidate))?[.modificationDate] as? Date,
                date > built, date > newest?.date ?? .distantPast
            else { continue }
            newest = (candidate, date)
        }
        return newest?.path
    }
}
