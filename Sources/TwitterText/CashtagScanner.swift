import TweetStore

/// Finds `$CASHTAGS` the way twitter-text's extractor does.
///
/// A cashtag is `$` at the start of the text or after a space or directional mark, then 1–6 ASCII
/// letters and optionally `.` or `_` and 1–2 more letters (`$TEST.T`, `$symbol_ab`), followed by
/// the end of the text, a space or ASCII punctuation: `$AAPL` but not `$123`, `$TE123ST` or
/// `$CASHTAGLONGERTHANSIX`.
enum CashtagScanner {
    /// The cashtags in `text`, in order.
    static func scan(_ text: TextBuffer) -> [ScannedEntity] {
        guard text.contains("$") else { return [] }
        var cashtags: [ScannedEntity] = []
        var searchStart = 0
        var dollar = 0
        while dollar < text.count {
            guard text.scalars[dollar] == "$", canPrecede(dollar, searchStart: searchStart, in: text),
                let end = symbolEnd(after: dollar, in: text)
            else {
                dollar += 1
                continue
            }
            cashtags.append(ScannedEntity(kind: .cashtag, range: dollar..<end, valueRange: (dollar + 1)..<end))
            searchStart = end
            dollar = end
        }
        return cashtags
    }

    /// The end of the symbol after the dollar sign at `dollar`, if there is a valid one.
    private static func symbolEnd(after dollar: Int, in text: TextBuffer) -> Int? {
        let lettersEnd = text.runEnd(from: dollar + 1) { $0.isASCIILetter }
        guard (1...6).contains(lettersEnd - dollar - 1) else { return nil }
        if let separator = text[lettersEnd], separator == "." || separator == "_" {
            let suffixEnd = text.runEnd(from: lettersEnd + 1) { $0.isASCIILetter }
            if (1...2).contains(suffixEnd - lettersEnd - 1), isBoundary(text[suffixEnd]) {
                return suffixEnd
            }
        }
        return isBoundary(text[lettersEnd]) ? lettersEnd : nil
    }

    private static func canPrecede(_ dollar: Int, searchStart: Int, in text: TextBuffer) -> Bool {
        if dollar == 0 {
            return true
        }
        guard dollar - 1 >= searchStart else { return false }
        let preceding = text.scalars[dollar - 1]
        return preceding.isTweetWhitespace || preceding.isDirectionalMarker
    }

    /// The end of the text, a space or ASCII punctuation.
    private static func isBoundary(_ next: Unicode.Scalar?) -> Bool {
        guard let next else { return true }
        return next.isTweetWhitespace || next.isASCIIPunctuation
    }
}
