import TweetCore
import TweetImages
import TweetStore

/// The seed's photos: landscapes drawn here from a number (a sky, a sun, two rows of hills),
/// checked and kept as `post --image` keeps a photo, thumbnail and all, and shared by the tweets
/// that carry one: a few blobs, however many tweets.
struct DemoPictures: Sendable {
    static let count = 8
    static let size = (width: 480, height: 320)
    private static let alts = [
        "An orange sun setting over blue hills", "A pale morning sun above green hills",
        "A red sun low over purple hills", "A yellow sun high over a teal valley",
        "Dusk over dark hills, the sun nearly gone", "A white sun in a grey winter sky",
        "A pink sky over a range of brown hills", "A golden sun over rolling fields",
    ]

    let images: [TweetImage]

    /// Draws the pictures and puts their blobs (photo and thumbnail) in `store`.
    static func make(into store: any DocumentStore) async throws -> DemoPictures {
        var images: [TweetImage] = []
        for number in 0..<count {
            let checked = try ImageIntake.check(try draw(number).png(), file: "the demo photo \(number + 1)")
            try await store.putBlob(checked.bytes, address: checked.sha256)
            if let thumbnail = checked.thumbnail, let address = checked.thumbnailSHA256 {
                try await store.putBlob(thumbnail, address: address)
            }
            images.append(TweetImage(checked, alt: alts[number]))
        }
        return DemoPictures(images: images)
    }

    /// The photo tweet `index` of `count` carries, if any: every other one of the newest 40 (the
    /// first pages of the feed, half with photos), and one in 12 of the rest, by `draw`.
    func image(for index: Int, of count: Int, draw: UInt64) -> TweetImage? {
        let carries = index >= count - 40 ? index % 2 == 0 : draw % 12 == 0
        return carries ? images[Int((draw >> 8) % UInt64(images.count))] : nil
    }

    /// Picture `number`: a sky from one colour to another, a sun, and two rows of hills.
    static func draw(_ number: Int) -> Pixels {
        let (width, height) = size
        let palettes: [(top: [Int], horizon: [Int], sun: [Int], far: [Int], near: [Int])] = [
            ([30, 40, 110], [250, 150, 60], [255, 200, 80], [60, 70, 140], [30, 35, 80]),
            ([120, 180, 240], [230, 240, 250], [255, 250, 210], [90, 160, 90], [50, 110, 50]),
            ([60, 20, 60], [240, 90, 60], [230, 50, 40], [110, 60, 130], [60, 30, 80]),
            ([40, 120, 220], [170, 220, 250], [255, 240, 120], [40, 140, 130], [20, 90, 90]),
            ([10, 10, 40], [120, 60, 90], [250, 120, 60], [40, 30, 60], [15, 10, 30]),
            ([150, 160, 170], [220, 225, 230], [250, 250, 250], [120, 125, 130], [80, 85, 90]),
            ([200, 90, 150], [250, 190, 170], [255, 230, 200], [150, 100, 70], [100, 60, 40]),
            ([70, 130, 200], [250, 220, 140], [255, 210, 60], [170, 150, 60], [110, 100, 30]),
        ]
        let palette = palettes[number % palettes.count]
        let sun = (
            x: width * (2 + 3 * number % 7) / 10, y: height * (3 + number % 3) / 10, radius: 28 + 4 * (number % 4)
        )
        var bytes = [UInt8](repeating: 0, count: width * height * 3)
        func mix(_ a: [Int], _ b: [Int], _ t: Int, _ of: Int) -> [Int] {
            (0..<3).map { a[$0] + (b[$0] - a[$0]) * t / max(1, of) }
        }
        for y in 0..<height {
            let sky = mix(palette.top, palette.horizon, y, height * 7 / 10)
            for x in 0..<width {
                // Hills as sums of a few waves, from small integer tables: the same on every machine.
                let far = height * 6 / 10 + Self.wave(x + 37 * number, period: 160, amplitude: 24)
                let near = height * 8 / 10 + Self.wave(x * 2 + 91 * number, period: 230, amplitude: 18)
                let (dx, dy) = (x - sun.x, y - sun.y)
                var colour = y < far ? sky : y < near ? palette.far : palette.near
                if y < far, dx * dx + dy * dy <= sun.radius * sun.radius { colour = palette.sun }
                let base = (y * width + x) * 3
                for channel in 0..<3 { bytes[base + channel] = UInt8(clamping: colour[channel]) }
            }
        }
        return Pixels(width: width, height: height, channels: 3, bytes: bytes)
    }

    /// A triangle wave: `amplitude` up and down over `period` pixels.
    private static func wave(_ x: Int, period: Int, amplitude: Int) -> Int {
        let phase = x % period
        let half = period / 2
        return (phase < half ? phase : period - phase) * 2 * amplitude / half - amplitude
    }
}
