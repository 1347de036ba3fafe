// swift-tools-version: 6.0
import PackageDescription

/// Async functions run on their caller's executor (SE-0461), so a command's work stays on the main
/// thread instead of hopping to the cooperative pool at every `await`.
///
/// Concrete generic types' metadata comes from direct accessor calls, which pass the conformances
/// the compiler already knows, rather than from mangled names the runtime demangles: for those,
/// each conformance a type needs (`String: Hashable`, `CodingKeys: CodingKey`…) is found by
/// scanning every conformance record in the binary, about 240,000 instructions each on a first
/// use, which every command paid a dozen times over before its first useful byte (callgrind).
let sameExecutor: [SwiftSetting] = [
    .enableUpcomingFeature("NonisolatedNonsendingByDefault"),
    .unsafeFlags(["-Xfrontend", "-disable-concrete-type-metadata-mangled-name-accessors"]),
    // Each function in a section of its own, so that the linker can place the ones commands run
    // together (see `functionOrder`) and drop the ones nothing calls.
    .unsafeFlags(["-Xfrontend", "-function-sections"]),
]

/// The static Swift runtime's link arguments export every symbol of the program's own modules
/// (`-export-dynamic`), which nothing looks up: a dynamic symbol table of 2,600 Swift symbols that
/// the runtime's start-up `dladdr` scans symbol by symbol (93,000 instructions of the 104,000 a
/// command saves without them).
/// Linked after those arguments, this takes the export back; the floor is linked the same way.
let privateSymbols: [LinkerSetting] = [.unsafeFlags(["-Xlinker", "--no-export-dynamic"])]

/// A release link of `program` lays out the functions its commands run side by side, in the
/// order `Linker/<program>.order` gives (written by Scripts/function-order.py from callgrind runs):
/// a command touched 91 pages' worth of the text section's 64 KiB windows before, 40 after
/// (`feed`, perf record -e page-faults), each a page fault. The floor is linked the same way.
/// The option is gold's, so gold is named (the toolchain's default linker today).
func functionOrder(_ program: String) -> [LinkerSetting] {
    let order = "\(Context.packageDirectory)/Linker/\(program).order"
    return [
        .unsafeFlags(["-use-ld=gold", "-Xlinker", "--section-ordering-file=\(order)"], .when(configuration: .release))
    ]
}

let package = Package(
    name: "tweetcli",
    products: [
        .library(name: "TweetCore", targets: ["TweetCore"]),
        .executable(name: "tweetcli", targets: ["tweetcli"]),
        .executable(name: "tweetcli-fetch", targets: ["tweetcli-fetch"]),
        .executable(name: "floor", targets: ["floor"]),
        .executable(name: "tweetbench", targets: ["tweetbench"]),
        .executable(name: "textbench", targets: ["textbench"]),
    ],
    targets: [
        // libxcrypt (Debian's libcrypt-dev): yescrypt password hashing. Linked as its archive
        // (libcrypt.a, by TweetCore below), not as libcrypt.so: one shared library fewer for the
        // dynamic loader to map, relocate and search on every symbol it binds, which cost every
        // command about 116,000 instructions and a dozen page faults before main (callgrind, perf).
        .systemLibrary(name: "CCrypt", path: "Sources/CCrypt"),
        // libpq's declarations (Debian's libpq-dev), for the server engine, which loads libpq with
        // dlopen when a PostgreSQL store is used: linked, it would slow every command's start-up.
        .systemLibrary(name: "CLibPQ", path: "Sources/CLibPQ", providers: [.apt(["libpq-dev"])]),
        // zlib's declarations (Debian's zlib1g-dev), for reading a zipped Twitter archive; loaded
        // with dlopen by the one command that needs it, like libpq.
        .systemLibrary(name: "CZlib", path: "Sources/CZlib", providers: [.apt(["zlib1g-dev"])]),
        // prctl, ioprio_set, gettid and malloc.h's M_MMAP_THRESHOLD, which Swift cannot call or see
        // (variadic, without a libc wrapper, or in no module): the benchmark's subreaper, the
        // priority of compactions' merges, and how the bulk commands' heap is held.
        .systemLibrary(name: "CProcessControl", path: "Sources/CProcessControl"),
        // The engine-neutral store: the DocumentStore protocol and its value types (queries,
        // transactions, JSON values, index declarations, errors), as swift-nio's NIOCore.
        .target(name: "TweetStore", swiftSettings: sameExecutor),
        // The local engine: a log-structured store of JSON Lines files in one directory, and its doctor.
        .target(name: "TweetStoreLocal", dependencies: ["CProcessControl", "TweetStore"], swiftSettings: sameExecutor),
        // The PostgreSQL engine: documents as JSONB rows, the same queries and transactions.
        .target(name: "TweetStorePostgres", dependencies: ["TweetStore", "CLibPQ"], swiftSettings: sameExecutor),
        // Models, auth, services and view models, over the protocol only.
        .target(
            name: "TweetCore", dependencies: ["CCrypt", "CZlib", "TweetStore"], swiftSettings: sameExecutor,
            linkerSettings: [.linkedLibrary(":libcrypt.a")]),
        // The CLI's logic (arguments, commands, rendering, terminal), unit-tested without processes;
        // the executable only calls it (swift-format's SwiftFormat library and thin executable).
        .target(
            name: "TweetCLI",
            dependencies: ["CProcessControl", "TweetCore", "TweetStore", "TweetStoreLocal", "TweetStorePostgres"],
            swiftSettings: sameExecutor),
        .executableTarget(
            name: "tweetcli", dependencies: ["TweetCLI"], swiftSettings: sameExecutor,
            linkerSettings: privateSymbols + functionOrder("tweetcli")),
        // Fetches a twtxt feed over http(s) with URLSession, for tweetcli, which runs it: its own
        // program, since FoundationNetworking's libcurl would load into every command's start-up.
        // Linked with the static runtime, FoundationNetworking needs libcurl named (Debian's libcurl4-openssl-dev).
        .executableTarget(name: "tweetcli-fetch", linkerSettings: [.linkedLibrary("curl")]),
        // The benchmark's baseline: the cost of starting any Swift CLI that imports Foundation.
        .executableTarget(name: "floor", linkerSettings: privateSymbols + functionOrder("floor")),
        // Micro-benchmark of the tweet-text rules: `swift run -c release textbench`.
        .executableTarget(name: "textbench", dependencies: ["TweetCore"]),
        // Issue 3's benchmark: drives the release tweetcli, floor and sqlite3 as separate processes.
        .executableTarget(name: "tweetbench", dependencies: ["CProcessControl"]),
        // Depends on tweetcli too, so `swift test` builds the binary the end-to-end tests run.
        .testTarget(
            name: "TweetCoreTests",
            dependencies: [
                "TweetCore", "TweetStore", "TweetStoreLocal", "TweetStorePostgres", "TweetCLI", "tweetcli",
                "tweetcli-fetch",
            ],
            // Twitter's twitter-text conformance data (Apache 2.0, LICENSE beside it).
            resources: [.copy("Fixtures")], swiftSettings: sameExecutor),
        // Depends on tweetcli too, so the terminal tests have the binary to run in tmux.
        .testTarget(
            name: "TweetCLITests",
            dependencies: ["CProcessControl", "TweetCLI", "TweetCore", "TweetStore", "TweetStoreLocal", "tweetcli"],
            swiftSettings: sameExecutor),
    ],
    swiftLanguageModes: [.v6]
)
