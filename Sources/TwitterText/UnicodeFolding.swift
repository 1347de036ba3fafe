@_spi(_Unicode) import Swift

/// Unicode normalisation and folding from the standard library's own Unicode data, rather than
/// from Foundation's ICU-backed `NSString` methods, which would link ICU into every command.
enum UnicodeFolding {
    /// `text` in Normalization Form C.
    static func nfc(_ text: some StringProtocol) -> String {
        var view = String.UnicodeScalarView()
        view.append(contentsOf: String(text)._nfc)
        return String(view)
    }

    /// `text` without case, diacritics or width, as Foundation's
    /// `folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)`
    /// followed by NFC gave it, which made the search indexes stores already have: a stored index
    /// and a new query must fold a word alike. Character by character, its first scalar is narrowed
    /// (full-width and half-width forms) and case-folded. Then what Foundation does depends on the
    /// base that gives (measured against it for every base and mark):
    /// - a Latin, Greek or Cyrillic base (below U+0510): decomposed, and every combining mark that
    ///   Unicode 15 knew goes, from its decomposition or written after it (é, e + ◌́ and Ω̃ fold to
    ///   e, e and ω; ≠ to =);
    /// - any other base that folding left as it was: kept whole, and only a combining diacritical
    ///   mark written right after it goes (U+0300–U+036F and U+0483–U+0489), not a second one, nor
    ///   its script's own marks (a virama, a niqqud, a Thai tone mark);
    /// - any other base that folding changed (Ｋ as ｋ is Latin; ｶ as カ and Ա as ա are not): kept
    ///   with every mark written after it.
    static func searchFold(_ text: String) -> String {
        var folded = String.UnicodeScalarView()
        for character in text {
            let scalars = Array(character.unicodeScalars)
            let (base, latin, changed) = foldedBase(scalars[0])
            folded.append(contentsOf: base)
            // Which of the scalars written after the first go.
            let goes: (Int, Unicode.Scalar) -> Bool =
                latin
                ? { _, scalar in isCombiningMark(scalar) }
                : { position, scalar in !changed && position == 1 && isCombiningDiacritic(scalar) }
            for (position, scalar) in scalars.enumerated().dropFirst() where !goes(position, scalar) {
                // A mark stays as written; a letter joined to the first (after a prepended sign)
                // is folded as a first one is.
                if isCombiningMark(scalar) || scalar.properties.generalCategory == .spacingMark {
                    folded.append(scalar)
                } else {
                    folded.append(contentsOf: foldedBase(scalar).folded)
                }
            }
        }
        return nfc(String(folded))
    }

    /// A character's first scalar folded: narrowed, case-folded, and for a Latin, Greek or
    /// Cyrillic base decomposed without its combining marks; with whether the base is one of those
    /// (below U+0510) and whether folding changed it.
    private static func foldedBase(_ scalar: Unicode.Scalar) -> (
        folded: String.UnicodeScalarView, latin: Bool, changed: Bool
    ) {
        let first = narrow(scalar)
        let decomposed = Array(String(first)._nfd)
        let base = caseFolded(decomposed[0])
        if let lead = base.first, lead.value < 0x510 {
            var folded = base
            for piece in decomposed.dropFirst() where !isCombiningMark(piece) {
                folded.append(contentsOf: caseFolded(piece))
            }
            return (folded, true, true)
        }
        let whole = caseFolded(first)
        return (whole, false, first != scalar || !whole.elementsEqual([first]))
    }

    /// A mark that extends the character before it, as Foundation's Unicode 15 data knew them:
    /// non-spacing and enclosing marks, the spacing vowel signs that extend a grapheme, the
    /// zero-width non-joiner, the half-width sound marks and the emoji skin tones.
    private static func isCombiningMark(_ scalar: Unicode.Scalar) -> Bool {
        let properties = scalar.properties
        switch properties.generalCategory {
        case .nonspacingMark, .enclosingMark: return (properties.age?.major ?? 16) < 16
        case .spacingMark: return extendingSpacingMarks.contains(scalar.value)
        default: return (0x1F3FB...0x1F3FF).contains(scalar.value) || [0x200C, 0xFF9E, 0xFF9F].contains(scalar.value)
        }
    }

