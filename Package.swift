// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "tweetcli",
    products: [
        .library(name: "TweetCore", targets: ["TweetCore"]),
        .executable(name: "tweetcli", targets: ["tweetcli"]),
    ],
    targets: [
        // libxcrypt (Debian's libcrypt-dev): yescrypt password hashing.
        .systemLibrary(name: "CCrypt", path: "Sources/CCrypt"),
        .target(name: "TweetCore", dependencies: ["CCrypt"]),
        .executableTarget(name: "tweetcli", dependencies: ["TweetCore"]),
        // Depends on tweetcli too, so `swift test` builds the binary the end-to-end tests run.
        .testTarget(name: "TweetCoreTests", dependencies: ["TweetCore", "tweetcli"]),
    ],
    swiftLanguageModes: [.v6]
)
