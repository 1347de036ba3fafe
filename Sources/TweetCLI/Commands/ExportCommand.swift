import Foundation
import TweetCore
import TweetStore

struct ExportCommand: Command {
    static let name = "export"
    static let usage = "export"
    static let summary = "Print every document as JSON Lines: {\"data\":{…},\"path\":\"collection/id\"}"

    init(arguments: [String]) throws {
        var list = try Self.arguments(arguments)
        _ = try list.positionals(atMost: 0)
    }

    func run(_ context: Context) async throws {
        let viewModel = ExportViewModel(services: try context.services())
        try await viewModel.export { try Output.write(bytes: $0) }
    }
}
