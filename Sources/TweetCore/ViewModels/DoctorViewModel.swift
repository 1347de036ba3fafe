import Foundation
import Observation

/// Checking and repairing a store's files (`tweetcli doctor`).
@MainActor @Observable
public final class DoctorViewModel: ErrorRecording {
    /// What the last check found.
    public private(set) var problems: [StoreProblem] = []
    /// What the last repair did.
    public private(set) var report: RepairReport?
    public internal(set) var error: (any Error)?

    private let doctor: StoreDoctor

    /// A doctor for the store in `storeDirectory`, which need not open: that is what it is for.
    public init(storeDirectory: String) {
        doctor = StoreDoctor(directory: storeDirectory, indexes: AppServices.indexes)
    }

    public func check() async throws {
        try await perform { problems = try doctor.check() }
    }

    public func repair() async throws {
        try await perform { report = try doctor.repair() }
    }
}
