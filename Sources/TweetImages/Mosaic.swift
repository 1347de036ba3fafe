import CImages
import Synchronization
import TweetSystem

/// libchafa's canvas, loaded with `dlopen` the first time a command shows a photo. Its headers need
/// GLib's, which no other part of tweetcli does, so its few functions are declared here with
/// opaque pointers, and its enumerations' values as chafa 1.12's headers give them.
package struct LibChafa: @unchecked Sendable {
    /// `ChafaCanvasMode`: CHAFA_CANVAS_MODE_TRUECOLOR and CHAFA_CANVAS_MODE_INDEXED_256.
    static let truecolor: UInt32 = 0
    static let indexed256: UInt32 = 1
    /// `ChafaPixelType`: CHAFA_PIXEL_RGBA8_UNASSOCIATED and CHAFA_PIXEL_RGB8.
    static let rgba8: UInt32 = 4
    static let rgb8: UInt32 = 8
    /// `ChafaSymbolTags`: CHAFA_SYMBOL_TAG_SPACE, CHAFA_SYMBOL_TAG_BLOCK and CHAFA_SYMBOL_TAG_HALF:
    /// block mosaics, in every terminal with colour.
    static let blocks: UInt32 = 1 << 0 | 1 << 3 | 1 << 8 | 1 << 9
    /// `ChafaPixelMode`: CHAFA_PIXEL_MODE_SYMBOLS, _SIXELS, _KITTY and _ITERM2.
    static func pixelMode(_ mode: Mosaic.Mode) -> UInt32 {
        switch mode {
        case .blocks: return 0
        case .sixels: return 1
        case .kitty: return 2
        case .iterm2: return 3
        }
    }

    /// GLib's `GString`, as chafa returns its output: `{ gchar *str; gsize len; gsize allocated_len; }`.
    struct GStringLayout {
        var text: UnsafeMutablePointer<CChar>?
        var length: Int
        var allocated: Int
    }

    let symbolMapNew: @convention(c) () -> OpaquePointer?
    let symbolMapAddByTags: @convention(c) (OpaquePointer?, UInt32) -> Void
    let symbolMapUnref: @convention(c) (OpaquePointer?) -> Void
    let configNew: @convention(c) () -> OpaquePointer?
    let configSetGeometry: @convention(c) (OpaquePointer?, Int32, Int32) -> Void
    let configSetCanvasMode: @convention(c) (OpaquePointer?, UInt32) -> Void
    let configSetSymbolMap: @convention(c) (OpaquePointer?, OpaquePointer?) -> Void
    let configSetWorkFactor: @convention(c) (OpaquePointer?, Float) -> Void
    let configSetPixelMode: @convention(c) (OpaquePointer?, UInt32) -> Void
    let configSetCellGeometry: @convention(c) (OpaquePointer?, Int32, Int32) -> Void
    let setThreads: @convention(c) (Int32) -> Void
    let configUnref: @convention(c) (OpaquePointer?) -> Void
    let canvasNew: @convention(c) (OpaquePointer?) -> OpaquePointer?
    let canvasDrawAllPixels: @convention(c) (OpaquePointer?, UInt32, UnsafePointer<UInt8>?, Int32, Int32, Int32) -> Void
    let canvasPrint: @convention(c) (OpaquePointer?, OpaquePointer?) -> UnsafeMutableRawPointer?
    let canvasUnref: @convention(c) (OpaquePointer?) -> Void
    let stringFree: @convention(c) (UnsafeMutableRawPointer?, Int32) -> UnsafeMutablePointer<CChar>?

    /// One drawing at a time in a process: libchafa's thread count and its default terminal
    /// database (which a print without terminal information reads) are global, and not made to
    /// be changed and first read from several threads at once.
    static let lock = Mutex(())

    package static let shared = Result { () throws(DynamicLibrary.Missing) -> LibChafa in
        let library = try DynamicLibrary("libchafa.so.0", package: "libchafa0")
        return LibChafa(
            symbolMapNew: try library.function("chafa_symbol_map_new"),
            symbolMapAddByTags: try library.function("chafa_symbol_map_add_by_tags"),
            symbolMapUnref: try library.function("chafa_symbol_map_unref"),
            configNew: try library.function("chafa_canvas_config_new"),
            configSetGeometry: try library.function("chafa_canvas_config_set_geometry"),
            configSetCanvasMode: try library.function("chafa_canvas_config_set_canvas_mode"),
            configSetSymbolMap: try library.function("chafa_canvas_config_set_symbol_map"),
            configSetWorkFactor: try library.function("chafa_canvas_config_set_work_factor"),
            configSetPixelMode: try library.function("chafa_canvas_config_set_pixel_mode"),
            configSetCellGeometry: try library.function("chafa_canvas_config_set_cell_geometry"),
            setThreads: try library.function("chafa_set_n_threads"),
            configUnref: try library.function("chafa_canvas_config_unref"),
            canvasNew: try library.function("chafa_canvas_new"),
            canvasDrawAllPixels: try library.function("chafa_canvas_draw_all_pixels"),
            canvasPrint: try library.function("chafa_canvas_print"),
            canvasUnref: try library.function("chafa_canvas_unref"),
            // GLib comes with libchafa, which needs it; found among its libraries.
            stringFree: try library.function("g_string_free"))
    }
}

