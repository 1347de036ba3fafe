import FoundationEssentials

/// One problem found in a store's files.
public struct StoreProblem: Equatable, Sendable, CustomStringConvertible {
    /// The damaged file.
    public var file: String
    /// The line (1-based), when the problem is one record.
    public var line: Int?
    public var reason: String
    /// Whether ``StoreMaintenance/repair()`` can fix it.
    public var isRepairable: Bool

    public init(file: String, line: Int? = nil, reason: String, isRepairable: Bool) {
        self.file = file
        self.line = line
        self.reason = reason
        self.isRepairable = isRepairable
    }

    public var description: String { line.map { "\(file) line \($0): \(reason)" } ?? "\(file): \(reason)" }
}

/// What ``StoreMaintenance/repair()`` did.
public struct RepairReport: Equatable, Sendable {
    /// The problems fixed.
    public var repaired: [StoreProblem] = []
    /// The problems left, which need a backup or a newer tweetcli.
    public var unrepaired: [StoreProblem] = []
    /// Side files that now hold every removed byte.
    public var sideFiles: [String] = []

    public init(repaired: [StoreProblem] = [], unrepaired: [StoreProblem] = [], sideFiles: [String] = []) {
        self.repaired = repaired
        self.unrepaired = unrepaired
        self.sideFiles = sideFiles
    }
}

/// Checking and repairing a store's own files: a capability an engine may offer beside
/// ``DocumentStore`` (the local engine's doctor does; a server keeps its own data safe).
public protocol StoreMaintenance: Sendable {
    /// Every problem found; empty for a healthy store.
    func check() async throws -> [StoreProblem]
    /// ``check()``, telling `progress` the files checked of all, as each is done.
    func check(progress: @escaping ProgressHandler) async throws -> [StoreProblem]
    /// Fixes what ``check()`` finds that can be fixed, keeping every intact record.
    func repair() async throws -> RepairReport
    /// ``repair()``, telling `progress` the files checked and repaired of all, as each is done.
    func repair(progress: @escaping ProgressHandler) async throws -> RepairReport
    /// Merges the store's files as its layout wants, now, without keeping readers or writers waiting.
    /// - Returns: `false` when another process is doing it already (or there is nothing to merge in).
    func compact() async throws -> Bool
    /// ``compact()``, telling `progress` the documents merged so far, every few thousand.
    func compact(progress: @escaping ProgressHandler) async throws -> Bool
}

extension StoreMaintenance {
    /// Engines that cannot tell how far they are check without saying.
    public func check(progress: @escaping ProgressHandler) async throws -> [StoreProblem] { try await check() }

    /// Engines that cannot tell how far they are repair without saying.
    public func repair(progress: @escaping ProgressHandler) async throws -> RepairReport { try await repair() }

    /// Engines that cannot tell how far they are compact without saying.
    public func compact(progress: @escaping ProgressHandler) async throws -> Bool { try await compact() }
}
