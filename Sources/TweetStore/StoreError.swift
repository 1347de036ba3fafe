import FoundationEssentials

/// What can go wrong in the document store.
public enum StoreError: Error, Equatable, LocalizedError {
    /// The store's directory or a file in it could not be opened or created.
    case cannotOpen(path: String, reason: String)
    /// Reading or writing a store file failed.
    case io(path: String, reason: String)
    /// A record in a store file is damaged (bad checksum, bad JSON, bad shape).
    case corruptRecord(file: String, line: Int, reason: String)
    /// A store file was written by a newer (or unknown) format version.
    case unsupportedFormat(file: String, version: String)
    /// A document's fields do not decode as the model they should hold.
    case undecodable(path: String, reason: String)
    /// An update named a document that does not exist.
    case documentNotFound(path: String)
    /// There is no store in the directory, and this use of it may not create one.
    case noStore(path: String)
    /// Another process has held the store's lock longer than a command waits (`holder` names it
    /// when the system says, "pid 4242 (tweetcli)").
    case busy(path: String, holder: String?)
    /// An import required an empty collection and found a document in it.
    case notEmpty(collection: String)
    /// An import was given the same document's path twice.
    case duplicateDocument(path: String)
    /// A blob's address is not a SHA-256 in lower-case hex.
    case invalidBlobAddress(String)

    /// How long an engine waits for a store another process holds before it reports ``busy(path:holder:)``.
    package static let busyAfter: TimeInterval = 5

    public var errorDescription: String? {
        switch self {
        case .cannotOpen(let path, let reason):
            return "cannot open the store at \(path): \(reason)"
        case .io(let path, let reason):
            return "cannot read or write \(path): \(reason)"
        case .corruptRecord(let file, let line, let reason):
            let place = line > 0 ? " at line \(line)" : ""
            return "the store file \(file) is damaged\(place) (\(reason))"
        case .unsupportedFormat(let file, let version):
            return "the store file \(file) has format \(version), which this version cannot read"
        case .undecodable(let path, let reason):
            return "the document \(path) is damaged: \(reason)"
        case .documentNotFound(let path):
            return "there is no document at \(path)"
        case .noStore(let path):
            return "there is no store at \(path) yet"
        case .busy(let path, let holder):
            return "the store at \(path) is busy: \(holder ?? "another process") has held it for over "
                + "\(Int(StoreError.busyAfter)) seconds; if it is stopped, resume or end it"
        case .notEmpty(let collection):
            return "the collection \(collection) is not empty"
        case .duplicateDocument(let path):
            return "the document \(path) is given twice"
        case .invalidBlobAddress(let address):
            return "\(address.prefix(80)) is not a blob's address (64 lower-case hex digits)"
        }
    }
}