/// A photo drawn for a terminal: as a mosaic of coloured block characters, which every colour
/// terminal shows, or in pixels by the graphics protocol the terminal speaks.
public enum Mosaic {
    /// The colours a terminal shows: 24-bit, or the 256 of xterm.
    public enum Colors: Sendable {
        case truecolor, indexed256
    }

    /// How a picture reaches the terminal.
    public enum Mode: Sendable, Equatable {
        /// Unicode block characters in SGR colours: every terminal with colour.
        case blocks(Colors)
        /// DEC sixel graphics: xterm as a VT340, foot, mlterm, WezTerm, Windows Terminal.
        case sixels
        /// kitty's graphics protocol: kitty, Ghostty.
        case kitty
        /// iTerm2's inline images: iTerm2, WezTerm.
        case iterm2

        /// Whether pictures are pixels, sent in one escape sequence that no pager can pass on.
        public var drawsPixels: Bool {
            if case .blocks = self { return false }
            return true
        }
    }

    /// The size in pixels a terminal cell has when the terminal does not say: xterm's default font's.
    public static let standardCell = (width: 10, height: 20)

    /// The columns and rows that show `width` × `height` pixels within `columns` × `rows` cells,
    /// in their proportions, for cells `cellAspect` times as tall as they are wide.
    public static func size(
        width: Int, height: Int, columns: Int, rows: Int, cellAspect: Double = 2
    ) -> (columns: Int, rows: Int) {
        guard width > 0, height > 0, columns > 0, rows > 0, cellAspect > 0 else { return (0, 0) }
        var fittedColumns = columns
        var fittedRows = max(1, Int((Double(height * fittedColumns) / (cellAspect * Double(width))).rounded()))
        if fittedRows > rows {
            fittedRows = rows
            fittedColumns = max(1, min(columns, Int((cellAspect * Double(width * rows) / Double(height)).rounded())))
        }
        return (fittedColumns, fittedRows)
    }

    /// The PNG `png` (a thumbnail) drawn within `columns` × `rows` cells (see
    /// ``lines(pixels:columns:rows:mode:cell:)``).
    public static func lines(
        png: [UInt8], columns: Int, rows: Int, mode: Mode, cell: (width: Int, height: Int) = standardCell
    ) throws(ImageError) -> [String] {
        try lines(pixels: try Pixels.decodePNG(png), columns: columns, rows: rows, mode: mode, cell: cell)
    }

