// swift-tools-version: 6.0
import PackageDescription

/// Whether this package is being built as a versioned dependency of another (SwiftPM's and Xcode's
/// checkouts, or a registry's download): SwiftPM refuses unsafe flags there, so such a build gets none.
let isVersionedDependency = ["/.build/checkouts/", "/SourcePackages/checkouts/", "/registry/downloads/"]
    .contains { Context.packageDirectory.contains($0) }

/// Every target's Swift settings.
let swiftSettings: [SwiftSetting] =
    [
        // Async functions run on their caller's executor (SE-0461): a command stays on one thread.
        .enableUpcomingFeature("NonisolatedNonsendingByDefault")
    ]
    + (isVersionedDependency
        ? []
        : [
            // Concrete generic metadata through accessor calls, not demangling: cheaper start-up.
            .unsafeFlags(["-Xfrontend", "-disable-concrete-type-metadata-mangled-name-accessors"]),
            // A section per function, so the link can place the functions commands run together.
            .unsafeFlags(["-Xfrontend", "-function-sections"]),
        ])

/// The executables' link: no exported symbols (the runtime's start-up scans them), and in release
/// the function order `Linker/<program>.order` lists (written by Scripts/function-order.py).
func startupLink(_ program: String) -> [LinkerSetting] {
    let order = "\(Context.packageDirectory)/Linker/\(program).order"
    return [
        .unsafeFlags(["-Xlinker", "--no-export-dynamic"]),
        .unsafeFlags(["-use-ld=gold", "-Xlinker", "--section-ordering-file=\(order)"], .when(configuration: .release)),
    ]
}

