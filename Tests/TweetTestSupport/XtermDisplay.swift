import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Real pixel terminals for end-to-end tests: an X server of its own (Xvfb), a terminal on it
/// (an xterm that says it is a VT340, which draws sixels, or kitty, which draws its own graphics
/// protocol with Mesa's software OpenGL), and a screenshot of the screen taken with ImageMagick's
/// `import`, read as pixels.
package final class XtermDisplay {
    package let display: String
    /// The X server's and the xterms' process IDs: spawned and reaped here, not by Foundation's
    /// Process, whose monitor of a child reaped by someone else can call into freed memory.
    private let server: pid_t
    private var terminals: [pid_t] = []

    /// A terminal that draws pixels.
    package enum Emulator: String, Sendable, CaseIterable {
        case xterm = "/usr/bin/xterm"
        case kitty = "/usr/bin/kitty"
    }

    private static let programs = ["/usr/bin/Xvfb", "/usr/bin/import"]

    package static var isAvailable: Bool { isAvailable(.xterm) }

    package static func isAvailable(_ emulator: Emulator) -> Bool {
        (programs + [emulator.rawValue]).allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Whether CI asked for these tests to run: then a machine without the programs fails them.
    package static var isRequired: Bool { ProcessInfo.processInfo.environment["TWEETCLI_DISPLAY_TESTS"] == "require" }

    /// The screen's size in pixels.
    package static let screen = (width: 1024, height: 768)

    /// Starts an X server on a display number no other server holds.
    package init() throws {
        guard Self.isAvailable else {
            throw XtermError("Xvfb and ImageMagick's import are needed (Scripts/packages.sh installs them)")
        }
        var chosen: Int?
        for _ in 0..<20 {
            let number = Int.random(in: 200..<900)
            if !FileManager.default.fileExists(atPath: "/tmp/.X\(number)-lock") {
                chosen = number
                break
            }
        }
        guard let chosen else { throw XtermError("no free X display number") }
        display = ":\(chosen)"
        server = try Self.spawn(
            "/usr/bin/Xvfb",
            [display, "-screen", "0", "\(Self.screen.width)x\(Self.screen.height)x24", "-nolisten", "tcp"],
            environment: ProcessInfo.processInfo.environment)
        try Self.wait("the X server to start") {
            FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(chosen)")
        }
    }

    deinit {
        closeTerminals()
        Self.kill(server)
    }

    /// Kills `pid` and reaps it.
    private static func kill(_ pid: pid_t) {
        guard pid > 0 else { return }
        _ = Glibc.kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
    }

    /// Starts `program` with `arguments` and `environment`, its output and errors to /dev/null.
    private static func spawn(_ program: String, _ arguments: [String], environment: [String: String]) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, program, &actions, nil, argv, envp)
        guard status == 0 else { throw XtermError("\(program) could not start: \(String(cString: strerror(status)))") }
        return pid
    }

    /// Kills the xterms opened.
    private func closeTerminals() {
        for terminal in terminals { Self.kill(terminal) }
        terminals.removeAll()
    }

    /// Opens `emulator` (an xterm as a VT340 by default) at the top left of the screen,
    /// `columns` × `rows`, running `script` with bash (then waiting on the terminal, which goes
    /// when it does); returns when the script has written `finished`, and the terminal has had a
    /// moment to paint. A terminal opened before is closed first, so the screenshot shows this one
    /// alone. kitty keeps its settings and caches under `finished`'s folder, not the home's.
    package func run(
        script: String, finished: URL, columns: Int = 100, rows: Int = 40, in emulator: Emulator = .xterm
    ) throws {
        guard Self.isAvailable(emulator) else {
            throw XtermError("\(emulator.rawValue) is needed (Scripts/packages.sh installs it)")
        }
        closeTerminals()
        try? FileManager.default.removeItem(at: finished)  // Not there yet, the first time.
        var environment = ProcessInfo.processInfo.environment
        environment["DISPLAY"] = display
        let command = ["/bin/bash", "-c", script + "\ntouch '\(finished.path)'\nread -r _"]
        let arguments: [String]
        switch emulator {
        case .xterm:
            arguments =
                ["-ti", "vt340", "-xrm", "XTerm*numColorRegisters: 256", "-geometry", "\(columns)x\(rows)+0+0", "-e"]
                + command
        case .kitty:
            let folder = finished.deletingLastPathComponent().appendingPathComponent("kitty").path
            environment["XDG_CONFIG_HOME"] = folder
            environment["XDG_CACHE_HOME"] = folder
            environment["XDG_RUNTIME_DIR"] = folder
            try FileManager.default.createDirectory(
                atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            // No GPU here: Mesa draws kitty's OpenGL in software.
            environment["LIBGL_ALWAYS_SOFTWARE"] = "1"
            arguments =
                [
                    "--config", "NONE", "-o", "remember_window_size=no", "-o", "initial_window_width=\(columns)c",
                    "-o", "initial_window_height=\(rows)c", "-o", "cursor_blink_interval=0",
                    "-o", "window_padding_width=0", "-o", "placement_strategy=top-left",
                ] + command
        }
        terminals.append(try Self.spawn(emulator.rawValue, arguments, environment: environment))
        try Self.wait("the terminal to run its script", seconds: 60) {
            FileManager.default.fileExists(atPath: finished.path)
        }
        usleep(emulator == .kitty ? 1_500_000 : 800_000)
    }

    /// The screen as RGB pixels, rows top first, three bytes each: `import` writes a binary PPM.
    package func screenshot(saveTo file: URL? = nil) throws -> (width: Int, height: Int, rgb: [UInt8]) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/import")
        process.arguments = ["-display", display, "-window", "root", "-depth", "8", "ppm:-"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw XtermError("import could not take a screenshot") }
        if let file { try data.write(to: file) }
        return try Self.parsePPM([UInt8](data))
    }

    /// A binary PPM (`P6`, width, height, 255, then the pixels).
    static func parsePPM(_ bytes: [UInt8]) throws -> (width: Int, height: Int, rgb: [UInt8]) {
        var fields: [Int] = []
        var index = 2
        guard bytes.starts(with: Array("P6".utf8)) else { throw XtermError("the screenshot is not a PPM") }
        while fields.count < 3, index < bytes.count {
            while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D {
                index += 1
            }
            var value = 0
            while index < bytes.count, (0x30...0x39).contains(bytes[index]) {
                value = value * 10 + Int(bytes[index] - 0x30)
                index += 1
            }
            fields.append(value)
        }
        index += 1
        guard fields.count == 3, fields[2] == 255, bytes.count - index == fields[0] * fields[1] * 3 else {
            throw XtermError("the screenshot's PPM is not 8-bit RGB of its size")
        }
        return (fields[0], fields[1], Array(bytes[index...]))
    }

    private static func wait(_ what: String, seconds: Double = 20, until done: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while !done() {
            guard Date() < deadline else { throw XtermError("timed out waiting for \(what)") }
            usleep(50_000)
        }
    }
}

package struct XtermError: Error, CustomStringConvertible {
    package let description: String
    init(_ description: String) { self.description = description }
}
