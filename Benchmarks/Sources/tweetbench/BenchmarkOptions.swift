/// The command line of `tweetbench`.
struct BenchmarkOptions: Equatable {
    static let usage = """
        usage: Benchmarks/.build/release/tweetbench [--engine local|postgresql [--connection socket|tls|pgbouncer]]
                                                    [--tweets N] [--small N] [--runs R]
                                                    [--users U] [--follows F] [--seed S] [--query Q] [--keep DIR]
                                                    [--huge N [--huge-users U]] [--markdown]
               Benchmarks/.build/release/tweetbench --write-stall [--stall-posts N] [--stall-tweets N] [--engine E]
                                                    [--users U] [--follows F] [--seed S] [--keep DIR] [--markdown]
               Benchmarks/.build/release/tweetbench --archive-import [--archive-tweets N] [--runs R] [--seed S]
                                                    [--keep DIR] [--markdown]
        """

    static let help = """
        Benchmarks the release tweetcli against the floor (a Swift tool that only starts) and the same
        queries in SQL (sqlite3, or psql for PostgreSQL), on two seeded data sets, every command a fresh
        process (issues 3 and 10).

        \(usage)

          --engine E    local (a store directory, against sqlite3; the default) or postgresql (a
                        throwaway PostgreSQL cluster in the workspace, against psql)
          --connection C  how tweetcli and psql reach the PostgreSQL engine's server: socket (a Unix
                        socket, the default), tls (TCP on the loopback with TLS, verify-full against
                        the benchmark's own certificate authority, and a SCRAM-SHA-256 password), or
                        pgbouncer (a PgBouncer in transaction pooling mode, on a Unix socket)
          --tweets N    tweets (and likes) in the large data set (default 1000000)
          --small N     tweets (and likes) in the small data set, for the growth ratio (default 10000)
          --runs R      timed runs per command after one warm-up, at least 5 (default 5)
          --users U     users in each data set (default 1000)
          --follows F   users each user follows (default 100)
          --seed S      the seeder's random seed (default 42)
          --query Q     what explore searches for (default: the signed-in user's first 3 letters)
          --keep DIR    build in DIR (new or empty) and keep it, instead of a temporary directory
          --huge N      also a third data set of N tweets (and likes), timed with the others and
                        held to the 10M targets (issue 11's locally, issue 46's on PostgreSQL);
                        10000000 takes about an hour locally and 80 minutes on PostgreSQL, and
                        40 to 50 GB of disk at its peak
          --huge-users U  users in the third data set (default 10000), following --follows each
          --markdown    print the report as Markdown, for the README

          --write-stall     instead: time N consecutive posts, each a fresh process, on one store
                            seeded with --stall-tweets tweets, and report their median, p99, p99.9
                            and max latency, peak RSS and bytes written (issue 11)
          --stall-posts N   posts in the write-stall test (default 75000)
          --stall-tweets N  tweets (and likes) its store is seeded with (default 100000)
          --stall-log FILE  also write each post's start and latency, and when each background
                            compaction ended, to FILE (tab-separated), to see what the slow ones met

          --archive-import    instead: import a synthetic Twitter archive (zipped with zip) into an
                              empty store, each run a fresh process, and report the time and peak
                              RSS (issue 12)
          --archive-tweets N  tweets in the archive (default 100000)

        Build the binaries first with: swift build -c release --static-swift-stdlib

        """

    var engine = Engine.local
    /// How the clients reach the PostgreSQL engine's server.
    var connection = PostgresServer.Connection.socket
    var tweets = 1_000_000
    var small = 10_000
    var runs = 5
    var users = 1_000
    var follows = 100
    var seed: UInt64 = 42
    /// What explore searches for; `nil` picks the signed-in user's first three letters.
    var query: String?
    var keep: String?
    /// Tweets (and likes) in a third data set, or 0 for none.
    var huge = 0
    var hugeUsers = 10_000
    var markdown = false
    /// Run the write-stall test instead of the command benchmark.
    var writeStall = false
    var stallPosts = 75_000
    var stallTweets = 100_000
    /// Where the write-stall test writes each post's and compaction's timing, if anywhere.
    var stallLog: String?
    /// Run the archive-import benchmark instead.
    var archiveImport = false
    var archiveTweets = 100_000
    /// Only write the synthetic archive into this folder (the benchmark runs itself so, in a child).
    var writeArchiveTo: String?
    /// `-h` or `--help` was given: print ``help`` and do nothing else.
    var wantsHelp = false

