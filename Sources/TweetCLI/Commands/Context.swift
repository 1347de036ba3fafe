import FoundationEssentials
import TweetCore
import TweetImages
import TweetStore
import TweetStorePostgres
import TweetSystem

/// What a command runs with: the global options, the configuration, the store's services, the
/// terminal and the screen.
@MainActor
final class Context {
    let options: GlobalOptions
    let terminal: Terminal
    let environment: [String: String]
    let config: ConfigFile
    /// Whether the running command may create a missing store.
    let createsStore: Bool
    private var opened: AppServices?
    /// The short forms of the tweet IDs the rows show, read by ``loadShortIDs(of:)``.
    private var shortIDs: [String: String] = [:]
    /// The mosaic of each thumbnail the rows show, by its address, read by ``loadPhotos(of:)``.
    private var mosaics: [String: [String]] = [:]
    /// The small picture of each author the rows show, by uid, read by ``loadPhotos(of:)``.
    private var avatars: [String: [String]] = [:]
    /// Whether pictures are drawn in blocks whatever the terminal could do: the full-screen app
    /// draws cells, and a picture in pixels is no cells.
    var drawsBlocksOnly = false
    /// Whether this command keeps printing as things come (`--watch`): never through the pager,
    /// which waits for the end of what it shows.
    var streams = false
    /// Whether photos are drawn as large as the terminal allows (`show`), not as a listing's.
    var largePhotos = false
    /// Whether photos are drawn three across (the Media tab).
    var photoGrid = false
    /// Whether a tweet's photos are drawn side by side: in a listing, not in `show` or the Media tab.
    private var drawsSideBySide: Bool { !largePhotos && !photoGrid }
    /// The rows of the listing this command shows a person on a terminal, as the last-listing
    /// file holds them: saved for shell completion after it ran. A listing read by a program
    /// (piped, or `--json`) is not one a person completes from, and costs no file.
    private(set) var listing: [UInt8]?

    init(
        options: GlobalOptions, terminal: Terminal, environment: [String: String], config: ConfigFile,
        createsStore: Bool
    ) {
        self.options = options
        self.terminal = terminal
        self.environment = environment
        self.config = config
        self.createsStore = createsStore
    }

    /// `--store`, else `TWEETCLI_STORE`, else the config file's `store`, else the XDG default.
    /// The local store's directory; `nil` when the store is a PostgreSQL database.
    var localStoreDirectory: String? {
        PostgresLocation.isLocation(storeDirectory) ? nil : storeDirectory
    }

    var storeDirectory: String {
        AppPaths.storeDirectory(option: options.storePath ?? environmentStore ?? configStore, environment: environment)
    }

