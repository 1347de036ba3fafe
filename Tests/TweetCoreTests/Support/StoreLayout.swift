@testable import TweetCore
@testable import TweetStore
@testable import TweetStoreLocal

/// Where a store's documents sit when a test reads them. The engine must answer the same in each.
enum StoreLayout: String, CaseIterable, Sendable {
    /// Every write still in the journal (and the memtable).
    case journal
    /// Every write folded into segments, read without secondary indexes.
    case segments
    /// Every write folded into segments, read through secondary indexes.
    case indexedSegments
    /// Older writes in indexed segments, the newest ones in the journal.
    case mixed

    /// The engine's fold threshold that gives this layout.
    var foldThreshold: Int {
        switch self {
        case .journal: return 1_000_000
        case .segments, .indexedSegments: return 1
        case .mixed: return 2
        }
    }

    /// Whether the store keeps the indexes it is given.
    var usesIndexes: Bool { self != .segments }
}

extension TestEnvironment {
    /// Opens the default store laid out as `layout`, with `indexes` unless the layout reads without them.
    func makeStore(
        _ layout: StoreLayout, indexes: [IndexDefinition] = AppServices.indexes, directory: String? = nil
    ) throws -> LocalDocumentStore {
        try makeStore(
            directory: directory, indexes: layout.usesIndexes ? indexes : [], foldThreshold: layout.foldThreshold)
    }

    /// Services over the default store laid out as `layout`.
    func makeServices(_ layout: StoreLayout) throws -> AppServices {
        try makeServices(store: makeStore(layout))
    }
}
