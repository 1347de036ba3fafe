import Testing
import TweetCore
import TweetStore

/// A term's buckets hold sorted IDs, each bucket's all before the next one's start, and its
/// `open` bucket, when it names one, is the newest: what search's order and posts rely on.
package func expectBucketsApartAndOpenNewest(_ term: String, _ store: any DocumentStore) async throws {
    let buckets = try await store.collection(SearchIndex.bucketsCollection(term)).order(by: "start")
        .getDocuments()
    var previous: String?
    var total = 0
    for bucket in buckets {
        let ids = SearchIndex.ids(bucket.data)
        total += ids.count
        #expect(ids == ids.sorted(by: ByteOrder.precedes) && bucket.data["start"]?.stringValue == ids.first)
        if let previous, let first = ids.first { #expect(ByteOrder.precedes(previous, first), "\(term) overlaps") }
        previous = ids.last
    }
    let fields = try await store.getDocument(SearchIndex.termPath(term))?.data
    #expect(fields?["tweets"]?.integerValue == Int64(total))
    if let open = fields?["open"]?.stringValue {
        #expect(open == buckets.last?.documentID, "\(term)'s open bucket")
    }
}
