import FoundationEssentials
import Observation
import Synchronization
import TweetImages
import TweetStore

/// Restoring a backup, or moving a store to another engine: the JSON Lines that `export` prints,
/// read into an empty store in one step, with every document exactly as exported.
@MainActor @Observable
public final class ImportViewModel: ErrorRecording {
    /// How many documents the last import wrote.
    public private(set) var imported = 0
    /// What a merge (``importLines(_:source:merging:)`` with `merging`) found: documents the store
    /// had already, and those it had with other fields, left as they are.
    public private(set) var merge: MergeReport?
    public package(set) var error: (any Error)?

    private let services: AppServices

    public init(services: AppServices) {
        self.services = services
    }

    /// Reads every line of `bytes` (from `source`, as errors name it) and writes the documents.
    /// Nothing is written unless every line is a document and the store is empty; `merging`, into
    /// a store with documents too: only those it does not have are added, and ``merge`` says what
    /// it had already. `progress` hears the documents read so far, every thousand or so, with the
    /// share of `bytes` read, then once more when the store is left to write them.
    /// - Throws: ``ImportError``.
    public func importLines(
        _ bytes: [UInt8], source: String, merging: Bool = false, progress: @escaping ProgressHandler = { _ in }
    ) async throws {
        try await perform {
            let (read, lines, photos) = try Self.documents(in: bytes, source: source, progress: progress)
            let existing = merging ? try await Self.existingAccounts(of: read, in: services.store) : .init()
            let documents = try Self.checked(
                read, lines: lines, photos: photos.map(\.address), source: source, existing: existing)
            progress(WorkProgress(done: documents.count, isFinishing: true))
            // A restore into a store with documents is refused before its photos are kept.
            if !merging { try await requireEmptyStore() }
            // The photos first, each durable before a tweet naming it can be written.
            for photo in photos { try await services.store.putBlob(photo.bytes, address: photo.address) }
            if merging {
                // The new accounts first, each name checked again in the transaction that writes
                // it: the check above read the store before now, and a register in between would
                // otherwise give its name to two accounts.
                let isNewAccount = { (path: DocumentPath) in
                    path.collection == Collections.users && !existing.uids.contains(path.documentID)
                }
                let accounts = documents.filter { isNewAccount($0.0) }
                let lineOf = Dictionary(zip(read.map(\.0), lines), uniquingKeysWith: { first, _ in first })
                let added = try await Self.addAccounts(accounts, store: services.store) { path, reason in
                    ImportError.refused(source: source, line: lineOf[path], reason: reason)
                }
                var report = try await services.store.mergeDocuments(documents.filter { !isNewAccount($0.0) })
                report.added += added.added
                report.unchanged += added.unchanged
                report.conflicts = MergeReport.latest((report.conflicts + added.conflicts).map { ($0, [:]) }).map(\.0)
                // A follow the merge added is in no following list: those of its followers are
                // read from their collections again. (Whatever the merge added: a merge run again
                // after one killed before this point adds nothing, and must still do it.)
                var follows: [String: Set<String>] = [:]
                for (path, _) in documents {
                    guard let follower = FollowingList.follower(inCollection: path.collection) else { continue }
                    follows[follower, default: []].insert(path.documentID)
                }
                try await FollowingList.forgetLacking(follows, store: services.store)
                // A like or a follow the merge added to a tweet or a user the store had: its
                // counter is counted again, so the store keeps agreeing with itself.
                if report.added > 0 {
                    try await CounterRecount(store: services.store).recount(CounterRecount.Targets(of: documents))
                }
                merge = report
                imported = report.added
                return
            }
            do {
                // The users collection is checked again in the import's own step, against a writer
                // who comes in between.
                try await services.store.importDocuments(documents, requiringEmpty: Collections.users)
            } catch StoreError.notEmpty {
                throw ImportError.storeNotEmpty
            }
            imported = documents.count
        }
    }