    /// `pixels` drawn within `columns` × `rows` cells of `cell` pixels each. As blocks: lines
    /// holding nothing but block characters and `ESC [ … m` colours (whatever libchafa printed
    /// otherwise is left out). In pixels: one line, the protocol's escape sequence exactly as the
    /// protocol specifies it, or an error; after it, the cursor stands on the picture's last row.
    public static func lines(
        pixels: Pixels, columns: Int, rows: Int, mode: Mode, cell: (width: Int, height: Int) = standardCell
    ) throws(ImageError) -> [String] {
        try LibChafa.lock.withLock { _ throws(ImageError) -> [String] in
            try drawn(pixels: pixels, columns: columns, rows: rows, mode: mode, cell: cell)
        }
    }

    private static func drawn(
        pixels: Pixels, columns: Int, rows: Int, mode: Mode, cell: (width: Int, height: Int)
    ) throws(ImageError) -> [String] {
        let library = try ImageIntake.loaded(LibChafa.shared)
        let aspect = mode.drawsPixels ? Double(cell.height) / Double(max(1, cell.width)) : 2
        let (width, height) = size(
            width: pixels.width, height: pixels.height, columns: columns, rows: rows, cellAspect: aspect)
        guard width > 0 else { return [] }
        guard let symbols = library.symbolMapNew(), let config = library.configNew() else {
            throw .libraryMissing(reason: "libchafa could not make a canvas")
        }
        defer {
            library.symbolMapUnref(symbols)
            library.configUnref(config)
        }
        library.symbolMapAddByTags(symbols, LibChafa.blocks)
        library.configSetSymbolMap(config, symbols)
        library.configSetGeometry(config, Int32(width), Int32(height))
        library.configSetPixelMode(config, LibChafa.pixelMode(mode))
        if case .blocks(let colors) = mode {
            library.configSetCanvasMode(config, colors == .truecolor ? LibChafa.truecolor : LibChafa.indexed256)
        } else {
            library.configSetCellGeometry(config, Int32(cell.width), Int32(cell.height))
        }
        // A listing draws a few small thumbnails: starting threads for each costs more than it
        // saves, and the quickest symbol search is good enough at this size.
        library.setThreads(1)
        library.configSetWorkFactor(config, 0.1)
        guard let canvas = library.canvasNew(config) else {
            throw .libraryMissing(reason: "libchafa could not make a canvas")
        }
        defer { library.canvasUnref(canvas) }
        pixels.bytes.withUnsafeBufferPointer {
            library.canvasDrawAllPixels(
                canvas, pixels.channels == 4 ? LibChafa.rgba8 : LibChafa.rgb8, $0.baseAddress, Int32(pixels.width),
                Int32(pixels.height), Int32(pixels.width * pixels.channels))
        }
        guard let printed = library.canvasPrint(canvas, nil) else {
            throw .libraryMissing(reason: "libchafa printed nothing")
        }
        let string = printed.load(as: LibChafa.GStringLayout.self)
        let bytes = string.text.map { Array(UnsafeRawBufferPointer(start: $0, count: string.length)) } ?? []
        _ = library.stringFree(printed, 1)
        guard case .blocks = mode else {
            var escape = bytes
            while escape.last == 0x0A { escape.removeLast() }
            guard PixelEscape.isWellFormed(escape, mode: mode) else {
                throw .libraryMissing(reason: "libchafa printed something that is not a picture")
            }
            return [String(decoding: escape, as: UTF8.self)]
        }
        return bytes.split(separator: 0x0A, omittingEmptySubsequences: false).prefix(height).map {
            sanitized(bytes: Array($0)) + "\u{1B}[0m"
        }
    }

    /// How many characters of a mosaic's line show: all but its control sequences. Counted on
    /// the bytes (a character is a byte that does not continue another), as a page of mosaics has
    /// tens of thousands. A picture in pixels counts none.
    public static func visibleCount(_ line: String) -> Int {
        if PixelEscape.opensString(line.utf8.first, line.utf8.dropFirst().first) { return 0 }
        // Over the string's own bytes where it has them (a page draws thousands of such lines, and
        // stepping through a UTF8View costs several times a buffer's loop).
        if let count = line.utf8.withContiguousStorageIfAvailable(visibleCount(bytes:)) { return count }
        return Array(line.utf8).withUnsafeBufferPointer(visibleCount(bytes:))
    }

