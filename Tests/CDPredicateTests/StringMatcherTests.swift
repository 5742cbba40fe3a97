import CDPredicate
import CDTestSupport
import Testing

/// `StringMatcher` (byte-level when value and pattern are plain ASCII) must answer exactly as
/// `StringMatching`'s Unicode implementation does, for every operator and flag combination.
@Suite struct StringMatcherTests {
    static let kinds: [StringMatcher.Operator] = [.search(.equal), .search(.contains), .search(.beginsWith), .search(.endsWith), .like]
    /// None, `[c]`, `[d]`, `[cd]`, `[l]`, `[cdl]` as Core Data logs them.
    static let flagSets = [0, 0x101, 0x180, 0x181, 0x120, 0x1A1]

    static func reference(_ value: String, _ pattern: String, flags: Int, kind: StringMatcher.Operator) -> Bool {
        switch kind {
        case .search(let operation): return StringMatching.stringSearch(value, pattern, flags: flags, operation: operation)
        case .like: return StringMatching.like(value, pattern: pattern, flags: flags)
        }
    }

    @Test func agreesWithTheUnicodeImplementationOnRandomText() {
        var generator = SeededGenerator(seed: 0x5EED_17)
        var mismatches: [String] = []
        var cases = 0, bytePathCases = 0
        for round in 0..<500 {
            let asciiOnly = round % 2 == 0
            let value = RandomText.string(using: &generator, asciiOnly: asciiOnly)
            for kind in Self.kinds {
                let pattern = RandomText.pattern(for: value, using: &generator, asciiOnly: asciiOnly, wildcards: kind == .like)
                let plain = RandomText.isPlainASCII(value) && RandomText.isPlainASCII(pattern)
                for flags in Self.flagSets {
                    let matcher = StringMatcher(pattern: pattern, flags: flags, kind: kind)
                    let expected = Self.reference(value, pattern, flags: flags, kind: kind)
                    let bytes = Array(value.utf8)
                    let fromBytes = bytes.withUnsafeBufferPointer { matcher.matches(utf8: $0) }
                    let bytePath = bytes.withUnsafeBufferPointer { matcher.asciiMatch($0) }
                    cases += 1
                    if bytePath != nil { bytePathCases += 1 }
                    if matcher.matches(value) != expected || fromBytes != expected || (bytePath ?? expected) != expected || (plain && bytePath == nil) {
                        mismatches.append(
                            "\(kind) flags \(flags): \(value.debugDescription) vs \(pattern.debugDescription): expected \(expected), "
                                + "String \(matcher.matches(value)), bytes \(fromBytes), byte path \(bytePath.map(String.init) ?? "none")")
                    }
                }
            }
        }
        #expect(cases == 15_000)
        #expect(bytePathCases > 6_000, "too few cases took the byte path: \(bytePathCases)")
        #expect(mismatches.isEmpty, "\(mismatches.count) mismatches, first: \(mismatches.prefix(5).joined(separator: "\n"))")
    }

    @Test(arguments: [
        // CR LF is one Character: a prefix or a LIKE match may not end between CR and LF.
        ("a\r\nb", "a\r", StringMatcher.Operator.search(.beginsWith), 0, false),
        ("a\r\nb", "a\r*", .like, 0, false),
        ("a\r\nb", "a?b", .like, 0, true),
        // A combining mark joins the ASCII letter before it.
        ("cafe\u{301}", "cafe", .search(.beginsWith), 0, false),
        ("cafe\u{301}", "cafe", .search(.beginsWith), 0x180, true),
        // A non-ASCII pattern that folds to ASCII: the Kelvin sign is k under [c].
        ("kilo", "\u{212A}IL", .search(.beginsWith), 0x101, true),
        ("ABC", "b", .search(.contains), 0x101, true), ("ABC", "b", .search(.contains), 0, false),
        ("[x]", "[X]", .search(.equal), 0x101, true), ("@", "`", .search(.equal), 0x101, false),
        ("abc", "", .search(.contains), 0, true), ("aac", "ab", .search(.contains), 0, false), ("xxxxxxxxxxaab", "AB", .search(.contains), 0x101, true),
        ("", "", .search(.equal), 0, true), ("", "a", .search(.endsWith), 0, false),
        ("aXbXc", "a*b?c", .like, 0, true), ("AXBXC", "a*b?c", .like, 0x101, true), ("a*c", "a\\*c", .like, 0, true),
        ("abc", "abc\\", .like, 0, false), ("abc\\", "abc\\", .like, 0, true),
    ])
    func knownCases(_ value: String, _ pattern: String, _ kind: StringMatcher.Operator, _ flags: Int, _ expected: Bool) {
        let matcher = StringMatcher(pattern: pattern, flags: flags, kind: kind)
        #expect(matcher.matches(value) == expected)
        #expect(Self.reference(value, pattern, flags: flags, kind: kind) == expected)
    }
}