    /// Reads an export a chunk at a time (`read` gives the next bytes, `nil` at the end) and
    /// writes its documents into an empty store, holding few of them at once (see
    /// ``DocumentStore/importDocuments(requiringEmpty:from:)``): for a backup of any size.
    /// Nothing is written unless every line is a document, each path once, and the store is empty.
    /// `progress` hears the documents read so far, every thousand or so, then once more when the
    /// store is left to write them.
    /// - Throws: ``ImportError``.
    public func importLines(
        source: String, reading read: @escaping @Sendable () throws -> [UInt8]?,
        progress: @escaping ProgressHandler = { _ in }
    ) async throws {
        try await perform {
            try await requireEmptyStore()
            let count = Tally()
            do {
                try await services.store.importDocuments(
                    requiringEmpty: Collections.users,
                    from: Self.lines(
                        of: read, source: source, store: services.store, counting: count, progress: progress))
            } catch StoreError.notEmpty {
                throw ImportError.storeNotEmpty
            } catch StoreError.duplicateDocument(let path) {
                throw ImportError.repeated(source: source, path: path)
            }
            imported = count.value.withLock { $0 }
        }
    }

    /// The documents an import has been handed so far.
    private final class Tally: Sendable {
        let value = Mutex(0)
    }

    /// What hands an import the documents of the lines `read` gives, checking each, and counts them.
    private nonisolated static func lines(
        of read: @escaping @Sendable () throws -> [UInt8]?, source: String, store: any DocumentStore,
        counting count: Tally, progress: @escaping ProgressHandler
    ) -> @Sendable (_ add: (DocumentPath, JSONObject) throws -> Void) async throws -> Void {
        { add in
            var pending: [UInt8] = []
            var number = 0
            var documents = 0
            var rules = ImportRules()
            func emit(_ line: ArraySlice<UInt8>) async throws {
                number += 1
                guard !line.isEmpty else { return }
                let (path, data): (DocumentPath, JSONObject)
                switch try entry(line, source: source, number: number) {
                case .document(let documentPath, let fields): (path, data) = (documentPath, fields)
                case .photo(let address, let bytes):
                    // Kept at once, durable before the documents that name it are written; one
                    // whose import then fails is named by nothing, and removed later.
                    rules.given(photo: address)
                    try await store.putBlob(bytes, address: address)
                    return
                }
                guard try check(path, data, by: &rules, source: source, line: number) == .keep else { return }
                try add(path, data)
                documents += 1
                // Every 1,024 documents, so the hot loop pays nothing measurable for it.
                if documents & 1023 == 0 { progress(WorkProgress(done: documents)) }
            }
            while let chunk = try read() {
                pending += chunk
                var start = pending.startIndex
                while let newline = pending[start...].firstIndex(of: 0x0A) {
                    try await emit(pending[start..<newline])
                    start = newline + 1
                }
                pending.removeSubrange(..<start)
            }
            try await emit(pending[...])
            // Before the producer returns: a problem found now still leaves nothing imported.
            try finish(rules, source: source)
            count.value.withLock { $0 = documents }
            progress(WorkProgress(done: documents, isFinishing: true))
        }
    }

    private struct FoundOne: Error {}

    private func requireEmptyStore() async throws {
        do {
            try await services.store.exportDocuments { batch in if !batch.isEmpty { throw FoundOne() } }
        } catch is FoundOne {
            throw ImportError.storeNotEmpty
        }
    }