    private static let extendingSpacingMarks: Set<UInt32> = [
        0x9BE, 0x9D7, 0xB3E, 0xB57, 0xBBE, 0xBD7, 0xCC2, 0xCD5, 0xCD6, 0xD3E, 0xD57, 0xDCF, 0xDDF, 0x1B35, 0x302E,
        0x302F,
    ]

    /// The combining diacritical marks of the Latin, Greek and Cyrillic blocks.
    private static func isCombiningDiacritic(_ scalar: Unicode.Scalar) -> Bool {
        (0x300...0x36F).contains(scalar.value) || (0x483...0x489).contains(scalar.value)
    }

    /// The scalar's full case folding: its uppercase mapping's lowercase mapping, twice (so that
    /// ẞ becomes "ss" as ß does). As in Foundation, which made the search indexes stores already
    /// have (a stored index and a new query must fold a word alike): dotless ı stays, and letters
    /// newer than Unicode 9 are only lowercased.
    private static func caseFolded(_ scalar: Unicode.Scalar) -> String.UnicodeScalarView {
        let value = scalar.value
        if scalar.isASCII {
            var view = String.UnicodeScalarView()
            view.append((0x41...0x5A).contains(value) ? Unicode.Scalar(value + 0x20)! : scalar)
            return view
        }
        // Unicode 16's letters are past the data Foundation had: they stay as they are.
        if value == 0x131 || (scalar.properties.age?.major ?? 16) >= 16 { return String.UnicodeScalarView([scalar]) }
        guard isFoldedByFoundation(scalar) else { return scalar.properties.lowercaseMapping.unicodeScalars }
        let once = scalar.properties.uppercaseMapping.lowercased()
        return once.unicodeScalars.allSatisfy(\.isASCII)
            ? once.unicodeScalars : once.uppercased().lowercased().unicodeScalars
    }

    private static func isFoldedByFoundation(_ scalar: Unicode.Scalar) -> Bool {
        guard let age = scalar.properties.age else { return false }
        return age.major < 9
    }

    /// A full-width or half-width form as its ordinary character (the `<wide>` and `<narrow>`
    /// compatibility decompositions of U+FF01–U+FFEE), any other scalar as it is.
    static func narrow(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        let value = scalar.value
        switch value {
        case 0xFF01...0xFF5E: return Unicode.Scalar(value - 0xFEE0)!
        default: return halfwidth[value].flatMap(Unicode.Scalar.init) ?? scalar
        }
    }

