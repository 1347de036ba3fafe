import Foundation
import TweetTestSupport

/// The shared libraries that no command may load at start-up, and the ways to see what a program
/// loads: the dynamic loader's list (what `ldd` prints), a live process's memory map, and, for a
/// program with the Swift runtime linked in, ICU's data inside the file itself.
enum StartupLibraries {
    /// File-name prefixes of the barred libraries, each with what it is.
    static let barred: [(prefix: String, what: String)] = [
        ("libicu", "ICU"),
        ("lib_FoundationICU", "ICU, as the Swift toolchain ships it"),
        ("libFoundation.so", "Foundation, which loads ICU"),
        ("libFoundationInternationalization", "Foundation's internationalisation, which loads ICU"),
        ("libFoundationNetworking", "FoundationNetworking, which loads libcurl"),
        ("libcurl", "libcurl, for tweetcli-fetch only"),
        ("libpq", "libpq, which the PostgreSQL engine loads with dlopen"),
        ("libarchive", "libarchive, which an archive import loads with dlopen"),
        ("libz", "a compression library, which an archive import loads with dlopen"),
    ]

    /// The barred libraries among `files` (names or paths), each as "name (what it is)".
    static func barredOnes(among files: [String]) -> [String] {
        let names = Set(files.map { ($0 as NSString).lastPathComponent })
        return names.sorted().compactMap { name in
            barred.first { name.hasPrefix($0.prefix) }.map { "\(name) (\($0.what))" }
        }
    }

    /// The libraries the dynamic loader lists for `executable` (`LD_TRACE_LOADED_OBJECTS=1`, which
    /// is what `ldd` runs): each line's name, and the file it resolved to.
    static func loaded(by executable: String, in cli: CLIRunner) throws -> [String] {
        let result = try cli.run(
            [], environment: ["LD_TRACE_LOADED_OBJECTS": "1"], executable: executable, store: false)
        return result.stdout.split(separator: "\n").flatMap { line in
            line.split(whereSeparator: \.isWhitespace).filter { !$0.hasPrefix("(") && $0 != "=>" }.map(String.init)
        }
    }

    /// The files mapped in the text of a `/proc/PID/maps`.
    static func mapped(_ maps: String) -> [String] {
        maps.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            guard fields.count == 6 else { return nil }
            let path = fields[5].trimmingCharacters(in: .whitespaces)
            return path.hasPrefix("/") ? path : nil
        }
    }

    /// Whether the file holds ICU's data (a package named `icudt…`), as linking Foundation with the
    /// Swift runtime linked in (`--static-swift-stdlib`) puts it, where no loader list can see it.
    static func holdsICUData(_ path: String) throws -> Bool {
        let data = try Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped)
        return data.range(of: Data("icudt".utf8)) != nil
    }

    /// The shell script `post` runs as its editor: it copies the memory map of the `tweetcli` that
    /// started it (its parent, or the parent of the `sh -c` between them) to the file its first
    /// argument names, then writes `caption` into the tweet's file, its second argument.
    static func mapCopyingEditor(caption: String) -> String {
        """
        #!/bin/sh
        pid=$PPID
        while [ "$(cat /proc/$pid/comm)" = sh ] || [ "$(cat /proc/$pid/comm)" = dash ]; do
            pid=$(cut -d ' ' -f 4 /proc/$pid/stat)
        done
        cat /proc/$pid/maps > "$1"
        printf '%s\\n' '\(caption)' > "$2"

        """
    }
}
