import Foundation

/// The directory that holds the data sets, the sessions and the children's stderr: a fresh
/// temporary one that is removed at the end, or one the user named with `--keep`.
struct Workspace {
    /// The directory.
    let path: String
    /// Whether it stays after the benchmark.
    let isKept: Bool

    /// Creates a temporary directory, or `kept` (which must be missing or empty).
    /// - Throws: ``BenchmarkError/io(path:reason:)``.
    init(kept: String?) throws {
        let manager = FileManager.default
        if let kept {
            let path = URL(fileURLWithPath: kept).standardizedFileURL.path
            // A directory that cannot be listed does not exist yet: it is created below.
            if let contents = try? manager.contentsOfDirectory(atPath: path), !contents.isEmpty {
                throw BenchmarkError.io(path: path, reason: "is not empty; name a new directory for --keep")
            }
            do {
                try manager.createDirectory(atPath: path, withIntermediateDirectories: true)
            } catch {
                throw BenchmarkError.io(path: path, reason: "cannot be created; name another directory for --keep")
            }
            self.path = path
            isKept = true
        } else {
            var template = Array(
                (NSTemporaryDirectory() as NSString).appendingPathComponent("tweetbench-XXXXXX").utf8CString)
            let created: String? = template.withUnsafeMutableBufferPointer { buffer in
                guard let base = buffer.baseAddress, mkdtemp(base) != nil else { return nil }
                return String(cString: base)
            }
            guard let created else {
                throw BenchmarkError.io(path: NSTemporaryDirectory(), reason: "cannot hold a temporary directory")
            }
            path = created
            isKept = false
        }
    }

    /// `name` inside the workspace.
    func path(_ name: String) -> String {
        (path as NSString).appendingPathComponent(name)
    }

    /// Removes the directory unless it is kept.
    func removeUnlessKept() {
        guard !isKept else { return }
        // Cleanup of a temporary directory: a failure leaves files in /tmp, not a wrong result.
        try? FileManager.default.removeItem(atPath: path)
    }
}
