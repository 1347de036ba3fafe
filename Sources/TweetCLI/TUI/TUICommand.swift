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
        context.drawsBlocksOnly = true
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
        await app.open(.home, replacing: true)
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
                    default:
                        if let sheet = app.sheet { app.closeComposer(keeping: sheet) }
                        app.quitting = true
                    }
                }
            }
            if descriptors[1].revents != 0, try changes.drain() {
                await app.storeChanged()
            }
            if descriptors[0].revents != 0 {
                var buffer = [UInt8](repeating: 0, count: 256)
                let count = buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, 256) }
                // The terminal gone (closed, or an error reading it) ends the app: poll would
                // otherwise say it is readable again at once, for ever.
                if count == 0 || (count < 0 && errno != EINTR && errno != EAGAIN) {
                    if let sheet = app.sheet { app.closeComposer(keeping: sheet) }
                    app.quitting = true
                }
                for key in decoder.keys(from: buffer.prefix(max(0, count))) {
                    await app.handle(key, terminal: terminal)
                    if app.quitting { break }
                }
            }
            if !app.quitting { app.draw() }
        }
    }
}

/// Where the app is: a tab, or a screen opened from one.
enum Place: Equatable {
    case home, explore, notifications, bookmarks
    /// A profile (`nil`: the signed-in user's) on one of its tabs.
    case profile(String?, TweetFilter = .tweets)
    case thread(String)
    /// Tweets that match a search, and people whose name or username does.
    case search(String), people(String)

    /// The five tabs, in their keys' order.
    static let tabs: [Place] = [.home, .explore, .notifications, .profile(nil, .tweets), .bookmarks]

    /// Whether the list is newest first and grows at the top (new rows wait in the bar).
    var growsAtTop: Bool { self == .home || self == .notifications }
}

/// The app's state and actions, between the event loop and the views: it calls the view models
/// and services a command would, and puts their errors in the status line.
@MainActor
struct TUIApp {
    let context: Context
    let services: AppServices
    /// The screens opened, the last on top: a tab first, then a thread or a profile opened from it.
    private(set) var stack: [(place: Place, view: TimelineView)]
    var quitting = false
    private var following: Bool
    private var lastFrame: CellGrid?
    private var showingHelp = false
    /// The tweet `d` asked about, deleted by a second `d`.
    private var confirmingDelete: String?
    private var unread = 0
    /// The composer, while it is open over the list.
    private(set) var sheet: ComposerSheet?
    /// The row the last click selected: a second click on it opens it.
    private var clicked: Int?
    /// The search line, while one is typed: what it asks, and the text so far.
    private var prompt: (label: String, text: String, people: Bool)?

    init(context: Context, services: AppServices, following: Bool) {
        self.context = context
        self.services = services
        self.following = following
        stack = [(.home, TimelineView())]
    }

    /// How many rows a page reads: the first, each further one, and a look for new ones.
    static let page = 50

    var view: TimelineView {
        get { stack[stack.count - 1].view }
        set { stack[stack.count - 1].view = newValue }
    }

    private var place: Place { stack[stack.count - 1].place }

