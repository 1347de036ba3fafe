import TweetCore
import TweetStore

/// `reindex`: adds to the search index what a store indexed by an older tweetcli lacks, as
/// Mastodon's `tootctl search deploy` rebuilds its index. Maintenance like `compact`: it works on
/// either engine, and nobody need be signed in.
struct ReindexCommand: ArgumentlessCommand {
    static let name = "reindex"
    static let usage = "reindex"
    static let summary =
        "Bring the search index up to date for tweets indexed by an older tweetcli (CJK characters, Korean words)"

    var commits: Bool { true }

    func run(_ context: Context) async throws {
        let viewModel = ReindexViewModel(services: try context.services())
        let progress = ProgressLine("Reindexing", unit: "tweets")
        defer { progress.clear() }
        try await viewModel.reindex { progress.update($0) }
        progress.clear()
        guard let report = viewModel.report else { return }
        let tweets = ProgressLine.grouped(report.tweets) + (report.tweets == 1 ? " tweet" : " tweets")
        try context.emit(
            report,
            human: report.added == 0
                ? "The search index was already complete (\(tweets) checked).\n"
                : "Reindexed \(tweets): \(ProgressLine.grouped(report.added)) "
                    + (report.added == 1 ? "entry" : "entries") + " added.\n")
    }
}
