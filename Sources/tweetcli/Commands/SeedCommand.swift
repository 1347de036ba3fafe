import TweetCore

struct SeedCommand: Command {
    static let name = "seed"
    static let usage = "seed [--users N] [--tweets N] [--likes N] [--follows N] [--seed S]"
    static let summary = "Fill an empty store with demo data (the same S gives the same data)"
    static let createsStore = true

    var options: DemoSeeder.Options

    init(arguments: [String]) throws {
        var list = ArgumentList(arguments, usage: Self.usage)
        let users = try list.number("--users", in: 1...1_000_000) ?? 25
        options = DemoSeeder.Options(
            users: users, tweets: try list.number("--tweets", in: 0...10_000_000),
            likes: try list.number("--likes", in: 0...10_000_000),
            follows: try list.number("--follows", in: 0...10_000),
            seed: UInt64(try list.number("--seed", in: 0...Int.max) ?? 1))
        _ = try list.positionals(atMost: 0)
    }

    func run(_ context: Context) async throws {
        let services = try context.services()
        let viewModel = SeedViewModel(services: services)
        await viewModel.seed(options)
        try check(viewModel.error)
        guard let summary = viewModel.summary else { return }
        try context.emit(
            SeedJSON(summary),
            human: "Seeded \(summary.users) users, \(summary.tweets) tweets (\(summary.replies) replies), "
                + "\(summary.likes) likes and \(summary.follows) follows.\n"
                + "Every demo account's password is \(DemoSeeder.demoPassword). Read the feed with: tweetcli feed\n")
    }
}

struct SeedJSON: Encodable {
    var users, tweets, replies, likes, follows: Int

    init(_ summary: DemoSeeder.Summary) {
        (users, tweets, replies, likes, follows) =
            (summary.users, summary.tweets, summary.replies, summary.likes, summary.follows)
    }
}
