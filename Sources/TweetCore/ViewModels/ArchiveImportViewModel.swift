import FoundationEssentials
import Observation
import TweetImages
import TweetStore
import TweetSystem
import TwitterArchive
import TwitterText

/// Bringing a Twitter archive in: read and check it whole, create the account from it when
/// nobody is signed in, fill the profile, then add the tweets and likes.
@MainActor @Observable
public final class ArchiveImportViewModel: ErrorRecording {
    /// The archive read by ``read(path:progress:)``.
    public private(set) var archive: TwitterArchive?
    /// What the import did.
    public private(set) var report: ArchiveImportReport?
    /// The account the tweets went to.
    public private(set) var user: User?
    public package(set) var error: (any Error)?

    private let services: AppServices

    public init(services: AppServices) {
        self.services = services
    }

    /// Reads the archive at `path` (a `.zip`, or the folder it unpacks to) and checks every file
    /// tweetcli takes from it; nothing is written. `progress` hears the tweets read so far.
    /// - Throws: ``ArchiveError``.
    public func read(path: String, progress: @escaping (Int) -> Void = { _ in }) async throws {
        try await perform {
            archive = try TwitterArchive.read(path: path, progress: progress)
        }
    }

    /// Whether an account must be created from the archive first: nobody is signed in.
    public func needsAccount() async throws -> Bool {
        try await perform { try await services.auth.currentUid() == nil }
    }

    /// Creates the archive's account (its username, display name and email) and signs it in.
    /// A display name tweetcli does not take (too long, or with control characters) becomes the username.
    /// - Throws: ``ArchiveError/noAccount``, ``AuthError`` (a username or email taken, for instance).
    public func register(password: String) async throws {
        try await perform {
            guard let account = archive?.account else { throw ArchiveError.noAccount }
            guard let email = account.email, !email.isEmpty else {
                throw ArchiveError.malformed(
                    file: "data/account.js", place: "item 1",
                    reason: "it has no email to sign in with; register, then import while signed in")
            }
            let name = account.displayName.trimmed()
            let usable =
                (1...50).contains(name.count) && TextRules.forbiddenCharacter(in: name, multiline: false) == nil
            user = try await services.auth.register(
                email: email, password: password, fullname: usable ? name : account.username,
                username: account.username.lowercased())
        }
    }

    /// Fills the empty fields of the signed-in user's profile from the archive's (a field already
    /// set is kept, and reported) and adds its tweets and likes (see
    /// ``TweetService/importArchive(_:progress:)``). A profile field tweetcli refuses is
    /// left out and reported. The user is the one signed in when it starts, throughout: an
    /// account switched to meanwhile (by another terminal) gets nothing, and is not reported.
    public func importArchive(progress: @escaping @Sendable (_ done: Int, _ of: Int) -> Void = { _, _ in }) async throws
    {
        try await perform {
            try await services.auth.withViewer { try await importPinned(progress: progress) }
        }
    }

    private func importPinned(progress: @escaping @Sendable (_ done: Int, _ of: Int) -> Void) async throws {
        guard let archive else { return }
        var filled: [String] = []
        var kept: [String] = []
        var refused: [String: String] = [:]
        let profile = archive.profile
        let current = try await services.auth.currentUser()
        let fields: [(String, String?, String?, (String) -> ProfileChanges)] = [
            ("bio", profile?.bio, current?.bio, { ProfileChanges(bio: $0) }),
            ("website", profile?.website, current?.website, { ProfileChanges(website: $0) }),
            ("location", profile?.location, current?.location, { ProfileChanges(location: $0) }),
        ]
        for (name, value, now, change) in fields {
            guard let value = value?.trimmed(), !value.isEmpty else {
                continue
            }
            if let now, !now.isEmpty {
                // As the profile stores it: line breaks as \n, trimmed.
                func stored(_ text: String) -> String {
                    text.replacingEvery("\r\n", with: "\n").trimmed()
                }
                if stored(now) != stored(value) { kept.append(name) }
                continue
            }
            do {
                _ = try await services.users.updateProfile(change(value))
                filled.append(name)
            } catch let error as UserError {
                refused[name] = error.sentence
            } catch let error as TextError {
                refused[name] = error.sentence
            }
        }
        // The archive's avatar, where the account has no picture of its own yet: checked and
        // cut square as edit-profile --avatar does. One that is not a photo is left out, and said.
        if current?.avatar == nil, let bytes = try archive.avatarPhoto() {
            do {
                let image = try ImageIntake.check(bytes, file: "the archive's avatar")
                if let square = try Avatar.square(of: image) {
                    _ = try await services.users.setAvatar(png: square.bytes, address: square.sha256)
                    filled.append("picture")
                }
            } catch let error as ImageError {
                if case .libraryMissing = error { throw error }
                refused["picture"] = error.sentence
            }
        }
        var report = try await services.tweets.importArchive(archive, progress: progress)
        report.profile = filled
        report.profileKept = kept
        report.profileRefused = refused
        self.report = report
        user = try await services.auth.currentUser()
    }
}
