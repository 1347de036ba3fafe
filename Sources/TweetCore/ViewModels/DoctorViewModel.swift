import Foundation
import Observation

/// Checking and repairing a store's files (`tweetcli doctor`).
@MainActor @Observable
public final class DoctorViewModel {
    /// What the last check found.
    public private(set) var problems: [StoreProblem] = []
    /// What the last repair did.
    public private(set) var report: RepairReport?
    public private(set) var error: (any Error)?

    private let doctor: StoreDoctor

    /// A doctor for the store in `storeDirectory`, which need not open: that is what it is for.
    public init(storeDirectory: String) {
        doctor = StoreDoctor(directory: storeDirectory, indexes: AppServices.indexes)
    }

    public func check() async {
        error = nil
        do { problems = try doctor.check() } catch { self.error = error }
    }

    public func repair() async {
        error = nil
        do { report = try doctor.repair() } catch { self.error = error }
    }
}
