import FoundationEssentials
import Synchronization
import TweetImages
import TweetStore

/// What ``StoreAudit`` found wrong in a store's documents.
public enum AuditProblem: Equatable, Sendable, CustomStringConvertible {
    /// A document breaks a rule the commands keep (a second account with a username in use, a
    /// field of the wrong type): what `import` refuses.
    case document(path: String, reason: String)
    /// A session whose account is gone or has no password: nobody signed in to make it.
    case sessionWithoutAccount(path: String)
    /// A kind of counter disagrees with what it counts somewhere in the store.
    case counter(String)
    /// A photo (or thumbnail, or picture) a document names is missing, or its bytes are not what
    /// its address says (`damaged`).
    case photo(address: String, reason: String, damaged: Bool = false)

    public var description: String {
        switch self {
        case .document(_, let reason): reason
        case .sessionWithoutAccount(let path): "\(path) is a session of no account with a password"
        case .counter(let sentence): sentence
        case .photo(let address, let reason, _): "the photo \(address) \(reason)"
        }
    }
}

/// What ``StoreAudit/collectUnnamedPhotos(grace:progress:)`` removed, or what stopped it.
public struct PhotoCollection: Equatable, Sendable {
    public var removed = 0
    public var bytes = 0
    /// A document that breaks a rule, which might name a photo: nothing is removed until it is mended.
    public var stoppedBy: AuditProblem?
}

/// What ``StoreAudit/repair(progress:)`` did, and what it left for a person.
public struct AuditRepair: Equatable, Sendable {
    /// Each change made, in a sentence.
    public var repaired: [String] = []
    /// Each problem left, with what to do about it.
    public var unrepaired: [String] = []
}

/// `doctor`'s check of the app's invariants, on either engine: every document of the store through
/// the rules `import` keeps (``ImportRules``), so a store that an older import damaged is found.
/// The engine's own files are checked apart (``StoreMaintenance``).
package struct StoreAudit: Sendable {
    let store: any DocumentStore

    package init(store: any DocumentStore) {
        self.store = store
    }

    /// Every problem found, in path order, reading the store once in bounded memory.
    package func check(progress: @escaping ProgressHandler = { _ in }) async throws -> [AuditProblem] {
        let (problems, photos) = try await documentProblems(progress: progress)
        return problems + (try await checkPhotos(photos))
    }

    /// How long a photo no document names is kept before a collection removes it: long enough
    /// for any post, import or restore that has put it to write the document that names it.
    package static let photoGraceSeconds = 3600

    /// Removes the photos no document names (their last tweet deleted, an avatar replaced, an
    /// import that was cut short), once they are `grace` seconds old. Only from a store whose
    /// documents all keep the rules: a document that breaks one might name a photo unseen.
    package func collectUnnamedPhotos(
        grace: Int = photoGraceSeconds, progress: @escaping ProgressHandler = { _ in }
    ) async throws -> PhotoCollection {
        let (problems, named) = try await documentProblems(progress: progress)
        if let problem = problems.first(where: { if case .document = $0 { true } else { false } }) {
            return PhotoCollection(stoppedBy: problem)
        }
        let unnamed = Set(try await store.blobAddresses()).subtracting(named)
        let (count, bytes) = try await store.removeBlobs(unnamed.sorted(), putBefore: grace)
        return PhotoCollection(removed: count, bytes: bytes)
    }

    /// The documents' problems, and the photos they name.
    private func documentProblems(progress: @escaping ProgressHandler) async throws -> ([AuditProblem], [String]) {
        let passwordsOnServer = try await (store as? any AccountServer)?.keepsAccounts() ?? false
        let state = Mutex(
            (
                rules: ImportRules(auditing: true, passwordsOnServer: passwordsOnServer), problems: [AuditProblem](),
                documents: 0
            ))
        try await store.exportDocuments { batch in
            let done = state.withLock { (state: inout (rules: ImportRules, problems: [AuditProblem], documents: Int)) in
                for document in batch {
                    state.documents += 1
                    do throws(ImportRules.Violation) {
                        _ = try state.rules.check(document.path, document.data, line: state.documents)
                    } catch {
                        state.problems.append(.document(path: document.path.description, reason: error.reason))
                    }
                }
                return state.documents
            }
            progress(WorkProgress(done: done))
        }
        return state.withLock { state in
            (
                state.problems + state.rules.sessionsWithoutAccount.map { .sessionWithoutAccount(path: $0) }
                    + state.rules.disagreeingCounters.map { .counter($0.disagreement) },
                state.rules.namedPhotos
            )
        }
    }

    /// Each photo named, read and hashed again: one at a time, so memory holds one photo.
    private func checkPhotos(_ addresses: [String]) async throws -> [AuditProblem] {
        var problems: [AuditProblem] = []
        for address in addresses {
            guard let bytes = try await store.getBlob(address) else {
                problems.append(.photo(address: address, reason: "is named but missing"))
                continue
            }
            if try ImageIntake.sha256(bytes) != address {
                problems.append(
                    .photo(
                        address: address, reason: "is damaged: its bytes are not what its address says", damaged: true))
            }
        }
        return problems
    }

    /// Repairs what can be repaired without choosing between people: sessions of no account are
    /// ended, what hangs on a tweet that is gone is settled as deleting it would have, and counters
    /// are counted again from what they count. A second account under a name
    /// in use, and any other document that breaks a rule, is left for a person to decide.
    package func repair(progress: @escaping ProgressHandler = { _ in }) async throws -> AuditRepair {
        var report = AuditRepair()
        let problems = try await check(progress: progress)
        for problem in problems {
            switch problem {
            case .sessionWithoutAccount(let path):
                guard let documentPath = DocumentPath(path) else { continue }
                try await store.runTransaction { $0.deleteDocument(documentPath) }
                report.repaired.append("ended \(path), a session of no account with a password")
            case .document(let path, let reason):
                report.unrepaired.append(
                    "\(reason) (\(path) needs a person's decision: edit or delete it, then run doctor again)")
            case .counter:
                continue
            case .photo(let address, _, let damaged):
                // A damaged photo is set aside, so that nothing draws its bytes and a post or a
                // restore of the right ones writes it anew; it is still missing until one does.
                // Read again first: an import --merge may have mended it since the check.
                if damaged, let bytes = try await store.getBlob(address), try ImageIntake.sha256(bytes) != address,
                    try await store.setBlobAside(address)
                {
                    report.repaired.append("set the damaged photo \(address) aside")
                }
                report.unrepaired.append(
                    "\(problem) (restore it from a backup with import --merge, or delete the tweet that names it)")
            }
        }
        if problems.contains(where: { if case .counter = $0 { true } else { false } }) {
            let recount = CounterRecount(store: store)
            report.repaired += try await recount.settleOrphans()
            report.repaired += try await recount.recount()
            for counter in try await check().compactMap({ if case .counter(let text) = $0 { text } else { nil } }) {
                report.unrepaired.append("\(counter), and counting again did not mend it")
            }
        }
        return report
    }
}
