import Foundation
import Synchronization
import Testing
import TweetCore
import TweetStore
import TweetTestSupport
import TwitterText

/// `reindex` on every engine: a store indexed before characters and particle-less Korean words
/// were terms gets them, and a store that lacks nothing is left exactly as it was.
struct ReindexTests {
    let env: TestEnvironment

    init() throws {
        env = try TestEnvironment()
    }

    /// Captions, and the terms an index written before characters and Korean stems lacks for
    /// each. The last one is a lone character, a term the older index had too, so `猫` has a
    /// bucket holding a newer tweet than the one a reindex adds to it.
    static let captions: [(caption: String, newTerms: [String])] = [
        ("猫が好きです", ["猫", "が", "好", "き", "で", "す"]), ("고양이를 좋아해요", ["고양이", "고양"]),
        ("I like cats #pets", []), ("猫", []),
    ]

    @Test(arguments: StoreLayout.allCases)
    func aReindexAddsWhatAnOlderIndexLacksAndThenChangesNothing(_ layout: StoreLayout) async throws {
        let services = try env.makeServices(layout)
        let ada = try await env.addUser("ada", to: services)
        var posted: [Tweet] = []
        for (caption, newTerms) in Self.captions {
            let tweet = try await env.post(caption, as: ada, in: services)
            let terms = SearchTerms.terms(caption: caption, entities: TweetText.entities(in: caption))
            #expect(Set(newTerms).isSubset(of: terms), "\(caption)")
            for term in newTerms { try await forget(tweet.id, term: term, in: services.store) }
            posted.append(tweet)
        }
        let forgotten = Self.captions.map(\.newTerms.count).reduce(0, +)
        #expect(try await services.tweets.search("猫").map(\.id) == [posted[3].id])
        #expect(try await services.tweets.search("고양이").isEmpty)
        let trends = try await documents(in: "trend-hours", of: services.store)

        // Small transactions, so the additions span several: the first holds only the Japanese
        // tweet, whose terms exceed the five a transaction may check, of the three it reads.
        let report = try await services.tweets.reindex(batchSize: 3, termsPerTransaction: 5)
        #expect(report == ReindexReport(tweets: 4, added: forgotten))
        #expect(try await services.tweets.search("猫").map(\.id) == [posted[3].id, posted[0].id])
        #expect(try await services.tweets.search("好").map(\.id) == [posted[0].id])
        #expect(try await services.tweets.search("고양이").map(\.id) == [posted[1].id])
        #expect(try await services.tweets.search("cats").map(\.id) == [posted[2].id])
        #expect(try await documents(in: "trend-hours", of: services.store) == trends)
        let terms = try await documents(in: "terms", of: services.store).map(\.documentID)
        for term in terms { try await expectBucketsApartAndOpenNewest(term, services.store) }

        let before = try await exported(services.store)
        #expect(try await services.tweets.reindex(batchSize: 3) == ReindexReport(tweets: 4, added: 0))
        #expect(try await services.tweets.reindex() == ReindexReport(tweets: 4, added: 0))
        #expect(try await exported(services.store) == before)
    }

    @Test(arguments: StoreLayout.allCases)
    func aStoreIndexedByThisVersionGetsNoWrite(_ layout: StoreLayout) async throws {
        let services = try env.makeServices(layout)
        let ada = try await env.addUser("ada", to: services)
        for caption in Self.captions.map(\.caption) + ["明日東京に行きます #旅行", "우리 고양이"] {
            _ = try await env.post(caption, as: ada, in: services)
        }
        let before = try await exported(services.store)
        #expect(try await services.tweets.reindex(batchSize: 4) == ReindexReport(tweets: 6, added: 0))
        #expect(try await exported(services.store) == before)
    }

    @Test func anEmptyStoreHasNothingToReindex() async throws {
        let services = try env.makeServices(.journal)
        #expect(try await services.tweets.reindex() == ReindexReport(tweets: 0, added: 0))
    }

    @Test func aTweetWithoutACaptionIsAnErrorThatNamesIt() async throws {
        let services = try env.makeServices(.journal)
        let path = DocumentPath(collection: "tweets", documentID: "broken")
        try await services.store.setData(["caption": .integer(5)], at: path)
        await #expect(throws: StoreError.undecodable(path: "tweets/broken", reason: "field caption is not a String")) {
            try await services.tweets.reindex()
        }
    }

    /// Takes `tweetID` out of `term`'s buckets and count, as an index written before the term was
    /// one lacks it (the way deleting the tweet takes it out of one term).
    private func forget(_ tweetID: String, term: String, in store: any DocumentStore) async throws {
        try await store.runTransaction { transaction in
            let buckets = try await transaction.getDocuments(
                store.collection(SearchIndex.bucketsCollection(term)).query)
            let holder = try #require(buckets.first { SearchIndex.ids($0.data).contains(tweetID) })
            let ids = SearchIndex.ids(holder.data).filter { $0 != tweetID }
            let path = SearchIndex.termPath(term)
            var fields = try #require(try await transaction.getDocument(path)?.data)
            if ids.isEmpty {
                transaction.deleteDocument(holder.path)
                if fields["open"]?.stringValue == holder.documentID { fields["open"] = nil }
            } else {
                var kept = SearchIndex.bucket(ids)
                kept["start"] = holder.data["start"]
                transaction.setData(kept, at: holder.path)
                if fields["open"]?.stringValue == holder.documentID { fields["openSize"] = .integer(Int64(ids.count)) }
            }
            let count = (fields["tweets"]?.integerValue ?? 1) - 1
            if count > 0 {
                fields["tweets"] = .integer(count)
                transaction.setData(fields, at: path)
            } else {
                transaction.deleteDocument(path)
            }
        }
    }

    private func documents(in collection: String, of store: any DocumentStore) async throws -> [DocumentSnapshot] {
        try await store.collection(collection).query.getDocuments()
    }

    /// Every document, as `export` prints them.
    private func exported(_ store: any DocumentStore) async throws -> [UInt8] {
        let bytes = Mutex<[UInt8]>([])
        try await store.exportDocuments { batch in
            bytes.withLock { bytes in
                for document in batch { bytes += ExportViewModel.line(document) }
            }
        }
        return bytes.withLock { $0 }
    }
}
