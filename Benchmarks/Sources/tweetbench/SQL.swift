/// Writing values into SQL text for the `sqlite3` and `psql` shells (standard SQL string literals,
/// which PostgreSQL reads as such with its default `standard_conforming_strings`).
enum SQL {
    /// `text` as a string literal: in single quotes, with each quote doubled.
    static func literal(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }

    /// A `LIKE … ESCAPE '\'` pattern matching any text that contains `text`, with `%`, `_` and `\`
    /// in `text` matched literally.
    static func containsPattern(_ text: String) -> String {
        var escaped = ""
        for character in text {
            if character == "%" || character == "_" || character == "\\" { escaped.append("\\") }
            escaped.append(character)
        }
        return literal("%" + escaped + "%")
    }

}