let package = Package(
    name: "tweetcli",
    products: [
        .executable(name: "tweetcli", targets: ["tweetcli"]),
        .executable(name: "tweetcli-fetch", targets: ["tweetcli-fetch"]),
        // The course's layer, for other packages: models, auth, services and view models, and
        // the engines to open a store with.
        .library(name: "TweetCore", targets: ["TweetCore"]),
        .library(name: "TweetStoreLocal", targets: ["TweetStoreLocal"]),
        .library(name: "TweetStorePostgres", targets: ["TweetStorePostgres"]),
        .library(name: "TwitterText", targets: ["TwitterText"]),
        // For the benchmarks package: its processes are started and reaped through this layer, and
        // its PostgreSQL server is a scratch cluster, as the tests' is.
        .library(name: "TweetSystem", targets: ["TweetSystem"]),
        .library(name: "ScratchPostgres", targets: ["ScratchPostgres"]),
    ],
    targets: [
        // C declarations Swift cannot reach otherwise.
        .systemLibrary(name: "CCrypt", path: "Sources/CCrypt"),  // libxcrypt: yescrypt (linked as libcrypt.a)
        .systemLibrary(name: "CLibPQ", path: "Sources/CLibPQ", providers: [.apt(["libpq-dev"])]),  // dlopen'd
        .systemLibrary(name: "CArchive", path: "Sources/CArchive", providers: [.apt(["libarchive-dev"])]),  // dlopen'd
        .systemLibrary(name: "CProcessControl", path: "Sources/CProcessControl"),  // prctl, ioprio, mallopt
        // The image libraries and libcrypto's SHA-256, all dlopen'd.
        .systemLibrary(
            name: "CImages", path: "Sources/CImages",
            providers: [.apt(["libpng-dev", "libturbojpeg0-dev", "libwebp-dev", "libgif-dev", "libssl-dev"])]),

        // The system-call and process layer: files, one spawn, paths, strings without Foundation.
        .target(name: "TweetSystem", dependencies: ["CProcessControl"], swiftSettings: swiftSettings),
        // The engine-neutral store: the DocumentStore protocol and its values; no system calls.
        .target(name: "TweetStore", swiftSettings: swiftSettings),
        // The local engine: a log-structured store of JSON Lines files in one directory.
        .target(name: "TweetStoreLocal", dependencies: ["TweetStore", "TweetSystem"], swiftSettings: swiftSettings),
        // The PostgreSQL engine: documents as JSONB rows, over libpq.
        .target(
            name: "TweetStorePostgres", dependencies: ["TweetStore", "TweetSystem", "CLibPQ"],
            swiftSettings: swiftSettings),
        // Twitter's tweet-text rules (twitter-text v3) and the search terms of a caption.
        .target(name: "TwitterText", dependencies: ["TweetStore"], swiftSettings: swiftSettings),
        // Twitter's account archive: the zip, its JavaScript files, the account, tweets and likes.
        .target(
            name: "TwitterArchive", dependencies: ["CArchive", "TweetStore", "TweetSystem", "TwitterText"],
            swiftSettings: swiftSettings),
        // Images a person gives: checked whole by the libraries made for each format, without metadata.
        .target(name: "TweetImages", dependencies: ["CImages", "TweetSystem"], swiftSettings: swiftSettings),
        // The course's layer: models, auth, services and view models, over the protocol only.
        .target(
            name: "TweetCore",
            dependencies: ["CCrypt", "TweetImages", "TweetStore", "TweetSystem", "TwitterText", "TwitterArchive"],
            swiftSettings: swiftSettings, linkerSettings: [.linkedLibrary(":libcrypt.a")]),
        // Demo data for `seed`: it writes TweetCore's documents, so it sits above TweetCore.
        .target(
            name: "TweetDemo", dependencies: ["TweetCore", "TweetImages", "TweetStore", "TwitterText"],
            swiftSettings: swiftSettings),
        // The command line as a library (arguments, commands, rendering, terminal).
        .target(
            name: "TweetCLI",
            dependencies: [
                "TweetCore", "TweetDemo", "TweetImages", "TweetStore", "TweetStoreLocal", "TweetStorePostgres",
                "TweetSystem", "TwitterText",
            ],
            swiftSettings: swiftSettings),
        .executableTarget(
            name: "tweetcli", dependencies: ["TweetCLI"], swiftSettings: swiftSettings,
            linkerSettings: startupLink("tweetcli")),
        // Fetches a twtxt feed over http(s): its own program, since FoundationNetworking loads libcurl.
        .executableTarget(name: "tweetcli-fetch", linkerSettings: [.linkedLibrary("curl")]),

        // A throwaway PostgreSQL cluster (initdb, pg_ctl), for the tests and the benchmarks.
        .target(name: "ScratchPostgres", dependencies: ["TweetSystem"], swiftSettings: swiftSettings),
        // What every test target shares: temporary stores in each layout, the PostgreSQL cluster,
        // running the built tweetcli, tmux.
        .target(
            name: "TweetTestSupport",
            dependencies: [
                "CImages", "ScratchPostgres", "TweetCore", "TweetImages", "TweetStore", "TweetStoreLocal",
                "TweetStorePostgres", "TweetSystem",
            ],
            path: "Tests/TweetTestSupport", swiftSettings: swiftSettings),
        .testTarget(
            name: "TweetSystemTests", dependencies: ["TweetSystem", "TweetTestSupport"], swiftSettings: swiftSettings),
        .testTarget(
            name: "TweetStoreTests", dependencies: ["TweetStore", "TweetTestSupport"], swiftSettings: swiftSettings),
        .testTarget(
            name: "TweetStoreLocalTests", dependencies: ["TweetStoreLocal", "TweetTestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "TweetStorePostgresTests", dependencies: ["TweetStorePostgres", "TweetTestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "TwitterTextTests", dependencies: ["TwitterText", "TweetTestSupport"],
            // Twitter's twitter-text conformance data (Apache 2.0, LICENSE beside it).
            resources: [.copy("Fixtures")], swiftSettings: swiftSettings),
        .testTarget(
            name: "TwitterArchiveTests", dependencies: ["TwitterArchive", "TweetTestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "TweetImagesTests", dependencies: ["TweetImages", "TweetSystem", "TweetTestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "TweetCoreTests", dependencies: ["TweetCore", "TweetTestSupport"], swiftSettings: swiftSettings),
        .testTarget(
            name: "TweetDemoTests", dependencies: ["TweetDemo", "TweetImages", "TweetTestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "TweetCLITests", dependencies: ["TweetCLI", "TweetTestSupport"], swiftSettings: swiftSettings),
        // The built executables, run as a user runs them: in a process, in tmux.
        .testTarget(
            name: "tweetcliTests", dependencies: ["TweetCLI", "TweetTestSupport", "tweetcli", "tweetcli-fetch"],
            // The start-up instruction budgets, read by their test as data.
            exclude: ["Budgets"], swiftSettings: swiftSettings),
    ],
    swiftLanguageModes: [.v6]
)
