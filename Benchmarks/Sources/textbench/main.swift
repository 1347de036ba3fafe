// Micro-benchmark of TweetText on full-length captions. Run in release mode:
//
//     swift run -c release --package-path Benchmarks textbench [iterations]
//
// For each caption it times `TweetText.parse` and `TweetText.entities(in:)` separately and
// together, call by call, and prints the median and 99th percentile in microseconds.
import TwitterText

/// A caption of exactly `length` characters, repeating `pattern`.
func caption(_ pattern: String, length: Int = 280) -> String {
    String(String(repeating: pattern, count: length / pattern.count + 1).prefix(length))
}

let captions: [(name: String, text: String)] = [
    (
        "latin + URLs/mentions/hashtags",
        caption(
            "Reading @swiftlang's notes on #Swift6 concurrency https://www.swift.org/documentation/ "
                + "and #StrictConcurrency, thanks @jack! More at example.com/path?q=1 $AAPL ")
    ),
    (
        "CJK + hashtags/URL",
        caption("今日はとても良い天気です。#東京 の街を散歩しました https://example.jp/tokyo @tanaka_san 한국어도 조금 #서울 中文也可以。")
    ),
    (
        "emoji-heavy",
        caption("Party 🎉🎉 👨‍👩‍👧‍👦 family 🇯🇵🇰🇷 👍🏽👍🏿 #fun ❤️‍🔥 @friend 😂😂 1️⃣ 🏴󠁧󠁢󠁳󠁣󠁴󠁿 ")
    ),
]

let iterations = CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? 10_000
var checksum = 0

/// The median and 99th percentile, in microseconds, of `iterations` calls of `body`, after a
/// warm-up; `checksum` accumulates the results so the calls cannot be optimised away.
func measure(iterations: Int, checksum: inout Int, _ body: () -> Int) -> (median: Double, p99: Double) {
    let clock = ContinuousClock()
    for _ in 0..<max(iterations / 10, 100) {
        checksum &+= body()
    }
    var samples: [Double] = []
    samples.reserveCapacity(iterations)
    for _ in 0..<iterations {
        let start = clock.now
        checksum &+= body()
        let elapsed = start.duration(to: clock.now).components
        samples.append(Double(elapsed.seconds) * 1e6 + Double(elapsed.attoseconds) / 1e12)
    }
    samples.sort()
    return (samples[samples.count / 2], samples[min(samples.count - 1, samples.count * 99 / 100)])
}

func format(_ value: Double) -> String {
    let hundredths = Int((value * 100).rounded())
    let fraction = hundredths % 100
    return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
}

print("textbench: \(iterations) iterations per measurement, times in µs per caption (median / p99)")
for (name, text) in captions {
    let parsed = TweetText.parse(text)
    let entities = TweetText.entities(in: text)
    let parse = measure(iterations: iterations, checksum: &checksum) { TweetText.parse(text).weightedLength }
    let extract = measure(iterations: iterations, checksum: &checksum) { TweetText.entities(in: text).urls.count }
    let both = measure(iterations: iterations, checksum: &checksum) {
        TweetText.parse(text).weightedLength + TweetText.entities(in: text).hashtags.count
    }
    print(
        """

        \(name): \(text.count) characters, \(text.utf16.count) UTF-16 units, weighted length \
        \(parsed.weightedLength), \(entities.mentions.count) mentions, \(entities.hashtags.count) hashtags, \
        \(entities.urls.count) URLs
          parse             \(format(parse.median)) / \(format(parse.p99))
          entities          \(format(extract.median)) / \(format(extract.p99))
          parse + entities  \(format(both.median)) / \(format(both.p99))
        """
    )
}
print("\n(checksum \(checksum))")
