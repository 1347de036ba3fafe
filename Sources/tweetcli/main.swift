import TweetCLI

#if canImport(Glibc)
    import Glibc
#endif

// Everything but the exit lives in TweetCLI, where it is unit-tested without a process.
exit(await CommandLineTool.main(arguments: Array(CommandLine.arguments.dropFirst())))
