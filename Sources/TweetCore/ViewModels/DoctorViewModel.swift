import FoundationEssentials
import Observation
import TweetStore

/// Checking and repairing a store (`tweetcli doctor`), where its engine offers it.
@MainActor @Observable
public final class DoctorViewModel: ErrorRecording {
    /// What the last check found.
    public private(set) var problems: [StoreProblem] = []
    /// What the last repair did.
    public private(set) var report: RepairReport?
    /// Whether ``compact()`` merged (`false`: another process was merging already).
    public private(set) var compacted: Bool?
    public package(set) var error: (any Error)?

    private let maintenance: any StoreMaintenance

    /// A doctor working through `maintenance`, which works on a store that need not open: that is
    /// what it is for.
    public init(maintenance: any StoreMaintenance) {
        self.maintenance = maintenance
    }

    /// Checks the store; `progress` hears the files checked of all.
    public func check(progress: @escaping ProgressHandler = { _ in }) async throws {
        try await perform { problems = try await maintenance.check(progress: progress) }
    }

    /// Repairs the store; `progress` hears the files done of all.
    public func repair(progress: @escaping ProgressHandler = { _ in }) async throws {
        try await perform { report = try await maintenance.repair(progress: progress) }
    }

    /// Compacts the store; `progress` hears the documents merged so far.
    public func compact(progress: @escaping ProgressHandler = { _ in }) async throws {
        try await perform { compacted = try await maintenance.compact(progress: progress) }
    }
}
