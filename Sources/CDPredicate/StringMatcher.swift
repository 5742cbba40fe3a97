/// One of NSPredicate's string operators with its right-hand side prepared once, for testing many
/// values against it: Core Data's SQL functions in CDFetch keep one per statement, so a query over
/// a million rows folds and parses its pattern once instead of once a row.
///
/// The answer is always the one ``StringMatching/stringSearch(_:_:flags:operation:)`` and
/// ``StringMatching/like(_:pattern:flags:)`` give. When the value and the folded pattern are both
/// *plain ASCII* — every byte below 0x80 and none a carriage return — each byte is one Character,
/// `[c]` folds just A–Z to a–z and `[d]` changes nothing, so the operator runs on the bytes without
/// making a String. Anything else takes the Unicode path with the pattern already folded. Carriage
/// return is left to the Unicode path because CR LF is a single Character: "a\r\nb" does not contain
/// "a\r".
package final class StringMatcher: Sendable {
    /// Which operator the matcher applies.
    package enum Operator: Equatable, Sendable {
        case search(StringMatching.SearchOperation)
        case like
    }

    /// The `flags` it was made with (see ``StringMatching``).
    package let flags: Int
    package let kind: Operator
    private let foldedPattern: String
    private let likeTokens: [StringMatching.LikeToken<Character>]
    /// The folded pattern's bytes when it is plain ASCII, else nil (then every value takes the
    /// Unicode path).
    private let asciiPattern: [UInt8]?
    private let asciiLikeTokens: [StringMatching.LikeToken<UInt8>]
    private let caseInsensitive: Bool

    package init(pattern: String, flags: Int, kind: Operator) {
        self.flags = flags
        self.kind = kind
        caseInsensitive = flags & 0x1 != 0
        foldedPattern = StringMatching.fold(pattern, flags: flags)
        let bytes = Array(foldedPattern.utf8)
        asciiPattern = bytes.withUnsafeBytes(Self.isPlainASCII) ? bytes : nil
        if kind == .like {
            likeTokens = StringMatching.likeTokens(foldedPattern, escape: "\\", anyRun: "*", anyOne: "?")
            asciiLikeTokens = asciiPattern.map { StringMatching.likeTokens($0, escape: UInt8(ascii: "\\"), anyRun: UInt8(ascii: "*"), anyOne: UInt8(ascii: "?")) } ?? []
        } else {
            likeTokens = []
            asciiLikeTokens = []
        }
    }

    /// Whether `value` matches.
    package func matches(_ value: String) -> Bool {
        if let answer = value.utf8.withContiguousStorageIfAvailable(asciiMatch) ?? nil { return answer }
        return unicodeMatch(value)
    }

    /// Whether the UTF-8 text `value` matches (invalid sequences read as U+FFFD, as
    /// `String(decoding:as:)` reads them).
    package func matches(utf8 value: UnsafeBufferPointer<UInt8>) -> Bool {
        asciiMatch(value) ?? unicodeMatch(String(decoding: value, as: UTF8.self))
    }

    /// The byte-level answer, or nil when the value or the pattern is not plain ASCII.
    package func asciiMatch(_ value: UnsafeBufferPointer<UInt8>) -> Bool? {
        guard let asciiPattern, Self.isPlainASCII(UnsafeRawBufferPointer(value)) else { return nil }
        return caseInsensitive ? byteMatch(LowercasedASCII(base: value), asciiPattern) : byteMatch(value, asciiPattern)
    }

    private func byteMatch<Text: RandomAccessCollection<UInt8>>(_ text: Text, _ needle: [UInt8]) -> Bool where Text.Index == Int {
        switch kind {
        case .like:
            return StringMatching.likeMatches(text, asciiLikeTokens)
        case .search(let operation):
            let length = text.count, count = needle.count
            guard length >= count else { return false }
            switch operation {
            case .equal: return length == count && Self.bytes(text, at: 0, equal: needle)
            case .beginsWith: return Self.bytes(text, at: 0, equal: needle)
            case .endsWith: return Self.bytes(text, at: length - count, equal: needle)
            case .contains: return (0...(length - count)).contains { Self.bytes(text, at: $0, equal: needle) }
            }
        }
    }

    private static func bytes<Text: RandomAccessCollection<UInt8>>(_ text: Text, at start: Int, equal needle: [UInt8]) -> Bool
    where Text.Index == Int {
        var index = start
        for byte in needle {
            if text[index] != byte { return false }
            index += 1
        }
        return true
    }

    private func unicodeMatch(_ value: String) -> Bool {
        let folded = StringMatching.fold(value, flags: flags)
        switch kind {
        case .search(let operation): return StringMatching.search(folded, for: foldedPattern, operation: operation)
        case .like: return StringMatching.likeMatches(Array(folded), likeTokens)
        }
    }

    /// Whether every byte is below 0x80 and none is a carriage return; eight bytes at a time.
    static func isPlainASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101, highBits: UInt64 = 0x8080_8080_8080_8080
        let carriageReturns = ones &* 0x0D
        var offset = 0
        while offset + 8 <= bytes.count {
            let word = bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            // A byte of `diff` is zero exactly where `word` holds a carriage return, and
            // `(diff - ones) & ~diff` has a high bit set if and only if `diff` has a zero byte.
            let diff = word ^ carriageReturns
            if (word | ((diff &- ones) & ~diff)) & highBits != 0 { return false }
            offset += 8
        }
        while offset < bytes.count {
            let byte = bytes[offset]
            if byte >= 0x80 || byte == 0x0D { return false }
            offset += 1
        }
        return true
    }

    /// Plain ASCII bytes read with A–Z folded to a–z, as `[c]` folds them.
    private struct LowercasedASCII: RandomAccessCollection {
        let base: UnsafeBufferPointer<UInt8>
        var startIndex: Int { 0 }
        var endIndex: Int { base.count }
        subscript(position: Int) -> UInt8 {
            let byte = base[position]
            return byte &- UInt8(ascii: "A") < 26 ? byte | 0x20 : byte
        }
    }
}
