// swift-tools-version: 6.0
import PackageDescription

/// Async functions run on their caller's executor (SE-0461), so a command's work stays on the main
/// thread instead of hopping to the cooperative pool at every `await`.
let sameExecutor: [SwiftSetting] = [.enableUpcomingFeature("NonisolatedNonsendingByDefault")]

let package = Package(
    name: "tweetcli",
    products: [
        .library(name: "TweetCore", targets: ["TweetCore"]),
        .executable(name: "tweetcli", targets: ["tweetcli"]),
        .executable(name: "floor", targets: ["floor"]),
        .executable(name: "tweetbench", targets: ["tweetbench"]),
        .executable(name: "textbench", targets: ["textbench"]),
    ],
    targets: [
        // libxcrypt (Debian's libcrypt-dev): yescrypt password hashing.
        .systemLibrary(name: "CCrypt", path: "Sources/CCrypt"),
        .target(name: "TweetCore", dependencies: ["CCrypt"], swiftSettings: sameExecutor),
        // The CLI's logic (arguments, commands, rendering, terminal), unit-tested without processes;
        // the executable only calls it (swift-format's SwiftFormat library and thin executable).
        .target(name: "TweetCLI", dependencies: ["TweetCore"], swiftSettings: sameExecutor),
        .executableTarget(name: "tweetcli", dependencies: ["TweetCLI"], swiftSettings: sameExecutor),
        // The benchmark's baseline: the cost of starting any Swift CLI that imports Foundation.
        .executableTarget(name: "floor"),
        // Micro-benchmark of the tweet-text rules: `swift run -c release textbench`.
        .executableTarget(name: "textbench", dependencies: ["TweetCore"]),
        // Issue 3's benchmark: drives the release tweetcli, floor and sqlite3 as separate processes.
        .executableTarget(name: "tweetbench"),
        // Depends on tweetcli too, so `swift test` builds the binary the end-to-end tests run.
        .testTarget(
            name: "TweetCoreTests", dependencies: ["TweetCore", "tweetcli"],
            // Twitter's twitter-text conformance data (Apache 2.0, LICENSE beside it).
            resources: [.copy("Fixtures")], swiftSettings: sameExecutor),
        // Depends on tweetcli too, so the terminal tests have the binary to run in tmux.
        .testTarget(
            name: "TweetCLITests", dependencies: ["TweetCLI", "TweetCore", "tweetcli"], swiftSettings: sameExecutor),
    ],
    swiftLanguageModes: [.v6]
)
