import FoundationEssentials
import TweetCore
import TweetStore
import TweetSystem

#if canImport(Glibc)
    import Glibc
#endif

/// `tweetcli tui`: the course's screens full-screen, on the same view models as the commands,
/// redrawn from their state, and updated when the store changes (the watch `feed --watch` waits
/// on). Home for now: the feed, everyone's or following, with the actions on the selected tweet.
struct TUICommand: Command {
    static let name = "tui"
    static let usage = "tui [--following]"
    static let summary = "Open the full-screen app: move with j/k, act with a key, see new tweets come"
    static let options = [Option("--following", "start on the tweets of the people you follow")]

    var following: Bool

    init(arguments: [String]) throws {
        var list = try Self.arguments(arguments)
        following = try list.flag("--following")
        _ = try list.positionals(atMost: 0)
    }

    func run(_ context: Context) async throws {
        guard context.environment["TERM"] != "dumb" else {
            throw TUIError("tweetcli tui needs a terminal that can move its cursor; TERM=dumb cannot")
        }
        context.drawsNoPictures = true
        let services = try context.services()
        let changes = try services.store.watchChanges()
        let terminal = try RawTerminal()
        defer { terminal.restore() }
        // One account throughout, as an open app is: another terminal's `switch` does not move it.
        try await services.auth.withViewer { try await loop(context, services, changes, terminal) }
    }

    private func loop(
        _ context: Context, _ services: AppServices, _ changes: any StoreChangeWatch, _ terminal: RawTerminal
    ) async throws {
        var app = TUIApp(context: context, services: services, following: following)
        try await app.reload()
        var decoder = KeyDecoder()
        app.draw()
        while !app.quitting {
            var descriptors = [
                pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0),
                pollfd(fd: changes.fileDescriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: terminal.signalDescriptor, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&descriptors, 3, -1)
            if ready < 0 {
                guard errno == EINTR else {
                    throw TUIError("the terminal could not be read: " + String(cString: strerror(errno)))
                }
                continue
            }
            if descriptors[2].revents != 0 {
                for number in terminal.signals() {
                    switch number {
                    case SIGWINCH: app.forgetFrame()
                    case SIGCONT:
                        // The shell that continued the app may have set the terminal its own way
                        // after the app took it back: taken again.
                        try terminal.take()
                        app.forgetFrame()
                    default: app.quitting = true
                    }
                }
            }
            if descriptors[1].revents != 0, try changes.drain() {
                await app.storeChanged()
            }
            if descriptors[0].revents != 0 {
                var buffer = [UInt8](repeating: 0, count: 256)
                let count = buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, 256) }
                if count == 0 { app.quitting = true }
                for key in decoder.keys(from: buffer.prefix(max(0, count))) {
                    await app.handle(key, terminal: terminal)
                    if app.quitting { break }
                }
            }
            if !app.quitting { app.draw() }
        }
    }
}

/// The app's state and actions, between the event loop and the view: it calls the view models
/// and services a command would, and puts their errors in the status line.
@MainActor
struct TUIApp {
    let context: Context
    let services: AppServices
    var view = TimelineView()
    var quitting = false
    private var feed: FeedViewModel
    private var lastFrame: CellGrid?
    private var showingHelp = false
    /// The tweet `d` asked about, deleted by a second `d`.
    private var confirmingDelete: String?

    init(context: Context, services: AppServices, following: Bool) {
        self.context = context
        self.services = services
        view.following = following
        feed = FeedViewModel(services: services, source: following ? .following : .everyone)
    }

    /// How many tweets a page reads: the first, each further one, and a look for new ones.
    static let page = 50

    /// Reads the newest page again, from the top.
    mutating func reload() async throws {
        try await context.loadPage {
            try await feed.fetchTweets(limit: Self.page)
            return feed.tweets
        }
        view.tweets = feed.tweets
        view.waiting = []
        view.hasMore = feed.hasMore
        view.unreadNotifications = feed.unreadNotifications
        view.selected = 0
        view.top = 0
    }

    /// The store changed: the newest page again, merged into what is shown without moving it.
    mutating func storeChanged() async {
        do {
            try await context.loadPage {
                try await feed.fetchTweets(limit: max(Self.page, view.tweets.count))
                return feed.tweets
            }
            view.merge(newest: feed.tweets)
            view.unreadNotifications = feed.unreadNotifications
        } catch {
            report(error)
        }
    }

    /// The next page, when the selection reaches the last tweet loaded.
    private mutating func loadOlder() async {
        guard view.hasMore, let last = view.tweets.last else { return }
        do {
            try await context.loadPage {
                try await feed.fetchTweets(limit: Self.page, before: last.cursor)
                return feed.tweets
            }
            let known = Set(view.tweets.map(\.cursor))
            view.tweets += feed.tweets.filter { !known.contains($0.cursor) }
            view.hasMore = feed.hasMore
        } catch {
            report(error)
        }
    }

