import CImages

/// A GIF: read record by record with giflib until its first frame, which is decoded whole (later
/// frames are never decoded, so a GIF of a thousand huge frames costs one); then that frame is
/// written as a GIF of its own, with its colour tables and transparency. Comments and application
/// extensions (where XMP hides) are left behind, and so is any animation: tweetcli shows a GIF's
/// first frame.
struct GIFIntake {
    let bytes: [UInt8]
    let file: String

    /// What giflib's read callback reads from.
    private final class Reader {
        let bytes: [UInt8]
        var offset = 0

        init(_ bytes: [UInt8]) {
            self.bytes = bytes
        }
    }

    /// What giflib's write callback appends to.
    private final class Writer {
        var bytes: [UInt8] = []
    }

    /// The first frame as read: where it sits, its pixels (colour indexes) top row first, and its tables.
    private struct Frame {
        var left = 0
        var top = 0
        var width = 0
        var height = 0
        var pixels: [UInt8] = []
        var localColors: UnsafeMutablePointer<ColorMapObject>?
        /// The graphics control extension before it, for its transparent colour.
        var control: [UInt8]?
    }

    func check() throws(ImageError) -> Intake {
        let library = try ImageIntake.loaded(GifLib.shared)
        let reader = Reader(bytes)
        var error: Int32 = 0
        let read: InputFunc = { gif, buffer, count in
            guard let gif, let buffer, let user = gif.pointee.UserData, count > 0 else { return 0 }
            let reader = Unmanaged<Reader>.fromOpaque(user).takeUnretainedValue()
            let taken = min(Int(count), reader.bytes.count - reader.offset)
            reader.bytes.withUnsafeBufferPointer { source in
                buffer.update(from: source.baseAddress! + reader.offset, count: taken)
            }
            reader.offset += taken
            return Int32(taken)
        }
        guard
            let gif = withExtendedLifetime(
                reader, { library.openRead(Unmanaged.passUnretained(reader).toOpaque(), read, &error) })
        else { throw damaged(library.error(error)) }
        defer { _ = library.closeRead(gif, &error) }
        let frame = try withExtendedLifetime(reader) { () throws(ImageError) in try firstFrame(gif, library) }
        // A frame that reaches past the screen it says it is on makes the screen larger.
        let width = max(Int(gif.pointee.SWidth), frame.left + frame.width)
        let height = max(Int(gif.pointee.SHeight), frame.top + frame.height)
        try ImageIntake.checkSize(width, height, format: .gif, file: file)
        let kept = try write(frame, screen: (width, height), gif, library)
        return Intake(width: width, height: height, kept: kept, preview: preview(of: frame, gif))
    }

    /// The frame's colours, its transparent colour clear.
    private func preview(of frame: Frame, _ gif: UnsafeMutablePointer<GifFileType>) -> Pixels? {
        guard let table = frame.localColors ?? gif.pointee.SColorMap, let colors = table.pointee.Colors else {
            return nil
        }
        let count = Int(table.pointee.ColorCount)
        let transparent = frame.control.flatMap { $0[0] & 0x01 != 0 ? Int($0[3]) : nil }
        var bytes = [UInt8](repeating: 0, count: frame.width * frame.height * 4)
        for (position, index) in frame.pixels.enumerated() {
            let index = Int(index)
            // An index past the table (giflib does not check) is left clear.
            guard index < count, index != transparent else { continue }
            let color = colors[index]
            bytes.replaceSubrange((position * 4)..<(position * 4 + 4), with: [color.Red, color.Green, color.Blue, 255])
        }
        return Pixels(width: frame.width, height: frame.height, channels: 4, bytes: bytes)
    }

