/// Random text for differential tests of the string operators: values and patterns built from
/// pieces that stress Unicode matching (accents precomposed and combining, ß, Turkish I, emoji
/// sequences, CJK, compatibility characters, CR LF) or from plain ASCII only, so that both the
/// byte-level and the Unicode paths are exercised.
public enum RandomText {
    /// Every ASCII character but NUL and CR, one a piece; CR and CR LF come separately so that
    /// plain-ASCII text stays mostly free of them.
    private static let ascii: [String] = (1..<128).compactMap { $0 == 13 ? nil : String(UnicodeScalar(UInt8($0))) }
    /// Letters and LIKE's wildcards, more often than the rest of ASCII.
    private static let common = ["a", "b", "c", "A", "B", "C", "e", "E", "i", "I", "s", "S", "k", "K", "*", "?", "\\"]
    private static let unicode = [
        "é", "É", "e\u{301}", "E\u{301}", "ë", "ñ", "Ñ", "ø", "å", "Å", "ü", "\u{301}", "\u{308}", "\u{327}",
        "ß", "ẞ", "ss", "SS", "İ", "ı", "i\u{307}", "👍", "👍🏽", "🏳️‍🌈", "\u{200D}", "🇫🇷", "漢", "字", "ｱ", "ﬁ",
        "\u{212A}", "\u{212B}", "\u{2126}", "Ω", "\u{600}", "\r", "\r\n", "\0", "\u{FFFD}",
    ]

    /// `count` texts for escaping tests, which must meet their special characters often: each
    /// of up to `maxLength` scalars is one of `special` once in `specialOneIn` on average, and
    /// otherwise a scalar from `ordinary`.
    public static func escapingTexts(
        count: Int, seed: UInt64, special: [Unicode.Scalar], ordinary: ClosedRange<UInt32>, maxLength: Int, specialOneIn: Int
    ) -> [String] {
        var random = SeededGenerator(seed: seed)
        return (0..<count).map { _ in
            var text = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 0...maxLength, using: &random) {
                if Int.random(in: 0..<specialOneIn, using: &random) == 0 {
                    text.append(special.randomElement(using: &random) ?? "<")
                } else {
                    text.append(Unicode.Scalar(UInt32.random(in: ordinary, using: &random)) ?? "x")
                }
            }
            return String(text)
        }
    }

    /// A string of up to `maxPieces` pieces; `asciiOnly` keeps to ASCII other than CR and NUL.
    public static func string(using generator: inout SeededGenerator, asciiOnly: Bool, maxPieces: Int = 8) -> String {
        (0..<Int.random(in: 0...maxPieces, using: &generator)).map { _ in piece(using: &generator, asciiOnly: asciiOnly) }.joined()
    }

    private static func piece(using generator: inout SeededGenerator, asciiOnly: Bool) -> String {
        switch Int.random(in: 0..<10, using: &generator) {
        case 0..<4: return common.randomElement(using: &generator) ?? "a"
        case 4..<7 where !asciiOnly: return unicode.randomElement(using: &generator) ?? "é"
        default: return ascii.randomElement(using: &generator) ?? "a"
        }
    }

    /// A pattern for `value`: often a slice of it (by Unicode scalars, so a combining mark may
    /// lose its base), sometimes with its case changed or, for `LIKE`, with wildcards in it;
    /// otherwise an unrelated random string.
    public static func pattern(for value: String, using generator: inout SeededGenerator, asciiOnly: Bool, wildcards: Bool) -> String {
        let scalars = Array(value.unicodeScalars)
        guard Int.random(in: 0..<3, using: &generator) > 0, !scalars.isEmpty else {
            return string(using: &generator, asciiOnly: asciiOnly, maxPieces: 4)
        }
        let start = Int.random(in: 0...scalars.count, using: &generator)
        let end = Int.random(in: start...scalars.count, using: &generator)
        var slice = String(String.UnicodeScalarView(scalars[start..<end]))
        switch Int.random(in: 0..<4, using: &generator) {
        case 0: slice = slice.uppercased()
        case 1: slice = slice.lowercased()
        default: break
        }
        guard wildcards else { return slice }
        var pattern = ""
        for character in slice {
            switch Int.random(in: 0..<8, using: &generator) {
            case 0: pattern += "?"
            case 1: pattern += "*"
            default: pattern.append(character)
            }
        }
        let ends = ["", "*", "?"]
        return (ends.randomElement(using: &generator) ?? "") + pattern + (ends.randomElement(using: &generator) ?? "")
    }

    /// Whether `text` is plain ASCII as the byte-level path sees it: bytes 0x01 to 0x7F, no CR.
    public static func isPlainASCII(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 != 0 && $0 < 0x80 && $0 != 0x0D }
    }
}
