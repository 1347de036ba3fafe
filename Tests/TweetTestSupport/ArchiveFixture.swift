import Foundation

/// A synthetic Twitter archive, written for the tests as Twitter writes one (never a real
/// person's): `data/*.js` files that assign `window.YTD.<name>.partN`, with a manifest or with
/// the older file names, the tweets in one file or several parts, folder or zip.
package struct ArchiveFixture {
    package struct Tweet {
        package var id: UInt64
        package var created: Date
        package var text: String
        package var replyTo: UInt64? = nil
        /// t.co links in `text` and what they expand to.
        package var links: [(short: String, long: String)] = []
        package var favorites = 0

        package init(
            id: UInt64, created: Date, text: String, replyTo: UInt64? = nil,
            links: [(short: String, long: String)] = [],
            favorites: Int = 0
        ) {
            self.id = id
            self.created = created
            self.text = text
            self.replyTo = replyTo
            self.links = links
            self.favorites = favorites
        }
    }

    package var username = "Ada_L"
    package var displayName = "Ada Lovelace"
    package var email: String? = "ada@example.com"
    package var bio = "Analyst & poet"
    package var website = "https://example.org/ada"
    package var location = "London"
    package var tweets: [Tweet] = []
    package var likes: [UInt64] = []
    package var following = 3
    package var followers = 5
    /// Newer archives: `tweets.js` (+ `tweets-part1.js` …) and a manifest; older: `tweet.js`, none.
    package var newNames = true
    /// How many files the tweets are split over.
    package var parts = 1
    /// Files of `data/tweets_media/`, named `<tweet ID>-<name>` as Twitter names them.
    package var media: [(name: String, bytes: Data)] = []
    /// The profile's picture: its file in `data/profile_media/`, which `profile.js` names.
    package var avatar: (name: String, bytes: Data)?

    package init() {}

    /// Twitter's snowflake ID for a tweet at `date`: milliseconds since its epoch, shifted, then a sequence.
    package static func snowflake(_ date: Date, sequence: UInt64 = 0) -> UInt64 {
        (UInt64(date.timeIntervalSince1970 * 1000) - 1_288_834_974_657) << 22 | sequence
    }

    /// `count` tweets a minute apart from 2023-08-12 16:10:37 UTC, captions made by `caption`.
    package static func tweets(_ count: Int, caption: (Int) -> String = { "archived tweet number \($0)" }) -> [Tweet] {
        let start = Date(timeIntervalSince1970: 1_691_856_637)
        return (0..<count).map { index in
            let created = start.addingTimeInterval(Double(index) * 60)
            return Tweet(id: snowflake(created, sequence: UInt64(index % 4096)), created: created, text: caption(index))
        }
    }

    package static func createdAt(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE MMM dd HH:mm:ss '+0000' yyyy"
        return formatter.string(from: date)
    }

    /// The archive's `full_text`: Twitter escapes `&`, `<` and `>`.
    package static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }

    private func json(_ value: Any) throws -> String {
        String(
            decoding: try JSONSerialization.data(withJSONObject: value, options: [.prettyPrinted, .sortedKeys]),
            as: UTF8.self)
    }

    private func script(_ global: String, _ value: Any) throws -> String {
        "window.\(global) = " + (try json(value))
    }

    /// Writes the archive's files into `folder/data`.
    package func write(to folder: URL) throws {
        let data = folder.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        func save(_ name: String, _ text: String) throws {
            try Data(text.utf8).write(to: data.appendingPathComponent(name))
        }
        var manifest: [String: Any] = [:]
        func add(_ type: String, _ file: String, global: String, _ items: [Any]) throws {
            try save(file, try script(global, items))
            var files = (manifest[type] as? [String: Any])?["files"] as? [[String: Any]] ?? []
            files.append(["fileName": "data/" + file, "globalName": global, "count": String(items.count)])
            manifest[type] = ["files": files]
        }
        var account: [String: Any] = [
            "username": username, "accountId": "42", "createdAt": "2009-03-01T12:00:00.000Z",
            "accountDisplayName": displayName, "createdVia": "web",
        ]
        if let email { account["email"] = email }
        try add("account", "account.js", global: "YTD.account.part0", [["account": account]])
        var profile: [String: Any] = ["description": ["bio": bio, "website": website, "location": location]]
        if let avatar {
            profile["avatarMediaUrl"] = "https://pbs.twimg.com/profile_images/1/" + avatar.name
            let folder = data.appendingPathComponent("profile_media")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try avatar.bytes.write(to: folder.appendingPathComponent("42-" + avatar.name))
        }
        try add("profile", "profile.js", global: "YTD.profile.part0", [["profile": profile]])
        if !media.isEmpty {
            let folder = data.appendingPathComponent("tweets_media")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for (name, bytes) in media { try bytes.write(to: folder.appendingPathComponent(name)) }
        }
        let items: [Any] = tweets.map { tweet in
            var fields: [String: Any] = [
                "id_str": String(tweet.id), "id": String(tweet.id), "full_text": Self.escaped(tweet.text),
                "created_at": Self.createdAt(tweet.created), "favorite_count": String(tweet.favorites),
                "retweet_count": "0", "lang": "en", "source": "<a href=\"https://example.org\">web</a>",
                "entities": [
                    "hashtags": [], "symbols": [], "user_mentions": [],
                    "urls": tweet.links.map { ["url": $0.short, "expanded_url": $0.long, "display_url": $0.long] },
                ],
            ]
            if let replyTo = tweet.replyTo {
                fields["in_reply_to_status_id_str"] = String(replyTo)
                fields["in_reply_to_status_id"] = String(replyTo)
            }
            return ["tweet": fields]
        }
        let base = newNames ? "tweets" : "tweet"
        let size = max(1, (items.count + parts - 1) / parts)
        for part in 0..<parts {
            let slice = Array(items.dropFirst(part * size).prefix(size))
            let file = part == 0 ? "\(base).js" : "\(base)-part\(part).js"
            try add("tweets", file, global: "YTD.\(base).part\(part)", slice)
        }
        try add(
            "like", "like.js", global: "YTD.like.part0",
            likes.map { ["like": ["tweetId": String($0), "fullText": "liked", "expandedUrl": "https://x.invalid"]] })
        try add(
            "following", "following.js", global: "YTD.following.part0",
            (0..<following).map { ["following": ["accountId": String(1000 + $0), "userLink": "https://x.invalid"]] })
        try add(
            "follower", "follower.js", global: "YTD.follower.part0",
            (0..<followers).map { ["follower": ["accountId": String(2000 + $0), "userLink": "https://x.invalid"]] })
        if newNames {
            try save(
                "manifest.js",
                "window.__THAR_CONFIG = "
                    + (try json([
                        "userInfo": ["accountId": "42", "userName": username, "displayName": displayName],
                        "dataTypes": manifest,
                    ])))
        }
        // Files tweetcli does not read, as real archives have them.
        try save("ad-impressions.js", "window.YTD.ad_impressions.part0 = [ ]")
        try FileManager.default.createDirectory(
            at: data.appendingPathComponent("tweets_media"), withIntermediateDirectories: true)
    }

    /// `zip` with its central directory's entry for `name` listed again as `newName`, pointing at
    /// the same data (the end record has no comment, as Info-ZIP writes it).
    package static func duplicatingEntry(_ zip: Data, _ name: String, as newName: String) throws -> Data {
        let bytes = [UInt8](zip)
        func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        func u32(_ at: Int) -> Int { u16(at) | u16(at + 2) << 16 }
        func put16(_ value: Int, _ into: inout [UInt8], _ at: Int) {
            into[at] = UInt8(value & 0xFF)
            into[at + 1] = UInt8(value >> 8 & 0xFF)
        }
        let end = bytes.count - 22
        guard u32(end) == 0x0605_4B50 else { throw CocoaError(.fileReadCorruptFile) }
        let (count, size, offset) = (u16(end + 10), u32(end + 12), u32(end + 16))
        var at = offset
        var copy: [UInt8]?
        for _ in 0..<count {
            let length = u16(at + 28)
            let next = at + 46 + length + u16(at + 30) + u16(at + 32)
            if String(decoding: bytes[(at + 46)..<(at + 46 + length)], as: UTF8.self).hasSuffix(name) {
                var record = Array(bytes[at..<at + 46]) + Array(newName.utf8)
                put16(newName.utf8.count, &record, 28)
                put16(0, &record, 30)
                put16(0, &record, 32)
                copy = record
            }
            at = next
        }
        guard let copy else { throw CocoaError(.fileReadCorruptFile) }
        var result = Array(bytes[..<(offset + size)]) + copy + Array(bytes[end...])
        let newEnd = offset + size + copy.count
        put16(count + 1, &result, newEnd + 8)
        put16(count + 1, &result, newEnd + 10)
        let newSize = size + copy.count
        put16(newSize & 0xFFFF, &result, newEnd + 12)
        put16(newSize >> 16, &result, newEnd + 14)
        return Data(result)
    }

    /// Zips `folder`'s contents into `zip` with Info-ZIP's `zip` (deflated, or `stored`), as the
    /// downloaded archive is; `inside` puts them under one more folder.
    package static func zip(_ folder: URL, to zip: URL, stored: Bool = false, inside: String? = nil) throws {
        var root = folder
        if let inside {
            root = folder.deletingLastPathComponent().appendingPathComponent("wrap-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: folder, to: root.appendingPathComponent(inside))
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/zip")
        process.currentDirectoryURL = root
        process.arguments = ["-q", "-r", stored ? "-0" : "-9", zip.path, "."]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw CocoaError(.fileWriteUnknown) }
    }

    /// ada's archive: 60 tweets a minute apart, every tenth a reply to the one before, every
    /// seventh with #history, one of 300 characters, and likes of her own tweet 3 and of a
    /// tweet that is not here.
    package static func sixtyTweets() -> ArchiveFixture {
        var fixture = ArchiveFixture()
        var tweets = ArchiveFixture.tweets(60) { index in
            index == 59
                ? String(repeating: "long ", count: 60) + "end"
                : "archive word \(index)" + (index % 7 == 0 ? " #history" : "")
        }
        for index in stride(from: 10, to: 60, by: 10) { tweets[index].replyTo = tweets[index - 1].id }
        fixture.tweets = tweets
        fixture.likes = [tweets[3].id, 1_700_000_000_000_000_000]
        return fixture
    }
}
