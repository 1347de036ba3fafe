import TweetStore

/// Punycode (RFC 3492), the ASCII encoding of internationalised domain labels, needed to check
/// that a label stays within DNS's 63 characters once encoded.
enum Punycode {
    private static let base = 36
    private static let tMin = 1
    private static let tMax = 26
    private static let skew = 38
    private static let damp = 700
    private static let initialBias = 72
    private static let initialN = 0x80

    /// The Punycode encoding of `scalars`, without the `xn--` prefix.
    /// - Parameter scalars: The label's code points.
    /// - Returns: The encoding, or `nil` if it would overflow (only for absurdly long input).
    static func encode(_ scalars: [Unicode.Scalar]) -> String? {
        var output: [UInt8] = scalars.filter(\.isASCII).map { UInt8($0.value) }
        let basicCount = output.count
        var handled = basicCount
        if basicCount > 0 {
            output.append(UInt8(ascii: "-"))
        }
        var n = initialN
        var delta = 0
        var bias = initialBias
        while handled < scalars.count {
            guard let next = scalars.lazy.map({ Int($0.value) }).filter({ $0 >= n }).min() else { break }
            let (product, productOverflow) = (next - n).multipliedReportingOverflow(by: handled + 1)
            let (sum, sumOverflow) = delta.addingReportingOverflow(product)
            guard !productOverflow, !sumOverflow else { return nil }
            delta = sum
            n = next
            for scalar in scalars {
                let value = Int(scalar.value)
                if value < n {
                    delta += 1
                }
                guard value == n else { continue }
                var q = delta
                var k = base
                while true {
                    let t = k <= bias ? tMin : (k >= bias + tMax ? tMax : k - bias)
                    if q < t { break }
                    output.append(digit(t + (q - t) % (base - t)))
                    q = (q - t) / (base - t)
                    k += base
                }
                output.append(digit(q))
                bias = adapt(delta, pointCount: handled + 1, isFirst: handled == basicCount)
                delta = 0
                handled += 1
            }
            delta += 1
            n += 1
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static func digit(_ value: Int) -> UInt8 {
        value < 26 ? UInt8(ascii: "a") + UInt8(value) : UInt8(ascii: "0") + UInt8(value - 26)
    }

    private static func adapt(_ delta: Int, pointCount: Int, isFirst: Bool) -> Int {
        var delta = isFirst ? delta / damp : delta / 2
        delta += delta / pointCount
        var k = 0
        while delta > ((base - tMin) * tMax) / 2 {
            delta /= base - tMin
            k += base
        }
        return k + (base - tMin + 1) * delta / (delta + skew)
    }
}
