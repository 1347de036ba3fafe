extension Array where Element == String {
    /// `joined(separator:)` with `String`'s own `+=`. The standard library's `joined` is generic
    /// and not specialized for a caller in another module: its first call looks its associated
    /// types up at run time, and every command built index names and its store's path with it.
    package func concatenated(separator: String) -> String {
        var result = ""
        for (position, part) in enumerated() {
            if position > 0 { result += separator }
            result += part
        }
        return result
    }
}