    /// The half-width and full-width forms past the ASCII block, and what Foundation's width folding
    /// makes of them (half-width Hangul as conjoining jamo; U+FFE3 left as it is).
    private static let halfwidth: [UInt32: UInt32] = Dictionary(
        uniqueKeysWithValues: [
            (0xFF5F, 0x2985), (0xFF60, 0x2986), (0xFF61, 0x3002), (0xFF62, 0x300C), (0xFF63, 0x300D),
            (
                0xFF64,
                0x3001
            ), (0xFF65, 0x30FB), (0xFF66, 0x30F2), (0xFF67, 0x30A1), (0xFF68, 0x30A3), (0xFF69, 0x30A5),
            (0xFF6A, 0x30A7), (0xFF6B, 0x30A9), (0xFF6C, 0x30E3), (0xFF6D, 0x30E5), (0xFF6E, 0x30E7),
            (
                0xFF6F,
                0x30C3
            ), (0xFF70, 0x30FC), (0xFF71, 0x30A2), (0xFF72, 0x30A4), (0xFF73, 0x30A6), (0xFF74, 0x30A8),
            (0xFF75, 0x30AA), (0xFF76, 0x30AB), (0xFF77, 0x30AD), (0xFF78, 0x30AF), (0xFF79, 0x30B1),
            (
                0xFF7A,
                0x30B3
            ), (0xFF7B, 0x30B5), (0xFF7C, 0x30B7), (0xFF7D, 0x30B9), (0xFF7E, 0x30BB), (0xFF7F, 0x30BD),
            (0xFF80, 0x30BF), (0xFF81, 0x30C1), (0xFF82, 0x30C4), (0xFF83, 0x30C6), (0xFF84, 0x30C8),
            (
                0xFF85,
                0x30CA
            ), (0xFF86, 0x30CB), (0xFF87, 0x30CC), (0xFF88, 0x30CD), (0xFF89, 0x30CE), (0xFF8A, 0x30CF),
            (0xFF8B, 0x30D2), (0xFF8C, 0x30D5), (0xFF8D, 0x30D8), (0xFF8E, 0x30DB), (0xFF8F, 0x30DE),
            (
                0xFF90,
                0x30DF
            ), (0xFF91, 0x30E0), (0xFF92, 0x30E1), (0xFF93, 0x30E2), (0xFF94, 0x30E4), (0xFF95, 0x30E6),
            (0xFF96, 0x30E8), (0xFF97, 0x30E9), (0xFF98, 0x30EA), (0xFF99, 0x30EB), (0xFF9A, 0x30EC),
            (
                0xFF9B,
                0x30ED
            ), (0xFF9C, 0x30EF), (0xFF9D, 0x30F3), (0xFF9E, 0x3099), (0xFF9F, 0x309A), (0xFFA0, 0x1160),
            (0xFFA1, 0x1100), (0xFFA2, 0x1101), (0xFFA3, 0x11AA), (0xFFA4, 0x1102), (0xFFA5, 0x11AC),
            (
                0xFFA6,
                0x11AD
            ), (0xFFA7, 0x1103), (0xFFA8, 0x1104), (0xFFA9, 0x1105), (0xFFAA, 0x11B0), (0xFFAB, 0x11B1),
            (0xFFAC, 0x11B2), (0xFFAD, 0x11B3), (0xFFAE, 0x11B4), (0xFFAF, 0x11B5), (0xFFB0, 0x111A),
            (
                0xFFB1,
                0x1106
            ), (0xFFB2, 0x1107), (0xFFB3, 0x1108), (0xFFB4, 0x1121), (0xFFB5, 0x1109), (0xFFB6, 0x110A),
            (0xFFB7, 0x110B), (0xFFB8, 0x110C), (0xFFB9, 0x110D), (0xFFBA, 0x110E), (0xFFBB, 0x110F),
            (
                0xFFBC,
                0x1110
            ), (0xFFBD, 0x1111), (0xFFBE, 0x1112), (0xFFC2, 0x1161), (0xFFC3, 0x1162), (0xFFC4, 0x1163),
            (0xFFC5, 0x1164), (0xFFC6, 0x1165), (0xFFC7, 0x1166), (0xFFCA, 0x1167), (0xFFCB, 0x1168),
            (
                0xFFCC,
                0x1169
            ), (0xFFCD, 0x116A), (0xFFCE, 0x116B), (0xFFCF, 0x116C), (0xFFD2, 0x116D), (0xFFD3, 0x116E),
            (0xFFD4, 0x116F), (0xFFD5, 0x1170), (0xFFD6, 0x1171), (0xFFD7, 0x1172), (0xFFDA, 0x1173),
            (
                0xFFDB,
                0x1174
            ), (0xFFDC, 0x1175), (0xFFE0, 0x00A2), (0xFFE1, 0x00A3), (0xFFE2, 0x00AC), (0xFFE4, 0x00A6),
            (0xFFE5, 0x00A5), (0xFFE6, 0x20A9), (0xFFE8, 0x2502), (0xFFE9, 0x2190), (0xFFEA, 0x2191),
            (
                0xFFEB,
                0x2192
            ), (0xFFEC, 0x2193), (0xFFED, 0x25A0), (0xFFEE, 0x25CB),
        ] as [(UInt32, UInt32)])
}
