import Foundation
import TweetCore
import TweetStore
import TweetStoreLocal
import TweetStorePostgres

extension CLIRunner {
    /// Writes documents straight into the runner's store, past every check a command or an import
    /// makes: a store damaged by an older version or by hand, as a test of reading one needs it.
    /// Each is the JSON of its fields, by path.
    package func plant(_ documents: [(path: String, json: String)]) async throws {
        let store: any DocumentStore =
            location.hasPrefix("postgresql:")
            ? PostgresDocumentStore(location: try PostgresLocation(location), indexes: AppServices.indexes)
            : try LocalDocumentStore(directory: location, indexes: AppServices.indexes)
        var writes: [(DocumentPath, JSONObject)] = []
        for (path, json) in documents {
            guard let documentPath = DocumentPath(path),
                case .object(let fields) = try JSONValue.parse(Array(json.utf8))
            else { throw PlantError(path: path) }
            writes.append((documentPath, fields))
        }
        let planted = writes
        try await store.runTransaction { transaction in
            for (path, fields) in planted { transaction.setData(fields, at: path) }
        }
    }

    /// A document to plant that is not a path and an object.
    package struct PlantError: Error {
        package var path: String
    }
}