    /// The documents of an export's lines, each checked: `{"data": {…}, "path": "collection/id"}`
    /// and nothing else, each path once; with the line of each.
    nonisolated static func documents(
        in bytes: [UInt8], source: String, progress: ProgressHandler = { _ in }
    ) throws -> (
        documents: [(DocumentPath, JSONObject)], lines: [Int], photos: [(address: String, bytes: [UInt8])]
    ) {
        var documents: [(DocumentPath, JSONObject)] = []
        var photos: [(address: String, bytes: [UInt8])] = []
        var numbers: [Int] = []
        var lines: [DocumentPath: Int] = [:]
        var number = 0
        for line in bytes.split(separator: 0x0A, omittingEmptySubsequences: false) {
            number += 1
            if line.isEmpty { continue }
            // Every 1,024 documents, so the loop pays nothing measurable for it.
            if documents.count & 1023 == 1023 {
                progress(
                    WorkProgress(
                        done: documents.count + 1, fraction: Double(line.endIndex) / Double(max(bytes.count, 1))))
            }
            let (path, data): (DocumentPath, JSONObject)
            switch try entry(line, source: source, number: number) {
            case .document(let documentPath, let fields): (path, data) = (documentPath, fields)
            case .photo(let address, let bytes):
                photos.append((address, bytes))
                continue
            }
            if let first = lines[path] {
                throw ImportError.malformed(
                    source: source, line: number, reason: "it repeats the document of line \(first)")
            }
            lines[path] = number
            documents.append((path, data))
            numbers.append(number)
        }
        return (documents, numbers, photos)
    }

    /// `documents`, each checked by ``ImportRules`` in the file's order, without those the rules
    /// leave out (sessions, and password hashes of accounts the store has).
    nonisolated static func checked(
        _ documents: [(DocumentPath, JSONObject)], lines: [Int], photos: [String] = [], source: String,
        existing: ImportRules.Existing
    ) throws -> [(DocumentPath, JSONObject)] {
        var rules = ImportRules(existing: existing)
        for address in photos { rules.given(photo: address) }
        var kept: [(DocumentPath, JSONObject)] = []
        kept.reserveCapacity(documents.count)
        for (index, (path, data)) in documents.enumerated()
        where try check(path, data, by: &rules, source: source, line: lines[index]) == .keep {
            kept.append((path, data))
        }
        try finish(rules, source: source)
        return kept
    }

    /// One document through `rules`, a broken rule as the import's error naming `line`.
    private nonisolated static func check(
        _ path: DocumentPath, _ data: JSONObject, by rules: inout ImportRules, source: String, line: Int
    ) throws -> ImportRules.Verdict {
        do {
            return try rules.check(path, data, line: line)
        } catch {
            throw ImportError.refused(source: source, line: line, reason: error.reason)
        }
    }

    private nonisolated static func finish(_ rules: ImportRules, source: String) throws {
        guard let (line, reason) = rules.finish() else { return }
        throw ImportError.refused(source: source, line: line, reason: reason)
    }

    /// Writes `accounts` (user documents the store did not have when the import was checked) in
    /// one transaction that finds each username and email free again, as `register` does; an
    /// account that is there by now is counted as a merge counts it.
    /// - Throws: `refused(path, reason)` for a name taken since.
    static func addAccounts(
        _ accounts: [(DocumentPath, JSONObject)], store: any DocumentStore,
        refused: @escaping @Sendable (DocumentPath, String) -> ImportError
    ) async throws -> MergeReport {
        guard !accounts.isEmpty else { return MergeReport() }
        let users = store.collection(Collections.users)
        return try await store.runTransaction { transaction in
            var report = MergeReport()
            for (path, data) in accounts {
                if let stored = try await transaction.getDocument(path) {
                    report.count(stored.data, against: data, at: path)
                    continue
                }
                for field in ["username", "email"] {
                    guard case .string(let value)? = data[field],
                        try await !transaction.getDocuments(
                            users.whereField(field, isEqualTo: .string(value)).limit(to: 1)
                        )
                        .isEmpty
                    else { continue }
                    throw refused(path, "\(path): the \(field) \(value) is taken in the store")
                }
                transaction.setData(data, at: path)
                report.added += 1
            }
            return report
        }
    }

