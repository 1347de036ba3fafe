import TweetStore

/// An entity as a scanner finds it: ranges of scalars in a ``TextBuffer``.
struct ScannedEntity {
    /// What the entity is.
    var kind: TweetEntity.Kind
    /// The whole entity, including its sign and, for a list, its slug.
    var range: Range<Int>
    /// The part reported as the entity's value (for a URL, the whole range).
    var valueRange: Range<Int>
    /// For a list, the slug with its leading slash.
    var listSlugRange: Range<Int>? = nil

    /// The public form, with UTF-16 offsets and strings.
    func entity(in text: TextBuffer) -> TweetEntity {
        TweetEntity(
            kind: kind,
            range: text.utf16Range(range),
            value: text.string(valueRange),
            listSlug: listSlugRange.map { text.string($0) }
        )
    }
}
