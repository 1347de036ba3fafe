import TweetStore

extension Array where Element == ScannedEntity {
    /// The entities in text order with every entity that overlaps an earlier one removed; on
    /// equal starts the one listed first wins, so list URLs first to let them win over the
    /// hashtags and mentions inside them.
    func removingOverlaps() -> [ScannedEntity] {
        let sorted = enumerated().sorted {
            ($0.element.range.lowerBound, $0.offset) < ($1.element.range.lowerBound, $1.offset)
        }
        var kept: [ScannedEntity] = []
        kept.reserveCapacity(count)
        for (_, entity) in sorted {
            if let last = kept.last, last.range.upperBound > entity.range.lowerBound {
                continue
            }
            kept.append(entity)
        }
        return kept
    }
}
