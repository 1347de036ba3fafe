import Foundation
import Testing

/// The instruction budgets of commands whose time is mostly start-up, kept as data in
/// `Budgets/startup.json` beside this file: each command's count, measured with callgrind on the
/// release build, and how far over it a run may go.
struct InstructionBudgets: Decodable {
    /// One command's budget.
    struct Budget: Decodable, Sendable, CustomTestStringConvertible {
        /// The command's arguments after `--store`.
        let command: [String]
        /// The instructions it ran when the budget was set.
        let instructions: Int

        var testDescription: String { command.joined(separator: " ") }
    }

    /// How far over its budget a count may go, as a fraction: 0.1 lets a command run 10% over.
    let tolerance: Double
    /// The `seed` arguments that make the store the commands read.
    let seed: [String]
    /// The seeded user signed in while the commands run.
    let username: String
    let budgets: [Budget]

    /// The file, found from this source file's place.
    static let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Budgets/startup.json").path

    /// Reads ``path``.
    /// - Throws: An error naming the file and what in it could not be read.
    static func load() throws -> InstructionBudgets {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        do {
            return try JSONDecoder().decode(InstructionBudgets.self, from: data)
        } catch let DecodingError.keyNotFound(key, context) {
            throw BudgetFileError(description: "\(path): no \(Self.keyPath(context.codingPath + [key]))")
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context),
            let DecodingError.dataCorrupted(context)
        {
            throw BudgetFileError(
                description: "\(path): \(Self.keyPath(context.codingPath)): \(context.debugDescription)")
        }
    }

    /// A key path as `budgets[1].instructions`.
    private static func keyPath(_ keys: [any CodingKey]) -> String {
        keys.reduce("") { path, key in
            key.intValue.map { "\(path)[\($0)]" } ?? (path.isEmpty ? key.stringValue : "\(path).\(key.stringValue)")
        }
    }
}

/// The budget file could not be read.
struct BudgetFileError: Error, CustomStringConvertible {
    let description: String
}