    /// Reads records up to the first image, and that image's rows.
    private func firstFrame(_ gif: UnsafeMutablePointer<GifFileType>, _ library: GifLib) throws(ImageError) -> Frame {
        try ImageIntake.checkSize(Int(gif.pointee.SWidth), Int(gif.pointee.SHeight), format: .gif, file: file)
        var frame = Frame()
        while true {
            var type = UNDEFINED_RECORD_TYPE
            guard library.recordType(gif, &type) == GIF_OK else { throw damaged(library.error(gif.pointee.Error)) }
            switch type {
            case EXTENSION_RECORD_TYPE:
                var code: Int32 = 0
                var block: UnsafeMutablePointer<GifByteType>?
                guard library.extensionFirst(gif, &code, &block) == GIF_OK else {
                    throw damaged(library.error(gif.pointee.Error))
                }
                if code == GRAPHICS_EXT_FUNC_CODE, let block, block[0] == 4 {
                    frame.control = (1...4).map { block[$0] }
                }
                while block != nil {
                    guard library.extensionNext(gif, &block) == GIF_OK else {
                        throw damaged(library.error(gif.pointee.Error))
                    }
                }
            case IMAGE_DESC_RECORD_TYPE:
                guard library.imageDescription(gif) == GIF_OK else { throw damaged(library.error(gif.pointee.Error)) }
                let description = gif.pointee.Image
                (frame.left, frame.top) = (Int(description.Left), Int(description.Top))
                (frame.width, frame.height) = (Int(description.Width), Int(description.Height))
                try ImageIntake.checkSize(frame.width, frame.height, format: .gif, file: file)
                try ImageIntake.checkSize(
                    frame.left + frame.width, frame.top + frame.height, format: .gif, file: file)
                guard description.ColorMap != nil || gif.pointee.SColorMap != nil else {
                    throw damaged("its first frame has no colour table")
                }
                frame.localColors = description.ColorMap
                frame.pixels = try rows(of: frame, interlaced: description.Interlace, gif, library)
                return frame
            case TERMINATE_RECORD_TYPE:
                throw damaged("it has no frame")
            default:
                throw damaged("it has a record giflib does not know")
            }
        }
    }

    /// The frame's rows, top first: an interlaced GIF stores every eighth row, then the fourth,
    /// the second and the rest.
    private func rows(of frame: Frame, interlaced: Bool, _ gif: UnsafeMutablePointer<GifFileType>, _ library: GifLib)
        throws(ImageError) -> [UInt8]
    {
        var order = Array(0..<frame.height)
        if interlaced {
            order = [(0, 8), (4, 8), (2, 4), (1, 2)].flatMap { start, step in
                Array(stride(from: start, to: frame.height, by: step))
            }
        }
        var pixels = [UInt8](repeating: 0, count: frame.width * frame.height)
        for row in order {
            let done = pixels.withUnsafeMutableBufferPointer {
                library.line(gif, $0.baseAddress! + row * frame.width, Int32(frame.width))
            }
            guard done == GIF_OK else { throw damaged(library.error(gif.pointee.Error)) }
        }
        return pixels
    }

    /// The frame as a GIF of its own: GIF89a when it keeps a transparent colour, else GIF87a.
    private func write(
        _ frame: Frame, screen: (width: Int, height: Int), _ gif: UnsafeMutablePointer<GifFileType>,
        _ library: GifLib
    ) throws(ImageError) -> [UInt8] {
        let writer = Writer()
        let write: OutputFunc = { gif, buffer, count in
            guard let gif, let buffer, let user = gif.pointee.UserData, count > 0 else { return 0 }
            let writer = Unmanaged<Writer>.fromOpaque(user).takeUnretainedValue()
            writer.bytes.append(contentsOf: UnsafeBufferPointer(start: buffer, count: Int(count)))
            return count
        }
        return try withExtendedLifetime(writer) { () throws(ImageError) -> [UInt8] in
            var error: Int32 = 0
            guard let output = library.openWrite(Unmanaged.passUnretained(writer).toOpaque(), write, &error) else {
                throw damaged(library.error(error))
            }
            // Only the transparency of the control extension: no delay or disposal for one frame.
            let control = frame.control.map { [$0[0] & 0x01, 0, 0, $0[3]] }
            library.setVersion(output, control != nil)
            var pixels = frame.pixels
            let colors = gif.pointee.SColorMap
            let background = colors.map { min(Int(gif.pointee.SBackGroundColor), Int($0.pointee.ColorCount) - 1) } ?? 0
            var written =
                library.putScreen(
                    output, Int32(screen.width), Int32(screen.height), 8, Int32(max(0, background)), colors) == GIF_OK
            if written, let control {
                written =
                    control.withUnsafeBytes {
                        library.putExtension(output, GRAPHICS_EXT_FUNC_CODE, 4, $0.baseAddress)
                    } == GIF_OK
            }
            if written {
                written =
                    library.putImage(
                        output, Int32(frame.left), Int32(frame.top), Int32(frame.width), Int32(frame.height), false,
                        frame.localColors) == GIF_OK
            }
            var row = 0
            while written, row < frame.height {
                written =
                    pixels.withUnsafeMutableBufferPointer {
                        library.putLine(output, $0.baseAddress! + row * frame.width, Int32(frame.width))
                    } == GIF_OK
                row += 1
            }
            let failure = written ? nil : output.pointee.Error
            // Closing frees the writer's state, whether or not everything was written.
            guard library.closeWrite(output, &error) == GIF_OK, written else {
                throw damaged(library.error(failure ?? error))
            }
            return writer.bytes
        }
    }

    private func damaged(_ reason: String) -> ImageError {
        .damaged(file: file, format: .gif, reason: reason)
    }
}
