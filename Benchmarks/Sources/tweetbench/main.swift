// tweetbench: issues 3 and 10's benchmark. It drives the release tweetcli, the floor and sqlite3
// (or PostgreSQL's psql) as separate processes; see docs/BENCHMARK.md.
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

// A child that dies mid-pipe must be an EPIPE error here, not a SIGPIPE that kills the benchmark.
signal(SIGPIPE, SIG_IGN)

do {
    let options = try BenchmarkOptions(arguments: Array(CommandLine.arguments.dropFirst()))
    if options.wantsHelp {
        print(BenchmarkOptions.help, terminator: "")
        exit(0)
    }
    if let folder = options.writeArchiveTo {
        _ = try ArchiveImport.writeArchive(tweets: options.archiveTweets, seed: options.seed, to: folder)
        exit(0)
    }
    let executables = try Executables.locate(engine: options.engine)
    if options.archiveImport {
        print(try ArchiveImport(options: options, executables: executables).run().render(markdown: options.markdown))
    } else if options.writeStall {
        print(try WriteStall(options: options, executables: executables).run().render(markdown: options.markdown))
    } else {
        let result = try Benchmark(options: options, executables: executables).run()
        print(BenchmarkReport(result: result).render(markdown: options.markdown), terminator: "")
    }
} catch BenchmarkError.usage(let message) {
    FileHandle.standardError.write(Data("error: \(message)\n\(BenchmarkOptions.usage)\n".utf8))
    exit(64)
} catch {
    let message = (error as? LocalizedError)?.errorDescription ?? "\(error)"
    FileHandle.standardError.write(Data("error: \(message)\n".utf8))
    exit(1)
}
