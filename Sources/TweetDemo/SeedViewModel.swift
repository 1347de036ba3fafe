import FoundationEssentials
import Observation
import TweetCore
import TweetStore

/// Filling a demo store, so a first run has a feed to show.
@MainActor @Observable
public final class SeedViewModel: ErrorRecording {
    public private(set) var summary: DemoSeeder.Summary?
    public package(set) var error: (any Error)?

    private let services: AppServices

    public init(services: AppServices) {
        self.services = services
    }

    /// Seeds the store with `options`; `progress` hears how far the making has come (see
    /// ``DemoSeeder/seed(_:progress:)``).
    public func seed(_ options: DemoSeeder.Options, progress: @escaping ProgressHandler = { _ in }) async throws {
        try await perform {
            summary = try await DemoSeeder(store: services.store).seed(options, progress: progress)
        }
    }
}
