/// Path strings joined and split without Foundation's `NSString`: a command's start-up pays for
/// every framework it touches, and these run on every command.
package enum PathName {
    /// `directory/name`.
    package static func join(_ directory: String, _ name: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }

    /// The directory part: `"/a/b"` → `"/a"`, `"b"` → `"."`.
    package static func parent(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// An absolute path with `.` and `..` resolved, relative ones against `workingDirectory`.
    package static func absolute(_ path: String, workingDirectory: String) -> String {
        let full = path.hasPrefix("/") ? path : join(workingDirectory, path)
        var parts: [Substring] = []
        for part in full.split(separator: "/") {
            switch part {
            case ".": continue
            case "..": if !parts.isEmpty { parts.removeLast() }
            default: parts.append(part)
            }
        }
        // String's own `+=` of a String: the generic `+` of a Substring is not specialized here.
        var absolute = ""
        for part in parts {
            absolute += "/"
            absolute += String(part)
        }
        return absolute.isEmpty ? "/" : absolute
    }
}