    private static func visibleCount(bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var count = 0
        var inEscape = false
        var afterEscape = false
        for byte in bytes {
            if byte == 0x1B {
                (inEscape, afterEscape) = (true, true)
            } else if inEscape {
                // `ESC [` opens a control sequence, which a byte from 0x40 to 0x7E ends.
                if !(afterEscape && byte == 0x5B), (0x40...0x7E).contains(byte) { inEscape = false }
                afterEscape = false
            } else if byte & 0xC0 != 0x80 {
                count += 1
            }
        }
        return count
    }

    /// `line` with only printable characters and SGR sequences (`ESC [`, digits and `;`, `m`): any
    /// other control sequence is left out whole, and other control characters (C0 and C1) too.
    public static func sanitized(_ line: Substring) -> String {
        sanitized(bytes: Array(line.utf8))
    }

    /// ``sanitized(_:)`` of a line's UTF-8 bytes.
    public static func sanitized(bytes source: [UInt8]) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(source.count)
        var index = 0
        while index < source.count {
            let byte = source[index]
            if byte == 0x1B {
                guard index + 1 < source.count, source[index + 1] == 0x5B else {
                    index += 1
                    continue
                }
                var end = index + 2
                while end < source.count, (0x20...0x3F).contains(source[end]) { end += 1 }
                let final = end < source.count ? source[end] : nil
                if final == 0x6D, source[(index + 2)..<end].allSatisfy({ (0x30...0x39).contains($0) || $0 == 0x3B }) {
                    output += source[index...end]
                }
                index = final.map { (0x40...0x7E).contains($0) } == true ? end + 1 : end
            } else if byte < 0x20 || byte == 0x7F {
                index += 1
            } else if byte == 0xC2, index + 1 < source.count, (0x80...0x9F).contains(source[index + 1]) {
                index += 2  // A C1 control character, as UTF-8 writes it.
            } else {
                output.append(byte)
                index += 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}

extension Pixels {
    /// A PNG's pixels, as RGB or RGBA in 8 bits a channel. `checkSize` sees the size the header
    /// gives before any pixel is decoded; by default, what a thumbnail may be.
    /// - Throws: ``ImageError/damaged(file:format:reason:)`` naming `file`, with libpng's reason.
    package static func decodePNG(
        _ bytes: [UInt8], file: String = "a thumbnail",
        checkSize: (_ width: Int, _ height: Int) throws(ImageError) -> Void = { width, height throws(ImageError) in
            guard width * height <= ImageIntake.maximumWholePixels else {
                throw .tooManyPixels(
                    file: "a thumbnail", width: width, height: height, maximum: ImageIntake.maximumWholePixels)
            }
        }
    ) throws(ImageError) -> Pixels {
        let library = try ImageIntake.loaded(LibPNG.shared)
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        let begun = bytes.withUnsafeBytes { library.beginReadFromMemory(&image, $0.baseAddress, $0.count) }
        defer { library.free(&image) }
        guard begun != 0 else { throw .damaged(file: file, format: .png, reason: message(image)) }
        let (width, height) = (Int(image.width), Int(image.height))
        try checkSize(width, height)
        // PNG_FORMAT_FLAG_ALPHA, PNG_FORMAT_RGBA and PNG_FORMAT_RGB (macros Swift does not import).
        let alpha = image.format & 0x01 != 0
        image.format = alpha ? 3 : 2
        let channels = alpha ? 4 : 3
        var pixels = [UInt8](repeating: 0, count: width * height * channels)
        let read = pixels.withUnsafeMutableBytes { library.finishRead(&image, nil, $0.baseAddress, 0, nil) }
        guard read != 0 else { throw .damaged(file: file, format: .png, reason: message(image)) }
        return Pixels(width: width, height: height, channels: channels, bytes: pixels)
    }

    /// libpng's message for the last error, from the fixed buffer in `image`.
    private static func message(_ image: png_image) -> String {
        var message = image.message
        let text = withUnsafeBytes(of: &message) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        return text.isEmpty ? "libpng gave no reason" : text
    }
}
