import Foundation
import Testing

/// The twitter-text conformance suite, read from the fixtures copied into this test bundle
/// (`Fixtures/twitter-text`), run one section at a time.
enum Conformance {
    /// One test vector: what a section's function should return for a text.
    struct Case<Expected: Decodable>: Decodable {
        let description: String
        let text: String
        let expected: Expected
    }

    /// How many of a section's cases passed, and which failed.
    struct Report {
        let file: String
        let section: String
        let total: Int
        let failures: [String]

        var passed: Int { total - failures.count }
        var summary: String { "\(file) section \(section): \(passed)/\(total) passed" }

        /// Records the count and fails, naming every failing case, unless all cases passed.
        func expectEveryCasePassed(sourceLocation: SourceLocation = #_sourceLocation) {
            print(summary)
            #expect(total > 0, "\(file) section \(section) has no cases", sourceLocation: sourceLocation)
            #expect(
                failures.isEmpty,
                "\(summary); failing:\n\(failures.joined(separator: "\n"))",
                sourceLocation: sourceLocation
            )
        }
    }

    /// An error loading the fixtures.
    enum FixtureError: Error, CustomStringConvertible {
        /// The file is not in the test bundle.
        case missingFile(String)
        /// The file has no such section under `tests`.
        case missingSection(file: String, section: String)

        var description: String {
            switch self {
            case .missingFile(let file):
                return "Fixtures/twitter-text/\(file).json is missing from the test bundle"
            case .missingSection(let file, let section):
                return "\(file).json has no section tests.\(section)"
            }
        }
    }

    /// The raw contents of a fixture file.
    static func data(_ file: String, extension fileExtension: String = "json") throws -> Data {
        guard
            let url = Bundle.module.url(
                forResource: file, withExtension: fileExtension, subdirectory: "Fixtures/twitter-text")
        else { throw FixtureError.missingFile(file) }
        return try Data(contentsOf: url)
    }

    /// The cases of `tests.<section>` in `<file>.json`.
    static func cases<Expected: Decodable>(
        _ file: String, _ section: String, expecting: Expected.Type
    ) throws -> [Case<Expected>] {
        let object = try JSONSerialization.jsonObject(with: data(file))
        guard let tests = (object as? [String: Any])?["tests"] as? [String: Any],
            let cases = tests[section]
        else { throw FixtureError.missingSection(file: file, section: section) }
        let sectionData = try JSONSerialization.data(withJSONObject: cases)
        return try JSONDecoder().decode([Case<Expected>].self, from: sectionData)
    }

    /// Runs every case of a section through `actual` and compares with its expectation.
    static func run<Expected: Decodable & Equatable>(
        _ file: String, _ section: String, expecting: Expected.Type, _ actual: (String) -> Expected
    ) throws -> Report {
        let cases = try cases(file, section, expecting: Expected.self)
        var failures: [String] = []
        for testCase in cases {
            let result = actual(testCase.text)
            if result != testCase.expected {
                failures.append(
                    "- \(testCase.description)\n    text: \(abbreviated(testCase.text.debugDescription))"
                        + "\n    expected: \(abbreviated(String(describing: testCase.expected)))"
                        + "\n    got:      \(abbreviated(String(describing: result)))")
            }
        }
        return Report(file: file, section: section, total: cases.count, failures: failures)
    }

    private static func abbreviated(_ text: String) -> String {
        text.count <= 200 ? text : text.prefix(200) + "…"
    }
}
