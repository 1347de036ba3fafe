/// A command line that cannot be run as written: exit 64 with the usage line.
struct UsageError: Error, Equatable {
    let message: String
    /// The usage line of the command concerned, if known.
    var usage: String?

    init(_ message: String, usage: String? = nil) {
        self.message = message
        self.usage = usage
    }
}