    /// The defaults.
    init() {}

    /// Parses `arguments` (without the program name); `--name value` and `--name=value` both work.
    /// - Throws: ``BenchmarkError/usage(_:)``.
    init(arguments: [String]) throws {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            let (name, inline) = Self.split(argument)
            func value() throws -> String {
                if let inline { return inline }
                guard index < arguments.count else { throw BenchmarkError.usage("\(name) needs a value") }
                index += 1
                return arguments[index - 1]
            }
            func flag() throws -> Bool {
                guard inline == nil else { throw BenchmarkError.usage("\(name) takes no value") }
                return true
            }
            func number(atLeast minimum: Int) throws -> Int {
                let text = try value()
                guard let number = Int(text), number >= minimum else {
                    throw BenchmarkError.usage("\(name) must be a whole number of at least \(minimum), not '\(text)'")
                }
                return number
            }
            switch name {
            case "-h", "--help": wantsHelp = try flag()
            case "--engine":
                let text = try value()
                guard let engine = Engine(rawValue: text) else {
                    throw BenchmarkError.usage("--engine must be local or postgresql, not '\(text)'")
                }
                self.engine = engine
            case "--connection":
                let text = try value()
                guard let connection = PostgresServer.Connection(rawValue: text) else {
                    throw BenchmarkError.usage("--connection must be socket, tls or pgbouncer, not '\(text)'")
                }
                self.connection = connection
            case "--tweets": tweets = try number(atLeast: 1)
            case "--small": small = try number(atLeast: 1)
            case "--runs": runs = try number(atLeast: 5)
            case "--users": users = try number(atLeast: 2)
            case "--follows": follows = try number(atLeast: 0)
            case "--seed":
                let text = try value()
                guard let seed = UInt64(text) else {
                    throw BenchmarkError.usage("--seed must be a whole number from 0, not '\(text)'")
                }
                self.seed = seed
            case "--query":
                query = try value()
                if query?.isEmpty ?? true { throw BenchmarkError.usage("--query needs some text") }
            case "--keep":
                keep = try value()
                if keep?.isEmpty ?? true { throw BenchmarkError.usage("--keep needs a directory") }
            case "--huge": huge = try number(atLeast: 1)
            case "--huge-users": hugeUsers = try number(atLeast: 2)
            case "--markdown": markdown = try flag()
            case "--write-stall": writeStall = try flag()
            case "--stall-posts": stallPosts = try number(atLeast: 1)
            case "--stall-tweets": stallTweets = try number(atLeast: 1)
            case "--stall-log":
                stallLog = try value()
                if stallLog?.isEmpty ?? true { throw BenchmarkError.usage("--stall-log needs a file") }
            case "--archive-import": archiveImport = try flag()
            case "--archive-tweets": archiveTweets = try number(atLeast: 1)
            case "--write-archive-to": writeArchiveTo = try value()
            default: throw BenchmarkError.usage("unknown option '\(argument)'; run 'tweetbench --help' to see them")
            }
        }
        guard wantsHelp || connection == .socket || engine == .postgresql else {
            throw BenchmarkError.usage("--connection is for --engine postgresql")
        }
        guard wantsHelp || writeStall || archiveImport || small < tweets else {
            throw BenchmarkError.usage("--small (\(small)) must be less than --tweets (\(tweets))")
        }
        guard wantsHelp || writeStall || archiveImport || huge == 0 || tweets < huge else {
            throw BenchmarkError.usage("--huge (\(huge)) must be more than --tweets (\(tweets))")
        }
    }

    /// `--name=value` as ("--name", "value"); anything else as (argument, nil).
    private static func split(_ argument: String) -> (String, String?) {
        guard argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") else { return (argument, nil) }
        return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
    }
}