    mutating func handle(_ key: Key, terminal: RawTerminal) async {
        if showingHelp {
            showingHelp = false
            return
        }
        if key != .character("d") { confirmingDelete = nil }
        let pageStep = max(1, (RawTerminal.size().height - 4) / 6)
        switch key {
        case .character("q"), .control("c"): quitting = true
        case .character("j"), .down: view.move(by: 1)
        case .character("k"), .up: view.move(by: -1)
        case .pageDown, .character(" "): view.move(by: pageStep)
        case .pageUp: view.move(by: -pageStep)
        case .character("g"), .home: view.move(by: -view.tweets.count)
        case .character("G"), .end: view.move(by: view.tweets.count)
        case .character("."): view.showWaiting()
        case .character("?"): showingHelp = true
        case .character("f"):
            view.following.toggle()
            feed.source = view.following ? .following : .everyone
            do { try await reload() } catch { report(error) }
            view.status = .dim(view.following ? "Following: you and the people you follow." : "Everyone's tweets.")
        case .character("l"):
            await act { row, tweet in
                if tweet.didLike == true { try await row.unlikeTweet() } else { try await row.likeTweet() }
                return tweet.didLike == true ? "Unliked." : "Liked."
            }
        case .character("r"):
            await act { row, tweet in
                if tweet.didRetweet == true { try await row.unretweet() } else { try await row.retweet() }
                return tweet.didRetweet == true ? "Retweet undone." : "Retweeted."
            }
        case .character("b"):
            await act { row, _ in
                try await row.bookmark()
                return "Bookmarked; see them with: tweetcli bookmarks"
            }
        case .character("d"):
            guard let tweet = view.selectedTweet else { return }
            guard confirmingDelete == tweet.id else {
                confirmingDelete = tweet.id
                view.status = .styled(
                    "Delete this tweet? Press d again to delete it, any other key to keep it.", .error)
                return
            }
            confirmingDelete = nil
            await act { row, _ in
                try await row.loadForDeleting()
                try await row.deleteTweet()
                return "Deleted."
            }
        case .character("y"):
            if let tweet = view.selectedTweet { view.status = "ID: \(tweet.id)" }
        case .character("n"): await compose(terminal)
        case .control("z"):
            do { try terminal.suspend() } catch { quitting = true }
            forgetFrame()
        case .control("l"): forgetFrame()
        default: break
        }
        if view.selected >= view.tweets.count - 3 { await loadOlder() }
    }

    /// Runs an action on the selected tweet through its row's view model, as the commands do,
    /// then reads the page again so the counts are the store's.
    private mutating func act(_ body: (TweetRowViewModel, Tweet) async throws -> String) async {
        guard let tweet = view.selectedTweet else { return }
        let row = TweetRowViewModel(tweetID: tweet.id, services: services)
        do {
            view.status = .dim(try await body(row, tweet))
        } catch {
            report(error)
        }
        await storeChanged()
    }

    /// `n`: the composer `post` opens ($EDITOR), with the terminal given back meanwhile.
    private mutating func compose(_ terminal: RawTerminal) async {
        terminal.restore()
        defer {
            // A terminal that cannot be taken back ends the app rather than leave it cooked.
            do { try terminal.take() } catch { quitting = true }
            forgetFrame()
        }
        let composer = Composer(context: context)
        let upload = UploadTweetViewModel(services: services)
        var caption = ""
        do {
            caption = try composer.compose(replyTo: nil, fromDraft: false)
            guard !caption.trimmed().isEmpty else {
                view.status = .dim("Nothing posted.")
                return
            }
            try await upload.uploadTweet(withCaption: caption)
            composer.discardDraft()
            view.status = .dim("Posted.")
            try await reload()
        } catch {
            if composer.isComposing { _ = composer.keepDraft(caption, after: error) }
            report(error)
        }
    }

    private mutating func report(_ error: any Error) {
        view.status = .styled(ErrorPresenter.present(error, options: context.options).message, .error)
    }

    /// The next draw writes the whole screen: after a resize, a suspension or the editor.
    mutating func forgetFrame() { lastFrame = nil }

    /// Lays the view out at the window's size and writes what changed since the last frame.
    mutating func draw() {
        let size = RawTerminal.size()
        let grid = view.layout(
            width: size.width, height: size.height, renderer: context.tweetRenderer, showingHelp: showingHelp)
        let bytes = grid.changes(from: lastFrame, color: context.color)
        if !bytes.isEmpty { Output.write(bytes, to: STDOUT_FILENO) }
        lastFrame = grid
    }
}