    private var environmentStore: String? {
        environment["TWEETCLI_STORE"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The config file's `store`, with a leading `~/` meaning the home directory.
    private var configStore: String? {
        guard let store = config[.store] else { return nil }
        guard store.hasPrefix("~/"), let home = environment["HOME"], !home.isEmpty else { return store }
        return home + store.dropFirst()
    }

    /// The journal records a local store is folded at: TWEETCLI_FOLD_THRESHOLD tunes it (the safety
    /// tests fold often), and the background compaction a command starts inherits it.
    var foldThreshold: Int {
        environment["TWEETCLI_FOLD_THRESHOLD"].flatMap(Int.init).map { max(1, $0) } ?? 64
    }

    /// The PostgreSQL store at `text`, with the timeouts of the config file (`PGCONNECT_TIMEOUT`,
    /// libpq's own variable, above its connect timeout); the connection string's own settings win
    /// over both.
    func postgresLocation(_ text: String) throws -> PostgresLocation {
        var location = try PostgresLocation(text)
        func seconds(_ key: ConfigFile.Key) -> Int? { config[key].flatMap(Int.init) }
        var timeouts = PostgresTimeouts.standard
        timeouts.connect =
            environment["PGCONNECT_TIMEOUT"].flatMap { Int($0) }.flatMap { $0 > 0 ? $0 : nil }
            ?? seconds(.postgresConnectTimeout) ?? timeouts.connect
        timeouts.statement = seconds(.postgresStatementTimeout) ?? timeouts.statement
        timeouts.lock = seconds(.postgresLockTimeout) ?? timeouts.lock
        location.timeouts = timeouts
        return location
    }

    /// The services of the selected store, opened on first use.
    func services() throws -> AppServices {
        if let opened { return opened }
        let state = AppPaths.stateDirectory(environment: environment)
        let services =
            PostgresLocation.isLocation(storeDirectory)
            ? try AppServices.postgres(
                location: postgresLocation(storeDirectory), stateDirectory: state, createIfMissing: createsStore,
                actingAs: options.actingAs)
            : try AppServices.local(
                storeDirectory: storeDirectory, stateDirectory: state, foldThreshold: foldThreshold,
                compaction: .background(start: BackgroundCompaction.start), createIfMissing: createsStore,
                actingAs: options.actingAs)
        // Rows show short IDs (JSON keeps whole ones); a server is asked for them with the page
        // they are on, which saves a round trip, while the local store reads them as fast apart.
        if !options.json, services.store.readsAreRoundTrips { services.tweets.prefetchShortIDs() }
        opened = services
        return services
    }

    /// A command line to suggest: `tweetcli ARGUMENTS`, with `--store` when it was given, so the
    /// hint works as typed.
    func suggest(_ arguments: String) -> String {
        options.suggest(arguments)
    }

    /// Text that guides a person rather than being data (a "More:" line, the notifications
    /// banner, an empty listing's "post the first one with"): part of the output on a terminal;
    /// otherwise written to stderr at once, so that a pipe gets only the data.
    /// With `--json` there is no hint anywhere: the JSON says it all.
    func hint(_ text: TerminalText) -> TerminalText {
        guard !options.json else { return "" }
        guard !terminal.isStdoutTerminal else { return text }
        Output.writeError(text.rendered(color: false))
        return ""
    }

    /// A listing's last line when it has more: "More: tweetcli … ARGUMENTS [--limit N] FLAG VALUE",
    /// repeating an explicit `--limit`, so that the next page reads the same way.
    func moreLine(_ arguments: String, limit: Int?, _ flag: String, _ value: String) -> TerminalText {
        let limit = limit.map { " --limit \($0)" } ?? ""
        return hint("\n" + .dim("More: " + suggest(arguments + limit + " \(flag) \(value)")) + "\n")
    }

    /// The page size: `--limit`, else the config file's `limit`, else 20.
    func pageLimit(_ explicit: Int?) -> Int {
        explicit ?? config[.limit].flatMap(Int.init) ?? Limits.defaultPage
    }

    var color: Bool {
        terminal.usesColor(flag: options.color, configured: config[.color].flatMap(ColorChoice.init))
    }

    /// Where human output goes.
    var screen: Screen {
        Screen(
            color: color, width: terminal.width,
            pagerHeight: options.pager && terminal.isStdoutTerminal && !drewPixels && !streams ? terminal.height : nil,
            pagerCommand: Pager.command(environment: environment))
    }

    var tweetRenderer: TweetRenderer {
        TweetRenderer(
            now: Date(), time: RelativeTime(environment: environment), highlights: color, shortIDs: shortIDs,
            mosaics: mosaics, avatars: avatars, sideBySide: drawsSideBySide)
    }

    /// The ID of the tweet `reference` names: an ID, or a unique start of one.
    func tweetID(_ reference: String) async throws -> String {
        try await services().tweets.resolveTweetID(reference)
    }

    /// A page's `--before`: a row's cursor as the "More:" line gives it (a retweet's, or a whole
    /// ID), or a unique start of a tweet ID.
    func cursor(_ before: String?) async throws -> String? {
        guard let before = before?.trimmed() else { return nil }
        if before.hasPrefix("rt_") { return before }
        return try await tweetID(before)
    }

    /// ``tweetID(_:)`` of an optional reference.
    func tweetID(_ reference: String?) async throws -> String? {
        guard let reference else { return nil }
        return try await tweetID(reference)
    }

    /// Runs `load`, which reads a page of tweets and returns them, then reads the short forms of
    /// their IDs from the same state of the store (one pinned read, not one read each).
    func loadPage(_ load: () async throws -> [Tweet]) async throws {
        try await services().store.withConsistentReads {
            let tweets = try await load()
            try await loadShortIDs(of: tweets)
            if !options.json, terminal.isStdoutTerminal {
                listing = LastListing.fileBytes(of: tweets, shortIDs: shortIDs)
            }
        }
    }

    /// Saves the listing this command showed, if any, where `like <Tab>` finds it. Quietly: the
    /// listing was shown, and a completion without it only offers less.
    func saveListing() {
        guard let listing, let opened else { return }
        // Named as the session file is (`<state>/sessions/<hash>.json`), beside it: its name is
        // already worked out, and taking it apart by bytes costs next to nothing.
        let session = Array(opened.auth.sessionPath.utf8)
        guard let slash = session.lastIndex(of: UInt8(ascii: "/")), session.count > slash + 5,
            let folder = session[..<slash].lastIndex(of: UInt8(ascii: "/"))
        else { return }
        let path = String(
            decoding: session[...folder] + "listings/".utf8 + session[(slash + 1)..<(session.count - 5)] + ".tsv".utf8,
            as: UTF8.self)
        // A state directory that cannot be written costs completion its IDs, not the command its result.
        try? LastListing.save(listing, path: path)
    }

    /// The name the store's files in the state directory are keyed by (see ``AppServices/stateKey(forStore:)``);
    /// the location as given when it does not parse, since the store's own opening reports that.
    var storeKey: String {
        (try? AppServices.stateKey(forStore: storeDirectory)) ?? storeDirectory  // The opening already said why.
    }

    /// Reads the short forms of the IDs of `tweets` and of the tweets they quote, for the rows
    /// ``tweetRenderer`` draws; `--json` keeps whole IDs, so it reads none.
    func loadShortIDs(of tweets: [Tweet]) async throws {
        guard !options.json, !tweets.isEmpty else { return }
        var ids: [String] = []
        for tweet in tweets {
            ids.append(tweet.id)
            if case .tweet(let quoted)? = tweet.quoted { ids.append(quoted.id) }
        }
        // One read of the store, so it needs no consistent-read scope of its own.
        shortIDs.merge(try await services().tweets.shortIDs(ids)) { _, new in new }
        try await loadPhotos(of: tweets)
    }

    /// Whether photos are drawn as pictures: with colour (a mosaic is its colours), on a terminal
    /// or with `--images always`, and not with `--images never` or `--json`. Named a pixel
    /// protocol, they are drawn in it, coloured or not, wherever the output goes.
    var drawsPhotos: Bool {
        guard !options.json else { return false }
        switch imageChoice {
        case .never: return false
        case .sixel, .kitty, .iterm2: return drawsBlocksOnly ? color : true
        case .always, .blocks: return color
        case .auto: return color && terminal.isStdoutTerminal
        }
    }

    /// `--images`, else the config file's `images`, else `auto`.
    private var imageChoice: ImageChoice {
        options.images ?? config[.images].flatMap(ImageChoice.init) ?? .auto
    }

    /// How pictures are drawn, decided the first time one is: the way named, else the one the
    /// environment or the terminal itself gives (a question to the terminal, asked only when
    /// there is a picture to draw), else block mosaics.
    private(set) lazy var pictureMode: Mosaic.Mode = {
        let blocks = Mosaic.Mode.blocks(mosaicColors)
        if drawsBlocksOnly { return blocks }
        switch imageChoice {
        case .sixel: return .sixels
        case .kitty: return .kitty
        case .iterm2: return .iterm2
        case .blocks, .never: return blocks
        case .auto, .always:
            if let named = Graphics.fromEnvironment(environment) { return named }
            guard terminal.isStdoutTerminal, environment["TERM"] != "dumb" else { return blocks }
            return Graphics.terminalDrawsSixels() ? .sixels : blocks
        }
    }()

    /// Whether this command drew a picture in pixels: its output then goes straight to the
    /// terminal, since no pager passes such escapes on.
    private var drewPixels = false

    /// The columns and rows a photo's mosaic takes at most: about twelve rows, within the terminal.
    var mosaicCells: (columns: Int, rows: Int) {
        if photoGrid { return (max(8, min(32, ((terminal.width ?? 80) - 4) / 3)), 8) }
        guard largePhotos else { return (max(8, min(48, (terminal.width ?? 80) - 4)), 12) }
        return (max(8, min(160, (terminal.width ?? 80) - 2)), max(6, min(60, (terminal.height ?? 24) - 8)))
    }

    /// A profile's picture as lines of a mosaic, when pictures are drawn: the one `edit-profile
    /// --avatar` kept, else one drawn from the uid (an identicon). None when pictures are not drawn,
    /// or the kept one cannot be read (the header shows without it).
    /// `small`: the 4 × 2 cells of an explore or tweet row, instead of a header's, always in blocks, as a
    /// picture in pixels cannot share its line with the name.
    func avatarLines(for user: User, small: Bool = false) async -> [String] {
        // Blocks are their colours: without colour (a pipe told to draw pixels), no small picture.
        guard drawsPhotos, !small || color else { return [] }
        let mode = small ? Mosaic.Mode.blocks(mosaicColors) : pictureMode
        let cache = MosaicCache(environment: environment)
        // Kept by the picture's address, or by the uid for an identicon (when it is one a file
        // can be named by: the store is not trusted).
        // A picture named by address: kept by this device once fetched and checked, keyed by it.
        let fetched =
            user.avatar == nil
            ? user.profileImageUrl.flatMap {
                AvatarCache(environment: environment).png(for: $0, fetching: !small)
            } : nil
        let key = user.avatar ?? fetched.map { "fetched-" + $0.key } ?? "identicon-" + user.id
        let (columns, rows) = small ? (4, 2) : user.avatar == nil && fetched == nil ? (10, 5) : (16, 8)
        let cacheable =
            key.utf8.count <= 80
            && key.utf8.allSatisfy {
                (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0) || $0 == 45
            }
        if cacheable, let kept = cache.lines(key, columns: columns, rows: rows, mode: mode) { return kept }
        let cell = Graphics.cellSize()
        let lines: [String]
        if let avatar = user.avatar {
            // A picture that cannot be read (gone, not a PNG, or no libchafa) leaves the header
            // without it: the profile is what was asked for.
            guard let png = try? await services().store.getBlob(avatar),
                let drawn = try? Mosaic.lines(png: png, columns: columns, rows: rows, mode: mode, cell: cell)
            else { return [] }
            lines = drawn
        } else if let fetched,
            // As above; a cached file that is no picture of ours is not drawn either.
            let drawn = try? Mosaic.lines(png: fetched.png, columns: columns, rows: rows, mode: mode, cell: cell)
        {
            lines = drawn
        } else {
            // As above: no libchafa, no picture.
            guard
                let drawn = try? Mosaic.lines(
                    pixels: Avatar.identicon(seed: user.id.utf8), columns: columns, rows: rows, mode: mode, cell: cell)
            else { return [] }
            lines = drawn
        }
        if mode.drawsPixels { drewPixels = true }
        if cacheable { cache.keep(lines, key, columns: columns, rows: rows, mode: mode) }
        return lines
    }

    /// 24-bit colour when `COLORTERM` says the terminal has it, else the 256 of xterm.
    var mosaicColors: Mosaic.Colors {
        ["truecolor", "24bit"].contains(environment["COLORTERM"]?.lowercased() ?? "") ? .truecolor : .indexed256
    }

    /// Draws the thumbnails of the photos of `tweets` (and of the tweets they quote), and their
    /// authors' small pictures (not in the Media tab's grid, all one author's), for the rows
    /// ``tweetRenderer`` draws; none when photos are lines of text. In pixels, a listing's
    /// photos side by side, and a row of the Media tab's grid, are one picture each (see
    /// ``TweetRenderer/rowKey(_:)``): a protocol draws one picture at a time, under the last.
    func loadPhotos(of tweets: [Tweet]) async throws {
        guard drawsPhotos else { return }
        for tweet in tweets where !photoGrid && avatars[tweet.uid] == nil {
            guard let user = tweet.user else { continue }
            avatars[tweet.uid] = await avatarLines(for: user, small: true)
        }
        // Each group of thumbnails drawn as one: a tweet's photos side by side, a row of the grid,
        // or one photo.
        var groups: [(addresses: [String], photos: Int)] = []
        let sideBySide = drawsSideBySide
        if photoGrid {
            let firsts = tweets.map { $0.images?.first?.thumbnail }
            guard firsts.contains(where: { $0 != nil }) else { return }
            if pictureMode.drawsPixels {
                // A row of the grid as the grid splits them (by tweets); a row with a photo
                // without a thumbnail is not drawn as one picture, so its labels stay in line.
                groups = stride(from: 0, to: firsts.count, by: 3).compactMap { start in
                    let row = firsts[start..<min(start + 3, firsts.count)]
                    return row.allSatisfy { $0 != nil } ? (row.compactMap { $0 }, 1) : nil
                }
            } else {
                groups = firsts.compactMap { $0.map { ([$0], 1) } }
            }
        } else {
            for tweet in tweets {
                var shown = [tweet]
                if case .tweet(let quoted)? = tweet.quoted { shown.append(quoted) }
                for item in shown {
                    let images = item.images ?? []
                    let thumbnails = images.prefix(4).compactMap(\.thumbnail)
                    // Keyed by how many photos the tweet has, as the renderer looks them up: one
                    // without a thumbnail (a CMYK JPEG) still takes its place beside the others.
                    if sideBySide {
                        groups.append((thumbnails, images.count))
                    } else {
                        groups += thumbnails.map { ([$0], 1) }
                    }
                }
            }
        }
        guard groups.contains(where: { !$0.addresses.isEmpty }) else { return }
        let mode = pictureMode
        let store = try services().store
        let cache = MosaicCache(environment: environment)
        let cell = Graphics.cellSize()
        for (group, photos) in groups where !group.isEmpty {
            var (columns, rows) = mosaicCells
            let count = group.count
            // Side by side, each is narrower: in pixels the pictures drawn as one, in blocks the
            // tweet's photos, as the renderer lays them out.
            let across = mode.drawsPixels ? count : min(photos, 4)
            if across > 1, !photoGrid { (columns, rows) = (max(6, (columns - 2 * (across - 1)) / across), 8) }
            if mode.drawsPixels {
                guard count > 1 else {
                    guard mosaics[TweetRenderer.mosaicKey(group[0], photos: 1)] == nil,
                        let drawn = try await drawn(group, columns: columns, rows: rows, mode: mode, cell: cell, store)
                    else { continue }
                    mosaics[TweetRenderer.mosaicKey(group[0], photos: 1)] = drawn
                    continue
                }
                let key = TweetRenderer.rowKey(group)
                guard mosaics[key] == nil,
                    let drawn = try await drawn(group, columns: columns, rows: rows, mode: mode, cell: cell, store)
                else { continue }
                mosaics[key] = drawn
                continue
            }
            // In blocks, each thumbnail is drawn on its own, and the rows are laid side by side.
            for address in group {
                let key = TweetRenderer.mosaicKey(address, photos: photoGrid ? 1 : photos)
                guard mosaics[key] == nil else { continue }
                if let kept = cache.lines(address, columns: columns, rows: rows, mode: mode) {
                    mosaics[key] = kept
                    continue
                }
                guard
                    let lines = try await drawn([address], columns: columns, rows: rows, mode: mode, cell: cell, store)
                else { continue }
                mosaics[key] = lines
                cache.keep(lines, address, columns: columns, rows: rows, mode: mode)
            }
        }
    }

    /// The thumbnails at `addresses` drawn as one picture, each within `columns` × `rows` cells,
    /// two columns apart. `nil` for a thumbnail that is gone or is not what post made (the store
    /// is not trusted, and this build might lack libchafa): the row then shows its line of text.
    private func drawn(
        _ addresses: [String], columns: Int, rows: Int, mode: Mosaic.Mode, cell: (width: Int, height: Int),
        _ store: any DocumentStore
    ) async throws -> [String]? {
        var pictures: [Pixels] = []
        for address in addresses {
            guard let png = try await store.getBlob(address),
                // As above: a thumbnail that cannot be read is shown as text.
                let pixels = try? Pixels.decodePNG(png)
            else { return nil }
            pictures.append(pixels)
        }
        let picture =
            pictures.count == 1
            ? pictures[0]
            : Pixels.row(
                pictures, box: (columns * cell.width, rows * cell.height), gap: 2 * cell.width)
        let total = addresses.count * columns + 2 * (addresses.count - 1)
        // As above: without libchafa, or with an answer that is not a picture, the text line shows.
        guard let lines = try? Mosaic.lines(pixels: picture, columns: total, rows: rows, mode: mode, cell: cell) else {
            return nil
        }
        if mode.drawsPixels { drewPixels = true }
        return lines
    }

    var userRenderer: UserRenderer { UserRenderer() }

    /// Prints `value` as JSON with `--json`, else the human text.
    func emit(_ value: some Encodable, human: @autoclosure () -> TerminalText) throws {
        if options.json {
            try Output.write(try JSONOutput.render(value))
        } else {
            try screen.write(human())
        }
    }
}

/// Quoting for the shell, for the command lines that hints suggest.
enum ShellQuote {
    static func quote(_ word: String) -> String {
        // Bytes, not CharacterSet: a hint is built on every paged listing.
        let safe = word.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                return true
            default: return "/._-+=:,@%".utf8.contains(byte)
            }
        }
        if safe && !word.isEmpty { return word }
        return "'" + word.replacingEvery("'", with: "'\\''") + "'"
    }
}