    /// One page of `place`'s rows, after `before` (a row of it), as the commands read it, with
    /// the short IDs its tweets are shown by.
    private func read(_ place: Place, after before: Row? = nil, limit: Int = Self.page) async throws -> TimelineView {
        var view = TimelineView()
        switch place {
        case .home:
            let feed = FeedViewModel(services: services, source: following ? .following : .everyone)
            try await context.loadPage {
                try await feed.fetchTweets(limit: limit, before: before?.tweet?.cursor)
                return feed.tweets
            }
            view.rows = feed.tweets.map(Row.tweet)
            view.hasMore = feed.hasMore
            view.title = .bold("Home") + (following ? " · following" : " · everyone")
            view.empty = .dim(following ? "No tweets from you or anyone you follow yet." : "No tweets yet.")
        case .notifications:
            let bell = NotificationsViewModel(services: services)
            var id: String?
            if case .notification(let notification)? = before { id = notification.id }
            try await bell.load(limit: limit, before: id)
            try await context.loadShortIDs(of: bell.notifications.compactMap(\.tweet))
            try await bell.markShownAsSeen(unreadOnly: false, isFirstPage: before == nil)
            view.rows = bell.notifications.map(Row.notification)
            view.hasMore = bell.hasMore
            view.title = .bold("Notifications")
            view.empty = .dim("No notifications yet.")
        case .profile(let reference, let filter):
            let profile = ProfileViewModel(reference: reference, services: services)
            profile.selectedFilter = filter
            try await context.loadPage {
                try await profile.load(limit: limit, before: before?.tweet?.cursor)
                return profile.tweets
            }
            view.rows = profile.tweets.map(Row.tweet)
            view.hasMore = profile.hasMore
            if let user = profile.user {
                let tabs = TweetFilter.allCases.map { tab -> TerminalText in
                    tab == filter ? .bold("[\(tab.title)]") : TerminalText(tab.title)
                }
                view.header = [
                    context.userRenderer.header(user, stats: profile.stats, actionTitle: profile.actionButtonTitle)
                        + tabs.joined(separator: "  ") + .dim("   ←/→ its tabs") + "\n"
                ]
                view.title = .bold("Profile") + " · " + TerminalText("@" + user.username)
            }
            view.empty = .dim(profile.tweetsAreProtected ? "These tweets are protected." : "Nothing here yet.")
        case .bookmarks:
            let bookmarks = BookmarksViewModel(services: services)
            try await context.loadPage {
                try await bookmarks.load(limit: limit, before: before?.tweet?.cursor)
                return bookmarks.tweets
            }
            view.rows = bookmarks.tweets.map(Row.tweet)
            view.hasMore = bookmarks.hasMore
            view.title = .bold("Bookmarks")
            view.empty = .dim("No bookmarks yet: b on a tweet keeps it here.")
        case .explore:
            let explore = ExploreViewModel(services: services)
            var offset = 0
            if before != nil { offset = self.view.rows.count }
            try await explore.fetchUsers(limit: limit, offset: offset)
            view.rows = explore.users.map(Row.user)
            view.hasMore = explore.hasMore
            view.title = .bold("Explore")
            view.empty = .dim("No one here yet.")
            // What's happening, above the people, as the explore screen shows it.
            if before == nil {
                let trends = TrendsViewModel(services: services)
                try await trends.load(limit: 5)
                if let list = trends.trends?.trends, !list.isEmpty {
                    let line = list.map { "\($0.hashtag) (\($0.tweets))" }.joined(separator: "  ")
                    view.header = [.bold("Trending  ") + TerminalText(line) + "\n" + .dim("/ finds people")]
                }
            }
        case .people(let query):
            let explore = ExploreViewModel(services: services)
            explore.searchText = query
            try await explore.fetchUsers(limit: limit, offset: before != nil ? self.view.rows.count : 0)
            view.rows = explore.users.map(Row.user)
            view.hasMore = explore.hasMore
            view.title = .bold("People") + " · " + TerminalText(query)
            view.empty = .dim("No one matches.")
        case .search(let query):
            let search = SearchViewModel(services: services)
            try await context.loadPage {
                try await search.search(query, limit: limit, before: before?.tweet?.cursor)
                return search.tweets
            }
            view.rows = search.tweets.map(Row.tweet)
            view.hasMore = search.hasMore
            view.title = .bold("Search") + " · " + TerminalText(query)
            view.empty = .dim("No tweets match.")
        case .thread(let id):
            let thread = ThreadViewModel(tweetID: id, services: services)
            try await thread.load(limit: limit)
            if let conversation = thread.conversation {
                let tweets = conversation.ancestors + [conversation.tweet] + conversation.replies
                try await context.loadShortIDs(of: tweets)
                view.rows = tweets.map(Row.tweet)
                view.selected = conversation.ancestors.count
            }
            view.title = .bold("Thread")
            view.empty = .dim("This tweet is gone.")
        }
        return view
    }

