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
    /// What the last ``audit(progress:)`` found in the store's documents.
    public private(set) var auditProblems: [AuditProblem] = []
    /// What the last ``repairAudit(progress:)`` did.
    public private(set) var auditRepair: AuditRepair?
    /// What the last ``collectPhotos(_:grace:progress:)`` removed.
    public private(set) var photoCollection: PhotoCollection?
    /// Whether ``compact()`` merged (`false`: another process was merging already).
    public private(set) var compacted: Bool?
    public package(set) var error: (any Error)?

    private let maintenance: (any StoreMaintenance)?

    /// A doctor working through `maintenance` (the engine's files; `nil` for an engine that keeps
    /// its own, as PostgreSQL does), which works on a store that need not open: that is what it is for.
    public init(maintenance: (any StoreMaintenance)?) {
        self.maintenance = maintenance
    }

    /// Checks the store; `progress` hears the files checked of all.
    public func check(progress: @escaping ProgressHandler = { _ in }) async throws {
        try await perform { problems = try await maintenance?.check(progress: progress) ?? [] }
    }

    /// Repairs the store; `progress` hears the files done of all.
    public func repair(progress: @escaping ProgressHandler = { _ in }) async throws {
        try await perform { report = try await maintenance?.repair(progress: progress) ?? RepairReport() }
    }

    /// Compacts the store; `progress` hears the documents merged so far.
    public func compact(progress: @escaping ProgressHandler = { _ in }) async throws {
        try await perform { compacted = try await maintenance?.compact(progress: progress) ?? false }
    }

    /// Checks the store's documents against the rules the commands keep (``StoreAudit``): a
    /// second account under a name in use, a session of no account, a counter that disagrees.
    /// `progress` hears the documents read so far.
    public func audit(_ services: AppServices, progress: @escaping ProgressHandler = { _ in }) async throws {
        try await perform { auditProblems = try await StoreAudit(store: services.store).check(progress: progress) }
    }

    /// Removes the photos no tweet or profile names any more, once `grace` seconds old (by
    /// default an hour: a post in flight has put its photo but not yet its tweet).
    public func collectPhotos(
        _ services: AppServices, grace: Int? = nil, progress: @escaping ProgressHandler = { _ in }
    ) async throws {
        try await perform {
            photoCollection = try await StoreAudit(store: services.store).collectUnnamedPhotos(
                grace: grace ?? StoreAudit.photoGraceSeconds, progress: progress)
        }
    }

    /// Repairs what the audit finds and can be repaired without choosing between people.
    public func repairAudit(_ services: AppServices, progress: @escaping ProgressHandler = { _ in }) async throws {
        try await perform { auditRepair = try await StoreAudit(store: services.store).repair(progress: progress) }
    }
}
