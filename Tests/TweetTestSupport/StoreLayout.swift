import TweetCore
import TweetStore
import TweetStoreLocal
import TweetStorePostgres

/// Where a store's documents sit when a test reads them: the local engine's layouts, and the
/// PostgreSQL engine when a cluster can run here. Every engine must answer the same in each.
package enum StoreLayout: String, CaseIterable, Sendable {
    /// Every write still in the journal (and the memtable).
    case journal
    /// Every write folded into segments, read without secondary indexes.
    case segments
    /// Every write folded into segments, read through secondary indexes.
    case indexedSegments
    /// Older writes in indexed segments, the newest ones in the journal.
    case mixed
    /// A PostgreSQL server (``PostgresCluster``), in a schema of the test's own.
    case postgres

    /// The local layouts, and PostgreSQL when its cluster runs.
    package static var allCases: [StoreLayout] { localCases + (PostgresCluster.isAvailable ? [.postgres] : []) }

    package static let localCases: [StoreLayout] = [.journal, .segments, .indexedSegments, .mixed]

    /// The engine's fold threshold that gives this layout.
    package var foldThreshold: Int {
        switch self {
        case .journal: return 1_000_000
        case .segments, .indexedSegments: return 1
        case .mixed: return 2
        case .postgres: return 128
        }
    }

    /// Whether the store keeps the indexes it is given.
    package var usesIndexes: Bool { self != .segments }
}

extension TestEnvironment {
    /// Opens the default store laid out as `layout`, with `indexes` unless the layout reads without them.
    package func makeStore(
        _ layout: StoreLayout, indexes: [IndexDefinition] = AppServices.indexes, directory: String? = nil
    ) throws -> any DocumentStore {
        if layout == .postgres {
            // The same directory gives the same schema: a second store there is another process's view.
            let location = try postgresLocation(for: directory ?? storeDirectory)
            return PostgresDocumentStore(
                location: try PostgresLocation(location), indexes: indexes, clock: clock.reading)
        }
        return try makeStore(
            directory: directory, indexes: layout.usesIndexes ? indexes : [], foldThreshold: layout.foldThreshold)
    }

    /// Services over the default store laid out as `layout`.
    package func makeServices(_ layout: StoreLayout) throws -> AppServices {
        try makeServices(store: makeStore(layout))
    }
}
