import Foundation
import Testing

@testable import TweetCore
@testable import TweetStore
@testable import TweetStoreLocal
@testable import TweetSystem

/// The binary searches that find a collection's or an index key's range in a segment.
struct BisectionTests {
    /// On random sorted runs with repeats, `equalRange` gives what two bounds give, and what a
    /// scan gives, and it makes fewer probes than the two bounds together once the range is small.
    @Test func equalRangeAgreesWithBothBoundsAndAScan() {
        var generator = SplitMix64(seed: 21)
        var sharedProbes = 0
        var separateProbes = 0
        for _ in 0..<2_000 {
            let values = (0..<Int.random(in: 0...300, using: &generator)).map { _ in
                Int.random(in: 0...40, using: &generator)
            }.sorted()
            let target = Int.random(in: -1...41, using: &generator)
            var probes = 0
            let order = { (position: Int) -> ComparisonResult in
                probes += 1
                return values[position] < target
                    ? .orderedAscending : values[position] > target ? .orderedDescending : .orderedSame
            }
            let range = Bisection.equalRange(0..<values.count, order)
            sharedProbes += probes
            probes = 0
            let bounds =
                Bisection.bound(
                    0..<values.count, upper: false, order)..<Bisection.bound(
                    0..<values.count, upper: true, order)
            separateProbes += probes
            let first = values.firstIndex(of: target) ?? values.firstIndex { $0 > target } ?? values.count
            let scanned = first..<(values.lastIndex(of: target).map { $0 + 1 } ?? first)
            #expect(range == bounds, "\(target) in \(values)")
            #expect(range == scanned, "\(target) in \(values)")
        }
        #expect(sharedProbes < separateProbes * 3 / 4, "\(sharedProbes) probes against \(separateProbes)")
    }
}

/// Store paths made absolute, and strings joined, without the standard library's generic `joined`.
struct PathNameTests {
    @Test func absolutePathsResolveDotsAgainstTheWorkingDirectory() {
        let cases: [(String, String, String)] = [
            ("store", "/home/ada", "/home/ada/store"),
            ("./a/../b/", "/home/ada", "/home/ada/b"),
            ("../../..", "/home/ada", "/"),
            ("/x//y/./z", "/ignored", "/x/y/z"),
            ("/", "/w", "/"),
            ("..", "/", "/"),
            ("", "/w/d", "/w/d"),
        ]
        for (path, directory, expected) in cases {
            #expect(PathName.absolute(path, workingDirectory: directory) == expected, "\(path) in \(directory)")
        }
    }

    @Test func concatenatedJoinsAsJoinedDoes() {
        for parts in [[], [""], ["a"], ["a", "b"], ["", "", ""], ["東京", "x y", "é"]] {
            for separator in ["", ",", " / "] {
                #expect(parts.concatenated(separator: separator) == parts.joined(separator: separator))
            }
        }
    }
}