    /// What the store has of the accounts `documents` holds: their uids, and the usernames and
    /// emails in use, each found as sign-in finds them (by index, so a merge of a few accounts
    /// into a large store reads a few documents).
    private static func existingAccounts(
        of documents: [(DocumentPath, JSONObject)], in store: any DocumentStore
    ) async throws -> ImportRules.Existing {
        var existing = ImportRules.Existing()
        let users = store.collection(Collections.users)
        for (path, data) in documents where path.collection == Collections.users {
            if try await store.getDocument(path) != nil { existing.uids.insert(path.documentID) }
            for field in ["username", "email"] {
                guard case .string(let value)? = data[field],
                    try await !users.whereField(field, isEqualTo: .string(value)).limit(to: 1).getDocuments().isEmpty
                else { continue }
                if field == "username" { existing.usernames.insert(value) } else { existing.emails.insert(value) }
            }
        }
        return existing
    }

    /// What a line of an export holds.
    enum Entry {
        case document(DocumentPath, JSONObject)
        /// A photo's bytes, checked to be an image as post keeps it, under their SHA-256.
        case photo(address: String, bytes: [UInt8])
    }

    /// One line of an export, checked: a document (`{"data": {…}, "path": "collection/id"}`) or a
    /// photo (`{"blob": "<SHA-256>", "data": "<base64>"}`), and nothing else.
    nonisolated static func entry(_ line: ArraySlice<UInt8>, source: String, number: Int) throws -> Entry {
        func bad(_ reason: String) -> ImportError { .malformed(source: source, line: number, reason: reason) }
        let value: JSONValue
        do {
            // Strictly: a repeated key or a number out of range is refused, never settled quietly.
            value = try JSONValue.parseStrictly(line)
        } catch {
            throw bad("it is not JSON (\(error))")
        }
        if case .object(let fields) = value, fields.count == 2, case .string(let address)? = fields["blob"] {
            guard BlobAddress.isValid(address), case .string(let text)? = fields["data"],
                let data = Data(base64Encoded: text)
            else { throw bad("it is not {\"blob\": \"<SHA-256>\", \"data\": \"<base64>\"}") }
            let bytes = [UInt8](data)
            let checked: CheckedImage
            do {
                checked = try ImageIntake.check(bytes, file: "the photo \(address)")
            } catch {
                throw ImportError.refused(source: source, line: number, reason: error.sentence)
            }
            guard checked.sha256 == address, checked.bytes == bytes else {
                throw ImportError.refused(
                    source: source, line: number,
                    reason: "the photo \(address) is not as post keeps it (its bytes are not what its address says)")
            }
            return .photo(address: address, bytes: bytes)
        }
        let (path, data) = try document(value, bad: bad)
        return .document(path, data)
    }

    private nonisolated static func document(_ value: JSONValue, bad: (String) -> ImportError) throws -> (
        DocumentPath, JSONObject
    ) {
        guard case .object(let fields) = value, fields.count == 2, case .string(let text)? = fields["path"],
            case .object(let data)? = fields["data"]
        else { throw bad("it is not {\"data\": {…}, \"path\": \"collection/id\"}") }
        guard let path = DocumentPath(text) else { throw bad("\(text) is not a document's path") }
        return (path, data)
    }
}

public enum ImportError: Error, Equatable, LocalizedError {
    /// A line of the input is not a document.
    case malformed(source: String, line: Int, reason: String)
    /// A document's path on two lines (found once the file is read; no line number is kept).
    case repeated(source: String, path: String)
    /// The store already has documents.
    case storeNotEmpty
    /// A document breaks a rule the commands keep (``ImportRules``): at `line`, or found once the
    /// whole file is read (a counter that disagrees) when `nil`.
    case refused(source: String, line: Int?, reason: String)

    public var errorDescription: String? {
        switch self {
        case .malformed(let source, let line, let reason):
            return "line \(line) of \(source) is not an exported document: \(reason); nothing was imported"
        case .repeated(let source, let path):
            return "\(source) holds the document \(path) twice; nothing was imported"
        case .refused(let source, let line, let reason):
            let place = line.map { "line \($0) of \(source)" } ?? source
            return "\(place) is refused: \(reason); nothing was imported"
        case .storeNotEmpty:
            return
                "the store is not empty: import restores into an empty store only (--merge adds to one); nothing was imported"
        }
    }
}