    /// Opens `place` on top of the screens open, or as the one tab when `replacing`.
    mutating func open(_ place: Place, replacing: Bool = false) async {
        do {
            var fresh = try await read(place)
            fresh.unreadNotifications = unread
            if replacing { stack = [(place, fresh)] } else { stack.append((place, fresh)) }
            await refreshBadge()
        } catch {
            report(error)
        }
    }

    /// The bell's count, for the title bar.
    private mutating func refreshBadge() async {
        // A count that cannot be read leaves the last one shown; the list is what matters.
        if let count = try? await services.notifications.unreadCount() { unread = count }
        view.unreadNotifications = unread
    }

    /// The store changed: the screen's list read again, merged into what is shown without moving
    /// it (new rows of a list that grows at the top wait in the bar).
    mutating func storeChanged() async {
        // What the session check read along (the bell's state, whom the account follows) may be
        // what changed.
        services.auth.forgetCheckedDocuments()
        do {
            let fresh = try await read(place, limit: max(Self.page, view.rows.count))
            if place.growsAtTop {
                view.merge(newest: fresh.rows)
            } else {
                view.replace(fresh.rows)
                view.header = fresh.header
            }
            await refreshBadge()
        } catch {
            report(error)
        }
    }

    /// The next page, when the selection reaches the last row loaded.
    private mutating func loadMore() async {
        guard view.hasMore, let last = view.rows.last else { return }
        do {
            let more = try await read(place, after: last)
            let known = Set(view.rows.map(\.key))
            view.rows += more.rows.filter { !known.contains($0.key) }
            view.hasMore = more.hasMore
        } catch {
            report(error)
        }
    }

