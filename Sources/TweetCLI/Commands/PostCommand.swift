import FoundationEssentials
import TweetCore
import TweetStore

struct PostCommand: Command {
    static let name = "post"
    static let usage =
        "post [CAPTION... | -] [--image FILE [--alt TEXT]]... [--reply-to TWEET_ID] [--quote TWEET_ID] [--dry-run] [--draft]"
    static let summary = "Post a tweet (no caption on a terminal opens $VISUAL or $EDITOR; - reads stdin)"
    static let options = [
        Option("--reply-to", value: "TWEET_ID", "post it as a reply to this tweet"),
        Option("--quote", value: "TWEET_ID", "post it quoting this tweet, shown under it"),
        Option(
            "--image", value: "FILE", repeatable: true,
            "attach a photo: PNG, JPEG, GIF (its first frame) or WebP, up to 5 MB, at most 4; "
                + "its location and other metadata are not kept"),
        Option(
            "--alt", value: "TEXT", repeatable: true,
            "describe the photo given before it, for those who cannot see it (up to 1,000 characters)"),
        Option("--dry-run", "only count the caption by Twitter's rules; post nothing"),
        Option("--draft", "reopen the draft a failed post kept, in the editor"),
    ]

    var words: [String]
    var replyTo: String?
    var quote: String?
    var dryRun: Bool
    var draft: Bool
    /// The photos to attach, each with its alt text.
    var photos: [(value: String, note: String?)]

    var commits: Bool { !dryRun }

    init(arguments: [String]) throws {
        var list = try Self.arguments(arguments)
        replyTo = try list.option("--reply-to")
        quote = try list.option("--quote")
        dryRun = try list.flag("--dry-run")
        draft = try list.flag("--draft")
        photos = try list.pairs("--image", note: "--alt")
        if photos.count > TweetImage.maximumPerTweet {
            throw UsageError(
                "a tweet may have at most \(TweetImage.maximumPerTweet) photos, not \(photos.count)", usage: Self.usage)
        }
        words = try list.positionals()
        if words.contains("-") && words != ["-"] {
            throw UsageError("'-' reads the whole caption from stdin; give it alone", usage: Self.usage)
        }
        if draft && !words.isEmpty {
            throw UsageError("--draft reopens the kept draft; give no caption with it", usage: Self.usage)
        }
    }

    func run(_ context: Context) async throws {
        let viewModel = UploadTweetViewModel(services: try context.services())
        let replyTo = try await context.tweetID(self.replyTo)
        let quote = try await context.tweetID(self.quote)
        // The photos before the caption: a refused one is said before the editor opens.
        for (file, alt) in photos {
            try viewModel.attachPhoto(try PhotoFile.read(file), file: file, alt: alt)
        }
        let composer = Composer(context: context)
        let caption: String
        if words == ["-"] {
            caption = String(decoding: try Input.readAll(), as: UTF8.self)
        } else if !words.isEmpty {
            // Joined by hand: the standard library's `joined(separator:)` is generic over the
            // collection, and its first use in a process looks up protocol conformances at run time.
            caption = words.dropFirst().reduce(into: words[0]) { $0 += " " + $1 }
        } else {
            guard context.terminal.isStdinTerminal && context.terminal.isStdoutTerminal || draft else {
                throw UsageError("post needs a caption, or - to read it from stdin", usage: Self.usage)
            }
            caption = try composer.compose(replyTo: replyTo, fromDraft: draft) { caption in
                let preview = viewModel.preview(caption)
                guard preview.remaining < 0 else { return nil }
                let weight = "This tweet weighs \(preview.weightedLength) of \(preview.limit)"
                return weight + ": cut \(-preview.remaining) to post it."
            }
        }
        do {
            if dryRun {
                let preview = viewModel.preview(caption)
                try context.emit(preview, human: Self.describe(preview))
                try await viewModel.validate(caption)  // exit 1, with the reason, if it could not be posted
                return
            }
            try await viewModel.uploadTweet(withCaption: caption, replyTo: replyTo, quote: quote)
        } catch  where composer.isComposing {
            // What was written in the editor is never lost: signed out, too long, or anything else.
            throw composer.keepDraft(caption, after: error)
        }
        composer.discardDraft()
        guard let tweet = viewModel.tweet else { return }
        try await context.loadShortIDs(of: [tweet])
        try context.emit(tweet, human: context.tweetRenderer.render(tweet))
    }

    /// "42/280 characters, 238 left", then the entities that would be stored.
    static func describe(_ preview: CaptionPreview) -> TerminalText {
        let left = preview.remaining >= 0 ? "\(preview.remaining) left" : "\(-preview.remaining) over"
        var text: TerminalText = "\(preview.weightedLength)/\(preview.limit) characters, \(left)\n"
        let entities = preview.entities
        if !entities.mentions.isEmpty {
            text += "mentions: \(entities.mentions.map { "@" + $0 }.joined(separator: " "))\n"
        }
        if !entities.hashtags.isEmpty {
            text += "hashtags: \(entities.hashtags.map { "#" + $0 }.joined(separator: " "))\n"
        }
        if !entities.urls.isEmpty { text += "links: \(entities.urls.joined(separator: " "))\n" }
        return text
    }
}
