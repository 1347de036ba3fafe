// swift-tools-version: 6.0
import PackageDescription

// The benchmarks, apart from what users build (as swift-nio keeps its own): they drive the release
// tweetcli, built here from the package one folder up, against a floor and against sqlite3 or psql.
//
//     swift build -c release --static-swift-stdlib --package-path Benchmarks
//     Benchmarks/.build/release/tweetbench --help

/// The floor is linked as tweetcli is, so that the ratio compares equal start-ups.
let floorLink: [LinkerSetting] = [
    .unsafeFlags(["-Xlinker", "--no-export-dynamic"]),
    .unsafeFlags(
        ["-use-ld=gold", "-Xlinker", "--section-ordering-file=\(Context.packageDirectory)/Linker/floor.order"],
        .when(configuration: .release)),
]

let package = Package(
    name: "Benchmarks",
    dependencies: [.package(name: "tweetcli", path: "..")],
    targets: [
        // The store-at-scale benchmark: every command a fresh process, against the floor and a peer.
        .executableTarget(
            name: "tweetbench",
            dependencies: [
                .product(name: "ScratchPostgres", package: "tweetcli"),
                .product(name: "TweetSystem", package: "tweetcli"),
                // Built beside tweetbench, which runs them from its own directory.
                .product(name: "tweetcli", package: "tweetcli"),
                .product(name: "tweetcli-fetch", package: "tweetcli"),
                "floor",
            ]),
        // The benchmark's baseline: the cost of starting any Swift CLI that imports Foundation.
        .executableTarget(name: "floor", linkerSettings: floorLink),
        // Micro-benchmark of the tweet-text rules.
        .executableTarget(name: "textbench", dependencies: [.product(name: "TwitterText", package: "tweetcli")]),
    ],
    swiftLanguageModes: [.v6]
)
