/// One of NSPredicate's string operators with its right-hand side prepared once, for testing many
/// values against it: Core Data's SQL functions in CDFetch keep one per statement, so a query over
/// a million rows folds and parses its pattern once instead of once a row.
///
/// The answer is always the one ``StringMatching/stringSearch(_:_:flags:operation:)`` and
/// ``StringMatching/like(_:pattern:flags:)`` give. When the value and the folded pattern are both
/// *plain ASCII* — every byte from 0x01 to 0x7F but carriage return — each byte is one Character,
/// `[c]` folds just A–Z to a–z and `[d]` changes nothing, so the operator runs on the bytes without
/// making a String. Anything else takes the Unicode path with the pattern already folded. Carriage
/// return is left to the Unicode path because CR LF is a single Character: "a\r\nb" does not begin
/// with "a\r". NUL is left out so that a caller holding NUL-terminated text (SQLite's) can offer its
/// full length to ``asciiMatch(_:)`` and look for a NUL only when the byte path declines.
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
            asciiLikeTokens =
                asciiPattern.map { StringMatching.likeTokens($0, escape: UInt8(ascii: "\\"), anyRun: UInt8(ascii: "*"), anyOne: UInt8(ascii: "?")) } ?? []
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
        switch kind {
        case .like:
            return caseInsensitive
                ? StringMatching.likeMatches(LowercasedASCII(base: value), asciiLikeTokens)
                : StringMatching.likeMatches(value, asciiLikeTokens)
        case .search(let operation):
            return asciiPattern.withUnsafeBufferPointer { needle in
                caseInsensitive
                    ? Self.search(value, for: needle, operation: operation, caseInsensitive: true, fold: LowercasedASCII.fold)
                    : Self.search(value, for: needle, operation: operation, caseInsensitive: false) { $0 }
            }
        }
    }

    /// A search on bytes, each value byte read through `fold` (the needle is folded already).
    @inline(__always)
    private static func search(
        _ text: UnsafeBufferPointer<UInt8>, for needle: UnsafeBufferPointer<UInt8>,
        operation: StringMatching.SearchOperation, caseInsensitive: Bool, fold: (UInt8) -> UInt8
    ) -> Bool {
        let length = text.count, count = needle.count
        guard count > 0 else { return operation != .equal || length == 0 }
        guard length >= count, let text = text.baseAddress, let needle = needle.baseAddress else { return false }
        func equal(at start: Int) -> Bool {
            for index in 0..<count where fold(text[start + index]) != needle[index] { return false }
            return true
        }
        switch operation {
        case .equal: return length == count && equal(at: 0)
        case .beginsWith: return equal(at: 0)
        case .endsWith: return equal(at: length - count)
        case .contains:
            // Under [c] a lower-case letter also stands for its upper case: bit 0x20 set on both
            // sides. Any other byte folds to itself.
            let first = needle[0], caseBit: UInt8 = caseInsensitive && first &- UInt8(ascii: "a") < 26 ? 0x20 : 0
            var start = 0
            while let candidate = firstOffset(of: first, orWith: caseBit, in: text, from: start, through: length - count) {
                if equal(at: candidate) { return true }
                start = candidate + 1
            }
            return false
        }
    }

    /// The first offset from `start` through `last` whose byte, with `caseBit` set, is `target`;
    /// eight bytes at a time.
    @inline(__always)
    private static func firstOffset(
        of target: UInt8, orWith caseBit: UInt8, in text: UnsafePointer<UInt8>, from start: Int,
        through last: Int
    ) -> Int? {
        guard last - start >= 7 else {
            return start <= last ? (start...last).first { text[$0] | caseBit == target } : nil
        }
        let ones: UInt64 = 0x0101_0101_0101_0101
        let targets = ones &* UInt64(target), caseBits = ones &* UInt64(caseBit)
        // The first matching byte of the eight at `offset`, if any: the lowest marked zero byte
        // of `diff` (bytes above a true zero can be marked wrongly, the lowest cannot).
        func firstMatch(at offset: Int) -> Int? {
            let diff = (UInt64(littleEndian: UnsafeRawPointer(text + offset).loadUnaligned(as: UInt64.self)) | caseBits) ^ targets
            let zeros = zeroBytes(diff)
            return zeros == 0 ? nil : offset + zeros.trailingZeroBitCount / 8
        }
        var offset = start
        while offset < last - 7 {
            if let match = firstMatch(at: offset) { return match }
            offset += 8
        }
        // The last eight offsets, overlapping some already tested (and found wanting).
        return firstMatch(at: last - 7)
    }

    /// High bits set in the bytes of `word` that are zero (and maybe in bytes above a zero one):
    /// nonzero if and only if `word` has a zero byte.
    @inline(__always)
    private static func zeroBytes(_ word: UInt64) -> UInt64 {
        (word &- 0x0101_0101_0101_0101) & ~word & 0x8080_8080_8080_8080
    }

    private func unicodeMatch(_ value: String) -> Bool {
        let folded = StringMatching.fold(value, flags: flags)
        switch kind {
        case .search(let operation): return StringMatching.search(folded, for: foldedPattern, operation: operation)
        case .like: return StringMatching.likeMatches(Array(folded), likeTokens)
        }
    }

    /// Whether every byte is from 0x01 to 0x7F and none is a carriage return; eight bytes at a time.
    static func isPlainASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count >= 8 else {
            return bytes.allSatisfy { $0 != 0 && $0 < 0x80 && $0 != 0x0D }
        }
        let carriageReturns: UInt64 = 0x0D0D_0D0D_0D0D_0D0D
        func isPlain(at offset: Int) -> Bool {
            let word = bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            return (word | zeroBytes(word) | zeroBytes(word ^ carriageReturns)) & 0x8080_8080_8080_8080 == 0
        }
        var offset = 0
        while offset < bytes.count - 8 {
            if !isPlain(at: offset) { return false }
            offset += 8
        }
        // The last eight bytes, overlapping some already checked.
        return isPlain(at: bytes.count - 8)
    }

    /// Plain ASCII bytes read with A–Z folded to a–z, as `[c]` folds them.
    private struct LowercasedASCII: RandomAccessCollection {
        let base: UnsafeBufferPointer<UInt8>
        var startIndex: Int { 0 }
        var endIndex: Int { base.count }
        subscript(position: Int) -> UInt8 { Self.fold(base[position]) }

        static func fold(_ byte: UInt8) -> UInt8 {
            byte &- UInt8(ascii: "A") < 26 ? byte | 0x20 : byte
        }
    }
}
