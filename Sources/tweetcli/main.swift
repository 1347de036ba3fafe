import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The environment variables tweetcli reads, and only those: building ProcessInfo's whole
/// dictionary costs more than the rest of a short command's set-up.
let variables = [
    "HOME", "TWEETCLI_STORE", "XDG_DATA_HOME", "XDG_STATE_HOME", "NO_COLOR", "TERM", "COLUMNS",
    "TWEETCLI_FOLD_THRESHOLD",
]
var environment: [String: String] = [:]
for name in variables {
    if let value = getenv(name) { environment[name] = String(cString: value) }
}
let code = await CommandLineTool.run(arguments: Array(CommandLine.arguments.dropFirst()), environment: environment)
exit(code)
