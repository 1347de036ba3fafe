import Foundation
import TweetTestSupport

/// An `import` of a Foundation module that a target `tweetcli` links must not use: Foundation
/// itself and FoundationInternationalization bring ICU, FoundationNetworking brings libcurl.
/// FoundationEssentials is allowed.
struct FoundationImport: CustomStringConvertible {
    /// The modules the start-up rules bar.
    static let barredModules: Set<String> = ["Foundation", "FoundationInternationalization", "FoundationNetworking"]

    /// Words that may come before `import`: access levels (SE-0409).
    private static let modifiers: Set<String> = ["public", "package", "internal", "fileprivate", "private"]

    /// Words that may come between `import` and the module: `import struct Foundation.URL`.
    private static let kinds: Set<String> = ["typealias", "struct", "class", "enum", "protocol", "let", "var", "func"]

    /// The file, relative to the package's root.
    let file: String
    /// The line, counted from 1.
    let line: Int
    /// The statement, trimmed.
    let statement: String

    var description: String { "\(file):\(line): \(statement)" }

    /// The module `statement` imports, when it is an import statement: attributes
    /// (`@preconcurrency`, `@_exported`, `@testable`, `@_spi(…)`) and access levels may precede it.
    static func importedModule(_ statement: Substring) -> String? {
        var words = statement.split(whereSeparator: \.isWhitespace)[...]
        while let word = words.first, word.hasPrefix("@") || modifiers.contains(String(word)) {
            words.removeFirst()
        }
        guard words.popFirst() == "import" else { return nil }
        if let word = words.first, kinds.contains(String(word)) { words.removeFirst() }
        guard let path = words.first else { return nil }
        return String(path.prefix { $0 != "." && $0 != "/" })
    }

    /// Whether one line of Swift imports a barred module, in any of its statements.
    static func isBarred(_ line: some StringProtocol) -> Bool {
        line.split(separator: ";").contains { importedModule(Substring($0)).map(barredModules.contains) ?? false }
    }

    /// Every barred import in the Swift files under `Sources/<target>`, in file and line order.
    static func find(inTarget target: String) throws -> [FoundationImport] {
        let directory = PackageDirectory.path("Sources/" + target)
        let files = try FileManager.default.subpathsOfDirectory(atPath: directory).filter { $0.hasSuffix(".swift") }
        var found: [FoundationImport] = []
        for relative in files.sorted() {
            let text = try String(contentsOfFile: directory + "/" + relative, encoding: .utf8)
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            for (index, line) in lines.enumerated() where isBarred(line) {
                let statement = line.trimmingCharacters(in: .whitespaces)
                let file = "Sources/\(target)/\(relative)"
                found.append(FoundationImport(file: file, line: index + 1, statement: statement))
            }
        }
        return found
    }
}