    mutating func handle(_ key: Key, terminal: RawTerminal) async {
        if sheet != nil {
            await handleComposer(key, terminal: terminal)
            return
        }
        if prompt != nil {
            await handlePrompt(key)
            return
        }
        if showingHelp {
            showingHelp = false
            return
        }
        if key != .character("d") { confirmingDelete = nil }
        if case .mouse = key {} else { clicked = nil }
        let pageStep = max(1, (RawTerminal.size().height - 4) / 6)
        switch key {
        case .character("q"), .control("c"): quitting = true
        case .character("j"), .down: view.move(by: 1)
        case .character("k"), .up: view.move(by: -1)
        case .pageDown, .character(" "): view.move(by: pageStep)
        case .pageUp: view.move(by: -pageStep)
        case .character("g"), .home: view.move(by: -view.rows.count)
        case .character("G"), .end: view.move(by: view.rows.count)
        case .character("."): view.showWaiting()
        case .character("?"): showingHelp = true
        case .character(let digit) where ("1"..."5").contains(digit):
            await open(Place.tabs[Int(String(digit))! - 1], replacing: true)
        case .tab, .backTab:
            let index = Place.tabs.firstIndex(of: stack[0].place) ?? 0
            let step = key == .tab ? 1 : Place.tabs.count - 1
            await open(Place.tabs[(index + step) % Place.tabs.count], replacing: true)
        case .enter:
            switch view.selectedRow {
            case .user(let user)?: await open(.profile(user.id))
            case .notification(let notification)? where notification.tweet == nil:
                await open(.profile(notification.fromUid))
            case let row?:
                if let tweet = row.tweet, place != .thread(tweet.id) { await open(.thread(tweet.id)) }
            case nil: break
            }
        case .character("p"):
            if let user = view.selectedRow?.user { await open(.profile(user.id)) }
        case .escape, .backspace:
            if stack.count > 1 { stack.removeLast() }
        case .left, .right:
            // A profile's tabs: Tweets, Replies, Likes, Media.
            guard case .profile(let reference, let filter) = place else { return }
            let all = TweetFilter.allCases
            let index = all.firstIndex(of: filter) ?? 0
            let next = all[(index + (key == .right ? 1 : all.count - 1)) % all.count]
            do {
                var fresh = try await read(.profile(reference, next))
                fresh.unreadNotifications = unread
                stack[stack.count - 1] = (.profile(reference, next), fresh)
            } catch {
                report(error)
            }
        case .character("f") where place == .home:
            following.toggle()
            await open(.home, replacing: true)
            view.status = .dim(following ? "Following: you and the people you follow." : "Everyone's tweets.")
        case .character("l"):
            await act { row, tweet in
                if tweet.didLike == true { try await row.unlikeTweet() } else { try await row.likeTweet() }
                return tweet.didLike == true ? "Unliked." : "Liked."
            }
        case .character("r"):
            if let tweet = view.selectedTweet { await openComposer(ComposerSheet(replyTo: tweet)) }
        case .character("Q"):
            if let tweet = view.selectedTweet { await openComposer(ComposerSheet(quote: tweet)) }
        case .character("t"):
            await act { row, tweet in
                if tweet.didRetweet == true { try await row.unretweet() } else { try await row.retweet() }
                return tweet.didRetweet == true ? "Retweet undone." : "Retweeted."
            }
        case .character("b"):
            await act { row, _ in
                try await row.bookmark()
                return "Bookmarked: 5 shows them."
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
            guard let tweet = view.selectedTweet else { return }
            let link = "tweetcli show \(tweet.id)"
            RawTerminal.copy(tweet.id)
            view.status = .dim("Copied \(tweet.id) (where the terminal allows it); open it with: \(link)")
        case .character("/"):
            let people = place == .explore || { if case .people = place { true } else { false } }()
            prompt = (people ? "Find people: " : "Search tweets: ", "", people)
        case .mouse(let button, let column, let row, true):
            switch button {
            case 64: view.move(by: -1)
            case 65: view.move(by: 1)
            case 0:
                if row == 0, let tab = view.tabColumns.firstIndex(where: { $0.contains(column) }) {
                    await open(Place.tabs[tab], replacing: true)
                } else if let (index, line) = view.rowAtScreenRow[row] {
                    view.selected = index
                    // The author's picture or name, on a tweet's first line, opens their profile;
                    // a second click elsewhere on the selected row opens it, as Enter does.
                    let picture = context.drawsPhotos ? 5 : 0
                    if line == 0, case .tweet(let tweet) = view.rows[index], let user = tweet.user,
                        tweet.retweetedBy == nil,
                        (2..<(2 + picture + DisplayWidth.of(user.fullname + " @" + user.username))).contains(column)
                    {
                        await open(.profile(user.id))
                        return
                    }
                    if index == clicked {
                        await handle(.enter, terminal: terminal)
                        return
                    }
                    clicked = index
                    return
                }
            default: break
            }
        case .character("n"): await openComposer(ComposerSheet(text: Composer(context: context).savedDraft() ?? ""))
        case .control("z"):
            do { try terminal.suspend() } catch { quitting = true }
            forgetFrame()
        case .control("l"): forgetFrame()
        default: break
        }
        if view.selected >= view.rows.count - 3 { await loadMore() }
    }

    /// Runs an action on the selected tweet through its row's view model, as the commands do,
    /// then reads the list again so the counts are the store's.
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

    /// Opens the composer, with the signed-in user's picture beside its heading.
    private mutating func openComposer(_ new: ComposerSheet) async {
        var new = new
        // Signed out, or an account that cannot be read, is a composer without a picture: the
        // post itself says why it cannot be made.
        if let user = try? await services.auth.currentUser() {
            new.avatar = await context.avatarLines(for: user, small: true)
        }
        sheet = new
    }

    /// A key while the search line is typed: Enter searches, Esc cancels.
    private mutating func handlePrompt(_ key: Key) async {
        guard var prompt else { return }
        switch key {
        case .character(let character): prompt.text.append(character)
        case .backspace: if !prompt.text.isEmpty { prompt.text.removeLast() }
        case .escape, .control("c"):
            self.prompt = nil
            return
        case .enter:
            self.prompt = nil
            let query = prompt.text.trimmed()
            guard !query.isEmpty else { return }
            await open(prompt.people ? .people(query) : .search(query))
            return
        default: break
        }
        self.prompt = prompt
    }

    /// A key while the composer is open: typing, moving, posting, the editor, closing.
    private mutating func handleComposer(_ key: Key, terminal: RawTerminal) async {
        guard var sheet else { return }
        switch key {
        case .character(let character): sheet.insert(character)
        case .enter: sheet.insert("\n")
        case .tab: sheet.insert(" ")
        case .backspace: sheet.deleteBackward()
        case .left: sheet.moveCursor(by: -1)
        case .right: sheet.moveCursor(by: 1)
        case .home, .up: sheet.moveCursorToEnd(false)
        case .end, .down: sheet.moveCursorToEnd(true)
        case .escape:
            closeComposer(keeping: sheet)
            return
        case .control("c"):
            closeComposer(keeping: sheet)
            quitting = true
            return
        case .control("e"):
            terminal.restore()
            do {
                let edited = try Composer(context: context).edit(sheet.text, replyTo: sheet.replyTo?.id)
                let avatar = sheet.avatar
                sheet = ComposerSheet(text: edited, replyTo: sheet.replyTo, quote: sheet.quote)
                sheet.avatar = avatar
            } catch {
                report(error)
            }
            // A terminal that cannot be taken back ends the app rather than leave it cooked.
            do { try terminal.take() } catch { quitting = true }
            forgetFrame()
        case .control("s"):
            await post(sheet)
            return
        default: break
        }
        self.sheet = sheet
    }

    /// Posts what the composer holds, as `post` does; it stays open, with the reason, if it cannot.
    private mutating func post(_ sheet: ComposerSheet) async {
        let upload = UploadTweetViewModel(services: services)
        do {
            try await upload.uploadTweet(withCaption: sheet.text, replyTo: sheet.replyTo?.id, quote: sheet.quote?.id)
        } catch {
            report(error)
            return
        }
        // A new tweet's composer opened with the draft: posted, it is no draft any more.
        if sheet.replyTo == nil, sheet.quote == nil { Composer(context: context).removeDraft() }
        self.sheet = nil
        await storeChanged()
        if place.growsAtTop { view.showWaiting() }
        view.status = .dim(sheet.replyTo != nil ? "Replied." : "Posted.")
    }

    /// Closes the composer; what it holds is kept as the draft (`n` or `post --draft` reopens it).
    mutating func closeComposer(keeping sheet: ComposerSheet) {
        self.sheet = nil
        let composer = Composer(context: context)
        guard !sheet.text.trimmed().isEmpty else { return }
        do {
            try composer.saveDraft(sheet.text)
            view.status = .dim("Kept as a draft: n opens it again, as does tweetcli post --draft.")
        } catch {
            report(error)
        }
    }

    private mutating func report(_ error: any Error) {
        view.status = .styled(ErrorPresenter.present(error, options: context.options).message, .error)
    }

    /// The next draw writes the whole screen: after a resize, a suspension or the editor.
    mutating func forgetFrame() { lastFrame = nil }

    /// How a row of any list looks: as the commands show it.
    private func render(_ row: Row) -> TerminalText {
        switch row {
        case .tweet(let tweet): context.tweetRenderer.render(tweet)
        case .notification(let notification):
            NotificationRenderer(tweets: context.tweetRenderer).render([notification])
        case .user(let user): context.userRenderer.row(user)
        }
    }

    /// Lays the screen out at the window's size and writes what changed since the last frame.
    mutating func draw() {
        let size = RawTerminal.size()
        let app = self
        var current = view
        var grid = current.layout(
            width: size.width, height: size.height, render: { app.render($0) }, showingHelp: showingHelp)
        view = current
        if let prompt {
            grid.fill(row: size.height - 2, inverse: false)
            let end = grid.write(.bold(prompt.label) + TerminalText(prompt.text), row: size.height - 2, column: 1)
            grid.write(" ", row: size.height - 2, column: end, inverse: true)
        }
        if let sheet {
            let preview = UploadTweetViewModel(services: services).preview(sheet.text)
            sheet.draw(into: &grid, top: 1, bottom: size.height - 1, preview: preview, renderer: context.tweetRenderer)
            grid.fill(row: size.height - 1, inverse: true)
            grid.write(ComposerSheet.hints, row: size.height - 1, column: 1, inverse: true)
        }
        let bytes = grid.changes(from: lastFrame, color: context.color)
        if !bytes.isEmpty { Output.write(bytes, to: STDOUT_FILENO) }
        lastFrame = grid
    }
}
